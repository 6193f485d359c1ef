/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA runtime and NCCL, loaded at run time (gpu_lib.h).
 *
 * Where a library is looked for, in order (doc/gpu.md):
 *   1. DMESH_CUDART_LIBRARY / DMESH_NCCL_LIBRARY, when set: that file only
 *      (a path, or a name for the loader's search);
 *   2. the process itself (dlsym(RTLD_DEFAULT)): a program that linked the
 *      library, or one that another library already loaded globally, shares
 *      its copy with dmesh; the test doubles are found this way;
 *   3. dlopen of the soname of the version dmesh was built against
 *      (libcudart.so.<CUDA major>, libnccl.so.<NCCL major>): the loader's
 *      search (LD_LIBRARY_PATH, ld.so.cache, default directories);
 *   4. that soname in the directory configure found the library in (a pip
 *      wheel's, a --with-nccl=DIR), which the loader may not know.
 * A library is never unloaded: CUDA and NCCL keep threads and state. */
#include "config.h"

#include "api_impl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DMESH_GPU_LIB_TABLE /* the real names below, not the table's macros */
#include "gpu_lib.h"

#include "error.h"
#include "fault.h"

dmesh_cudart_table_t dmesh_cudart;
#ifdef DMESH_HAVE_NCCL
dmesh_nccl_table_t dmesh_nccl;
#endif

/* The table's types are the headers' own: a declaration that changes in a
 * new CUDA or NCCL fails the build here, not a call at run time. */
#define DMESH_GPU_LIB_SAME_TYPE(ret, name, params)                                                 \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params),                 \
                   #name " is declared differently by its header");
DMESH_CUDART_FUNCTIONS(DMESH_GPU_LIB_SAME_TYPE)
#ifdef DMESH_HAVE_NCCL
DMESH_NCCL_FUNCTIONS(DMESH_GPU_LIB_SAME_TYPE)
DMESH_NCCL_OPTIONAL_FUNCTIONS(DMESH_GPU_LIB_SAME_TYPE)
#endif

/* One library: how it is named and found, and the table it fills. */
typedef struct {
    const char *what;          /* in messages: "the CUDA runtime" */
    const char *env;           /* the override variable */
    const char *soname_format; /* with major: the version dmesh was built against */
    int major;
    const char *dir;          /* where configure found it, tried last ("": nowhere) */
    const char *const *names; /* the functions, in table order */
    int n;
    void **slots; /* n addresses of the table's pointers */
    int required; /* names[0..required) must be there, the rest are optional */
    int loaded;   /* atomic: the table is filled */
} gpu_lib_t;

#define DMESH_GPU_LIB_NAME(ret, name, params) #name,
static const char *const cudart_names[] = {DMESH_CUDART_FUNCTIONS(DMESH_GPU_LIB_NAME)};
#define DMESH_GPU_LIB_CUDART_SLOT(ret, name, params) (void **)&dmesh_cudart.name,
static void **const cudart_slots[] = {DMESH_CUDART_FUNCTIONS(DMESH_GPU_LIB_CUDART_SLOT)};

static gpu_lib_t cudart = {.what = "the CUDA runtime",
                           .env = "DMESH_CUDART_LIBRARY",
                           .soname_format = "libcudart.so.%d",
                           .major = CUDART_VERSION / 1000,
                           .dir = DMESH_CUDART_FOUND_LIBDIR,
                           .names = cudart_names,
                           .n = (int)(sizeof(cudart_names) / sizeof(cudart_names[0])),
                           .slots = (void **)cudart_slots,
                           .required = (int)(sizeof(cudart_names) / sizeof(cudart_names[0]))};

#ifdef DMESH_HAVE_NCCL
/* the required functions, then the optional ones (NULL where absent) */
static const char *const nccl_names[] = {DMESH_NCCL_FUNCTIONS(DMESH_GPU_LIB_NAME)
                                             DMESH_NCCL_OPTIONAL_FUNCTIONS(DMESH_GPU_LIB_NAME)};
#define DMESH_GPU_LIB_COUNT(ret, name, params) +1
#define DMESH_GPU_LIB_NCCL_SLOT(ret, name, params) (void **)&dmesh_nccl.name,
static void **const nccl_slots[] = {DMESH_NCCL_FUNCTIONS(DMESH_GPU_LIB_NCCL_SLOT)
                                        DMESH_NCCL_OPTIONAL_FUNCTIONS(DMESH_GPU_LIB_NCCL_SLOT)};

static gpu_lib_t nccl = {.what = "NCCL",
                         .env = "DMESH_NCCL_LIBRARY",
                         .soname_format = "libnccl.so.%d",
                         .major = NCCL_MAJOR,
                         .dir = DMESH_NCCL_FOUND_LIBDIR,
                         .names = nccl_names,
                         .n = (int)(sizeof(nccl_names) / sizeof(nccl_names[0])),
                         .slots = (void **)nccl_slots,
                         .required = 0 DMESH_NCCL_FUNCTIONS(DMESH_GPU_LIB_COUNT)};
#endif

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int hide_optional; /* tests: the optional functions are taken as absent */

/* The override variable's value, or NULL when it is unset or empty. */
static const char *lib_override(const gpu_lib_t *l)
{
    const char *over = getenv(l->env);

    return over != NULL && over[0] != '\0' ? over : NULL;
}

/* dlopen of file, else (no override) of file in the directory configure
 * found the library in; why: the loader's message about file. */
static void *lib_dlopen(const gpu_lib_t *l, const char *file, char *why, size_t len)
{
    char path[4096];
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);

    if (h != NULL)
        return h;
    snprintf(why, len, "%s", dlerror());
    if (lib_override(l) != NULL || l->dir[0] == '\0')
        return NULL;
    snprintf(path, sizeof(path), "%s/%s", l->dir, file);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        snprintf(why + strlen(why), len - strlen(why), "; nor in %s (configure's)", l->dir);
    return h;
}

/* Whether the library is found: *h is the handle to look its functions up
 * in (RTLD_DEFAULT, which is NULL in glibc, for the process itself), else
 * why says why not. file is what to open. */
static int lib_open(const gpu_lib_t *l, const char *file, void **h, char *why, size_t len)
{
    if (lib_override(l) == NULL && dlsym(RTLD_DEFAULT, l->names[0]) != NULL) {
        *h = RTLD_DEFAULT;
        return 1;
    }
    *h = lib_dlopen(l, file, why, len);
    return *h != NULL;
}

/* Every function of l from h into a scratch table first, so that a library
 * that lacks a required one leaves the real table as it was; an optional
 * one it lacks is NULL in the table. */
static int lib_bind(const gpu_lib_t *l, void *h, const char *file)
{
    void *found[32];

    if (l->n > (int)(sizeof(found) / sizeof(found[0])))
        return dmesh_error_set(DMESH_ERR_INTERNAL, "%s: table too small", l->what);
    for (int i = 0; i < l->n; i++) {
        (void)dlerror();
        found[i] = i >= l->required && hide_optional ? NULL : dlsym(h, l->names[i]);
        if (found[i] == NULL && i < l->required)
            return dmesh_error_set(DMESH_ERR_BACKEND, "device type \"cuda\": %s (%s) has no %s: %s",
                                   l->what, h == RTLD_DEFAULT ? "linked into the program" : file,
                                   l->names[i], dlerror());
    }
    for (int i = 0; i < l->n; i++)
        memcpy(l->slots[i], &found[i], sizeof(found[i]));
    return DMESH_SUCCESS;
}

static int lib_error(const gpu_lib_t *l, const char *file, const char *why)
{
    if (lib_override(l) != NULL)
        return dmesh_error_set(DMESH_ERR_BACKEND,
                               "device type \"cuda\": cannot load %s from %s=%s: %s", l->what,
                               l->env, file, why);
    return dmesh_error_set(DMESH_ERR_BACKEND,
                           "device type \"cuda\": cannot load %s (%s): %s; install it where the "
                           "loader finds it, or name it with %s",
                           l->what, file, why, l->env);
}

/* With load_lock held. fault: the test hook fails this load (even of a
 * library already loaded). */
static int lib_load(gpu_lib_t *l, int fault)
{
    char soname[64], why[512];
    const char *file = lib_override(l);
    void *h;
    int err;

    snprintf(soname, sizeof(soname), l->soname_format, l->major);
    if (file == NULL)
        file = soname;
    if (fault)
        return lib_error(l, file, "injected fault (gpu_lib)");
    if (__atomic_load_n(&l->loaded, __ATOMIC_ACQUIRE))
        return DMESH_SUCCESS;
    if (!lib_open(l, file, &h, why, sizeof(why)))
        return lib_error(l, file, why);
    err = lib_bind(l, h, file);
    if (err == DMESH_SUCCESS)
        __atomic_store_n(&l->loaded, 1, __ATOMIC_RELEASE);
    return err; /* a handle without every function stays open: harmless */
}

int dmesh_gpu_lib_load(int mask)
{
    /* one count of the fault site per call; it fails the last library asked for */
    int fault = dmesh_fault(DMESH_FAULT_GPU_LIB), err = DMESH_SUCCESS;

    pthread_mutex_lock(&load_lock);
    if (mask & DMESH_GPU_CUDART)
        err = lib_load(&cudart, fault && !(mask & DMESH_GPU_NCCL));
#ifdef DMESH_HAVE_NCCL
    if (err == DMESH_SUCCESS && (mask & DMESH_GPU_NCCL))
        err = lib_load(&nccl, fault);
#else
    if (err == DMESH_SUCCESS && (mask & DMESH_GPU_NCCL))
        err = dmesh_error_set(DMESH_ERR_BACKEND, "dmesh was built without NCCL");
#endif
    pthread_mutex_unlock(&load_lock);
    return err;
}

int dmesh_gpu_lib_has(const char *name)
{
#ifdef DMESH_HAVE_NCCL
    void *fn = NULL;

    if (!__atomic_load_n(&nccl.loaded, __ATOMIC_ACQUIRE))
        return 0;
    for (int i = nccl.required; i < nccl.n; i++)
        if (strcmp(nccl.names[i], name) == 0)
            memcpy(&fn, nccl.slots[i], sizeof(fn));
    return fn != NULL;
#else
    (void)name;
    return 0;
#endif
}

void dmesh_gpu_lib_hide_optional(int hide)
{
    pthread_mutex_lock(&load_lock);
    hide_optional = hide;
    pthread_mutex_unlock(&load_lock);
}

void dmesh_gpu_lib_forget(void)
{
    pthread_mutex_lock(&load_lock);
    __atomic_store_n(&cudart.loaded, 0, __ATOMIC_RELEASE);
#ifdef DMESH_HAVE_NCCL
    __atomic_store_n(&nccl.loaded, 0, __ATOMIC_RELEASE);
#endif
    pthread_mutex_unlock(&load_lock);
}
