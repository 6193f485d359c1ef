/* SPDX-License-Identifier: BSD-3-Clause */
/* Node finding (lib/node_find.c) under mpiexec, on whatever node layout the
 * MPI shows: run plain, or by test/node-double.sh under the PMPI interposer
 * of test/node_double (one-process shared splits, fake host lists, two
 * host names whose hashes collide). The expected nodes are worked out here
 * from what the MPI itself reports (the shared split, the processor names),
 * by the rule of doc/user-guide.md ("How nodes are found"), and compared
 * with the node communicators, the lows, and the meshes of every rule.
 *
 *   test_node_find --collide   prints two host names whose hashes (this
 *                              machine's boot id) share their low 31 bits,
 *                              as "a,a,b,b"-ready text "NAME1 NAME2" (no MPI) */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_testutil.h"
#include "node.h"
#include "error.h"
#include "node_find.h"
#include "options.h"

/* What the MPI shows, per world rank, and the nodes each rule must give. */
typedef struct {
    int shared_low[MT_MAX_RANKS];             /* lowest world rank of its shared split */
    int host_low[MT_MAX_RANKS];               /* lowest world rank with its processor name */
    int want[DMESH_NODE_RULES][MT_MAX_RANKS]; /* the node's lowest rank, by rule */
    int auto_host[MT_MAX_RANKS];              /* auto takes the host grouping there */
    int split_size;                           /* of this rank's shared split */
    char name[MPI_MAX_PROCESSOR_NAME + 1];    /* this rank's processor name */
} layout_t;

static layout_t L;

/* The lowest world rank of the split of this rank, gathered. */
static void gather_shared(void)
{
    MPI_Comm s;
    int low = mt_rank;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s);
    MPI_Comm_size(s, &L.split_size);
    MPI_Allreduce(&mt_rank, &low, 1, MPI_INT, MPI_MIN, s);
    MPI_Comm_free(&s);
    MPI_Allgather(&low, 1, MPI_INT, L.shared_low, 1, MPI_INT, MPI_COMM_WORLD);
}

/* The processor names, gathered: host_low[r] is the lowest rank with r's. */
static void gather_hosts(void)
{
    char *all = calloc((size_t)mt_size, sizeof(L.name));
    int len = 0;

    MPI_Get_processor_name(L.name, &len);
    MPI_Allgather(L.name, (int)sizeof(L.name), MPI_CHAR, all, (int)sizeof(L.name), MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < mt_size; r++)
        for (int q = 0; q <= r; q++)
            if (strcmp(all + (size_t)q * sizeof(L.name), all + (size_t)r * sizeof(L.name)) == 0) {
                L.host_low[r] = q;
                break;
            }
    free(all);
}

/* The rule: shared split, host, and auto (the host where the split is finer
 * than it, or where the split holds a rank whose host it splits). */
static void expect_nodes(void)
{
    int finer[MT_MAX_RANKS] = {0}, broken[MT_MAX_RANKS] = {0};

    for (int r = 0; r < mt_size; r++)
        for (int q = 0; q < mt_size; q++)
            finer[r] |= L.host_low[q] == L.host_low[r] && L.shared_low[q] != L.shared_low[r];
    for (int r = 0; r < mt_size; r++)
        for (int q = 0; q < mt_size; q++)
            broken[r] |= L.shared_low[q] == L.shared_low[r] && finer[q];
    for (int r = 0; r < mt_size; r++) {
        L.want[DMESH_NODE_SHARED][r] = L.shared_low[r];
        L.want[DMESH_NODE_HOST][r] = L.host_low[r];
        L.auto_host[r] = finer[r] || broken[r];
        L.want[DMESH_NODE_AUTO][r] = L.auto_host[r] ? L.host_low[r] : L.shared_low[r];
    }
}

/* The interposer does what its variables say: one-process splits, and the
 * processor name of the fake list (r-th entry, the list repeating). */
MT_TEST(double_layout)
{
    const char *hosts = getenv("DMESH_TEST_FAKE_HOSTS");
    char list[1024], *entry, *save = NULL;
    int n = 0, at;

    if (getenv("DMESH_TEST_SPLIT_ONE") != NULL)
        MT_EQ(L.split_size, 1);
    if (hosts == NULL || strspn(hosts, ",") == strlen(hosts))
        return; /* no list, or no name in it */
    snprintf(list, sizeof(list), "%s", hosts);
    for (entry = strtok_r(list, ",", &save); entry != NULL; entry = strtok_r(NULL, ",", &save))
        n++;
    at = mt_rank % n;
    snprintf(list, sizeof(list), "%s", hosts);
    entry = strtok_r(list, ",", &save);
    for (int i = 0; i < at; i++)
        entry = strtok_r(NULL, ",", &save);
    MT_STREQ(L.name, entry);
}

/* The world ranks whose node (by lows) is low, ascending; how many. */
static int members_of(const int lows[], int low, int out[])
{
    int n = 0;

    for (int r = 0; r < mt_size; r++)
        if (lows[r] == low)
            out[n++] = r;
    return n;
}

/* dmesh_node_find by each rule: the node communicator's members, its low,
 * the rule it took and the detail's words; dmesh_node_lows agrees. */
MT_TEST(node_find_rules)
{
    for (int rule = 0; rule < DMESH_NODE_RULES; rule++) {
        const int *want = L.want[rule];
        int got[MT_MAX_RANKS], expect[MT_MAX_RANKS], n, nwant, *lows = NULL;
        int host = rule == DMESH_NODE_HOST || (rule == DMESH_NODE_AUTO && L.auto_host[mt_rank]);
        dmesh_node_t node;

        MT_OK(dmesh_node_find(MPI_COMM_WORLD, rule, DMESH_SUCCESS, NULL, &node));
        n = mt_members_in(node.comm, MPI_COMM_WORLD, got);
        nwant = members_of(want, want[mt_rank], expect);
        MT_EQ(n, nwant);
        MT_CHECK(n == nwant && mt_same_ints(got, expect, n));
        MT_EQ(node.low, want[mt_rank]);
        MT_EQ(node.rule, host ? DMESH_NODE_HOST : DMESH_NODE_SHARED);
        MT_CHECK(strstr(node.detail, host ? "host identity" : "shared-memory split") != NULL);
        /* a split that no host spans is kept without the check by host,
         * whatever the hosts' hashes share (the colliding hosts' low 31
         * bits): the splits' hosts are compared whole */
        if (rule == DMESH_NODE_AUTO && !host)
            MT_CHECK(strstr(node.detail, "which no host spans") != NULL);
        if (mt_rank == 0)
            printf("dmesh_node=%s: %s\n", dmesh_node_rule_names[rule], node.detail);
        dmesh_node_free(&node);

        MT_OK(dmesh_node_lows(MPI_COMM_WORLD, rule, NULL, &lows, NULL));
        for (int r = 0; lows != NULL && r < mt_size; r++)
            MT_EQ(lows[r], want[r]);
        free(lows);
    }
}

/* With a cache, each rule is found once: once kept, the second finding
 * hands out the same communicator (the cache's), the same low and detail. */
MT_TEST(node_cache)
{
    dmesh_node_cache_t cache;
    MPI_Comm dup;

    memset(&cache, 0, sizeof(cache));
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int rule = 0; rule < DMESH_NODE_RULES; rule++) {
        dmesh_node_t a, b;
        int same = MPI_UNEQUAL;

        MT_OK(dmesh_node_find(dup, rule, DMESH_SUCCESS, &cache, &a));
        MT_EQ(a.owned, 1);
        MT_EQ(cache.known[rule], 0); /* until kept */
        dmesh_node_keep(&cache, rule, &a);
        MT_OK(dmesh_node_find(dup, rule, DMESH_SUCCESS, &cache, &b));
        MT_EQ(a.owned + b.owned, 0);
        MT_CHECK(a.comm != MPI_COMM_NULL && a.comm == b.comm);
        MPI_Comm_compare(a.comm, b.comm, &same);
        MT_EQ(same, MPI_IDENT);
        MT_EQ(b.low, L.want[rule][mt_rank]);
        MT_STREQ(a.detail, b.detail);
        dmesh_node_free(&a);
        dmesh_node_free(&b);
        MT_EQ(cache.known[rule], 1);
    }
    /* a failure on one rank is agreed even when the node is known */
    dmesh_node_t c;
    MT_RC(dmesh_node_find(dup, DMESH_NODE_AUTO,
                          mt_rank == 0 ? dmesh_error_set(DMESH_ERR_NOMEM, "test") : DMESH_SUCCESS,
                          &cache, &c),
          DMESH_ERR_NOMEM);
    MT_EQ(c.agreed, 0);
    dmesh_node_cache_free(&cache);
    MT_EQ(cache.known[DMESH_NODE_AUTO], 0);
    MPI_Comm_free(&dup);
}

/* A failure on one rank before the finding (the caller's err) is every
 * rank's class after it, by every rule, with nothing handed out. */
MT_TEST(node_find_failure_agreed)
{
    for (int rule = 0; rule < DMESH_NODE_RULES; rule++) {
        int err = mt_rank == mt_size - 1 ? dmesh_error_set(DMESH_ERR_NOMEM, "test") : 0;
        dmesh_node_t node;

        MT_RC(dmesh_node_find(MPI_COMM_WORLD, rule, err, NULL, &node), DMESH_ERR_NOMEM);
        MT_EQ(node.agreed, 0);
        MT_CHECK(node.comm == MPI_COMM_NULL);
        dmesh_node_free(&node);
    }
}

/* The number of nodes and, when they are all of one size, that size (else 0). */
static int count_nodes(const int want[], int *per_node)
{
    int nodes = 0, members[MT_MAX_RANKS];

    *per_node = -1;
    for (int r = 0; r < mt_size; r++) {
        if (want[r] != r)
            continue;
        nodes++;
        int n = members_of(want, r, members);
        *per_node = *per_node < 0 || *per_node == n ? n : 0;
    }
    return nodes;
}

/* The locality of a 1-D mesh of all ranks on nodes nodes. */
static int locality_of(int nodes)
{
    if (nodes == 1)
        return DMESH_LOCALITY_NODE;
    return nodes == mt_size ? DMESH_LOCALITY_ACROSS : DMESH_LOCALITY_MIXED;
}

/* Through the API, with the info key: the locality of a 1-D world mesh, and
 * a hybrid mesh whose inner dimension is each node, by every rule. */
MT_TEST(node_rule_meshes)
{
    for (int rule = 0; rule < DMESH_NODE_RULES; rule++) {
        const int *want = L.want[rule];
        MPI_Info info = mt_info1("dmesh_node", dmesh_node_rule_names[rule]);
        int per_node, nodes = count_nodes(want, &per_node), kind = 0, n = 0;
        int in_node[2], across[2], ranks[MT_MAX_RANKS], expect[MT_MAX_RANKS], nexpect;
        int by_host = rule == DMESH_NODE_HOST || (rule == DMESH_NODE_AUTO && L.auto_host[mt_rank]);
        char text[4096];
        dmesh_t m = DMESH_NULL, h = DMESH_NULL;

        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, &mt_size, NULL, info, &m));
        MT_OK(dmesh_get_dim_locality(m, 0, &kind));
        MT_EQ(kind, locality_of(nodes));
        MT_OK(dmesh_free(&m));

        in_node[0] = 1;
        in_node[1] = per_node > 0 ? per_node : 1;
        across[0] = per_node > 0 ? nodes : mt_size;
        across[1] = 1;
        if (per_node > 0) {
            MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_node, across, NULL, info, &h));
            MT_OK(dmesh_to_string(h, text, sizeof(text), NULL));
            /* the text says where the host replaced the MPI's split */
            MT_EQ(strstr(text, ", nodes by host identity)") != NULL, by_host);
            MT_OK(dmesh_get_group_ranks(h, 1, MT_MAX_RANKS, ranks, &n));
            nexpect = members_of(want, want[mt_rank], expect);
            MT_EQ(n, nexpect);
            MT_CHECK(n == nexpect && mt_same_ints(ranks, expect, n));
            MT_OK(dmesh_free(&h));
        } else { /* nodes of several sizes: no hybrid mesh has them all */
            MT_FAILS_CREATE(
                MPI_COMM_WORLD,
                dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_node, across, NULL, info, &h),
                DMESH_ERR_SIZE, h);
        }
        MPI_Info_free(&info);
    }
}

/* DMESH_NODE (set by test/node-double.sh for one run) is the default of
 * meshes without the info key: the locality of a world mesh by its rule. */
MT_TEST(node_rule_env)
{
    const char *env = getenv("DMESH_NODE");
    int rule = -1, per_node, nodes, kind = 0;
    dmesh_t m = DMESH_NULL;

    for (int r = 0; env != NULL && r < DMESH_NODE_RULES; r++)
        if (strcmp(env, dmesh_node_rule_names[r]) == 0)
            rule = r;
    if (rule < 0)
        return;
    nodes = count_nodes(L.want[rule], &per_node);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, &mt_size, NULL, MPI_INFO_NULL, &m));
    MT_OK(dmesh_get_dim_locality(m, 0, &kind));
    MT_EQ(kind, locality_of(nodes));
    MT_OK(dmesh_free(&m));
}

/* A value that is no rule: DMESH_ERR_ARG naming the three. */
MT_TEST(node_rule_bad_value)
{
    MPI_Info info = mt_info1("dmesh_node", "hosts");
    dmesh_t m = DMESH_NULL;

    MT_FAILS_CREATE(MPI_COMM_WORLD, dmesh_init(MPI_COMM_WORLD, "cpu", 1, &mt_size, NULL, info, &m),
                    DMESH_ERR_ARG, m);
    MT_CHECK(strstr(dmesh_last_error(), "\"auto\", \"shared\" or \"host\"") != NULL);
    MPI_Info_free(&info);
}

/* This machine's boot id, "" where it has none (as node_find.c reads it). */
static void boot_id(char *id, size_t len)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    id[0] = '\0';
    if (f != NULL && fgets(id, (int)len, f) == NULL)
        id[0] = '\0';
    if (f != NULL)
        fclose(f);
    id[strcspn(id, "\n")] = '\0';
}

/* Under DMESH_TEST_EXPECT_COLLISION: two of the fake names really share the
 * hash's low 31 bits (the colour of the split by host), so the case above
 * ran through the comparison of names. */
MT_TEST(forced_collision)
{
    char boot[64], *all = calloc((size_t)mt_size, sizeof(L.name));
    int collide = 0;

    if (getenv("DMESH_TEST_EXPECT_COLLISION") == NULL) {
        free(all);
        return;
    }
    boot_id(boot, sizeof(boot));
    MPI_Allgather(L.name, (int)sizeof(L.name), MPI_CHAR, all, (int)sizeof(L.name), MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < mt_size; r++)
        for (int q = 0; q < r; q++) {
            dmesh_host_t a, b;
            dmesh_host_make(all + (size_t)q * sizeof(L.name), boot, &a);
            dmesh_host_make(all + (size_t)r * sizeof(L.name), boot, &b);
            collide |= strcmp(a.id, b.id) != 0 && (a.hash & INT_MAX) == (b.hash & INT_MAX);
        }
    MT_EQ(collide, 1);
    free(all);
}

/* Two names whose identities share the low 31 bits of their hash: among
 * 2^18 names a few pairs do (the birthday bound), when the names are
 * spread (FNV-1a keeps numbered names such as node1, node2 apart). */
static void collide_name(unsigned long long i, char *name, size_t len)
{
    unsigned long long x = i * 6364136223846793005ULL + 1442695040888963407ULL;

    x ^= x >> 29;
    snprintf(name, len, "n%llx", x & 0xffffffffffULL);
}

static int by_hash(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

    return x < y ? -1 : x > y;
}

static int print_collision(void)
{
    enum { N = 1 << 18 };
    unsigned long long *key = malloc(N * sizeof(*key));
    char boot[64], name[32];
    dmesh_host_t h;

    if (key == NULL)
        return 1;
    boot_id(boot, sizeof(boot));
    for (unsigned long long i = 0; i < N; i++) { /* hash bits above, the name's number below */
        collide_name(i, name, sizeof(name));
        dmesh_host_make(name, boot, &h);
        key[i] = (unsigned long long)(h.hash & INT_MAX) << 32 | i;
    }
    qsort(key, N, sizeof(*key), by_hash);
    for (int i = 1; i < N; i++)
        if (key[i] >> 32 == key[i - 1] >> 32) {
            collide_name(key[i - 1] & 0xffffffffULL, name, sizeof(name));
            printf("%s ", name);
            collide_name(key[i] & 0xffffffffULL, name, sizeof(name));
            printf("%s\n", name);
            free(key);
            return 0;
        }
    free(key);
    return 1;
}

static Suite *node_suite(void)
{
    Suite *s = suite_create("node_find");
    TCase *t = tcase_create("rules");

    gather_shared();
    gather_hosts();
    expect_nodes();
    tcase_add_test(t, double_layout);
    tcase_add_test(t, node_find_rules);
    tcase_add_test(t, node_cache);
    tcase_add_test(t, node_find_failure_agreed);
    tcase_add_test(t, node_rule_meshes);
    tcase_add_test(t, node_rule_env);
    tcase_add_test(t, node_rule_bad_value);
    tcase_add_test(t, forced_collision);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--collide") == 0)
        return print_collision();
    return mt_main(&argc, &argv, node_suite);
}
