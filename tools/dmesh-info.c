/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-info: build a mesh under mpiexec and print, from rank 0, the mesh,
 * every rank's host, node, coordinate and groups along each dimension, and
 * the cache figures; the mesh in rank order, node order (dmesh_order=node)
 * or a hybrid one (dmesh_init_hybrid). With --plan, print the GPU binding plan of a topology
 * instead. Messages come from rank 0 only: a bad option or a failed dmesh call is the same on every
 * rank, which then all finalize and exit non-zero, each only once rank 0's
 * message is out (tool_finalize): the launcher ends the job at the first
 * non-zero exit. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"
#include "args.h"
#include "dmesh-info-plan.h"
#include "node.h"
#include "node_find.h"
#include "options.h"

#define MAX_GROUP 64 /* ranks printed per group */

typedef struct {
    int ndims, shape[DMESH_MAX_DIMS];
    int filled; /* a shape entry is 0: dmesh_init chooses it */
    char *names[DMESH_MAX_DIMS];
    char names_text[DMESH_MAX_DIMS * DMESH_MAX_NAME];
    char *flatten;   /* comma-separated names to slice and flatten */
    char *unflatten; /* DIM:SIZES:NAMES as given */
    int unflatten_dim, unflatten_n, unflatten_sizes[DMESH_MAX_DIMS];
    char *unflatten_names[DMESH_MAX_DIMS];
    char unflatten_text[256];
    int order; /* ORDER_* */
    int in_node[DMESH_MAX_DIMS], across[DMESH_MAX_DIMS];
} args_t;

enum { ORDER_RANK, ORDER_NODE, ORDER_HYBRID };

/* Where messages go: stderr on rank 0 (and before MPI_Init), else nowhere. */
static FILE *messages;

static void complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...)
{
    va_list ap;

    if (messages == NULL)
        return;
    va_start(ap, fmt);
    vfprintf(messages, fmt, ap);
    va_end(ap);
}

static void usage(FILE *f)
{
    if (f == NULL)
        return;
    fprintf(f, "usage: mpiexec -n N dmesh-info [--shape 0,0,0] [--names dp,cp,tp]\n"
               "                  [--order rank|node | --hybrid IN_NODE:ACROSS]\n"
               "                  [--flatten dp,cp] [--unflatten DIM:2,2:NAME1,NAME2]\n"
               "       dmesh-info --plan --topology FILE.xml --ranks-per-node N "
               "[--bind socket|core|numa|none]\n"
               "       dmesh-info --version | --config | --help\n"
               "Builds a cpu mesh on MPI_COMM_WORLD (default shape 0,0,0, names dp,cp,tp) and "
               "prints each\nrank's host, node, coordinate and group along every dimension, the "
               "communicator cache figures,\nand what copies in memory would survive with their "
               "default placement.\nA shape entry 0 is chosen by dmesh_init as "
               "MPI_Dims_create would (the default fits any N).\n--order node lists the ranks by "
               "node (dmesh_order=node); --hybrid 1,0:2,1 builds dmesh_init_hybrid's\nmesh of "
               "those in-node and across-node factors instead (entries 0 chosen, in one list).\n"
               "--flatten slices the named dims "
               "and flattens them; "
               "--unflatten splits dim DIM.\n--plan prints the GPU each local rank would get "
               "on a topology (no GPU needed).\n--version prints the version of dmesh-info and of "
               "the library; --config how the library was built.\n");
}

/* Split s at commas into pieces (in place); -1 when there are more than max. */
static int split(char *s, char *out[], int max)
{
    int n = 0;
    char *tok, *save = NULL;

    for (tok = strtok_r(s, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (n == max)
            return -1;
        out[n++] = tok;
    }
    return n;
}

/* Default names for ndims dims: the usual parallelism names up to 3 dims
 * (dp,cp,tp for 3, dp,tp for 2, dp for 1), d0,d1,... beyond. */
static void default_names(int ndims, char *text, size_t len)
{
    static const char *const usual[3] = {"dp", "dp,tp", "dp,cp,tp"};
    size_t k = 0;
    int d;

    if (ndims <= 3) {
        snprintf(text, len, "%s", usual[ndims - 1]);
        return;
    }
    text[0] = '\0';
    for (d = 0; d < ndims && k < len; d++)
        k += (size_t)snprintf(text + k, len - k, "%sd%d", d ? "," : "", d);
}

/* --unflatten DIM:SIZES:NAMES, checked whole: as many names as sizes. */
static int parse_unflatten(args_t *a)
{
    const char *opt = "--unflatten";
    char *dim, *sizes, *names;
    long long v;
    int n;

    if (snprintf(a->unflatten_text, sizeof(a->unflatten_text), "%s", a->unflatten) >=
        (int)sizeof(a->unflatten_text)) {
        complain("dmesh-info: %s: value too long\n", opt);
        return -1;
    }
    dim = a->unflatten_text;
    if ((sizes = strchr(dim, ':')) == NULL || (names = strchr(sizes + 1, ':')) == NULL) {
        complain("dmesh-info: %s wants DIM:SIZES:NAMES, e.g. 0:2,2:dp,ep (got '%s')\n", opt,
                 a->unflatten);
        return -1;
    }
    *sizes++ = '\0';
    *names++ = '\0';
    if (tool_parse_long("dmesh-info", opt, dim, 0, DMESH_MAX_DIMS - 1, &v) != 0 ||
        tool_parse_sizes("dmesh-info", opt, sizes, ",", DMESH_MAX_DIMS, a->unflatten_sizes,
                         &a->unflatten_n) != 0)
        return -1;
    a->unflatten_dim = (int)v;
    n = split(names, a->unflatten_names, DMESH_MAX_DIMS);
    if (n != a->unflatten_n) {
        complain("dmesh-info: %s: %d sizes but %d names in '%s'\n", opt, a->unflatten_n, n,
                 a->unflatten);
        return -1;
    }
    return 0;
}

/* --hybrid IN_NODE:ACROSS: two lists of as many factors (0: chosen). */
static int parse_hybrid(const char *val, args_t *a)
{
    const char *opt = "--hybrid";
    char text[256], *across;
    int n = 0, m = 0;

    snprintf(text, sizeof(text), "%s", val);
    if ((across = strchr(text, ':')) == NULL) {
        complain("dmesh-info: %s wants IN_NODE:ACROSS, e.g. 1,0:0,1 (got '%s')\n", opt, val);
        return -1;
    }
    *across++ = '\0';
    if (tool_parse_list("dmesh-info", opt, text, ",", DMESH_MAX_DIMS, 0, a->in_node, &n) != 0 ||
        tool_parse_list("dmesh-info", opt, across, ",", DMESH_MAX_DIMS, 0, a->across, &m) != 0)
        return -1;
    if (n != m) {
        complain("dmesh-info: %s: %d in-node factors but %d across-node factors in '%s'\n", opt, n,
                 m, val);
        return -1;
    }
    a->ndims = n;
    a->order = ORDER_HYBRID;
    return 0;
}

static int parse_order(const char *val, args_t *a)
{
    if (strcmp(val, "rank") == 0 || strcmp(val, "node") == 0) {
        a->order = strcmp(val, "node") == 0 ? ORDER_NODE : ORDER_RANK;
        return 0;
    }
    complain("dmesh-info: --order: '%s' is not rank or node (a hybrid mesh: --hybrid)\n", val);
    return -1;
}

static int parse_args(int argc, char **argv, args_t *a)
{
    int shape_given = 0, order_given = 0;
    const char *prog = "dmesh-info";
    char *names = NULL;
    int i, n;

    a->ndims = 3; /* 0,0,0: three dimensions that fit any number of ranks */
    a->shape[0] = a->shape[1] = a->shape[2] = 0;
    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--shape") != 0 && strcmp(opt, "--names") != 0 &&
            strcmp(opt, "--flatten") != 0 && strcmp(opt, "--unflatten") != 0 &&
            strcmp(opt, "--order") != 0 && strcmp(opt, "--hybrid") != 0)
            return tool_unknown_option(prog, opt);
        if (val == NULL)
            return tool_missing_value(prog, opt);
        i++;
        shape_given |= strcmp(opt, "--shape") == 0;
        order_given += strcmp(opt, "--order") == 0 || strcmp(opt, "--hybrid") == 0;
        if (strcmp(opt, "--shape") == 0 &&
            tool_parse_list(prog, opt, val, ",", DMESH_MAX_DIMS, 0, a->shape, &a->ndims) != 0)
            return -1;
        if (strcmp(opt, "--order") == 0 && parse_order(val, a) != 0)
            return -1;
        if (strcmp(opt, "--hybrid") == 0 && parse_hybrid(val, a) != 0)
            return -1;
        if (strcmp(opt, "--names") == 0)
            names = val;
        if (strcmp(opt, "--flatten") == 0)
            a->flatten = val;
        if (strcmp(opt, "--unflatten") == 0)
            a->unflatten = val;
    }
    if (a->order == ORDER_HYBRID && (shape_given || order_given > 1)) {
        complain("dmesh-info: --hybrid gives the shape and the order: no --shape or --order "
                 "with it\n");
        return -1;
    }
    if (names == NULL) {
        default_names(a->ndims, a->names_text, sizeof(a->names_text));
        names = a->names_text;
    }
    if ((n = split(names, a->names, DMESH_MAX_DIMS)) != a->ndims) {
        complain("dmesh-info: --names must give %d names (one per dim of the shape)\n", a->ndims);
        return -1;
    }
    for (i = 0; i < a->ndims && a->order != ORDER_HYBRID; i++)
        a->filled |= a->shape[i] == 0;
    return a->unflatten != NULL ? parse_unflatten(a) : 0;
}

/* A failed call: collective calls fail alike on every rank (they agree),
 * local ones too (every rank passes the same arguments): rank 0 reports. */
static int check(int err, const char *what)
{
    if (err != DMESH_SUCCESS)
        complain("dmesh-info: %s: %s (%s)\n", what, dmesh_error_string(err), dmesh_last_error());
    return err;
}

/* The shape asked for and the one dmesh_init chose, when it chose. */
static void print_shape(const args_t *a, dmesh_t m)
{
    int shape[DMESH_MAX_DIMS], size, d;

    if (a->order == ORDER_HYBRID && messages != NULL &&
        dmesh_get_shape(m, DMESH_MAX_DIMS, shape) == 0) {
        printf("dmesh_init_hybrid: in_node ");
        for (d = 0; d < a->ndims; d++)
            printf("%s%d", d ? "," : "", a->in_node[d]);
        printf(", across ");
        for (d = 0; d < a->ndims; d++)
            printf("%s%d", d ? "," : "", a->across[d]);
        printf(": shape ");
        for (d = 0; d < a->ndims; d++)
            printf("%s%d", d ? "," : "", shape[d]);
        printf(" (in-node factor inner)\n\n");
        return;
    }
    if (!a->filled || messages == NULL || dmesh_get_shape(m, DMESH_MAX_DIMS, shape) != 0)
        return;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("shape ");
    for (d = 0; d < a->ndims; d++)
        printf("%s%d", d ? "," : "", a->shape[d]);
    printf(" on %d ranks: ", size);
    for (d = 0; d < a->ndims; d++)
        printf("%s%d", d ? "," : "", shape[d]);
    printf(" (entries 0 chosen by dmesh_init as MPI_Dims_create chooses)\n\n");
}

/* Which dims of a derived mesh use the very communicator of a dim of the
 * mesh (the cache gave it again, or the dim was carried over): what the
 * cache figures count only as communicators not made. Rank 0 is a member. */
/* The dim of mesh (nm dims) whose communicator is that of dim d of out,
 * one of the same name first (dims of size 1 all share one); -1: none. */
static int shared_dim(dmesh_t mesh, int nm, dmesh_t out, int d)
{
    const char *a, *b;
    MPI_Comm x, y;
    int k, pass;

    if (dmesh_get_comm(out, d, &x) != DMESH_SUCCESS || x == MPI_COMM_NULL ||
        dmesh_get_dim_name(out, d, &a) != DMESH_SUCCESS)
        return -1;
    for (pass = 0; pass < 2; pass++)
        for (k = 0; k < nm; k++)
            if (dmesh_get_comm(mesh, k, &y) == DMESH_SUCCESS && x == y &&
                dmesh_get_dim_name(mesh, k, &b) == DMESH_SUCCESS &&
                (pass == 1 || (a != NULL && b != NULL && strcmp(a, b) == 0)))
                return k;
    return -1;
}

static void print_shared(dmesh_t mesh, dmesh_t out)
{
    int nm, no, d, n = 0;
    const char *a, *b;

    if (messages == NULL)
        return;
    dmesh_get_ndims(mesh, &nm);
    dmesh_get_ndims(out, &no);
    printf("communicators shared with the mesh:");
    for (d = 0; d < no; d++) {
        int k = shared_dim(mesh, nm, out, d);
        if (k < 0)
            continue;
        dmesh_get_dim_name(out, d, &a);
        dmesh_get_dim_name(mesh, k, &b);
        printf("%s %s = mesh's %s", n++ ? "," : "", a ? a : "?", b ? b : "?");
    }
    printf("%s\n\n", n ? "" : " none");
}

/* The lowest rank of each world rank's node, as the library finds the
 * nodes (dmesh_node / DMESH_NODE), for the table; NULL when not found. */
static int *node_lows;

/* One row of the table: host, node, coordinate and groups of one rank, as
 * text. */
static void describe_rank(dmesh_t m, char *row, size_t len)
{
    int ndims, coords[DMESH_MAX_DIMS], member, d, i, n, ranks[MAX_GROUP], rank, hl = 0;
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "?", node[16] = "?";
    size_t k;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(host, &hl);
    if (node_lows != NULL)
        snprintf(node, sizeof(node), "%d", node_lows[rank]);
    k = (size_t)snprintf(row, len, "%-12s %5s  ", host, node);
    if (k >= len)
        return;
    row += k;
    len -= k;
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
    static const char *const where[4] = {"", "node", "across", "mixed"};
    int rank, size, ndims, d, r, kind[DMESH_MAX_DIMS];
    const char *name;
    dmesh_cache_info_t ci;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    describe_rank(m, row, ROW);
    if (rank == 0 && (all = malloc((size_t)size * ROW)) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(row, ROW, MPI_CHAR, all, ROW, MPI_CHAR, 0, MPI_COMM_WORLD);
    dmesh_get_ndims(m, &ndims);
    for (d = 0; d < ndims; d++) /* collective at the first call: every rank */
        if (dmesh_get_dim_locality(m, d, &kind[d]) != DMESH_SUCCESS)
            kind[d] = 0;
    if (rank != 0)
        return;
    dmesh_to_string(m, text, sizeof(text), NULL);
    printf("%s: %s\n%6s  %-12s %5s  %-14s", title, text, "rank", "host", "node", "coordinate");
    printf("  groups along each dimension:\n%6s  %-12s %5s  %-14s", "", "", "", "");
    for (d = 0; d < ndims; d++) {
        dmesh_get_dim_name(m, d, &name);
        printf("  %-14s", name ? name : "?");
    }
    printf("\n");
    for (r = 0; r < size; r++)
        printf("%6d  %s\n", r, all + (size_t)r * ROW);
    dmesh_get_cache_info(m, &ci);
    printf("locality (over the nodes above; a node: its lowest rank):");
    for (d = 0; d < ndims; d++) {
        dmesh_get_dim_name(m, d, &name);
        printf(" %s %s", name ? name : "?", kind[d] >= 1 && kind[d] <= 3 ? where[kind[d]] : "?");
    }
    printf("\ncache: %d MPI communicators, %d NCCL, %ld lookups, %ld hits\n\n", ci.comms_mpi,
           ci.comms_nccl, ci.lookups, ci.hits);
    free(all);
}

/* How the library finds this rank's node (dmesh_node / DMESH_NODE), as
 * rank 0 sees it: the one function every node-aware part of dmesh calls.
 * Collective over MPI_COMM_WORLD. */
static int print_nodes(void)
{
    dmesh_options_t o;
    dmesh_node_t node;
    int rank, size = 0, err;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    err = dmesh_options_parse(MPI_INFO_NULL, 1, NULL, 0, &o);
    err = dmesh_node_find(MPI_COMM_WORLD, err == DMESH_SUCCESS ? o.node : DMESH_NODE_AUTO, err,
                          NULL, &node);
    if (err == DMESH_SUCCESS)
        MPI_Comm_size(node.comm, &size);
    if (rank == 0 && err == DMESH_SUCCESS)
        printf("node of rank 0 (dmesh_node=%s): %d rank(s); %s\n\n", dmesh_node_rule_names[o.node],
               size, node.detail);
    else if (rank == 0)
        fprintf(messages, "dmesh-info: finding the nodes: %s\n", dmesh_last_error());
    dmesh_node_free(&node);
    return err;
}

/* What the copies in memory of each scheme would survive on mesh with the
 * default placement (dmesh_copies_open, dmesh_copies_get_survival), counted
 * over the mesh's members on rank 0, with rank 0's partners. Collective
 * over MPI_COMM_WORLD. */
static int print_copies(dmesh_t mesh)
{
    static const char *const scheme[2] = {"partner", "xor"};
    static const char *const what[3] = {"nothing (no other member holds them)",
                                        "the loss of one process",
                                        "the loss of their node (or domain)"};
    int rank, err = DMESH_SUCCESS;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 2 && err == DMESH_SUCCESS; i++) {
        MPI_Info info;
        dmesh_copies_t c = DMESH_COPIES_NULL;
        int kind = -1, count[3] = {0, 0, 0}, all[3], p[8], np = 0, member = 0;
        int coords[DMESH_MAX_DIMS];
        MPI_Info_create(&info);
        MPI_Info_set(info, "dmesh_copies_scheme", scheme[i]);
        err = check(dmesh_copies_open(mesh, "dmesh-info", info, &c), "dmesh_copies_open");
        MPI_Info_free(&info);
        if (err != DMESH_SUCCESS)
            break;
        dmesh_get_coordinate(mesh, DMESH_MAX_DIMS, coords, &member);
        if (member && dmesh_copies_get_survival(c, &kind) == DMESH_SUCCESS && kind >= 0 &&
            kind <= 2)
            count[kind] = 1;
        if (member)
            dmesh_copies_get_partners(c, 8, p, &np);
        MPI_Reduce(count, all, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        dmesh_copies_free(&c);
        if (rank != 0)
            continue;
        printf("%s%s (default placement):", i == 0 ? "copies in memory, " : "", scheme[i]);
        for (int k = 2; k >= 0; k--)
            if (all[k] > 0)
                printf(" the copies of %d of %d process(es) survive %s;", all[k],
                       all[0] + all[1] + all[2], what[k]);
        printf(" rank 0's partners:");
        for (int j = 0; j < np && j < 8; j++)
            printf(" %d", p[j]);
        printf("%s\n", np == 0 ? " none" : np > 8 ? " ..." : "");
    }
    if (rank == 0 && err == DMESH_SUCCESS)
        printf("\n");
    return err;
}

/* The nodes of the world by the environment's rule, for every table. */
static int find_lows(void)
{
    dmesh_options_t o;
    int err = dmesh_options_parse(MPI_INFO_NULL, 1, NULL, 0, &o);

    if (err != DMESH_SUCCESS)
        o.node = DMESH_NODE_AUTO; /* the same failure on every rank: the mesh reports it */
    err = dmesh_node_lows(MPI_COMM_WORLD, o.node, NULL, &node_lows, NULL);
    if (err != DMESH_SUCCESS)
        complain("dmesh-info: finding the nodes: %s\n", dmesh_last_error());
    return err;
}

/* The mesh of the options: dmesh_init in rank or node order, or
 * dmesh_init_hybrid. */
static int make_mesh(const args_t *a, dmesh_t *mesh)
{
    const char *const *names = (const char *const *)a->names;
    MPI_Info info = MPI_INFO_NULL;
    int err;

    if (a->order == ORDER_HYBRID)
        return check(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", a->ndims, a->in_node, a->across,
                                       names, MPI_INFO_NULL, mesh),
                     "dmesh_init_hybrid");
    if (a->order == ORDER_NODE) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "dmesh_order", "node");
    }
    err = check(dmesh_init(MPI_COMM_WORLD, "cpu", a->ndims, a->shape, names, info, mesh),
                a->order == ORDER_NODE ? "dmesh_init (dmesh_order=node)" : "dmesh_init");
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return err;
}

static int run(const args_t *a)
{
    dmesh_t mesh = DMESH_NULL, sub = DMESH_NULL, out = DMESH_NULL;
    char *parts[DMESH_MAX_DIMS], spec[256];
    int err, n;

    /* the mesh first: its creation agrees on the options (DMESH_NODE set
     * on some hosts only fails there, where finding the nodes by two rules
     * would not return) */
    err = make_mesh(a, &mesh);
    if (err == DMESH_SUCCESS)
        err = find_lows();
    if (err == DMESH_SUCCESS)
        print_shape(a, mesh);
    if (err == DMESH_SUCCESS)
        print_table(mesh, a->order == ORDER_HYBRID ? "hybrid mesh"
                          : a->order == ORDER_NODE ? "mesh (node order)"
                                                   : "mesh");
    if (err == DMESH_SUCCESS)
        err = print_nodes();
    if (err == DMESH_SUCCESS)
        err = print_copies(mesh);
    if (err == DMESH_SUCCESS && a->flatten != NULL) {
        snprintf(spec, sizeof(spec), "%s", a->flatten);
        n = split(spec, parts, DMESH_MAX_DIMS);
        err = check(dmesh_slice(mesh, n, (const char *const *)parts, &sub), "dmesh_slice");
        if (err == DMESH_SUCCESS)
            err = check(dmesh_flatten(sub, NULL, MPI_INFO_NULL, &out), "dmesh_flatten");
        if (err == DMESH_SUCCESS)
            print_table(out, "flattened");
        if (err == DMESH_SUCCESS)
            print_shared(mesh, out);
    }
    if (err == DMESH_SUCCESS && a->unflatten != NULL) {
        dmesh_free(&out);
        err = check(dmesh_unflatten(mesh, a->unflatten_dim, a->unflatten_n, a->unflatten_sizes,
                                    (const char *const *)a->unflatten_names, MPI_INFO_NULL, &out),
                    "dmesh_unflatten");
        if (err == DMESH_SUCCESS)
            print_table(out, "unflattened");
        if (err == DMESH_SUCCESS)
            print_shared(mesh, out);
    }
    dmesh_free(&out);
    dmesh_free(&sub);
    dmesh_free(&mesh);
    free(node_lows);
    node_lows = NULL;
    return err == DMESH_SUCCESS ? 0 : 1;
}

/* --version: this program's version and the library's (they differ when
 * another libdmesh is loaded); --config: the library's build description.
 * Neither needs MPI_Init. */
static int print_version(const char *opt)
{
    const char *text;
    int major, minor, patch;

    if (strcmp(opt, "--config") == 0) {
        dmesh_options_t o;
        dmesh_get_build_info(&text);
        fputs(text, stdout);
        /* the option of node finding as this environment sets it */
        if (dmesh_options_parse(MPI_INFO_NULL, 1, NULL, 0, &o) == DMESH_SUCCESS)
            printf("nodes (dmesh_node / DMESH_NODE): %s (auto: the MPI's shared-memory split, "
                   "the host where it is finer; shared; host)\n",
                   dmesh_node_rule_names[o.node]);
        else
            printf("nodes (dmesh_node / DMESH_NODE): %s\n", dmesh_last_error());
        return 0;
    }
    dmesh_get_version(&major, &minor, &patch);
    printf("dmesh-info (dmesh) %s\nlibrary %d.%d.%d\n", DMESH_VERSION_STRING, major, minor, patch);
    return 0;
}

int main(int argc, char **argv)
{
    args_t a;
    int rc, rank;

    memset(&a, 0, sizeof(a));
    messages = stderr;
    /* these answer without MPI_Init (on a login node too); under mpiexec
     * the first process prints them */
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        if (tool_launcher_rank() == 0)
            usage(stdout);
        return 0;
    }
    if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "--config") == 0))
        return tool_launcher_rank() == 0 ? print_version(argv[1]) : 0;
    for (rc = 1; rc < argc; rc++)
        if (strcmp(argv[rc], "--plan") == 0) /* no MPI, no GPU needed */
            return dmesh_info_plan(argc, argv);
    MPI_Init(&argc, &argv);
    /* dmesh's errors are printed here, not raised */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) { /* every rank parses the same options: one reports */
        messages = NULL;
        tool_set_error_stream(NULL);
    }
    if (parse_args(argc, argv, &a) != 0) {
        usage(messages);
        rc = 2; /* no MPI_Abort: every rank finalizes and exits */
    } else {
        rc = run(&a);
    }
    /* rank 0's message out before any rank exits non-zero (tool_finalize) */
    return tool_finalize(rc);
}
