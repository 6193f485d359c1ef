/* SPDX-License-Identifier: BSD-3-Clause */
/* A short MPI program for `make valgrind-check` (test/valgrind-leaks.sh): it
 * makes, derives and frees meshes, and takes the library's error paths, so
 * that valgrind can tell whether dmesh leaks. Plain C, no Check, to keep the
 * run under valgrind short. Exits 1 when a call returns an unexpected class. */
#include <stdio.h>
#include <stdlib.h>

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
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_mesh_valgrind: %d rank(s), %d unexpected result(s)\n", size, total);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
