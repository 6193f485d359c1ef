/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns the program that dmesh_respawn and
 * dmesh_grow start (program.h). Where the launcher started it
 * through a wrapper (a script that loads modules, sets variables, binds
 * devices, or a venv's interpreter), the new processes start through the
 * same wrapper, with the same arguments: the command from MPI_INFO_ENV, the
 * arguments from the command line the system kept (MPI_INFO_ENV's "argv" is
 * one string, cut at MPI_MAX_INFO_VAL, whose spaces cannot be told from an
 * argument's). */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fault.h"
#include "ft/program.h"
#include "options.h"

void dmesh_program_free(dmesh_program_t *p)
{
    free(p->cmdline);
    free(p->own);
    free(p->cmdbuf);
    memset(p, 0, sizeof(*p));
}

/* This process's command line, byte for byte (the file path:
 * /proc/self/cmdline): *len bytes of NUL-terminated strings in *buf
 * (malloc'd); 0 when the system does not give it. */
static int read_cmdline(const char *path, char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL, *t;
    size_t n = 0, cap = 0, got = 1;

    if (f == NULL)
        return 0;
    while (got > 0) {
        if (n + 4097 > cap) {
            cap = 2 * cap + 4097;
            if ((t = realloc(b, cap)) == NULL) {
                free(b);
                fclose(f);
                return 0;
            }
            b = t;
        }
        got = fread(b + n, 1, 4096, f);
        n += got;
    }
    fclose(f);
    if (n == 0 || b[n - 1] != '\0') {
        free(b);
        return 0;
    }
    *buf = b;
    *len = n;
    return 1;
}

/* Whether the strings of a command line from s to end, joined by spaces,
 * are text, or (prefix) begin with it: text was cut at MPI_MAX_INFO_VAL. */
static int joins_to(const char *s, const char *end, const char *text, int prefix)
{
    size_t at = 0, n = strlen(text);

    for (; s < end; s += strlen(s) + 1) {
        size_t k = strlen(s);
        if (s != end && at > 0) {
            if (at >= n)
                return prefix;
            if (text[at++] != ' ')
                return 0;
        }
        if (strncmp(s, text + at, at + k <= n ? k : n - at) != 0)
            return 0;
        at += k;
        if (at >= n && prefix)
            return 1;
    }
    return at == n;
}

/* The first string of the command line that is an argument of the
 * command: 1 (argv[1..]) unless the launcher started a wrapper that was
 * given this program's whole command line, which MPI_INFO_ENV's "argv"
 * shows (Open MPI gives the arguments after "command" there, and
 * "command" itself when there are none). */
static int first_arg(MPI_Info env, const char *cmdline, size_t len, const char *argv_text)
{
    const char *end = cmdline + len, *one = cmdline + strlen(cmdline) + 1;
    char command[MPI_MAX_INFO_VAL + 1];
    int cut = strlen(argv_text) + 1 >= MPI_MAX_INFO_VAL, flag = 0;

    if (argv_text[0] == '\0' || joins_to(one, end, argv_text, 0))
        return 1;
    if (MPI_Info_get(env, "command", MPI_MAX_INFO_VAL, command, &flag) != MPI_SUCCESS || !flag)
        command[0] = '\0';
    if (strcmp(argv_text, command) != 0 && joins_to(cmdline, end, argv_text, 0))
        return 0;
    if (cut && !joins_to(one, end, argv_text, 1) && joins_to(cmdline, end, argv_text, 1))
        return 0;
    return 1;
}

/* p->args: the strings of a command line from the first'th on. */
static int own_args(const char *fn, const char *cmdline, size_t len, int first, dmesh_program_t *p)
{
    const char *s, *end = cmdline + len;
    int n = 0, i = 0;

    for (s = cmdline; s < end; s += strlen(s) + 1)
        n++;
    if ((p->own = DMESH_FAULT_MALLOC((size_t)(n + 1) * sizeof(char *))) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    for (s = cmdline; s < end; s += strlen(s) + 1, i++)
        if (i >= first)
            p->own[i - first] = (char *)s;
    p->own[n > first ? n - first : 0] = NULL;
    p->args = p->own;
    return DMESH_SUCCESS;
}

/* Whether name is an executable file (a name without '/': in PATH, where
 * MPI_Comm_spawn looks for it too). */
static int executable(const char *name)
{
    char path[PATH_MAX];
    const char *dirs = getenv("PATH"), *d;

    if (strchr(name, '/') != NULL)
        return access(name, X_OK) == 0;
    for (d = dirs; d != NULL && *d != '\0'; d += strcspn(d, ":") + (d[strcspn(d, ":")] == ':')) {
        int n = (int)strcspn(d, ":");
        if (snprintf(path, sizeof(path), "%.*s/%s", n, n > 0 ? d : ".", name) < (int)sizeof(path) &&
            access(path, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* The command that started this program: MPI_INFO_ENV's "command" (a
 * wrapper stays in the chain; a relative path is taken from the launch's
 * "wdir", so that a chdir since does not lose it) where it names an
 * executable from here, else the running executable (Open MPI 4 gives the
 * command's last component only). */
static int own_command(const char *fn, MPI_Info env, char *cmd, size_t size, int *from_mpi)
{
    char val[MPI_MAX_INFO_VAL + 1], wdir[MPI_MAX_INFO_VAL + 1];
    int flag = 0, wflag = 0;
    ssize_t n;

    if (MPI_Info_get(env, "command", MPI_MAX_INFO_VAL, val, &flag) != MPI_SUCCESS)
        flag = 0;
    if (flag && val[0] != '\0') {
        if (val[0] != '/' && strchr(val, '/') != NULL &&
            MPI_Info_get(env, "wdir", MPI_MAX_INFO_VAL, wdir, &wflag) == MPI_SUCCESS && wflag &&
            wdir[0] == '/')
            snprintf(cmd, size, "%s/%s", wdir, val);
        else
            snprintf(cmd, size, "%s", val);
        if ((*from_mpi = executable(cmd)) != 0)
            return DMESH_SUCCESS;
    }
    n = readlink("/proc/self/exe", cmd, size - 1);
    if (n > 0 && (size_t)n < size - 1) {
        cmd[n] = '\0';
        return DMESH_SUCCESS;
    }
    return dmesh_error_set(DMESH_ERR_ARG,
                           "%s: command is NULL and the MPI does not give the program's own "
                           "(MPI_INFO_ENV has no \"command\"): pass it, or set "
                           "dmesh_respawn_command",
                           fn);
}

/* MPI_INFO_ENV's "argv" split at spaces, where the system gives no
 * command line. Without arguments Open MPI 5 gives "command" itself there,
 * Open MPI 4 and MPICH no "argv" (MPICH no "command" either): none. The
 * comparison is with "command" as the MPI gives it, not with p->cmd, which
 * the launch's "wdir" may lead (measured: "DIR/./prog" against "./prog",
 * and the command passed as the new process's argument). A program whose
 * one argument is that command itself looks the same: it gets none. */
static int info_args(const char *fn, MPI_Info env, dmesh_program_t *p)
{
    char val[MPI_MAX_INFO_VAL + 1], command[MPI_MAX_INFO_VAL + 1];
    int flag = 0, cflag = 0;
    size_t i, len;

    if (MPI_Info_get(env, "argv", MPI_MAX_INFO_VAL, val, &flag) != MPI_SUCCESS || !flag)
        return DMESH_SUCCESS; /* none */
    if (MPI_Info_get(env, "command", MPI_MAX_INFO_VAL, command, &cflag) == MPI_SUCCESS && cflag &&
        strcmp(val, command) == 0)
        return DMESH_SUCCESS; /* none */
    len = strlen(val);
    if ((p->cmdline = DMESH_FAULT_MALLOC(len + 1)) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    for (i = 0; i <= len; i++)
        p->cmdline[i] = val[i] == ' ' ? '\0' : val[i];
    return own_args(fn, p->cmdline, len + 1, 0, p);
}

/* The program to start: command and argv as given; command NULL: the
 * command of dmesh_respawn_command or DMESH_RESPAWN_COMMAND, else the one
 * that started this program (own_command), and with argv MPI_ARGV_NULL
 * this program's own arguments, byte for byte, from its command line. */
int dmesh_program_from(const char *fn, const char *command, char *const argv[], MPI_Info info,
                       MPI_Info env, const char *cmdline, dmesh_program_t *p)
{
    char argv_text[MPI_MAX_INFO_VAL + 1];
    size_t len = 0, size = PATH_MAX + MPI_MAX_INFO_VAL + 2;
    int flag = 0, named, from_mpi = 0;

    memset(p, 0, sizeof(*p));
    p->cmd = (char *)command;
    p->args = (char **)argv;
    if (command != NULL)
        return DMESH_SUCCESS;
    if ((p->cmdbuf = DMESH_FAULT_MALLOC(size)) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    p->cmd = p->cmdbuf;
    named = dmesh_options_respawn_command(info, p->cmdbuf);
    if (!named)
        DMESH_TRY(own_command(fn, env, p->cmdbuf, size, &from_mpi));
    if (argv != MPI_ARGV_NULL)
        return DMESH_SUCCESS;
    if (!read_cmdline(cmdline, &p->cmdline, &len))
        return info_args(fn, env, p);
    /* a wrapper is known only where the command is the MPI's */
    if (!from_mpi || MPI_Info_get(env, "argv", MPI_MAX_INFO_VAL, argv_text, &flag) != MPI_SUCCESS ||
        !flag)
        argv_text[0] = '\0';
    return own_args(fn, p->cmdline, len, first_arg(env, p->cmdline, len, argv_text), p);
}

int dmesh_program(const char *fn, const char *command, char *const argv[], MPI_Info info,
                  dmesh_program_t *p)
{
    return dmesh_program_from(fn, command, argv, info, MPI_INFO_ENV, "/proc/self/cmdline", p);
}
