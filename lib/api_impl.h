/* SPDX-License-Identifier: BSD-3-Clause */
/* Included by every source of the library but its entry points (api.c,
 * api_layout.c), first after config.h: the public functions of
 * api_names.h are declared under their names, so the code reads as the
 * API does, but bound to their implementations' hidden symbols (the
 * technique of glibc's hidden_proto). Calls inside the library therefore
 * never reach an error handler: only the entry point a program called
 * raises (raise.h), once, with the outcome every rank agreed. */
#ifndef DMESH_API_IMPL_H
#define DMESH_API_IMPL_H

#if defined(DMESH_H) || defined(DMESH_LAYOUT_H)
#error "api_impl.h must come before dmesh.h (right after config.h)"
#endif
#if !defined(__GNUC__)
#error "dmesh needs a compiler with GNU C extensions (__typeof__, asm labels): gcc, clang, icx"
#endif

#ifdef DMESH_API_DIRECT
/* A test that compiles library sources into itself without the entry
 * points (and without libdmesh): the public names are the code itself. */
#include "dmesh.h"
#include "dmesh_layout.h"
#else
/* The public declarations without the export attribute: hidden. */
#define DMESH_EXPORT
#include "dmesh.h"
#include "dmesh_layout.h"
#ifdef DMESH_API_NCCL /* the source that needs dmesh_nccl.h (and NCCL's headers) */
#include "dmesh_nccl.h"
#endif
#undef DMESH_EXPORT
#define DMESH_EXPORT __attribute__((visibility("default")))

#include "api_names.h"

#define DMESH_API_IMPL_(name) extern __typeof__(name) name __asm__(DMESH_API_IMPL_SYMBOL(name));
DMESH_API_MESH_NAMES(DMESH_API_IMPL_)
DMESH_API_LAYOUT_NAMES(DMESH_API_IMPL_)
DMESH_API_PLAIN_NAMES(DMESH_API_IMPL_)
#ifdef DMESH_API_NCCL
DMESH_API_IMPL_(dmesh_get_nccl_comm)
#endif
#undef DMESH_API_IMPL_
#endif /* DMESH_API_DIRECT */

#endif /* DMESH_API_IMPL_H */
