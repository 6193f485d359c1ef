/* SPDX-License-Identifier: BSD-3-Clause */
/* The process's environment as the options see it (options_env.c): the
 * DMESH_* variables of the library and of each backend, read once per
 * process, and the names that dmesh knows. Private to options.c. */
#ifndef DMESH_OPTIONS_ENV_H
#define DMESH_OPTIONS_ENV_H

#include <stddef.h>

/* The library's own variables. */
enum {
    DMESH_ENV_CHECK,
    DMESH_ENV_COMM_CREATE,
    DMESH_ENV_DEVICE,
    DMESH_ENV_TIMEOUT,
    DMESH_ENV_DEBUG,
    DMESH_ENV_STRICT,
    DMESH_ENV_NODE,
    DMESH_ENV_RESPAWN_COMMAND,
    DMESH_ENV_FINALIZE_BOUND,
    DMESH_ENV_RESPAWN_HOSTS,
    DMESH_ENV_COPIES_DOMAIN,
    DMESH_ENV_COUNT
};

/* Room for each backend's variables: the DMESH_* names of its list
 * (backend.h) without '*'. */
#define DMESH_ENV_BACKEND_MAX 8

/* The value of variable which (DMESH_ENV_*) when the process first asked;
 * NULL if unset or empty. */
const char *dmesh_env_value(int which);

/* Backend b's variable i (< DMESH_ENV_BACKEND_MAX): *name (NULL past the
 * last), and its value as dmesh_env_value gives it. */
const char *dmesh_env_backend(int b, int i, const char **name);

/* The unknown DMESH_* variables, ", "-separated in *names (cut short past
 * its buffer), and how many: what dmesh_strict names. */
int dmesh_env_unknown(const char **names);

/* Whether the first len bytes of name are one of list (NULL-terminated;
 * a trailing '*' of an entry matches any rest). */
int dmesh_env_listed(const char *const *list, const char *name, size_t len);

/* Whether the first len bytes of name are an info key or environment
 * variable that dmesh knows: the library's names and every backend's
 * (backend.h). */
int dmesh_env_known_name(const char *name, size_t len);

#endif /* DMESH_OPTIONS_ENV_H */
