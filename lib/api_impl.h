/* SPDX-License-Identifier: BSD-3-Clause */
/* Included by every source of the library but its entry points (api.c,
 * api_layout.c, api_nccl.c) and the files that call no implementation
 * (copies_mem.c, copies_move.c, copies_partner.c, copies_place.c,
 * copies_plan.c, copies_scheme.c, copies_xor.c, ft/call_bound.c), first
 * after config.h: the implementation of each public
 * function of api_names.h is declared under its own name, <name>_impl, of
 * the public function's type, and defined in the file of its object
 * (dmesh_init_impl in mesh_root.c). The library's own code calls the
 * implementations, and may not name the public functions (they are
 * poisoned below: a call would be a compile error), so that calls inside
 * the library never reach an error handler: only the entry point a
 * program called raises (raise.h), once, with the outcome every rank
 * agreed. */
#ifndef DMESH_API_IMPL_H
#define DMESH_API_IMPL_H

#if defined(DMESH_H) || defined(DMESH_LAYOUT_H)
#error "api_impl.h must come before dmesh.h (right after config.h)"
#endif
#if !defined(__GNUC__)
#error "dmesh needs a compiler with GNU C extensions (__typeof__, _Pragma poison): gcc, clang, icx"
#endif

#ifdef DMESH_API_DIRECT
/* A test that compiles library sources into itself without the entry
 * points (and without libdmesh): the implementations are the public
 * symbols themselves (assembler names), which the test calls. */
#include "dmesh.h"
#include "dmesh_layout.h"

#include "api_names.h"

#define DMESH_API_STR2_(x) #x
#define DMESH_API_XSTR_(x) DMESH_API_STR2_(x)
#define DMESH_API_SYMBOL_(name) DMESH_API_XSTR_(__USER_LABEL_PREFIX__) #name
#define DMESH_API_IMPL_(name) extern __typeof__(name) name##_impl __asm__(DMESH_API_SYMBOL_(name));
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

#define DMESH_API_IMPL_(name) DMESH_API_DECLARE_IMPL(name)
#endif /* DMESH_API_DIRECT */

DMESH_API_MESH_NAMES(DMESH_API_IMPL_)
DMESH_API_LAYOUT_NAMES(DMESH_API_IMPL_)
DMESH_API_PLAIN_NAMES(DMESH_API_IMPL_)
#ifdef DMESH_API_NCCL
DMESH_API_IMPL_(dmesh_get_nccl_comm)
DMESH_API_IMPL_(dmesh_get_nccl_comm_by_name)
#endif
#undef DMESH_API_IMPL_

DMESH_API_MESH_NAMES(DMESH_API_POISON)
DMESH_API_LAYOUT_NAMES(DMESH_API_POISON)
DMESH_API_PLAIN_NAMES(DMESH_API_POISON)
#ifdef DMESH_API_NCCL
DMESH_API_POISON(dmesh_get_nccl_comm)
DMESH_API_POISON(dmesh_get_nccl_comm_by_name)
#endif

#endif /* DMESH_API_IMPL_H */
