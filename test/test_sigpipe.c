/* SPDX-License-Identifier: BSD-3-Clause */
/* SIGPIPE under fault tolerance (lib/ulfm.h, dmesh_ulfm_catch_sigpipe,
 * which dmesh_ulfm_enabled calls once it finds fault tolerance on): a write
 * to a closed pipe fails with EPIPE instead of ending the process, the
 * programs the process starts get SIGPIPE at its default (not ignored), and
 * a disposition the program chose (a handler, SA_SIGINFO or not, or the
 * signal ignored) is kept. No MPI: runs in every build, with or without
 * fault tolerance; each case leaves SIGPIPE at its default. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ulfm.h"

static int program_handled;

static void program_handler(int sig)
{
    (void)sig;
    program_handled++;
}

static void program_action(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    (void)ctx;
    program_handled++;
}

static void set_disposition(void (*handler)(int))
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGPIPE, &sa, NULL), 0);
}

static struct sigaction disposition(void)
{
    struct sigaction sa;

    ck_assert_int_eq(sigaction(SIGPIPE, NULL, &sa), 0);
    return sa;
}

static void at_default(void)
{
    set_disposition(SIG_DFL);
    program_handled = 0;
}

/* A child shell that sends itself SIGPIPE: it must die of it (the signal
 * at its default there), not go on (ignored, inherited across exec). */
static void check_child_dies(void)
{
    int status = system("kill -PIPE $$; exit 3");

    ck_assert_msg(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
                  "a child shell survived SIGPIPE (status %#x): SIGPIPE ignored in it", status);
}

/* The mask of ignored signals of a child process (/proc/PID/status,
 * SigIgn): 0 where the system does not show it. */
static unsigned long long child_ignored(void)
{
    FILE *p = popen("/bin/sh -c 'grep SigIgn /proc/self/status' 2>/dev/null", "r");
    unsigned long long mask = 0;
    char line[256];

    ck_assert_ptr_nonnull(p);
    if (fgets(line, sizeof(line), p) == NULL || sscanf(line, "SigIgn: %llx", &mask) != 1)
        mask = 0;
    pclose(p);
    return mask;
}

/* A write to a pipe whose reader is gone: EPIPE, and this process goes on. */
static void check_write_fails(void)
{
    int fds[2];
    ssize_t n;
    int err;

    ck_assert_int_eq(pipe(fds), 0);
    close(fds[0]);
    n = write(fds[1], "x", 1);
    err = errno;
    close(fds[1]);
    ck_assert_int_eq(n, -1);
    ck_assert_int_eq(err, EPIPE);
}

START_TEST(default_is_caught)
{
    struct sigaction sa;
    unsigned long long ignored;

    dmesh_ulfm_catch_sigpipe();
    sa = disposition();
    ck_assert_msg(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN, "SIGPIPE is not caught: %s",
                  sa.sa_handler == SIG_IGN ? "ignored" : "default");
    ck_assert(!(sa.sa_flags & SA_SIGINFO));
    ck_assert(sa.sa_flags & SA_RESTART);
    check_write_fails();
    check_child_dies();
    ignored = child_ignored();
    ck_assert_msg(!(ignored & (1ULL << (SIGPIPE - 1))),
                  "SIGPIPE is ignored in a child (SigIgn %#llx)", ignored);
    /* a second call keeps the first one's handler */
    dmesh_ulfm_catch_sigpipe();
    ck_assert(disposition().sa_handler == sa.sa_handler);
    check_write_fails();
}
END_TEST

START_TEST(program_handler_kept)
{
    set_disposition(program_handler);
    dmesh_ulfm_catch_sigpipe();
    ck_assert(disposition().sa_handler == program_handler);
    check_write_fails();
    ck_assert_int_eq(program_handled, 1);
}
END_TEST

START_TEST(program_action_kept)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = program_action;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGPIPE, &sa, NULL), 0);
    dmesh_ulfm_catch_sigpipe();
    sa = disposition();
    ck_assert((sa.sa_flags & SA_SIGINFO) && sa.sa_sigaction == program_action);
    check_write_fails();
    ck_assert_int_eq(program_handled, 1);
}
END_TEST

/* The program's own choice to ignore it stays, children included. */
START_TEST(program_ignore_kept)
{
    set_disposition(SIG_IGN);
    dmesh_ulfm_catch_sigpipe();
    ck_assert(disposition().sa_handler == SIG_IGN);
    check_write_fails();
    if (access("/proc/self/status", R_OK) == 0)
        ck_assert(child_ignored() & (1ULL << (SIGPIPE - 1)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sigpipe");
    TCase *tc = tcase_create("disposition");
    SRunner *sr;
    int failed;

    tcase_add_checked_fixture(tc, at_default, at_default);
    tcase_add_test(tc, default_is_caught);
    tcase_add_test(tc, program_handler_kept);
    tcase_add_test(tc, program_action_kept);
    tcase_add_test(tc, program_ignore_kept);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
