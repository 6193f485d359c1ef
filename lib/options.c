/* SPDX-License-Identifier: BSD-3-Clause */
/* Options of creation calls: MPI_Info keys, with environment variables as
 * defaults. Keys without the dmesh_ prefix are ignored (the info may carry
 * keys for other libraries), but for the per-axis keys of a backend
 * (nccl_*: backend.h), which its table entry parses. Unknown dmesh_* keys and
 * DMESH_* variables are listed under DMESH_DEBUG and are DMESH_ERR_ARG under
 * dmesh_strict / DMESH_STRICT; a recognised key with a bad value is
 * DMESH_ERR_ARG. The variables, read once, and the names dmesh knows are
 * options_env.c's. */
#include "config.h"

#include "api_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "dim_name.h"
#include "error.h"
#include "option_value.h"
#include "options.h"
#include "options_env.h"

/* The dims that the ".<dim>" forms of one key (dmesh_backend, a backend's
 * per-axis key such as nccl_<field>)
 * named, by name or by index: one table per key, so that both forms for one
 * dim are refused within a key only, and a per-dim value is never replaced
 * by the key's global form, whatever the key order in the info. */
typedef struct {
    char base[MPI_MAX_INFO_KEY + 1];
    int by_name[DMESH_MAX_DIMS];
    int by_index[DMESH_MAX_DIMS];
} key_forms_t;

typedef struct {
    key_forms_t key[16]; /* more than the per-dim keys there are */
    int n;
} dim_forms_t;

static key_forms_t *forms_of(dim_forms_t *f, const char *base)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->key[i].base, base) == 0)
            return &f->key[i];
    if (f->n == (int)(sizeof(f->key) / sizeof(f->key[0])))
        return &f->key[f->n - 1]; /* not reached: unknown nccl_ fields change nothing */
    snprintf(f->key[f->n].base, sizeof(f->key[f->n].base), "%s", base);
    return &f->key[f->n++];
}

static int parse_bool(const char *key, const char *val, int *out)
{
    int v = 0;

    if (strcmp(val, "1") == 0 || strcmp(val, "yes") == 0 || strcmp(val, "on") == 0)
        val = "true";
    if (strcmp(val, "0") == 0 || strcmp(val, "no") == 0 || strcmp(val, "off") == 0)
        val = "false";
    DMESH_TRY(dmesh_option_choice(key, val, "false", "true", &v));
    *out = v;
    return DMESH_SUCCESS;
}

/* Seconds: a number > 0 (strtod syntax), at most a year. */
static int parse_seconds(const char *key, const char *val, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(val, &end);
    if (errno != 0 || end == val || *end != '\0' || !(v > 0) || v > 366 * 86400.0)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "option %s: value \"%s\" is not a number of seconds "
                               "> 0",
                               key, val);
    *out = v;
    return DMESH_SUCCESS;
}

/* A backend of the table, by name. */
static int parse_backend(const char *key, const char *val, int *out)
{
    char all[64];
    int b = dmesh_backend_find(val);

    if (b < 0) {
        dmesh_backend_names(all, sizeof(all));
        return dmesh_error_set(DMESH_ERR_ARG, "option %s: value \"%s\" is not one of %s", key, val,
                               all);
    }
    *out = b;
    return DMESH_SUCCESS;
}

/* Resolve the <dim> of "key.<dim>" to an index, by the library's one rule
 * (dim_name.h: a name of the mesh, else a decimal index); both forms for
 * one dim, or an unknown dim, is an error. */
static int resolve_dim(const char *key, const char *dim, int ndims, const char *const names[],
                       key_forms_t *forms, int *out)
{
    int d, by_name;

    DMESH_TRY(dmesh_dim_of_option(ndims, names, key, dim, &d, &by_name));
    if (by_name)
        forms->by_name[d] = 1;
    else
        forms->by_index[d] = 1;
    *out = d;
    if (forms->by_name[d] && forms->by_index[d])
        return dmesh_error_set(
            DMESH_ERR_ARG, "option %s: dimension %d is named both by name and by index", key, d);
    return DMESH_SUCCESS;
}

/* Apply one per-axis key, dmesh_backend (b < 0) or a per-axis key of
 * backend b, to the axes it names. The dims' backends are known by then
 * (parse_info applies dmesh_backend first): a backend's key sets the
 * options of its own dims; on the others its value is checked, then
 * ignored (nccl_* on an mpi dim), so that no key order matters. */
static int apply_axis_key(const char *key, const char *val, int b, int ndims,
                          const char *const names[], dmesh_options_t *o, dim_forms_t *forms)
{
    char base[MPI_MAX_INFO_KEY + 1];
    const char *dot = strchr(key, '.');
    int d, lo = 0, hi = ndims, known = 1;
    dmesh_backend_axis_t scratch;
    key_forms_t *kf;

    snprintf(base, sizeof(base), "%.*s", dot ? (int)(dot - key) : (int)strlen(key), key);
    kf = forms_of(forms, base);
    if (dot != NULL) {
        DMESH_TRY(resolve_dim(key, dot + 1, ndims, names, kf, &lo));
        hi = lo + 1;
    }
    for (d = lo; d < hi; d++) {
        dmesh_axis_options_t *a = &o->axis[d];
        if (dot == NULL && (kf->by_name[d] || kf->by_index[d]))
            continue; /* a per-dim value wins over the global one */
        if (b < 0) {
            DMESH_TRY(parse_backend(key, val, &a->backend));
            continue;
        }
        memset(&scratch, 0, sizeof(scratch));
        DMESH_TRY(dmesh_backends[b]->axis_option(key, base + strlen(dmesh_backends[b]->axis_prefix),
                                                 val, a->backend == b ? &a->opts : &scratch,
                                                 &known));
    }
    return DMESH_SUCCESS;
}

/* Apply one info key: in pass 0 the dmesh_backend keys only, in pass 1
 * the others. */
static int apply_key(const char *key, const char *val, int pass, int ndims,
                     const char *const names[], dmesh_options_t *o, dim_forms_t *forms)
{
    int backend = strncmp(key, "dmesh_backend", 13) == 0 && (key[13] == '\0' || key[13] == '.');

    if (backend != (pass == 0))
        return DMESH_SUCCESS;
    if (backend)
        return apply_axis_key(key, val, -1, ndims, names, o, forms);
    if (strcmp(key, "dmesh_strict") == 0)
        return parse_bool(key, val, &o->strict);
    if (strcmp(key, "dmesh_check") == 0)
        return parse_bool(key, val, &o->check);
    if (strcmp(key, "dmesh_comm_create") == 0)
        return dmesh_option_choice(key, val, "split", "group", &o->comm_create);
    if (strcmp(key, "dmesh_device") == 0)
        return dmesh_option_int(key, val, 0, INT_MAX, &o->device);
    if (strcmp(key, "dmesh_bind") == 0)
        return dmesh_option_choice(key, val, "auto", "none", &o->bind);
    if (strcmp(key, "dmesh_order") == 0)
        return dmesh_option_choice(key, val, "rank", "node", &o->order);
    if (strcmp(key, "dmesh_node") == 0)
        return dmesh_option_choices(key, val, DMESH_NODE_RULES, dmesh_node_rule_names, &o->node);
    if (strcmp(key, "dmesh_timeout") == 0)
        return parse_seconds(key, val, &o->timeout);
    for (int b = 0; b < dmesh_backend_count; b++) {
        const dmesh_backend_t *be = dmesh_backends[b];
        int known = 0;
        if (be->call_option != NULL)
            DMESH_TRY(be->call_option(key, val, &o->call[b], &known));
        if (known)
            return DMESH_SUCCESS;
        if (be->axis_prefix != NULL && strncmp(key, be->axis_prefix, strlen(be->axis_prefix)) == 0)
            return apply_axis_key(key, val, b, ndims, names, o, forms);
    }
    return DMESH_SUCCESS;
}

/* The value of key in info; 0 when absent (or info is MPI_INFO_NULL). */
static int info_value(MPI_Info info, const char *key, char val[MPI_MAX_INFO_VAL + 1])
{
    int flag = 0;

    if (info == MPI_INFO_NULL ||
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag) != MPI_SUCCESS)
        return 0;
    return flag;
}

const char *const dmesh_node_rule_names[DMESH_NODE_RULES] = {"auto", "shared", "host"};

int dmesh_options_check(MPI_Info info)
{
    char val[MPI_MAX_INFO_VAL + 1];
    const char *v = dmesh_env_value(DMESH_ENV_CHECK);
    int check = 1;

    if (info_value(info, "dmesh_check", val))
        v = val;
    if (v != NULL && *v && parse_bool("dmesh_check", v, &check) != DMESH_SUCCESS)
        check = 1; /* a bad value is reported by dmesh_options_parse */
    return check;
}

static int apply_env(MPI_Info info, dmesh_options_t *o)
{
    char val[MPI_MAX_INFO_VAL + 1];
    const char *v;

    /* the info key overrides the variable: a bad variable is then no error */
    if ((v = dmesh_env_value(DMESH_ENV_CHECK)) != NULL && !info_value(info, "dmesh_check", val))
        DMESH_TRY(parse_bool("DMESH_CHECK", v, &o->check));
    if ((v = dmesh_env_value(DMESH_ENV_COMM_CREATE)) != NULL)
        DMESH_TRY(dmesh_option_choice("DMESH_COMM_CREATE", v, "split", "group", &o->comm_create));
    if ((v = dmesh_env_value(DMESH_ENV_DEVICE)) != NULL)
        DMESH_TRY(dmesh_option_int("DMESH_DEVICE", v, 0, INT_MAX, &o->device));
    if ((v = dmesh_env_value(DMESH_ENV_TIMEOUT)) != NULL && !info_value(info, "dmesh_timeout", val))
        DMESH_TRY(parse_seconds("DMESH_TIMEOUT", v, &o->timeout));
    if ((v = dmesh_env_value(DMESH_ENV_DEBUG)) != NULL)
        o->debug = strcmp(v, "0") != 0;
    if ((v = dmesh_env_value(DMESH_ENV_STRICT)) != NULL && !info_value(info, "dmesh_strict", val))
        DMESH_TRY(parse_bool("DMESH_STRICT", v, &o->strict));
    if ((v = dmesh_env_value(DMESH_ENV_NODE)) != NULL && !info_value(info, "dmesh_node", val))
        DMESH_TRY(dmesh_option_choices("DMESH_NODE", v, DMESH_NODE_RULES, dmesh_node_rule_names,
                                       &o->node));
    for (int b = 0; b < dmesh_backend_count; b++) /* before the info keys, which override them */
        for (int i = 0; dmesh_backends[b]->call_option != NULL && i < DMESH_ENV_BACKEND_MAX; i++) {
            const char *name;
            int known = 0;
            if ((v = dmesh_env_backend(b, i, &name)) != NULL)
                DMESH_TRY(dmesh_backends[b]->call_option(name, v, &o->call[b], &known));
        }
    return DMESH_SUCCESS;
}

/* The default backend is the device backend on GPUs when it is built in
 * (nccl), mpi otherwise. */
static void set_defaults(int cuda, dmesh_options_t *o)
{
    int d, b = dmesh_backend_default(cuda);

    memset(o, 0, sizeof(*o));
    o->check = 1;
    o->device = -1;
    /* faster than the split on Open MPI (16, 32 ranks) and MPICH (2 ranks):
     * doc/performance.md, "Creation strategy" */
    o->comm_create = DMESH_COMM_CREATE_GROUP;
    for (d = 0; d < DMESH_MAX_DIMS; d++)
        o->axis[d].backend = b;
    for (b = 0; b < dmesh_backend_count; b++)
        if (dmesh_backends[b]->call_defaults != NULL)
            dmesh_backends[b]->call_defaults(&o->call[b]);
}

/* The dim names joined by "," ("dmesh" when unnamed), cut to fit: the
 * first part of the label that backends show in their logs. */
static void label_base(int ndims, const char *const names[], char all[128])
{
    size_t at = 0;

    snprintf(all, 128, "dmesh");
    for (int i = 0; names != NULL && i < ndims; i++)
        at += (size_t)snprintf(all + at, at < 128 ? 128 - at : 0, "%s%s", i ? "," : "", names[i]);
}

/* Each dim's options complete: the dim's backend checks and keeps them, with the label
 * "<dim names>/<dim name>" ("dmesh/<d>" when unnamed; NCCL's commName). */
static int finish_axes(int ndims, const char *const names[], dmesh_options_t *o)
{
    char all[128] = "", label[128], dim[16];

    for (int d = 0; d < ndims && d < DMESH_MAX_DIMS; d++) {
        dmesh_axis_options_t *a = &o->axis[d];
        const dmesh_backend_t *b = dmesh_backends[a->backend];
        if (b->axis_finish == NULL)
            continue;
        if (all[0] == '\0')
            label_base(ndims, names, all);
        snprintf(dim, sizeof(dim), "%d", d);
        snprintf(label, sizeof(label), "%.63s/%.63s", all, names != NULL ? names[d] : dim);
        DMESH_TRY(b->axis_finish(d, label, o->timeout, &a->opts));
    }
    return DMESH_SUCCESS;
}

/* Parse the keys of info; the first unknown dmesh_* key goes to unknown
 * ("" when none), each is listed under DMESH_DEBUG. */
static int parse_info(MPI_Info info, int ndims, const char *const names[], dmesh_options_t *opts,
                      char unknown[MPI_MAX_INFO_KEY + 1])
{
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    int nkeys = 0, i, pass, flag, rc;
    dim_forms_t forms;

    memset(&forms, 0, sizeof(forms));
    if (info == MPI_INFO_NULL)
        return DMESH_SUCCESS;
    if ((rc = MPI_Info_get_nkeys(info, &nkeys)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Info_get_nkeys");
    for (pass = 0; pass < 2; pass++) /* dmesh_backend first: the others need the backends */
        for (i = 0; i < nkeys; i++) {
            if ((rc = MPI_Info_get_nthkey(info, i, key)) != MPI_SUCCESS)
                return dmesh_error_mpi(rc, "MPI_Info_get_nthkey");
            if ((rc = MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag)) != MPI_SUCCESS)
                return dmesh_error_mpi(rc, "MPI_Info_get");
            if (flag)
                DMESH_TRY(apply_key(key, val, pass, ndims, names, opts, &forms));
            if (pass == 0 || strncmp(key, "dmesh_", 6) != 0 ||
                dmesh_env_known_name(key, strlen(key)))
                continue;
            if (unknown[0] == '\0')
                snprintf(unknown, MPI_MAX_INFO_KEY + 1, "%s", key);
            if (opts->debug)
                fprintf(stderr, "dmesh: unknown info key %s\n", key);
        }
    return DMESH_SUCCESS;
}

int dmesh_options_parse(MPI_Info info, int ndims, const char *const names[], int cuda,
                        dmesh_options_t *opts)
{
    char unknown[MPI_MAX_INFO_KEY + 1] = "";
    const char *unknown_vars = "";
    int nunknown = 0;

    set_defaults(cuda, opts);
    DMESH_TRY(apply_env(info, opts));
    DMESH_TRY(parse_info(info, ndims, names, opts, unknown));
    if (opts->strict && unknown[0] != '\0')
        return dmesh_error_set(DMESH_ERR_ARG, "option %s: unknown info key (dmesh_strict is on)",
                               unknown);
    if (opts->strict && (nunknown = dmesh_env_unknown(&unknown_vars)) > 0)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "environment variable%s %s: unknown to dmesh (dmesh_strict is on)",
                               nunknown > 1 ? "s" : "", unknown_vars);
    return finish_axes(ndims, names, opts);
}

void dmesh_axis_options_key(const dmesh_axis_options_t *o, char *buf, size_t len)
{
    const dmesh_backend_t *b = dmesh_backends[o->backend];
    int at = snprintf(buf, len, "%s", b->name);

    if (b->axis_key != NULL && at >= 0 && (size_t)at + 1 < len) {
        buf[at] = ' ';
        b->axis_key(&o->opts, buf + at + 1, len - (size_t)at - 1);
    }
}

/*
 * The options that travel to the processes dmesh_respawn and dmesh_grow
 * start: the dmesh_ and nccl_ keys of the call's info, then, for each
 * variable that shapes a mesh and whose key the info lacks, its value here
 * under that key (or the value a process without it takes), so that a new
 * process whose environment differs (another wrapper, a module not loaded)
 * makes the mesh its parents make. DMESH_DEVICE and DMESH_DEBUG stay each
 * process's own. Text: "key\tvalue\n" per key.
 */
static const struct {
    int env;
    const char *key, *fallback; /* fallback NULL: none sent when unset */
} shared_env[] = {{DMESH_ENV_CHECK, "dmesh_check", "true"},
                  {DMESH_ENV_COMM_CREATE, "dmesh_comm_create", "group"},
                  {DMESH_ENV_TIMEOUT, "dmesh_timeout", NULL},
                  {DMESH_ENV_STRICT, "dmesh_strict", "false"},
                  {DMESH_ENV_NODE, "dmesh_node", "auto"}};

typedef struct {
    char *t;
    size_t len, cap;
    int err;
} text_t;

static void text_add(text_t *x, const char *key, const char *val)
{
    size_t need = strlen(key) + strlen(val) + 3;

    if (x->err != DMESH_SUCCESS || strpbrk(val, "\t\n") != NULL)
        return; /* a value the text cannot carry stays with the caller's info */
    if (x->len + need > x->cap) {
        size_t cap = 2 * (x->len + need);
        char *t = realloc(x->t, cap);
        if (t == NULL) {
            x->err = dmesh_error_set(DMESH_ERR_NOMEM, "the options of the new processes: "
                                                      "out of memory");
            return;
        }
        x->t = t;
        x->cap = cap;
    }
    x->len += (size_t)snprintf(x->t + x->len, x->cap - x->len, "%s\t%s\n", key, val);
}

/* The variables of backend b that the info lacks, under their keys. */
static void text_add_backend_env(MPI_Info info, int b, text_t *x)
{
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    const char *name, *v;

    for (int i = 0; i < DMESH_ENV_BACKEND_MAX; i++) {
        size_t n, k;
        v = dmesh_env_backend(b, i, &name);
        if (name == NULL)
            break;
        n = strlen(name);
        if (v == NULL || n > MPI_MAX_INFO_KEY)
            continue;
        for (k = 0; k <= n; k++) /* DMESH_NCCL_CREATE stands for dmesh_nccl_create */
            key[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] - 'A' + 'a' : name[k]);
        if (dmesh_env_listed(dmesh_backends[b]->names, key, n) && !info_value(info, key, val))
            text_add(x, key, v);
    }
}

int dmesh_options_shared_text(MPI_Info info, char **text)
{
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    text_t x = {NULL, 0, 0, DMESH_SUCCESS};
    int nkeys = 0, i, rc = MPI_SUCCESS;

    text_add(&x, "", ""); /* allocated even when empty */
    x.len = 0;
    x.t[0] = '\0';
    if (info != MPI_INFO_NULL && (rc = MPI_Info_get_nkeys(info, &nkeys)) != MPI_SUCCESS)
        x.err = dmesh_error_mpi(rc, "MPI_Info_get_nkeys");
    for (i = 0; i < nkeys && x.err == DMESH_SUCCESS; i++) {
        if ((rc = MPI_Info_get_nthkey(info, i, key)) != MPI_SUCCESS)
            x.err = dmesh_error_mpi(rc, "MPI_Info_get_nthkey");
        else if ((strncmp(key, "dmesh_", 6) == 0 || strncmp(key, "nccl_", 5) == 0) &&
                 strcmp(key, "dmesh_respawn_command") != 0 &&
                 strcmp(key, "dmesh_respawn_hosts") != 0 && info_value(info, key, val))
            text_add(&x, key, val);
    }
    for (i = 0; i < (int)(sizeof(shared_env) / sizeof(shared_env[0])); i++) {
        const char *v = dmesh_env_value(shared_env[i].env);
        if (!info_value(info, shared_env[i].key, val) &&
            (v != NULL || shared_env[i].fallback != NULL))
            text_add(&x, shared_env[i].key, v != NULL ? v : shared_env[i].fallback);
    }
    for (int b = 0; b < dmesh_backend_count; b++)
        text_add_backend_env(info, b, &x);
    if (x.err != DMESH_SUCCESS) {
        free(x.t);
        return x.err;
    }
    *text = x.t;
    return DMESH_SUCCESS;
}

int dmesh_options_from_text(const char *text, MPI_Info *info)
{
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    const char *p = text;
    int rc = MPI_SUCCESS;

    *info = MPI_INFO_NULL;
    while (*p != '\0' && rc == MPI_SUCCESS) {
        size_t k = strcspn(p, "\t\n"), v;
        if (p[k] != '\t' || k > MPI_MAX_INFO_KEY)
            return dmesh_error_set(DMESH_ERR_ARG, "the parents' options: a malformed key");
        v = strcspn(p + k + 1, "\n");
        if (v > MPI_MAX_INFO_VAL)
            return dmesh_error_set(DMESH_ERR_ARG, "the parents' options: a value too long");
        memcpy(key, p, k);
        key[k] = '\0';
        memcpy(val, p + k + 1, v);
        val[v] = '\0';
        if (*info == MPI_INFO_NULL)
            rc = MPI_Info_create(info);
        if (rc == MPI_SUCCESS)
            rc = MPI_Info_set(*info, key, val);
        p += k + 1 + v + (p[k + 1 + v] == '\n');
    }
    if (rc != MPI_SUCCESS) {
        if (*info != MPI_INFO_NULL)
            MPI_Info_free(info);
        return dmesh_error_mpi(rc, "the parents' options");
    }
    return DMESH_SUCCESS;
}

int dmesh_options_timeout(MPI_Info info, double *seconds)
{
    char val[MPI_MAX_INFO_VAL + 1];
    const char *v =
        info_value(info, "dmesh_timeout", val) ? val : dmesh_env_value(DMESH_ENV_TIMEOUT);

    *seconds = 0;
    if (v == NULL)
        return DMESH_SUCCESS;
    return parse_seconds(v == val ? "dmesh_timeout" : "DMESH_TIMEOUT", v, seconds);
}

int dmesh_options_respawn_command(MPI_Info info, char cmd[MPI_MAX_INFO_VAL + 1])
{
    const char *v = dmesh_env_value(DMESH_ENV_RESPAWN_COMMAND);

    cmd[0] = '\0';
    if (info_value(info, "dmesh_respawn_command", cmd))
        return cmd[0] != '\0';
    if (v != NULL)
        snprintf(cmd, MPI_MAX_INFO_VAL + 1, "%s", v);
    return cmd[0] != '\0';
}

int dmesh_options_respawn_hosts(MPI_Info info, char names[MPI_MAX_INFO_VAL + 1], int *n)
{
    char val[MPI_MAX_INFO_VAL + 1], host[MPI_MAX_INFO_VAL + 1];
    const char *v = dmesh_env_value(DMESH_ENV_RESPAWN_HOSTS), *key = "DMESH_RESPAWN_HOSTS";
    int given = info_value(info, "dmesh_respawn_hosts", val),
        has_host = info_value(info, "host", host);

    *n = 0;
    names[0] = '\0';
    if (given && has_host)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "option dmesh_respawn_hosts \"%s\" and info key host \"%s\": give "
                               "one (host is the MPI's own: MPI_Comm_spawn's placement of every "
                               "new process)",
                               val, host);
    if (given) {
        v = val;
        key = "dmesh_respawn_hosts";
    } else if (has_host) {
        return DMESH_SUCCESS; /* the call's host key wins over the variable */
    }
    if (v == NULL)
        return DMESH_SUCCESS;
    return dmesh_option_hosts(key, v, names, n);
}

double dmesh_options_finalize_bound(void)
{
    const char *v = dmesh_env_value(DMESH_ENV_FINALIZE_BOUND);
    double s = 60;

    if (v != NULL && (strcmp(v, "0") == 0 || strcmp(v, "off") == 0))
        return 0;
    if (v != NULL && parse_seconds("DMESH_FINALIZE_BOUND", v, &s) != DMESH_SUCCESS)
        s = 60; /* read in MPI_Finalize, where nothing can report it: the default */
    return s;
}

int dmesh_options_copies_domain(MPI_Info info, char val[MPI_MAX_INFO_VAL + 1])
{
    const char *v = dmesh_env_value(DMESH_ENV_COPIES_DOMAIN);

    if (info_value(info, "dmesh_copies_domain", val))
        return 1;
    if (v == NULL)
        return 0;
    snprintf(val, MPI_MAX_INFO_VAL + 1, "%s", v);
    return 1;
}
