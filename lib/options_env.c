/* SPDX-License-Identifier: BSD-3-Clause */
/* Owns the process's environment as the options see it (options_env.h):
 * the DMESH_* variables, read once per process (at the first creation
 * call) and copied: getenv scans the whole environment on every call, and
 * a process that changes its environment while another thread reads it is
 * undefined. Like MPI's and NCCL's own variables, they must be set before
 * the program starts (or before its first dmesh call). Also the names
 * dmesh knows, which tell an unknown variable (here) or info key
 * (options.c) from a known one. */
#include "config.h"

#include "api_impl.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "options_env.h"

/* Every info key and environment variable that dmesh knows: the dmesh_*
 * keys of the creation calls and the DMESH_* variables the library, its tests
 * and its tools read. A trailing '*' matches any rest. */
static const char *const known_names[] = {"dmesh_backend",
                                          "dmesh_backend.*",
                                          "dmesh_bind",
                                          "dmesh_check",
                                          "dmesh_comm_create",
                                          "dmesh_device",
                                          "dmesh_order",
                                          "dmesh_strict",
                                          "dmesh_timeout",
                                          "DMESH_CHECK",
                                          "DMESH_COMM_CREATE",
                                          "DMESH_LAUNCH_CHECK",
                                          "DMESH_DEVICE",
                                          "DMESH_TIMEOUT",
                                          "DMESH_DEBUG",
                                          "DMESH_STRICT",
                                          "DMESH_FAULT",
                                          "DMESH_CUDART_LIBRARY",
                                          "DMESH_TEST_*",
                                          "DMESH_ERRORS",
                                          "dmesh_node",
                                          "DMESH_NODE",
                                          "dmesh_respawn_command",
                                          "DMESH_RESPAWN_COMMAND",
                                          "dmesh_respawn_hosts",
                                          "DMESH_RESPAWN_HOSTS",
                                          "DMESH_FINALIZE_BOUND",
                                          "DMESH_COPIES_DOMAIN",
                                          NULL};

int dmesh_env_listed(const char *const *list, const char *name, size_t len)
{
    for (; list != NULL && *list != NULL; list++) {
        size_t n = strlen(*list);
        if ((*list)[n - 1] == '*' ? len >= n - 1 && strncmp(name, *list, n - 1) == 0
                                  : len == n && strncmp(name, *list, n) == 0)
            return 1;
    }
    return 0;
}

int dmesh_env_known_name(const char *name, size_t len)
{
    if (dmesh_env_listed(known_names, name, len))
        return 1;
    for (int b = 0; b < dmesh_backend_count; b++)
        if (dmesh_env_listed(dmesh_backends[b]->names, name, len))
            return 1;
    return 0;
}

static const char *const env_names[DMESH_ENV_COUNT] = {
    "DMESH_CHECK",          "DMESH_COMM_CREATE",   "DMESH_DEVICE",       "DMESH_TIMEOUT",
    "DMESH_DEBUG",          "DMESH_STRICT",        "DMESH_NODE",         "DMESH_RESPAWN_COMMAND",
    "DMESH_FINALIZE_BOUND", "DMESH_RESPAWN_HOSTS", "DMESH_COPIES_DOMAIN"};

extern char **environ;

/* The unknown DMESH_* variables, ", "-separated (what strict mode names;
 * cut short past the buffer), and how many. */
static char env_unknown[256];
static int env_unknown_count;

/* A value too long for its copy keeps a prefix that no option accepts. */
#define ENV_VALUE_LEN 256
static char env_values[DMESH_ENV_COUNT][ENV_VALUE_LEN];
static int env_set[DMESH_ENV_COUNT];
/* The backends' variables: the DMESH_* names of their lists without '*'. */
static const char *env_backend_names[DMESH_BACKEND_MAX][DMESH_ENV_BACKEND_MAX];
static char env_backend_values[DMESH_BACKEND_MAX][DMESH_ENV_BACKEND_MAX][ENV_VALUE_LEN];
static int env_backend_set[DMESH_BACKEND_MAX][DMESH_ENV_BACKEND_MAX];
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* Copy variable name into value; whether it is set and not empty. */
static int env_copy(const char *name, char value[ENV_VALUE_LEN])
{
    const char *v = getenv(name);

    if (v == NULL || *v == '\0')
        return 0;
    if (snprintf(value, ENV_VALUE_LEN, "%s", v) >= ENV_VALUE_LEN)
        snprintf(value + ENV_VALUE_LEN - 16, 16, "...(too long)");
    return 1;
}

/* Backend b's variables, named and read. */
static void env_read_backend(int b)
{
    const char *const *list = dmesh_backends[b]->names;
    int i = 0;

    for (; list != NULL && *list != NULL; list++) {
        if (strncmp(*list, "DMESH_", 6) != 0 || strchr(*list, '*') != NULL)
            continue;
        assert(i < DMESH_ENV_BACKEND_MAX); /* a backend with more variables raises it */
        env_backend_names[b][i] = *list;
        env_backend_set[b][i] = env_copy(*list, env_backend_values[b][i]);
        i++;
    }
}

static void env_read(void)
{
    for (int i = 0; i < DMESH_ENV_COUNT; i++)
        env_set[i] = env_copy(env_names[i], env_values[i]);
    for (int b = 0; b < dmesh_backend_count; b++)
        env_read_backend(b);
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        size_t len = strcspn(*e, "="), at = strlen(env_unknown);
        if (strncmp(*e, "DMESH_", 6) != 0 || dmesh_env_known_name(*e, len))
            continue;
        if (snprintf(env_unknown + at, sizeof(env_unknown) - at, "%s%.*s",
                     env_unknown_count++ ? ", " : "", (int)len,
                     *e) >= (int)(sizeof(env_unknown) - at))
            snprintf(env_unknown + sizeof(env_unknown) - 4, 4, "...");
        if (env_set[DMESH_ENV_DEBUG] && strcmp(env_values[DMESH_ENV_DEBUG], "0") != 0)
            fprintf(stderr, "dmesh: unknown environment variable %.*s\n", (int)len, *e);
    }
}

const char *dmesh_env_value(int which)
{
    pthread_once(&env_once, env_read);
    return env_set[which] ? env_values[which] : NULL;
}

const char *dmesh_env_backend(int b, int i, const char **name)
{
    pthread_once(&env_once, env_read);
    *name = env_backend_names[b][i];
    return env_backend_set[b][i] ? env_backend_values[b][i] : NULL;
}

int dmesh_env_unknown(const char **names)
{
    pthread_once(&env_once, env_read);
    *names = env_unknown;
    return env_unknown_count;
}
