/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the version and build reporting (dmesh_get_version,
 * dmesh_get_build_info) and of the comparison of the MPI dmesh was built
 * with against the running one (lib/version.c). No mpiexec needed:
 * MPI_Get_library_version may be called before MPI_Init.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"
#include "version.h"

START_TEST(test_get_version)
{
    int major = -1, minor = -1, patch = -1;
    char text[64];

    ck_assert_int_eq(dmesh_get_version(&major, &minor, &patch), DMESH_SUCCESS);
    ck_assert_int_eq(major, DMESH_VERSION_MAJOR);
    ck_assert_int_eq(minor, DMESH_VERSION_MINOR);
    ck_assert_int_eq(patch, DMESH_VERSION_PATCH);
    snprintf(text, sizeof(text), "%d.%d.%d", major, minor, patch);
    ck_assert_str_eq(text, PACKAGE_VERSION);
    ck_assert_int_eq(dmesh_get_version(NULL, &minor, &patch), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_get_version(&major, NULL, &patch), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_get_version(&major, &minor, NULL), DMESH_ERR_ARG);
}
END_TEST

START_TEST(test_build_info)
{
    const char *text = NULL;

    ck_assert_int_eq(dmesh_get_build_info(&text), DMESH_SUCCESS);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "dmesh " PACKAGE_VERSION "\n"));
#if defined(DMESH_MPI_ABI)
    /* no implementation's name: the library runs under any that ships the ABI */
    ck_assert_ptr_nonnull(strstr(text, "\nMPI: standard ABI (MPI 5.0)\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nfault tolerance (ULFM): no"));
    ck_assert_ptr_nonnull(strstr(text, "\nFortran modules: no"));
#elif defined(OPEN_MPI)
    ck_assert_ptr_nonnull(strstr(text, "\nMPI: Open MPI "));
#elif defined(MPICH_VERSION)
    ck_assert_ptr_nonnull(strstr(text, "\nMPI: MPICH " MPICH_VERSION));
#endif
    ck_assert_ptr_nonnull(strstr(text, "\nNCCL: "));
    ck_assert_ptr_nonnull(strstr(text, "\nhwloc: "));
    ck_assert_ptr_nonnull(strstr(text, "\nFortran modules: "));
    ck_assert_int_eq(dmesh_get_build_info(NULL), DMESH_ERR_ARG);
}
END_TEST

/* Texts as MPI_Get_library_version writes them. */
static const char *const ompi41 = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, "
                                  "repo rev: v4.1.4, May 26, 2022";
static const char *const ompi50 = "Open MPI v5.0.3, package: Open MPI, ident: 5.0.3";
static const char *const mpich = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 "
                                 "12:34:45 CDT 2022\nMPICH ABI:\t14:2:2\n";
static const char *const impi = "Intel(R) MPI Library 2021.6 for Linux* OS\n";

START_TEST(test_identity_compare)
{
    ck_assert_int_eq(dmesh_mpi_identity_compare("f", "Open MPI", 4, 1, ompi41), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_mpi_identity_compare("f", "Open MPI", 4, 1, mpich), DMESH_ERR_MPI);
    ck_assert_ptr_nonnull(strstr(dmesh_last_error(),
                                 "f: built with Open MPI 4.1, running under MPICH Version: 4.0.2"));
    ck_assert_ptr_null(strchr(dmesh_last_error(), '\n'));
    ck_assert_int_eq(dmesh_mpi_identity_compare("f", "Open MPI", 4, 1, ompi50), DMESH_ERR_MPI);
    ck_assert_ptr_nonnull(strstr(dmesh_last_error(), "running under Open MPI v5.0.3"));
    ck_assert_int_eq(dmesh_mpi_identity_compare("f", "MPICH", 4, 0, mpich), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_mpi_identity_compare("f", "MPICH", 4, 0, impi), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_mpi_identity_compare("g", "MPICH", 4, 0, ompi41), DMESH_ERR_MPI);
    ck_assert_ptr_nonnull(
        strstr(dmesh_last_error(), "g: built with MPICH 4.0, running under Open MPI v4.1.4"));
    ck_assert_int_eq(dmesh_mpi_identity_compare("f", "unknown", 0, 0, mpich), DMESH_SUCCESS);
}
END_TEST

/* A fake environment for dmesh_launch_size: "NAME=value" pairs. */
static const char *const *fake_env;

static const char *fake_get(const char *name)
{
    size_t len = strlen(name);

    for (int i = 0; fake_env[i] != NULL; i++)
        if (strncmp(fake_env[i], name, len) == 0 && fake_env[i][len] == '=')
            return fake_env[i] + len + 1;
    return NULL;
}

static int launch_size(const char *const *env, const char **var)
{
    fake_env = env;
    return dmesh_launch_size(fake_get, var);
}

/* The launcher's job size, the MPI's own launchers first; a 1-rank world
 * in a larger launch is an error that says what to do. */
START_TEST(test_launch_check)
{
    static const char *const srun[] = {"SLURM_PROCID=3", "SLURM_STEP_NUM_TASKS=8", NULL};
    static const char *const srun_pmi2[] = {"SLURM_PROCID=3", "SLURM_STEP_NUM_TASKS=8",
                                            "PMI_SIZE=8", NULL};
    static const char *const mpiexec_in_job[] = {"SLURM_PROCID=0", "SLURM_STEP_NUM_TASKS=8",
                                                 "OMPI_COMM_WORLD_SIZE=1", NULL};
    static const char *const batch_only[] = {"SLURM_STEP_NUM_TASKS=8", NULL};
    static const char *const none[] = {NULL};
    const char *var = NULL;

    ck_assert_int_eq(launch_size(srun, &var), 8);
    ck_assert_str_eq(var, "SLURM_STEP_NUM_TASKS");
    ck_assert_int_eq(launch_size(srun_pmi2, &var), 8);
    ck_assert_str_eq(var, "PMI_SIZE");
    ck_assert_int_eq(launch_size(mpiexec_in_job, &var), 1);
    ck_assert_str_eq(var, "OMPI_COMM_WORLD_SIZE");
    ck_assert_int_eq(launch_size(batch_only, &var), 0);
    ck_assert_int_eq(launch_size(none, &var), 0);
    ck_assert_ptr_null(var);
    ck_assert_int_eq(dmesh_launch_compare("dmesh_init", 1, 8, "SLURM_STEP_NUM_TASKS"),
                     DMESH_ERR_MPI);
    ck_assert_ptr_nonnull(strstr(dmesh_last_error(), "dmesh_init: MPI_COMM_WORLD has 1 rank"));
    ck_assert_ptr_nonnull(strstr(dmesh_last_error(), "SLURM_STEP_NUM_TASKS=8"));
    ck_assert_ptr_nonnull(strstr(dmesh_last_error(), "--mpi=pmi2"));
    ck_assert_int_eq(dmesh_launch_compare("f", 8, 8, "PMI_SIZE"), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_launch_compare("f", 1, 1, "PMI_SIZE"), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_launch_compare("f", 1, 0, NULL), DMESH_SUCCESS);
}
END_TEST

/* This build against the MPI it runs with: the same, so no error. */
START_TEST(test_identity_check_here)
{
    ck_assert_int_eq(dmesh_mpi_identity_check("dmesh_init"), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_mpi_identity_check("dmesh_init"), DMESH_SUCCESS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("version");
    TCase *tc = tcase_create("version");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_get_version);
    tcase_add_test(tc, test_build_info);
    tcase_add_test(tc, test_identity_compare);
    tcase_add_test(tc, test_launch_check);
    tcase_add_test(tc, test_identity_check_here);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
