/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-bench: what a mesh costs against the communicator creations it
 * replaces, measured in one run so that the ratios compare like with like.
 *   mpiexec -n 8 dmesh-bench [--shape 2,2,2] [--reps 20] [--json]
 *   dmesh-bench --layout-only [--world 1048576]          (no MPI needed)
 * The MPI run times dmesh_init (checks on and off, split and group, first
 * mesh on a communicator and repeated ones) against baseline A (one
 * MPI_Comm_split per dim) and baseline B (one MPI_Comm_create per group),
 * then local operations and the memory of a live mesh. The layout-only run
 * decomposes every rank of a large 4-D mesh and models its memory. Targets
 * are printed with PASS/MISS and never change the exit status. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "bench.h"

#ifndef DMESH_BENCH_NCCL /* which NCCL --nccl runs on; the double's build says so */
#define DMESH_BENCH_NCCL "the NCCL dmesh was built with"
#endif

/* ---- arguments ---- */

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: mpiexec -n N dmesh-bench [--shape 2,2,2] [--reps 20] [--warmup 3]\n"
        "                   [--create-only] [--profile] [--json | --csv]\n"
        "       mpiexec -n N dmesh-bench --nccl [--shape 2,2,2] [--reps 5]\n"
        "       mpiexec --with-ft ulfm -n N dmesh-bench --ft [--shape 4,2] [--reps 10]\n"
        "       mpiexec -n N dmesh-bench --copies [--copies-mib M] [--reps 5]\n"
        "       dmesh-bench --layout-only [--world 1048576] [--json]\n"
        "Times dmesh_init against one MPI_Comm_split per dim (baseline A) and one\n"
        "MPI_Comm_create per group of every dim (baseline B, a new_group loop), then local\n"
        "operations and memory. Each rep: MPI_Barrier, MPI_Wtime, max over ranks; the\n"
        "report gives min and median over reps. The default shape factors N into up to 3 dims.\n"
        "--create-only skips local operations; --profile attributes the creation time to\n"
        "MPI calls (PMPI wrappers); --nccl compares the NCCL creation strategies\n"
        "(init, split, scalable) of a cuda mesh; --ft times the failure-aware agreement\n"
        "and dmesh_shrink against dmesh_init (the last rank dies at the end); --copies times\n"
        "dmesh_copies_store and a new process's restore of 16 and 256 MiB per process\n"
        "against MPI_Sendrecv + memcpy of the same bytes, and the copies' memory; --layout-only\n"
        "decomposes every rank of a 4-D mesh of --world ranks without MPI and reports the\n"
        "memory of a mesh at 2^10 and 2^20.\n");
}

static int parse_shape(const char *s, bench_args_t *a)
{
    return tool_parse_sizes("dmesh-bench", "--shape", s, ",x", DMESH_MAX_DIMS, a->shape, &a->ndims);
}

/* 1: an option without value matched. */
static int parse_flag(const char *s, bench_args_t *a)
{
    int *flag = strcmp(s, "--json") == 0          ? &a->json
                : strcmp(s, "--csv") == 0         ? &a->csv
                : strcmp(s, "--layout-only") == 0 ? &a->layout_only
                : strcmp(s, "--create-only") == 0 ? &a->create_only
                : strcmp(s, "--profile") == 0     ? &a->profile
                : strcmp(s, "--nccl") == 0        ? &a->nccl
                : strcmp(s, "--ft") == 0          ? &a->ft
                : strcmp(s, "--copies") == 0      ? &a->copies
                                                  : NULL;
    if (flag != NULL)
        *flag = 1;
    return flag != NULL;
}

/* An option with a value; -1 (with a message) when unknown or malformed. */
static int parse_valued(const char *opt, const char *val, bench_args_t *a)
{
    const char *prog = "dmesh-bench";
    long long v;

    if (strcmp(opt, "--shape") == 0)
        return parse_shape(val, a);
    if (strcmp(opt, "--reps") == 0 && tool_parse_long(prog, opt, val, 1, INT_MAX, &v) == 0)
        a->reps = (int)v;
    else if (strcmp(opt, "--warmup") == 0 && tool_parse_long(prog, opt, val, 0, INT_MAX, &v) == 0)
        a->warmup = (int)v;
    else if (strcmp(opt, "--world") == 0 && tool_parse_long(prog, opt, val, 16, INT_MAX, &v) == 0)
        a->world = v;
    else if (strcmp(opt, "--copies-mib") == 0 && tool_parse_long(prog, opt, val, 1, 4096, &v) == 0)
        a->copies_mib = (int)v;
    else
        return -1;
    return 0;
}

static int parse_args(int argc, char **argv, bench_args_t *a)
{
    int i;

    memset(a, 0, sizeof(*a));
    a->reps = 20;
    a->warmup = 3;
    a->world = 1LL << 20;
    for (i = 1; i < argc; i++) {
        if (parse_flag(argv[i], a))
            continue;
        if (strcmp(argv[i], "--shape") != 0 && strcmp(argv[i], "--reps") != 0 &&
            strcmp(argv[i], "--warmup") != 0 && strcmp(argv[i], "--world") != 0 &&
            strcmp(argv[i], "--copies-mib") != 0)
            return tool_unknown_option("dmesh-bench", argv[i]);
        if (i + 1 == argc)
            return tool_missing_value("dmesh-bench", argv[i]);
        if (parse_valued(argv[i], argv[i + 1], a) != 0)
            return -1;
        i++;
    }
    return 0;
}

/* ---- targets ---- */

static void target(bench_report_t *r, const char *label, double value, int ge, double bound,
                   int applies)
{
    bench_target_t *t = &r->targets[r->ntargets++];

    snprintf(t->label, sizeof(t->label), "%s", label);
    t->value = value;
    t->ge = ge;
    t->bound = bound;
    t->applies = applies;
}

static double med_ratio(const bench_report_t *r, const char *a, const char *b)
{
    return bench_find_case(r, a)->med / bench_find_case(r, b)->med;
}

static void targets_mpi(bench_report_t *r)
{
    const bench_item_t *slice = bench_find_item(r, "slice");
    const bench_item_t *kept = bench_find_item(r, "slice_kept");
    const bench_item_t *heap = bench_find_item(r, "live_slice_heap");
    int p = r->size;

    target(r, "dmesh_init / A, checks off <= 1.0 (16 and 32 ranks)", med_ratio(r, "init", "A"), 0,
           1.0, p == 16 || p == 32);
    target(r, "dmesh_init / A, checks on <= 1.10 (16 and 32 ranks)",
           med_ratio(r, "init_check", "A"), 0, 1.10, p == 16 || p == 32);
    target(r, "first mesh on a new comm / A <= 1.25 (16 and 32 ranks)", med_ratio(r, "first", "A"),
           0, 1.25, p == 16 || p == 32);
    target(r, "B / dmesh_init (checks on) >= 3.5 (16 ranks)", med_ratio(r, "B", "init_check"), 1,
           3.5, p == 16);
    target(r, "B / dmesh_init (checks on) >= 7 (32 ranks)", med_ratio(r, "B", "init_check"), 1, 7.0,
           p == 32);
    /* node finding: the host check against the MPI's split alone */
    target(r, "first dmesh_init_hybrid, dmesh_node auto / shared <= 1.10 (16, 32, nodes > 1)",
           med_ratio(r, "hybrid", "hybrid_shared"), 0, 1.10, p == 16 || p == 32 || r->nodes > 1);
    target(r, "first \"cuda\" dmesh_init (double), dmesh_node auto / shared <= 1.10 (16, 32)",
           med_ratio(r, "cuda", "cuda_shared"), 0, 1.10, (p == 16 || p == 32) && bench_cuda_double);
    if (heap != NULL)
        target(r, "mesh handle heap <= 96 + 32 B/dim (slice, 1 dim)", heap->value, 0, 96.0 + 32.0,
               1);
    if (kept != NULL)
        target(r, "dmesh_slice, 2 names, 100 kept <= 300 ns", kept->value, 0, 300.0, 1);
    if (slice != NULL)
        target(r, "dmesh_slice + dmesh_free, 2 names <= 200 ns", slice->value, 0, 200.0, 1);
}

static void targets_layout(bench_report_t *r)
{
    double h10 = bench_find_item(r, "handle_heap_1024")->value;
    double h20 = bench_find_item(r, "handle_heap_1048576")->value;
    double u10 = bench_find_item(r, "universe_1024")->value;
    double u20 = bench_find_item(r, "universe_1048576")->value;

    target(r, "decompose <= 20 ns per rank (4-D, 2^20 ranks)",
           bench_find_item(r, "decompose_per_rank")->value, 0, 20.0, r->n == 1 << 20);
    target(r, "mesh handle heap bytes, |2^20 - 2^10| == 0", fabs(h20 - h10), 0, 0.0, 1);
    target(r, "mesh handle heap <= 96 + 32 B/dim (4-D root, 2^20)", h20, 0, 96.0 + 4 * 32.0, 1);
    target(r, "universe bytes (identity map), |2^20 - 2^10| == 0", fabs(u20 - u10), 0, 0.0, 1);
}

static const char *status(const bench_target_t *t)
{
    if (!t->applies || !isfinite(t->value))
        return "n/a";
    return (t->ge ? t->value >= t->bound : t->value <= t->bound) ? "PASS" : "MISS";
}

/* ---- table ---- */

/* One figure in a field of width (printf's %*.*f), or "n/a" where it could
 * not be measured (NAN) or a ratio has no value (inf): never "nan". */
static void figure(int width, int precision, double v)
{
    if (isfinite(v))
        printf("%*.*f", width, precision, v);
    else
        printf("%*s", width, "n/a");
}

static void print_header(const bench_args_t *a, const bench_report_t *r)
{
    int d;

    if (a->layout_only)
        printf("dmesh-bench --layout-only: world %d ranks, 4-D mesh ", r->n);
    else {
        printf("dmesh-bench: %d ranks", r->size);
        if (r->nodes > 0)
            printf(" on %d node(s)", r->nodes);
        printf(", mesh ");
    }
    for (d = 0; d < r->ndims; d++)
        printf("%s%d", d ? "x" : "", r->shape[d]);
    if (!a->layout_only)
        printf(" (%d ranks), %d reps after %d warm-up%s\nMPI: %s", r->n, a->reps, a->warmup,
               a->profile ? ", --profile (PMPI wrappers timing)" : "", r->mpi_version);
    printf("\n");
}

static void print_cases(const bench_report_t *r)
{
    const bench_case_t *A = bench_find_case(r, "A");
    double extra;
    int j;

    printf(
        "\nCreation, us (MPI_Wtime, max over ranks per rep; communicators freed between reps)\n");
    printf("  %-48s %10s %10s %8s %8s\n", "case", "min", "median", "/A min", "/A med");
    for (j = 0; j < r->ncases; j++) {
        const bench_case_t *c = &r->cases[j];
        printf("  %-48s ", c->label);
        figure(10, 1, c->min * 1e6);
        putchar(' ');
        figure(10, 1, c->med * 1e6);
        putchar(' ');
        figure(8, 2, c->min / A->min);
        putchar(' ');
        figure(8, 2, c->med / A->med);
        putchar('\n');
    }
    printf("  B / dmesh_init: checks on %.2f (min %.2f), checks off %.2f (min %.2f); B / A %.2f\n",
           med_ratio(r, "B", "init_check"),
           bench_find_case(r, "B")->min / bench_find_case(r, "init_check")->min,
           med_ratio(r, "B", "init"),
           bench_find_case(r, "B")->min / bench_find_case(r, "init")->min, med_ratio(r, "B", "A"));
    /* What the first mesh pays over a repeated one: the private duplicate
     * and whatever its creation adds (1.0 x dup: nothing more). */
    extra = bench_find_case(r, "first")->med - bench_find_case(r, "init_check")->med;
    printf("  first mesh - repeated init (checks on): %.1f us = %.2f x MPI_Comm_dup = %.2f x "
           "allreduce\n",
           extra * 1e6, extra / bench_find_case(r, "dup")->med,
           extra / bench_find_case(r, "agree")->med);
}

static void print_profile(const bench_report_t *r)
{
    int j, f;

    printf("\nProfile, us per call (mean over reps, max over ranks; PMPI wrappers)\n");
    for (j = 0; j < r->ncases; j++) {
        const bench_case_t *c = &r->cases[j];
        if (!c->profiled)
            continue;
        printf("  %s:", c->label);
        for (f = 0; f < PROF_N; f++)
            if (c->prof[f] > 0)
                printf(" %s %.1f;", bench_prof_names[f], c->prof[f] * 1e6);
        printf(" other %.1f\n", c->prof_other * 1e6);
    }
}

static void print_items(const bench_report_t *r, const char *section, const char *title)
{
    int i, any = 0;

    for (i = 0; i < r->nitems; i++) {
        const bench_item_t *it = &r->items[i];
        if (strcmp(it->section, section) != 0)
            continue;
        if (!any++)
            printf("\n%s\n", title);
        printf("  %-64s %12.1f %s\n", it->label, it->value, it->unit);
    }
}

static void print_table(const bench_args_t *a, const bench_report_t *r)
{
    int i;

    print_header(a, r);
    if (r->ncases > 0)
        print_cases(r);
    if (a->profile)
        print_profile(r);
    print_items(r, "local",
                "Local operations, ns per call (best batch of 100 calls per rank, median "
                "over ranks)");
    print_items(r, "layout", "Layout only (no MPI): decompose every rank's (colour, key)");
    print_items(r, "memory", "Memory, bytes");
    printf("\nTargets (reported, never asserted)\n");
    for (i = 0; i < r->ntargets; i++) {
        printf("  %-4s %-56s measured ", status(&r->targets[i]), r->targets[i].label);
        figure(0, 2, r->targets[i].value);
        putchar('\n');
    }
    for (i = 0; i < r->nnotes; i++)
        printf("note: %s\n", r->notes[i]);
}

/* ---- JSON and CSV ---- */

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

/* A JSON number, or null where the value could not be measured (NAN) or
 * has none (inf): JSON has neither. */
static void json_num(int precision, double v)
{
    if (isfinite(v))
        printf("%.*f", precision, v);
    else
        printf("null");
}

static void json_cases(const bench_report_t *r)
{
    int j, f;

    printf(",\"creation_us\":{");
    for (j = 0; j < r->ncases; j++) {
        const bench_case_t *c = &r->cases[j];
        printf("%s\"%s\":{\"label\":", j ? "," : "", c->key);
        json_str(c->label);
        printf(",\"min\":");
        json_num(3, c->min * 1e6);
        printf(",\"median\":");
        json_num(3, c->med * 1e6);
        if (c->profiled) {
            printf(",\"profile\":{");
            for (f = 0; f < PROF_N; f++) {
                printf("\"%s\":", bench_prof_names[f]);
                json_num(3, c->prof[f] * 1e6);
                putchar(',');
            }
            printf("\"other\":");
            json_num(3, c->prof_other * 1e6);
            putchar('}');
        }
        printf("}");
    }
    static const char *const ratios[][2] = {
        {"init", "A"}, {"init_check", "A"}, {"init_group", "A"}, {"first", "A"},
        {"B", "init"}, {"B", "init_check"}, {"B", "A"},          {"hybrid", "hybrid_shared"}};

    printf("},\"ratios_median\":{");
    for (j = 0; j < (int)(sizeof(ratios) / sizeof(ratios[0])); j++) {
        printf("%s\"%s/%s\":", j ? "," : "", ratios[j][0], ratios[j][1]);
        json_num(4, med_ratio(r, ratios[j][0], ratios[j][1]));
    }
    printf("}");
}

static void json_items(const bench_report_t *r)
{
    int i;

    printf(",\"items\":{");
    for (i = 0; i < r->nitems; i++) {
        printf("%s\"%s\":{\"section\":\"%s\",\"value\":", i ? "," : "", r->items[i].key,
               r->items[i].section);
        json_num(3, r->items[i].value);
        printf(",\"unit\":\"%s\",\"label\":", r->items[i].unit);
        json_str(r->items[i].label);
        printf("}");
    }
    printf("},\"targets\":[");
    for (i = 0; i < r->ntargets; i++) {
        const bench_target_t *t = &r->targets[i];
        printf("%s{\"target\":", i ? "," : "");
        json_str(t->label);
        printf(",\"value\":");
        json_num(4, t->value);
        printf(",\"op\":\"%s\",\"bound\":", t->ge ? ">=" : "<=");
        json_num(4, t->bound);
        printf(",\"status\":\"%s\"}", status(t));
    }
    printf("],\"notes\":[");
    for (i = 0; i < r->nnotes; i++) {
        printf("%s", i ? "," : "");
        json_str(r->notes[i]);
    }
    printf("]");
}

static void print_json(const bench_args_t *a, const bench_report_t *r)
{
    int d;

    printf("{\"mode\":\"%s\",\"ranks\":%d,\"nodes\":", a->layout_only ? "layout-only" : "mpi",
           r->size);
    if (r->nodes > 0)
        printf("%d", r->nodes);
    else
        printf("null");
    printf(",\"mesh_size\":%d,\"shape\":[", r->n);
    for (d = 0; d < r->ndims; d++)
        printf("%s%d", d ? "," : "", r->shape[d]);
    printf("],\"reps\":%d,\"warmup\":%d,\"mpi\":", a->reps, a->warmup);
    json_str(r->mpi_version);
    if (r->ncases > 0)
        json_cases(r);
    json_items(r);
    printf("}\n");
}

static void print_csv(const bench_report_t *r)
{
    int j, d;

    printf("ranks,shape");
    for (j = 0; j < r->ncases; j++)
        printf(",%s_min_us,%s_median_us", r->cases[j].key, r->cases[j].key);
    printf(",init_over_A,init_check_over_A,B_over_init_check,B_over_A\n%d,", r->size);
    for (d = 0; d < r->ndims; d++)
        printf("%s%d", d ? "x" : "", r->shape[d]);
    for (j = 0; j < r->ncases; j++) { /* an empty field where not measured */
        printf(",");
        if (isfinite(r->cases[j].min))
            printf("%.3f", r->cases[j].min * 1e6);
        printf(",");
        if (isfinite(r->cases[j].med))
            printf("%.3f", r->cases[j].med * 1e6);
    }
    printf(",%.4f,%.4f,%.4f,%.4f\n", med_ratio(r, "init", "A"), med_ratio(r, "init_check", "A"),
           med_ratio(r, "B", "init_check"), med_ratio(r, "B", "A"));
}

static void print_report(const bench_args_t *a, const bench_report_t *r)
{
    if (a->json)
        print_json(a, r);
    else if (a->csv && r->ncases > 0)
        print_csv(r);
    else
        print_table(a, r);
    fflush(stdout);
}

/* ---- main ---- */

static int run_layout_only(const bench_args_t *a, bench_report_t *r)
{
    int bad = bench_layout(a, r);

    snprintf(r->mpi_version, sizeof(r->mpi_version), "none (layout only)");
    targets_layout(r);
    print_report(a, r);
    if (bad)
        fprintf(stderr, "dmesh-bench: %d decompositions disagree with groups()\n", bad);
    return bad ? 1 : 0;
}

/* Default shape, and a check that the mesh fits the communicator. */
static int mesh_setup(bench_args_t *a, bench_report_t *r)
{
    static char version[MPI_MAX_LIBRARY_VERSION_STRING]; /* 8192 bytes with MPICH */
    long long n = 1;
    int d, len;

    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n,")] = '\0';
    snprintf(r->mpi_version, sizeof(r->mpi_version), "%.*s", (int)sizeof(r->mpi_version) - 1,
             version);
    if (a->ndims == 0) { /* 3 dims, fewer when N has fewer prime factors: no size-1 dims */
        bench_factor(r->size, 3, a->shape);
        for (a->ndims = 3; a->ndims > 1 && a->shape[a->ndims - 1] == 1;)
            a->ndims--;
    }
    for (d = 0; d < a->ndims; d++)
        n *= a->shape[d];
    r->n = (int)n;
    r->ndims = a->ndims;
    memcpy(r->shape, a->shape, sizeof(r->shape));
    if (n <= r->size)
        return 0;
    if (r->rank == 0)
        fprintf(stderr, "dmesh-bench: the shape has %lld ranks, the job %d\n", n, r->size);
    return -1;
}

int main(int argc, char **argv)
{
    static bench_report_t r;
    bench_args_t a;
    MPI_Comm comm;

    if (argc > 1 && strcmp(argv[1], BENCH_CHILD) == 0) { /* started by --ft */
        int rc;
        MPI_Init(&argc, &argv);
        rc = bench_ft_child(argc, argv);
        bench_ft_finalize();
        return rc;
    }
    if (parse_args(argc, argv, &a) != 0) {
        usage(stderr);
        return 2;
    }
    if (a.layout_only)
        return run_layout_only(&a, &r);
    MPI_Init(&argc, &argv);
    /* dmesh raises its failures on these handlers (fatal by default): the tool
     * reports them itself. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (mesh_setup(&a, &r) != 0) /* rank 0's message out before any rank exits */
        return tool_finalize(2);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (a.nccl) {
        bench_nccl(&a, comm, r.rank, DMESH_BENCH_NCCL);
        MPI_Comm_free(&comm);
        MPI_Finalize();
        return 0;
    }
    if (a.copies) {
        int rc = bench_copies(&a, comm, r.rank);
        MPI_Comm_free(&comm);
        return tool_finalize(rc);
    }
    if (a.ft) { /* a process dies at its end: errors return */
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        int off = bench_ft(&a, comm, r.rank, r.size);
        MPI_Comm_free(&comm);
        bench_ft_finalize();
        return off;
    }
    bench_create(&a, comm, &r);
    if (!a.create_only)
        bench_local(&a, comm, &r);
    targets_mpi(&r);
    if (r.rank == 0)
        print_report(&a, &r);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
