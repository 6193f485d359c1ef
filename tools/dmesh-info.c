/* dmesh-info: build a mesh under mpiexec and print, from rank 0, the mesh,
 * every rank's coordinate and groups along each dimension, and the cache
 * figures. With --plan, print the GPU binding plan of a topology instead. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"
#include "dmesh-info-plan.h"

#define MAX_GROUP 64 /* ranks printed per group */

typedef struct {
    int ndims, shape[DMESH_MAX_DIMS];
    char *names[DMESH_MAX_DIMS];
    char *flatten;   /* comma-separated names to slice and flatten */
    char *unflatten; /* DIM:SIZES:NAMES */
} args_t;

static void usage(FILE *f)
{
    fprintf(f, "usage: mpiexec -n N dmesh-info [--shape 2,2,2] [--names dp,cp,tp]\n"
               "                  [--flatten dp,cp] [--unflatten DIM:2,2:NAME1,NAME2]\n"
               "       dmesh-info --plan --topology FILE.xml --ranks-per-node N "
               "[--bind socket|core|numa|none]\n"
               "Builds a cpu mesh on MPI_COMM_WORLD (default shape 2,2,2, names dp,cp,tp) and "
               "prints each\nrank's coordinate and group along every dimension, and the "
               "communicator cache figures.\n--flatten slices the named dims and flattens them; "
               "--unflatten splits dim DIM.\n--plan prints the GPU each local rank would get "
               "on a topology (no GPU needed).\n");
}

/* Split s at commas into at most max pieces (in place). */
static int split(char *s, char *out[], int max)
{
    int n = 0;
    char *tok, *save = NULL;

    for (tok = strtok_r(s, ",", &save); tok != NULL && n < max; tok = strtok_r(NULL, ",", &save))
        out[n++] = tok;
    return n;
}

static int parse_ints(char *s, int out[], int max)
{
    char *parts[DMESH_MAX_DIMS];
    int n = split(s, parts, max), i;

    for (i = 0; i < n; i++)
        out[i] = atoi(parts[i]);
    return n;
}

static int parse_args(int argc, char **argv, args_t *a)
{
    static char default_names[] = "dp,cp,tp";
    char *names = default_names;
    int i;

    a->ndims = 3;
    a->shape[0] = a->shape[1] = a->shape[2] = 2;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
            a->ndims = parse_ints(argv[++i], a->shape, DMESH_MAX_DIMS);
        else if (strcmp(argv[i], "--names") == 0 && i + 1 < argc)
            names = argv[++i];
        else if (strcmp(argv[i], "--flatten") == 0 && i + 1 < argc)
            a->flatten = argv[++i];
        else if (strcmp(argv[i], "--unflatten") == 0 && i + 1 < argc)
            a->unflatten = argv[++i];
        else
            return -1;
    }
    if (split(names, a->names, DMESH_MAX_DIMS) != a->ndims) {
        fprintf(stderr, "dmesh-info: --names must give %d names\n", a->ndims);
        return -1;
    }
    return 0;
}

static int check(int err, const char *what)
{
    if (err != DMESH_SUCCESS)
        fprintf(stderr, "dmesh-info: %s: %s (%s)\n", what, dmesh_error_string(err),
                dmesh_last_error());
    return err;
}

/* One row of the table: coordinate and groups of one rank, as text. */
static void describe_rank(dmesh_t m, char *row, size_t len)
{
    int ndims, coords[DMESH_MAX_DIMS], member, d, i, n, ranks[MAX_GROUP];
    size_t k;

    dmesh_get_ndims(m, &ndims);
    dmesh_get_coordinate(m, DMESH_MAX_DIMS, coords, &member);
    if (!member) {
        snprintf(row, len, "(not in the mesh)");
        return;
    }
    k = (size_t)snprintf(row, len, "(");
    for (d = 0; d < ndims; d++)
        k += (size_t)snprintf(row + k, len - k, "%s%d", d ? "," : "", coords[d]);
    k += (size_t)snprintf(row + k, len - k, ")");
    while (k < 14 && k + 1 < len)
        row[k++] = ' ';
    row[k] = '\0';
    for (d = 0; d < ndims && k < len; d++) {
        char group[256];
        size_t g = 0;
        if (dmesh_get_group_ranks(m, d, MAX_GROUP, ranks, &n) != DMESH_SUCCESS) {
            k += (size_t)snprintf(row + k, len - k, "  %-14s", "[...]");
            continue;
        }
        for (i = 0; i < n && g < sizeof(group); i++)
            g += (size_t)snprintf(group + g, sizeof(group) - g, "%s%d", i ? "," : "[", ranks[i]);
        if (g < sizeof(group))
            snprintf(group + g, sizeof(group) - g, "]");
        k += (size_t)snprintf(row + k, len - k, "  %-14s", group);
    }
}

static void print_table(dmesh_t m, const char *title)
{
    enum { ROW = 512 };
    char row[ROW], *all = NULL, text[4096];
    int rank, size, ndims, d, r;
    const char *name;
    dmesh_cache_info_t ci;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    describe_rank(m, row, ROW);
    if (rank == 0 && (all = malloc((size_t)size * ROW)) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(row, ROW, MPI_CHAR, all, ROW, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    dmesh_to_string(m, text, sizeof(text), NULL);
    dmesh_get_ndims(m, &ndims);
    printf("%s: %s\n%6s  %-14s", title, text, "rank", "coordinate");
    printf("  groups along each dimension:\n%6s  %-14s", "", "");
    for (d = 0; d < ndims; d++) {
        dmesh_get_dim_name(m, d, &name);
        printf("  %-14s", name ? name : "?");
    }
    printf("\n");
    for (r = 0; r < size; r++)
        printf("%6d  %s\n", r, all + (size_t)r * ROW);
    dmesh_get_cache_info(m, &ci);
    printf("cache: %d MPI communicators, %d NCCL, %ld lookups, %ld hits\n\n", ci.comms_mpi,
           ci.comms_nccl, ci.lookups, ci.hits);
    free(all);
}

/* "DIM:SIZES:NAMES" into its three fields (in place). */
static int split_fields(char *s, char *fields[3])
{
    int i;

    for (i = 0; i < 3; i++) {
        fields[i] = s;
        s = i < 2 ? strchr(s, ':') : s;
        if (s == NULL) {
            fprintf(stderr, "dmesh-info: --unflatten wants DIM:SIZES:NAMES, e.g. 0:2,2:dp,ep\n");
            return -1;
        }
        if (i < 2)
            *s++ = '\0';
    }
    return 0;
}

static int run(const args_t *a)
{
    dmesh_t mesh = DMESH_NULL, sub = DMESH_NULL, out = DMESH_NULL;
    char *parts[DMESH_MAX_DIMS], *fields[3], spec[256];
    int err, n, sizes[DMESH_MAX_DIMS];

    err = check(dmesh_init(MPI_COMM_WORLD, "cpu", a->ndims, a->shape, (const char *const *)a->names,
                           MPI_INFO_NULL, &mesh), "dmesh_init");
    if (err == DMESH_SUCCESS)
        print_table(mesh, "mesh");
    if (err == DMESH_SUCCESS && a->flatten != NULL) {
        snprintf(spec, sizeof(spec), "%s", a->flatten);
        n = split(spec, parts, DMESH_MAX_DIMS);
        err = check(dmesh_slice(mesh, n, (const char *const *)parts, &sub), "dmesh_slice");
        if (err == DMESH_SUCCESS)
            err = check(dmesh_flatten(sub, NULL, MPI_INFO_NULL, &out), "dmesh_flatten");
        if (err == DMESH_SUCCESS)
            print_table(out, "flattened");
    }
    if (err == DMESH_SUCCESS && a->unflatten != NULL) {
        snprintf(spec, sizeof(spec), "%s", a->unflatten);
        if (split_fields(spec, fields) != 0)
            return 1;
        n = parse_ints(fields[1], sizes, DMESH_MAX_DIMS);
        split(fields[2], parts, DMESH_MAX_DIMS);
        dmesh_free(&out);
        err = check(dmesh_unflatten(mesh, atoi(fields[0]), n, sizes, (const char *const *)parts,
                                    MPI_INFO_NULL, &out), "dmesh_unflatten");
        if (err == DMESH_SUCCESS)
            print_table(out, "unflattened");
    }
    dmesh_free(&out);
    dmesh_free(&sub);
    dmesh_free(&mesh);
    return err == DMESH_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    args_t a;
    int rc;

    memset(&a, 0, sizeof(a));
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    for (rc = 1; rc < argc; rc++)
        if (strcmp(argv[rc], "--plan") == 0) /* no MPI, no GPU needed */
            return dmesh_info_plan(argc, argv);
    MPI_Init(&argc, &argv);
    if (parse_args(argc, argv, &a) != 0) {
        usage(stderr);
        MPI_Finalize();
        return 2;
    }
    rc = run(&a);
    MPI_Finalize();
    return rc;
}
