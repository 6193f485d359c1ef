/* SPDX-License-Identifier: BSD-3-Clause */
/* The program that dmesh_respawn and dmesh_grow start when the system gives
 * no command line (lib/ft/program.h, dmesh_program_from with a file that
 * does not exist in place of /proc/self/cmdline): its arguments come from
 * MPI_INFO_ENV's "argv", filled here as each MPI fills it. A program
 * started without arguments gives its replacement none, whatever "wdir" or
 * a named command make of the command (Open MPI 5 gives "command" itself
 * as "argv" then: that command was passed as an argument); with
 * arguments, exactly those. With the command line readable, the arguments
 * are this process's own. One process, no fault tolerance needed. */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "dmesh.h"
#include "ft/program.h"

#define NO_CMDLINE "/nonexistent/dmesh-test/cmdline"

static char exe[PATH_MAX], dir[PATH_MAX], base[PATH_MAX];
static int main_argc;
static char **main_argv;

/* MPI_INFO_ENV as an MPI fills it: the keys whose value is not NULL. */
static MPI_Info launch(const char *command, const char *wdir, const char *argv_text)
{
    MPI_Info env;

    ck_assert_int_eq(MPI_Info_create(&env), MPI_SUCCESS);
    if (command != NULL)
        MPI_Info_set(env, "command", command);
    if (wdir != NULL)
        MPI_Info_set(env, "wdir", wdir);
    if (argv_text != NULL)
        MPI_Info_set(env, "argv", argv_text);
    return env;
}

/* The program taken from env without a command line: command cmd (NULL:
 * not checked) and the arguments want (NULL-terminated). */
static void check_program(MPI_Info info, MPI_Info env, const char *cmd, const char *const want[])
{
    dmesh_program_t p;
    int rc, n = 0;

    rc = dmesh_program_from("test", NULL, MPI_ARGV_NULL, info, env, NO_CMDLINE, &p);
    ck_assert_msg(rc == DMESH_SUCCESS, "dmesh_program_from: %d (%s)", rc, dmesh_last_error());
    ck_assert_ptr_nonnull(p.cmd);
    if (cmd != NULL)
        ck_assert_str_eq(p.cmd, cmd);
    for (; p.args != NULL && p.args[n] != NULL; n++) {
        ck_assert_msg(want[n] != NULL, "argument %d [%s] given, only %d wanted", n, p.args[n], n);
        ck_assert_str_eq(p.args[n], want[n]);
    }
    ck_assert_msg(want[n] == NULL, "%d arguments given, [%s] wanted next", n, want[n]);
    dmesh_program_free(&p);
    MPI_Info_free(&env);
}

static const char *const NONE[] = {NULL};

/* Open MPI 5: "command" is the command as launched, "argv" the same
 * without arguments; a relative command is taken from "wdir". */
START_TEST(openmpi5_no_args)
{
    char rel[PATH_MAX + 2], cmd[2 * PATH_MAX + 4];

    snprintf(rel, sizeof(rel), "./%s", base);
    snprintf(cmd, sizeof(cmd), "%s/./%s", dir, base);
    check_program(MPI_INFO_NULL, launch(rel, dir, rel), cmd, NONE);
    check_program(MPI_INFO_NULL, launch(exe, dir, exe), exe, NONE);
}
END_TEST

START_TEST(openmpi5_args)
{
    const char *const want[] = {"a", "b", "./c", NULL};
    char rel[PATH_MAX + 2], cmd[2 * PATH_MAX + 4];

    snprintf(rel, sizeof(rel), "./%s", base);
    snprintf(cmd, sizeof(cmd), "%s/./%s", dir, base);
    check_program(MPI_INFO_NULL, launch(rel, dir, "a b ./c"), cmd, want);
}
END_TEST

/* A command named by the caller (dmesh_respawn_command): the arguments are
 * still the program's own, none here. */
START_TEST(named_command_no_args)
{
    const char *const want[] = {"x", NULL};
    char rel[PATH_MAX + 2];
    MPI_Info info;

    snprintf(rel, sizeof(rel), "./%s", base);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_respawn_command", "/bin/true");
    check_program(info, launch(rel, dir, rel), "/bin/true", NONE);
    check_program(info, launch(rel, dir, "x"), "/bin/true", want);
    MPI_Info_free(&info);
}
END_TEST

/* Open MPI 4: "command" is the command's last component, "argv" only where
 * there are arguments; MPICH 4 gives neither. */
START_TEST(openmpi4_and_mpich)
{
    const char *const want[] = {"x", "y", NULL};

    check_program(MPI_INFO_NULL, launch(base, dir, NULL), NULL, NONE);
    check_program(MPI_INFO_NULL, launch(base, dir, "x y"), NULL, want);
    check_program(MPI_INFO_NULL, launch(NULL, NULL, NULL), NULL, NONE);
}
END_TEST

/* With the command line readable: this process's own arguments, whatever
 * "argv" says. */
START_TEST(own_command_line)
{
    dmesh_program_t p;
    char rel[PATH_MAX + 2];
    MPI_Info env;
    int n = 0;

    snprintf(rel, sizeof(rel), "./%s", base);
    env = launch(rel, dir, "not these");
    ck_assert_int_eq(dmesh_program_from("test", NULL, MPI_ARGV_NULL, MPI_INFO_NULL, env,
                                        "/proc/self/cmdline", &p),
                     DMESH_SUCCESS);
    for (; p.args != NULL && p.args[n] != NULL; n++) {
        ck_assert_int_lt(n + 1, main_argc);
        ck_assert_str_eq(p.args[n], main_argv[n + 1]);
    }
    ck_assert_int_eq(n + 1, main_argc);
    dmesh_program_free(&p);
    MPI_Info_free(&env);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("respawn_program");
    TCase *tc = tcase_create("arguments");
    SRunner *sr;
    ssize_t n;
    char *slash;
    int failed;

    MPI_Init(&argc, &argv);
    main_argc = argc;
    main_argv = argv;
    unsetenv("DMESH_RESPAWN_COMMAND");
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        MPI_Finalize();
        return 77; /* no /proc: the cases need this program's own path */
    }
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - exe), exe);
    snprintf(base, sizeof(base), "%s", slash + 1);
    tcase_add_test(tc, openmpi5_no_args);
    tcase_add_test(tc, openmpi5_args);
    tcase_add_test(tc, named_command_no_args);
    tcase_add_test(tc, openmpi4_and_mpich);
    tcase_add_test(tc, own_command_line);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
