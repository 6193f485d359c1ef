/* SPDX-License-Identifier: BSD-3-Clause */
/* A short MPI program for `make valgrind-check` (test/valgrind-leaks.sh): it
 * makes, derives and frees meshes, and takes the library's error paths, so
 * that valgrind can tell whether dmesh leaks; and it gives every entry point
 * that takes a mesh handles that are no longer, or never were, meshes (a
 * freed handle, its copy, a handle of a finished universe, values that were
 * never handles): each must be DMESH_ERR_ARG "freed or invalid mesh handle",
 * read no memory of a mesh (valgrind), and a new mesh in the old one's
 * place must not answer to the old handle. make check runs it too. Plain C, no Check, to keep the
 * run under valgrind short. Exits 1 when a call returns an unexpected class. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

static int rank, size, failures;

static void expect(int rc, int want, const char *what, int line)
{
    if (rc != want) {
        fprintf(stderr, "[rank %d] line %d: %s returned %d, expected %d (%s)\n", rank, line, what,
                rc, want, dmesh_last_error());
        failures++;
    }
}
#define EXPECT(call, want) expect((call), (want), #call, __LINE__)
#define OK(call) EXPECT(call, DMESH_SUCCESS)

static void derived_meshes(void)
{
    const char *names[2] = {"d0", "d1"}, *d1 = "d1", *uv[2] = {"u", "v"}, *xy[2] = {"x", "y"};
    int shape[2] = {1, size}, sizes[2] = {size, 1};
    dmesh_t root = DMESH_NULL, s0 = DMESH_NULL, s1 = DMESH_NULL, f1 = DMESH_NULL, f2 = DMESH_NULL;
    dmesh_t u1 = DMESH_NULL, u2 = DMESH_NULL, cat = DMESH_NULL, cur = DMESH_NULL;
    dmesh_cache_info_t info;
    char buf[256];
    size_t needed;

    OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, MPI_INFO_NULL, &root));
    OK(dmesh_slice(root, 1, &names[0], &s0));
    OK(dmesh_slice(root, 1, &d1, &s1));
    OK(dmesh_flatten(root, NULL, MPI_INFO_NULL, &f1));
    OK(dmesh_flatten(root, NULL, MPI_INFO_NULL, &f2));
    OK(dmesh_unflatten(f1, 0, 2, sizes, uv, MPI_INFO_NULL, &u1));
    OK(dmesh_unflatten(f1, 0, 2, sizes, xy, MPI_INFO_NULL, &u2));
    OK(dmesh_concatenate(2, (dmesh_t[]){s0, s1}, &cat));
    OK(dmesh_to_string(cat, buf, sizeof(buf), &needed));
    OK(dmesh_get_cache_info(u2, &info));
    OK(dmesh_push(u1));
    OK(dmesh_get_current(&cur));
    OK(dmesh_pop(NULL));
    /* Error paths of derived calls. */
    EXPECT(dmesh_flatten(root, "d0", MPI_INFO_NULL, &cur), DMESH_ERR_NAME);
    EXPECT(dmesh_unflatten(root, 1, 2, (int[]){size, 2}, uv, MPI_INFO_NULL, &cur), DMESH_ERR_SIZE);
    EXPECT(dmesh_slice(root, 1, (const char *[]){"nope"}, &cur), DMESH_ERR_NAME);
    /* Free in an order other than creation, the root early. */
    OK(dmesh_free(&root));
    OK(dmesh_free(&u1));
    OK(dmesh_free(&s0));
    OK(dmesh_free(&cat));
    OK(dmesh_free(&f2));
    OK(dmesh_free(&s1));
    OK(dmesh_free(&f1));
    OK(dmesh_free(&u2));
}

static void root_meshes(void)
{
    int shape[1] = {size}, rev[1024], part[1] = {size > 1 ? size - 1 : 1};
    const char *w = "w", *dup[2] = {"a", "a"};
    dmesh_t a = DMESH_NULL, b = DMESH_NULL, c = DMESH_NULL, d = DMESH_NULL, h = DMESH_NULL;
    MPI_Comm dim;
    MPI_Info group, bad, nccl;

    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i;
    MPI_Info_create(&group);
    MPI_Info_set(group, "dmesh_comm_create", "group");
    MPI_Info_create(&bad);
    MPI_Info_set(bad, "dmesh_check", "maybe");
    MPI_Info_create(&nccl);
    MPI_Info_set(nccl, "dmesh_backend", "nccl");

    OK(dmesh_create(MPI_COMM_WORLD, "cpu", 1, shape, rev, &w, group, &a));
    MPI_Comm_dup(MPI_COMM_WORLD, &dim);
    OK(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, &dim, shape, NULL, &w, &b));
    MPI_Comm_free(&dim);
    OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, part, NULL, MPI_INFO_NULL, &c));
    /* A communicator freed by the caller while its mesh lives on. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dim);
    OK(dmesh_init(dim, "cpu", 1, shape, &w, MPI_INFO_NULL, &d));
    MPI_Comm_free(&dim);

    /* Error paths of collective calls. */
    EXPECT(dmesh_init(MPI_COMM_WORLD, "cpu", 2, (int[]){1, size}, dup, MPI_INFO_NULL, &h),
           DMESH_ERR_NAME);
    EXPECT(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, bad, &h), DMESH_ERR_ARG);
    EXPECT(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, nccl, &h), DMESH_ERR_BACKEND);
    EXPECT(dmesh_init(MPI_COMM_WORLD, "cuda:0", 1, shape, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG);
    EXPECT(dmesh_init(MPI_COMM_WORLD, "cpu", 1, (int[]){size + 1}, NULL, MPI_INFO_NULL, &h),
           DMESH_ERR_SIZE);
    EXPECT(dmesh_concatenate(2, (dmesh_t[]){a, b}, &h), DMESH_ERR_LAYOUT);
    if (size >= 2) {
        EXPECT(dmesh_create(MPI_COMM_WORLD, "cpu", 1, (int[]){2}, (int[]){0, 0}, NULL,
                            MPI_INFO_NULL, &h),
               DMESH_ERR_LAYOUT);
        EXPECT(dmesh_init(MPI_COMM_WORLD, "cpu", 1, (int[]){rank == 0 ? 1 : 2}, NULL, MPI_INFO_NULL,
                          &h),
               DMESH_ERR_MISMATCH);
    }
    OK(dmesh_free(&d));
    OK(dmesh_free(&c));
    OK(dmesh_free(&b));
    OK(dmesh_free(&a));
    OK(dmesh_free(&h));
    MPI_Info_free(&group);
    MPI_Info_free(&bad);
    MPI_Info_free(&nccl);
}

/* ---- handles that are no longer, or never were, meshes ---------------- */

static const char *const stale_names[2] = {"a", "b"};

/* One entry point called with handle h, the other arguments valid. */
typedef struct {
    const char *name;
    int (*call)(dmesh_t h);
} entry_t;

static int s_outs[64], s_out1, s_out2;
static const char *s_text;
static char s_buf[256];
static size_t s_needed;
static MPI_Comm s_comm;
static dmesh_t s_made;
static dmesh_cache_info_t s_cinfo;

static int e_abort(dmesh_t h)
{
    return dmesh_abort(h);
}
static int e_slice(dmesh_t h)
{
    return dmesh_slice(h, 1, stale_names, &s_made);
}
static int e_flatten(dmesh_t h)
{
    return dmesh_flatten(h, "ab", MPI_INFO_NULL, &s_made);
}
static int e_unflatten(dmesh_t h)
{
    return dmesh_unflatten(h, 0, 1, (int[]){1}, stale_names, MPI_INFO_NULL, &s_made);
}
static int e_concatenate(dmesh_t h)
{
    return dmesh_concatenate(1, &h, &s_made);
}
static int e_ndims(dmesh_t h)
{
    return dmesh_get_ndims(h, &s_out1);
}
static int e_shape(dmesh_t h)
{
    return dmesh_get_shape(h, DMESH_MAX_DIMS, s_outs);
}
static int e_size(dmesh_t h)
{
    return dmesh_get_size(h, &s_out1);
}
static int e_dim_name(dmesh_t h)
{
    return dmesh_get_dim_name(h, 0, &s_text);
}
static int e_dim_index(dmesh_t h)
{
    return dmesh_get_dim_index(h, "a", &s_out1);
}
static int e_device_type(dmesh_t h)
{
    return dmesh_get_device_type(h, &s_text);
}
static int e_coordinate(dmesh_t h)
{
    return dmesh_get_coordinate(h, DMESH_MAX_DIMS, s_outs, &s_out1);
}
static int e_local_rank(dmesh_t h)
{
    return dmesh_get_local_rank(h, 0, &s_out1);
}
static int e_group_ranks(dmesh_t h)
{
    return dmesh_get_group_ranks(h, 0, 64, s_outs, &s_out1);
}
static int e_ranks(dmesh_t h)
{
    return dmesh_get_ranks(h, 64, s_outs, &s_out1);
}
static int e_comm(dmesh_t h)
{
    return dmesh_get_comm(h, 0, &s_comm);
}
static int e_device(dmesh_t h)
{
    return dmesh_get_device(h, &s_out1);
}
static int e_equal_a(dmesh_t h)
{
    return dmesh_equal(h, h, &s_out1);
}
static int e_to_string(dmesh_t h)
{
    return dmesh_to_string(h, s_buf, sizeof(s_buf), &s_needed);
}
static int e_cache_info(dmesh_t h)
{
    return dmesh_get_cache_info(h, &s_cinfo);
}
static int e_push(dmesh_t h)
{
    return dmesh_push(h);
}
static int e_rank_of(dmesh_t h)
{
    return dmesh_get_rank_of(h, 2, (int[]){0, 0}, &s_out1);
}
static int e_coordinate_of(dmesh_t h)
{
    return dmesh_get_coordinate_of(h, 0, DMESH_MAX_DIMS, s_outs, &s_out1);
}
static int e_shift(dmesh_t h)
{
    return dmesh_shift(h, 0, 1, 1, &s_out1, &s_out2);
}
static int e_all_groups(dmesh_t h)
{
    return dmesh_get_all_groups(h, 0, 8, 8, s_outs, &s_out1, &s_out2);
}
static int e_dim_locality(dmesh_t h)
{
    return dmesh_get_dim_locality(h, 0, &s_out1);
}
static int e_cart_comm(dmesh_t h)
{
    return dmesh_get_cart_comm(h, (int[]){0, 0}, 0, &s_comm);
}
static int e_sub_comm(dmesh_t h)
{
    return dmesh_get_sub_comm(h, (int[]){1, 0}, &s_comm);
}
static int e_serialize(dmesh_t h)
{
    return dmesh_serialize(h, s_buf, sizeof(s_buf), &s_needed);
}
static int e_revoke(dmesh_t h)
{
    return dmesh_revoke(h);
}
static int e_failed(dmesh_t h)
{
    return dmesh_get_failed(h, 64, s_outs, &s_out1);
}
static int e_shrink(dmesh_t h)
{
    return dmesh_shrink(h, DMESH_KEEP_SHAPE, MPI_INFO_NULL, &s_comm, &s_made);
}
static int e_respawn(dmesh_t h)
{
    return dmesh_respawn(h, NULL, NULL, MPI_INFO_NULL, &s_comm, &s_made);
}
static int e_grow(dmesh_t h)
{
    return dmesh_grow(h, 0, 1, NULL, NULL, MPI_INFO_NULL, &s_comm, &s_made);
}
static int e_copies_open(dmesh_t h)
{
    dmesh_copies_t c = (dmesh_copies_t)(void *)s_buf; /* must come back null */
    int rc = dmesh_copies_open(h, "state", MPI_INFO_NULL, &c);

    return c == DMESH_COPIES_NULL ? rc : -1;
}
static int e_agree_step(dmesh_t h)
{
    int ok = 1;

    return dmesh_agree_step(h, &ok);
}
static int e_repair(dmesh_t h)
{
    int v = 0;

    return dmesh_repair(&h, &s_comm, MPI_INFO_NULL, &v);
}
static int e_free(dmesh_t h)
{
    return dmesh_free(&h);
}

static const entry_t entries[] = {
    {"dmesh_abort", e_abort},
    {"dmesh_slice", e_slice},
    {"dmesh_flatten", e_flatten},
    {"dmesh_unflatten", e_unflatten},
    {"dmesh_concatenate", e_concatenate},
    {"dmesh_get_ndims", e_ndims},
    {"dmesh_get_shape", e_shape},
    {"dmesh_get_size", e_size},
    {"dmesh_get_dim_name", e_dim_name},
    {"dmesh_get_dim_index", e_dim_index},
    {"dmesh_get_device_type", e_device_type},
    {"dmesh_get_coordinate", e_coordinate},
    {"dmesh_get_local_rank", e_local_rank},
    {"dmesh_get_group_ranks", e_group_ranks},
    {"dmesh_get_ranks", e_ranks},
    {"dmesh_get_comm", e_comm},
    {"dmesh_get_device", e_device},
    {"dmesh_equal", e_equal_a},
    {"dmesh_to_string", e_to_string},
    {"dmesh_get_cache_info", e_cache_info},
    {"dmesh_push", e_push},
    {"dmesh_get_rank_of", e_rank_of},
    {"dmesh_get_coordinate_of", e_coordinate_of},
    {"dmesh_shift", e_shift},
    {"dmesh_get_all_groups", e_all_groups},
    {"dmesh_get_dim_locality", e_dim_locality},
    {"dmesh_get_cart_comm", e_cart_comm},
    {"dmesh_get_sub_comm", e_sub_comm},
    {"dmesh_serialize", e_serialize},
    {"dmesh_revoke", e_revoke},
    {"dmesh_get_failed", e_failed},
    {"dmesh_shrink", e_shrink},
    {"dmesh_respawn", e_respawn},
    {"dmesh_grow", e_grow},
    {"dmesh_copies_open", e_copies_open},
    {"dmesh_agree_step", e_agree_step},
    {"dmesh_repair", e_repair},
    {"dmesh_free", e_free},
};

/* Every entry point on h: DMESH_ERR_ARG, the detail, no output handle. */
static void expect_rejected(dmesh_t h, const char *what)
{
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        int rc;

        s_made = DMESH_NULL;
        s_comm = MPI_COMM_WORLD;
        rc = entries[i].call(h);
        if (rc != DMESH_ERR_ARG ||
            strstr(dmesh_last_error(), "freed or invalid mesh handle") == NULL ||
            s_made != DMESH_NULL) {
            fprintf(stderr, "[rank %d] %s on %s: returned %d (%s), expected %d, %s\n", rank,
                    entries[i].name, what, rc, dmesh_last_error(), DMESH_ERR_ARG,
                    s_made != DMESH_NULL ? "and it s_made a mesh" : "output untouched");
            failures++;
        }
    }
}

static dmesh_t make_stale(void)
{
    dmesh_t m = DMESH_NULL;
    int rc = dmesh_init(MPI_COMM_WORLD, "cpu", 2, (int[]){1, size}, stale_names, MPI_INFO_NULL, &m);

    if (rc != DMESH_SUCCESS) {
        fprintf(stderr, "[rank %d] dmesh_init: %s\n", rank, dmesh_last_error());
        failures++;
    }
    return m;
}

static void stale_handles(void)
{
    dmesh_t m = make_stale(), copy = m, sub = DMESH_NULL, sub_copy, again;
    int ndims = 0, equal = 1;

    if (dmesh_slice(m, 1, stale_names, &sub) != DMESH_SUCCESS)
        failures++;
    sub_copy = sub;
    dmesh_free(&m);
    expect_rejected(copy, "a copy of a freed handle");
    /* the universe lives on through sub; then its last mesh goes */
    if (dmesh_get_ndims(sub, &ndims) != DMESH_SUCCESS || ndims != 1)
        failures++;
    dmesh_free(&sub);
    expect_rejected(sub_copy, "a handle of a finished universe");
    /* a new mesh, likely in the place of the old ones: the old handles stay dead */
    again = make_stale();
    expect_rejected(copy, "a freed handle after a new mesh was made");
    expect_rejected(sub_copy, "a finished universe's handle after a new mesh");
    if (dmesh_get_ndims(again, &ndims) != DMESH_SUCCESS || ndims != 2 ||
        dmesh_equal(again, again, &equal) != DMESH_SUCCESS || !equal) {
        fprintf(stderr, "[rank %d] the new mesh does not answer: %s\n", rank, dmesh_last_error());
        failures++;
    }
    dmesh_free(&again);
}

static void never_handles(void)
{
    int local = 0;
    const uintptr_t values[] = {
        1, 2, 0x5a5a5a5a5a5a5a5aULL, (uintptr_t)-1, (uintptr_t)&local, 0x100000001ULL};

    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        char what[64];

        snprintf(what, sizeof(what), "the value %#jx", (uintmax_t)values[i]);
        expect_rejected((dmesh_t)values[i], what);
    }
}

int main(int argc, char **argv)
{
    int total = 0;

    MPI_Init(&argc, &argv);
    /* dmesh raises its failures on these handlers (fatal by default): here
     * they return, and the classes are checked. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 2; round++) {
        derived_meshes();
        root_meshes();
    }
    stale_handles();
    never_handles();
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_mesh_valgrind: %d rank(s), %d unexpected result(s)\n", size, total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
