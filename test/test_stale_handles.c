/* SPDX-License-Identifier: BSD-3-Clause */
/* Handles that are no longer, or never were, meshes: a freed handle, a copy
 * of it, values that were never handles, a handle of a universe whose
 * meshes are all gone. Every entry point that takes a mesh must return
 * DMESH_ERR_ARG with "freed or invalid mesh handle" and touch no memory of a
 * mesh (`make valgrind-check` runs this program under valgrind too). A new
 * mesh that reuses the old one's place must not answer to the old handle.
 * Plain C, no Check, short under valgrind. Exits 1 on an unexpected result. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

static int rank, size, failures;
static const char *const names[2] = {"a", "b"};

/* One entry point called with handle h, the other arguments valid. */
typedef struct {
    const char *name;
    int (*call)(dmesh_t h);
} entry_t;

static int outs[64], out1, out2;
static const char *text;
static char buf[256];
static size_t needed;
static MPI_Comm comm;
static dmesh_t made;
static dmesh_cache_info_t cinfo;

static int e_abort(dmesh_t h)
{
    return dmesh_abort(h);
}
static int e_slice(dmesh_t h)
{
    return dmesh_slice(h, 1, names, &made);
}
static int e_flatten(dmesh_t h)
{
    return dmesh_flatten(h, "ab", MPI_INFO_NULL, &made);
}
static int e_unflatten(dmesh_t h)
{
    return dmesh_unflatten(h, 0, 1, (int[]){1}, names, MPI_INFO_NULL, &made);
}
static int e_concatenate(dmesh_t h)
{
    return dmesh_concatenate(1, &h, &made);
}
static int e_ndims(dmesh_t h)
{
    return dmesh_get_ndims(h, &out1);
}
static int e_shape(dmesh_t h)
{
    return dmesh_get_shape(h, DMESH_MAX_DIMS, outs);
}
static int e_size(dmesh_t h)
{
    return dmesh_get_size(h, &out1);
}
static int e_dim_name(dmesh_t h)
{
    return dmesh_get_dim_name(h, 0, &text);
}
static int e_dim_index(dmesh_t h)
{
    return dmesh_get_dim_index(h, "a", &out1);
}
static int e_device_type(dmesh_t h)
{
    return dmesh_get_device_type(h, &text);
}
static int e_coordinate(dmesh_t h)
{
    return dmesh_get_coordinate(h, DMESH_MAX_DIMS, outs, &out1);
}
static int e_local_rank(dmesh_t h)
{
    return dmesh_get_local_rank(h, 0, &out1);
}
static int e_group_ranks(dmesh_t h)
{
    return dmesh_get_group_ranks(h, 0, 64, outs, &out1);
}
static int e_ranks(dmesh_t h)
{
    return dmesh_get_ranks(h, 64, outs, &out1);
}
static int e_comm(dmesh_t h)
{
    return dmesh_get_comm(h, 0, &comm);
}
static int e_device(dmesh_t h)
{
    return dmesh_get_device(h, &out1);
}
static int e_equal_a(dmesh_t h)
{
    return dmesh_equal(h, h, &out1);
}
static int e_to_string(dmesh_t h)
{
    return dmesh_to_string(h, buf, sizeof(buf), &needed);
}
static int e_cache_info(dmesh_t h)
{
    return dmesh_get_cache_info(h, &cinfo);
}
static int e_push(dmesh_t h)
{
    return dmesh_push(h);
}
static int e_rank_of(dmesh_t h)
{
    return dmesh_get_rank_of(h, 2, (int[]){0, 0}, &out1);
}
static int e_coordinate_of(dmesh_t h)
{
    return dmesh_get_coordinate_of(h, 0, DMESH_MAX_DIMS, outs, &out1);
}
static int e_shift(dmesh_t h)
{
    return dmesh_shift(h, 0, 1, 1, &out1, &out2);
}
static int e_all_groups(dmesh_t h)
{
    return dmesh_get_all_groups(h, 0, 8, 8, outs, &out1, &out2);
}
static int e_dim_locality(dmesh_t h)
{
    return dmesh_get_dim_locality(h, 0, &out1);
}
static int e_cart_comm(dmesh_t h)
{
    return dmesh_get_cart_comm(h, (int[]){0, 0}, 0, &comm);
}
static int e_sub_comm(dmesh_t h)
{
    return dmesh_get_sub_comm(h, (int[]){1, 0}, &comm);
}
static int e_serialize(dmesh_t h)
{
    return dmesh_serialize(h, buf, sizeof(buf), &needed);
}
static int e_revoke(dmesh_t h)
{
    return dmesh_revoke(h);
}
static int e_failed(dmesh_t h)
{
    return dmesh_get_failed(h, 64, outs, &out1);
}
static int e_shrink(dmesh_t h)
{
    return dmesh_shrink(h, DMESH_KEEP_SHAPE, MPI_INFO_NULL, &comm, &made);
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
    {"dmesh_free", e_free},
};

/* Every entry point on h: DMESH_ERR_ARG, the detail, no output handle. */
static void expect_rejected(dmesh_t h, const char *what)
{
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        int rc;

        made = DMESH_NULL;
        comm = MPI_COMM_WORLD;
        rc = entries[i].call(h);
        if (rc != DMESH_ERR_ARG ||
            strstr(dmesh_last_error(), "freed or invalid mesh handle") == NULL ||
            made != DMESH_NULL) {
            fprintf(stderr, "[rank %d] %s on %s: returned %d (%s), expected %d, %s\n", rank,
                    entries[i].name, what, rc, dmesh_last_error(), DMESH_ERR_ARG,
                    made != DMESH_NULL ? "and it made a mesh" : "output untouched");
            failures++;
        }
    }
}

static dmesh_t make(void)
{
    dmesh_t m = DMESH_NULL;
    int rc = dmesh_init(MPI_COMM_WORLD, "cpu", 2, (int[]){1, size}, names, MPI_INFO_NULL, &m);

    if (rc != DMESH_SUCCESS) {
        fprintf(stderr, "[rank %d] dmesh_init: %s\n", rank, dmesh_last_error());
        failures++;
    }
    return m;
}

static void stale_handles(void)
{
    dmesh_t m = make(), copy = m, sub = DMESH_NULL, sub_copy, again;
    int ndims = 0, equal = 1;

    if (dmesh_slice(m, 1, names, &sub) != DMESH_SUCCESS)
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
    again = make();
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
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    stale_handles();
    never_handles();
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_stale_handles: %d rank(s), %d unexpected result(s)\n", size, total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
