/* SPDX-License-Identifier: BSD-3-Clause */
/* Version and build description of the library (dmesh_get_version,
 * dmesh_get_build_info) and the check of the running MPI against the one
 * the library was compiled with. */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"
#include "error.h"
#include "version.h"

#define DMESH_STR_(x) #x
#define DMESH_STR(x) DMESH_STR_(x)

/* The MPI of mpi.h at compile time. MPICH's ABI is shared by its
 * derivatives (Intel MPI, MVAPICH, Cray MPICH); Open MPI's changes with the
 * major version. The MPI-5 standard ABI (--with-mpi-abi) is every
 * implementation's that ships libmpi_abi.so.1: no vendor to compare. */
#if defined(DMESH_MPI_ABI)
#define BUILT_VENDOR "standard ABI"
#define BUILT_MAJOR MPI_VERSION
#define BUILT_MINOR MPI_SUBVERSION
#define BUILT_TEXT "standard ABI"
#define BUILT_STANDARD " (MPI " /* "standard ABI (MPI 5.0)" */
#elif defined(OPEN_MPI)
#define BUILT_VENDOR "Open MPI"
#define BUILT_MAJOR OMPI_MAJOR_VERSION
#define BUILT_MINOR OMPI_MINOR_VERSION
#define BUILT_TEXT "Open MPI " DMESH_STR(OMPI_MAJOR_VERSION) "." DMESH_STR(OMPI_MINOR_VERSION)
#elif defined(MPICH_NUMVERSION)
#define BUILT_VENDOR "MPICH"
#define BUILT_MAJOR (MPICH_NUMVERSION / 10000000)
#define BUILT_MINOR (MPICH_NUMVERSION / 100000 % 100)
#define BUILT_TEXT "MPICH " MPICH_VERSION
#else
#define BUILT_VENDOR "unknown"
#define BUILT_MAJOR 0
#define BUILT_MINOR 0
#define BUILT_TEXT "unknown MPI"
#endif
#ifndef BUILT_STANDARD
#define BUILT_STANDARD " (MPI-"
#endif

int dmesh_get_version_impl(int *major, int *minor, int *patch)
{
    DMESH_CHECK_PTR_OF("dmesh_get_version", major);
    DMESH_CHECK_PTR_OF("dmesh_get_version", minor);
    DMESH_CHECK_PTR_OF("dmesh_get_version", patch);
    *major = DMESH_VERSION_MAJOR;
    *minor = DMESH_VERSION_MINOR;
    *patch = DMESH_VERSION_PATCH;
    return DMESH_SUCCESS;
}

/* One literal, made at compile time: no initialisation, safe from any thread. */
static const char build_info[] =
    "dmesh " DMESH_VERSION_STRING "\n"
    "MPI: " BUILT_TEXT BUILT_STANDARD DMESH_STR(MPI_VERSION) "." DMESH_STR(
        MPI_SUBVERSION) ")\n"
                        "MPI C compiler: " DMESH_BUILD_MPICC "\n"
                        "mpiexec: " DMESH_BUILD_MPIEXEC "\n"
                        "CUDA runtime: " DMESH_BUILD_CUDA "\n"
                        "NCCL: " DMESH_BUILD_NCCL "\n"
                        "hwloc: " DMESH_BUILD_HWLOC "\n"
                        "Fortran modules: " DMESH_BUILD_FORTRAN "\n"
                        "fault tolerance (ULFM): " DMESH_BUILD_ULFM "\n"
                        "configure arguments: " DMESH_BUILD_CONFIGURE_ARGS "\n";

int dmesh_get_build_info_impl(const char **text)
{
    DMESH_CHECK_PTR_OF("dmesh_get_build_info", text);
    *text = build_info;
    return DMESH_SUCCESS;
}

/* The first line of the running MPI's description, at most len - 1 bytes. */
static void first_line(const char *s, char *out, size_t len)
{
    size_t n = strcspn(s, "\r\n,");

    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= len)
        n = len - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    for (char *p = out; *p != '\0'; p++)
        if (*p == '\t')
            *p = ' ';
}

/* Major version of "Open MPI v4.1.4, ...": -1 when not found. */
static int ompi_major(const char *running)
{
    int major;

    if (sscanf(running, "Open MPI v%d", &major) == 1)
        return major;
    return -1;
}

int dmesh_mpi_identity_compare(const char *fn, const char *built_vendor, int major, int minor,
                               const char *running)
{
    char line[96];
    int ompi = strncmp(running, "Open MPI", 8) == 0;

    first_line(running, line, sizeof(line));
    if (strcmp(built_vendor, "Open MPI") == 0 && (!ompi || ompi_major(running) != major))
        return dmesh_error_set(DMESH_ERR_MPI,
                               "%s: built with Open MPI %d.%d, running under %s (use the MPI "
                               "that dmesh was built with, see pkg-config --variable=mpicc dmesh)",
                               fn, major, minor, line);
    if (strcmp(built_vendor, "MPICH") == 0 && ompi)
        return dmesh_error_set(DMESH_ERR_MPI,
                               "%s: built with MPICH %d.%d, running under %s (use the MPI that "
                               "dmesh was built with, see pkg-config --variable=mpicc dmesh)",
                               fn, major, minor, line);
    return DMESH_SUCCESS;
}

int dmesh_launch_size(const char *(*get)(const char *), const char **var)
{
    static const char *const own[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    const char *v;
    long n;

    *var = NULL;
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if ((v = get(own[i])) != NULL && (n = strtol(v, NULL, 10)) > 0) {
            *var = own[i];
            return n > INT_MAX ? INT_MAX : (int)n;
        }
    if (get("SLURM_PROCID") != NULL && (v = get("SLURM_STEP_NUM_TASKS")) != NULL &&
        (n = strtol(v, NULL, 10)) > 0) {
        *var = "SLURM_STEP_NUM_TASKS";
        return n > INT_MAX ? INT_MAX : (int)n;
    }
    return 0;
}

int dmesh_launch_compare(const char *fn, int world_size, int job_size, const char *var)
{
    if (world_size != 1 || job_size <= 1)
        return DMESH_SUCCESS;
    return dmesh_error_set(
        DMESH_ERR_MPI,
        "%s: MPI_COMM_WORLD has 1 rank, but the launcher started %d processes (%s=%d): the MPI "
        "library and the launcher do not speak the same process-management interface, so each "
        "process runs alone. Under Slurm, start with the PMI that the MPI was built with "
        "(srun --mpi=pmi2 for Debian's MPICH, --mpi=pmix for an Open MPI built with PMIx; "
        "srun --mpi=list shows what Slurm offers), or use the MPI's own mpiexec. "
        "DMESH_LAUNCH_CHECK=false turns this check off",
        fn, job_size, var != NULL ? var : "?", job_size);
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

/* The launch check of dmesh_mpi_identity_check, unless turned off; the
 * first success with MPI up is kept. */
static int launch_check(const char *fn)
{
    static int launched; /* the launch cannot change */
    const char *off = getenv("DMESH_LAUNCH_CHECK"), *var = NULL;
    int world = 0, up = 0, job, err;

    if (__atomic_load_n(&launched, __ATOMIC_RELAXED))
        return DMESH_SUCCESS;
    if (off != NULL && (strcmp(off, "false") == 0 || strcmp(off, "0") == 0 ||
                        strcmp(off, "no") == 0 || strcmp(off, "off") == 0))
        return DMESH_SUCCESS;
    job = dmesh_launch_size(env_get, &var);
    if (MPI_Initialized(&up) != MPI_SUCCESS || !up)
        return DMESH_SUCCESS; /* nothing to compare yet: checked again later */
    if (job > 1 && MPI_Comm_size(MPI_COMM_WORLD, &world) == MPI_SUCCESS &&
        (err = dmesh_launch_compare(fn, world, job, var)) != DMESH_SUCCESS)
        return err;
    __atomic_store_n(&launched, 1, __ATOMIC_RELAXED);
    return DMESH_SUCCESS;
}

/* set once a check passed: the MPI library cannot change */
static int same_mpi;

int dmesh_mpi_identity_check(const char *fn)
{
    /* The running MPI writes up to its own MPI_MAX_LIBRARY_VERSION_STRING,
     * not ours (MPICH's is 8192, Open MPI's 256): a generous heap buffer. */
    enum { RUNNING_MAX = 1 << 16 };
    char *running;
    int len = 0, err = DMESH_SUCCESS;

    if (__atomic_load_n(&same_mpi, __ATOMIC_RELAXED))
        return launch_check(fn);
    if ((running = calloc(1, RUNNING_MAX)) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    if (MPI_Get_library_version(running, &len) == MPI_SUCCESS) {
        running[len >= 0 && len < RUNNING_MAX ? len : RUNNING_MAX - 1] = '\0';
        err = dmesh_mpi_identity_compare(fn, BUILT_VENDOR, BUILT_MAJOR, BUILT_MINOR, running);
    }
    free(running);
    if (err != DMESH_SUCCESS)
        return err;
    __atomic_store_n(&same_mpi, 1, __ATOMIC_RELAXED);
    return launch_check(fn);
}

int dmesh_mpi_is_ours(void)
{
    char saved[512];
    int ours, writer = dmesh_error_writer();

    if (__atomic_load_n(&same_mpi, __ATOMIC_RELAXED))
        return 1;
    /* the check writes a detail: the caller's stays, agreed if it was */
    snprintf(saved, sizeof(saved), "%s", dmesh_last_error_impl());
    ours = dmesh_mpi_identity_check("dmesh") == DMESH_SUCCESS ||
           __atomic_load_n(&same_mpi, __ATOMIC_RELAXED);
    dmesh_error_set(DMESH_SUCCESS, "%s", saved);
    if (writer >= 0)
        dmesh_error_agreed(DMESH_SUCCESS, writer);
    return ours;
}
