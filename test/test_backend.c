/* SPDX-License-Identifier: BSD-3-Clause */
/* The backend table with one more line: the "dup" backend
 * (test/backend_dup.c), linked with a copy of lib/backend.c that lists it.
 * Every hook of the table runs through the library's generic paths: its
 * keys and variable, its axis options in the cache key and the saved form,
 * the pairing after the MPI communicators (eager and lazy), a failure on
 * one rank agreed and rolled back, destroy and abort. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_dup.h"
#include "mesh.h"
#include "mesh_testutil.h"
#include "universe_comms.h"

static const char *const names2[2] = {"dp", "tp"};

/* A 2-D cpu mesh (2 x size/2, or 1 x size) whose dim "tp" uses backend
 * dup with tag, plus the key=value pairs of extra (NULL-terminated). */
static int dup_mesh(int tag, const char *const extra[], dmesh_t *m)
{
    int shape[2] = {mt_size % 2 ? 1 : 2, 0}, rc;
    char val[16];
    MPI_Info info;

    shape[1] = mt_size / shape[0];
    MPI_Info_create(&info);
    snprintf(val, sizeof(val), "%d", tag);
    MPI_Info_set(info, "dup_tag.tp", val);
    for (int i = 0; extra != NULL && extra[i] != NULL; i += 2)
        MPI_Info_set(info, extra[i], extra[i + 1]);
    MPI_Info_set(info, "dmesh_backend.tp", "dup"); /* last: key order must not matter */
    rc = dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names2, info, m);
    MPI_Info_free(&info);
    return rc;
}

/* dim's paired communicator: congruent with its MPI one, and an allreduce
 * over it sums the world ranks of the group. */
static void check_paired(dmesh_t m, int dim)
{
    const dmesh_comm_entry_t *e = dmesh_mesh_entry(dmesh_handle_mesh(m), dim);
    int members[MT_MAX_RANKS], n, sum = 0, want = 0, cmp = MPI_UNEQUAL;
    MPI_Comm comm;

    MT_CHECK(e->paired != NULL);
    if (e->paired == NULL)
        return;
    comm = *(MPI_Comm *)e->paired;
    MPI_Comm_compare(comm, e->comm, &cmp);
    MT_EQ(cmp, MPI_CONGRUENT);
    n = mt_comm_members(m, dim, MPI_COMM_WORLD, members);
    for (int i = 0; i < n; i++)
        want += members[i];
    MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    MT_EQ(sum, want);
}

MT_TEST(table_line)
{
    MT_EQ(dmesh_backend_find("dup"), dmesh_backend_count - 1);
    MT_EQ(dmesh_backend_find("mpi"), DMESH_BACKEND_MPI);
    MT_EQ(dmesh_backend_default(0), DMESH_BACKEND_MPI);
}

MT_TEST(pairs_after_mpi)
{
    dmesh_t m = DMESH_NULL;
    long live = dup_live;

    MT_OK(dup_mesh(7, NULL, &m));
    MT_CHECK(dmesh_mesh_entry(dmesh_handle_mesh(m), 0)->paired == NULL); /* dp stays on mpi */
    check_paired(m, 1);
    MT_EQ(dup_live, live + 1);
    dmesh_free(&m);
    MT_EQ(dup_live, live); /* the universe's teardown destroyed it */
}

/* The axis options are part of the cache key: the same tag is a hit, another
 * one a new entry over the same ranks. */
MT_TEST(options_in_cache_key)
{
    dmesh_t m = DMESH_NULL, same = DMESH_NULL, other = DMESH_NULL;
    const char *un[1] = {"t2"};
    dmesh_cache_info_t before, after;
    int shape[2] = {0, 0}, size;
    MPI_Info info;

    MT_OK(dup_mesh(7, NULL, &m));
    MT_OK(dmesh_get_shape(m, 2, shape));
    size = shape[1];
    MT_OK(dmesh_get_cache_info(m, &before));
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_backend", "dup");
    MPI_Info_set(info, "dup_tag", "7");
    MT_OK(dmesh_unflatten(m, 1, 1, &size, un, info, &same));
    MT_OK(dmesh_get_cache_info(m, &after));
    MT_EQ(after.comms_mpi, before.comms_mpi);
    MT_EQ(after.hits, before.hits + 1);
    MT_CHECK(dmesh_mesh_entry(dmesh_handle_mesh(same), 1) ==
             dmesh_mesh_entry(dmesh_handle_mesh(m), 1));
    MPI_Info_set(info, "dup_tag", "8");
    MT_OK(dmesh_unflatten(m, 1, 1, &size, un, info, &other));
    MT_OK(dmesh_get_cache_info(m, &after));
    MT_EQ(after.comms_mpi, before.comms_mpi + 1);
    MT_CHECK(dmesh_mesh_entry(dmesh_handle_mesh(other), 1) !=
             dmesh_mesh_entry(dmesh_handle_mesh(m), 1));
    check_paired(other, 1);
    MPI_Info_free(&info);
    dmesh_free(&other);
    dmesh_free(&same);
    dmesh_free(&m);
}

/* The saved form carries "dup TAG"; the restored mesh pairs again. */
MT_TEST(saved_form)
{
    dmesh_t m = DMESH_NULL, back = DMESH_NULL;
    char text[4096];
    size_t needed = 0;

    MT_OK(dup_mesh(42, NULL, &m));
    MT_OK(dmesh_serialize(m, text, sizeof(text), &needed));
    MT_CHECK(strstr(text, " dup 42\n") != NULL);
    MT_OK(dmesh_deserialize(MPI_COMM_WORLD, text, MPI_INFO_NULL, &back));
    if (back != DMESH_NULL) {
        MT_EQ(dmesh_mesh_entry(dmesh_handle_mesh(back), 1)->backend, dmesh_backend_find("dup"));
        check_paired(back, 1);
    }
    dmesh_free(&back);
    dmesh_free(&m);
}

/* The backend's own checks, keys and variable names. */
MT_TEST(options)
{
    const char *strict[] = {"dmesh_strict", "true", "dmesh_dup_init", "eager", NULL};
    const char *bad_fail[] = {"dmesh_dup_fail", "-3", NULL};
    dmesh_t m = DMESH_NULL;

    MT_FAILS_CREATE(MPI_COMM_WORLD, dup_mesh(1001, NULL, &m), DMESH_ERR_ARG, m);
    MT_CHECK(strstr(dmesh_last_error(), "dup_tag") != NULL);
    MT_FAILS_CREATE(MPI_COMM_WORLD, dup_mesh(1, bad_fail, &m), DMESH_ERR_ARG, m);
    MT_OK(dup_mesh(1, strict, &m)); /* its keys are known names */
    dmesh_free(&m);
}

/* A backend's per-dim keys set the options of its own dims only: on a dim
 * of another backend they are checked, then ignored, whatever the key
 * order (here the nccl_* keys come before dmesh_backend.tp). */
MT_TEST(options_of_other_backends)
{
    const char *other[] = {"nccl_blocking.tp", "1", "nccl_blocking", "0", NULL};
    const char *bad[] = {"nccl_blocking.tp", "yes", NULL};
    const char *order[] = {"dup_tag.dp", "5", NULL};
    dmesh_t m = DMESH_NULL;
    char key[160];

    MT_FAILS_CREATE(MPI_COMM_WORLD, dup_mesh(2, bad, &m), DMESH_ERR_ARG, m);
    MT_OK(dup_mesh(2, other, &m));
    if (m != DMESH_NULL) {
        dmesh_axis_options_key(&(dmesh_axis_options_t){.backend = DMESH_BACKEND_MPI}, key,
                               sizeof(key));
        MT_STREQ(dmesh_mesh_entry(dmesh_handle_mesh(m), 0)->options, key);
        MT_STREQ(dmesh_mesh_entry(dmesh_handle_mesh(m), 1)->options, "dup t2");
    }
    dmesh_free(&m);
    MT_OK(dup_mesh(2, order, &m)); /* dp is mpi: its dup_tag is ignored */
    if (m != DMESH_NULL)
        MT_STREQ(dmesh_mesh_entry(dmesh_handle_mesh(m), 0)->options, key);
    dmesh_free(&m);
}

/* A duplicate that fails on the last rank: every rank returns the same
 * class, nothing stays made, and the same call then succeeds. */
MT_TEST(failure_agreed)
{
    char last[16];
    const char *fail[] = {"dmesh_dup_fail", last, NULL};
    dmesh_t m = DMESH_NULL;
    long live = dup_live;

    snprintf(last, sizeof(last), "%d", mt_size - 1);
    MT_FAILS_CREATE(MPI_COMM_WORLD, dup_mesh(3, fail, &m), DMESH_ERR_MPI, m);
    MT_EQ(dup_live, live);
    MT_OK(dup_mesh(3, NULL, &m));
    check_paired(m, 1);
    dmesh_free(&m);
}

/* Lazy: nothing paired at creation; made on its own over the group. */
MT_TEST(lazy_pairing)
{
    const char *lazy[] = {"dmesh_dup_init", "lazy", NULL};
    dmesh_t m = DMESH_NULL;
    dmesh_comm_entry_t *e;

    MT_OK(dup_mesh(5, lazy, &m));
    if (m == DMESH_NULL)
        return;
    e = dmesh_mesh_entry(dmesh_handle_mesh(m), 1);
    MT_CHECK(e->paired == NULL && e->paired_pending);
    MT_OK(dmesh_universe_pair_entry(dmesh_handle_mesh(m)->u, e));
    check_paired(m, 1);
    dmesh_free(&m);
}

/* dmesh_abort aborts the paired communicators through abort_all. */
MT_TEST(abort_all)
{
    dmesh_t m = DMESH_NULL;
    long aborted = dup_aborted, live = dup_live;

    MT_OK(dup_mesh(9, NULL, &m));
    MT_OK(dmesh_abort(m));
    MT_EQ(dup_aborted, aborted + 1);
    MT_EQ(dup_live, live);
    dmesh_free(&m);
}

static Suite *backend_suite(void)
{
    Suite *s = suite_create("backend");
    TCase *t = tcase_create("dup");

    tcase_set_timeout(t, 120);
    tcase_add_test(t, table_line);
    tcase_add_test(t, pairs_after_mpi);
    tcase_add_test(t, options_in_cache_key);
    tcase_add_test(t, saved_form);
    tcase_add_test(t, options);
    tcase_add_test(t, options_of_other_backends);
    tcase_add_test(t, failure_agreed);
    tcase_add_test(t, lazy_pairing);
    tcase_add_test(t, abort_all);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, backend_suite);
}
