# SPDX-License-Identifier: BSD-3-Clause
# lib/local.mk: the dmesh library. Everything is compiled once into the
# convenience library libdmesh_core.la (hidden symbols; tests and tools that
# need internals link it), which libdmesh.la exports. lib/gpu.mk adds the
# device binding and NCCL sources.
lib_LTLIBRARIES += lib/libdmesh.la
noinst_LTLIBRARIES += lib/libdmesh_core.la
include_HEADERS += include/dmesh.h include/dmesh_layout.h
nodist_include_HEADERS += include/dmesh_version.h

lib_libdmesh_core_la_SOURCES = \
	lib/error.c lib/error.h lib/raise.c lib/raise.h lib/binding.h \
	lib/api.c lib/api_layout.c lib/api_names.h lib/api_impl.h \
	lib/agree.c lib/agree.h lib/fault.h \
	lib/layout.c lib/layout_text.c lib/layout_check.h lib/layout_decompose.h \
	lib/options.c lib/options.h lib/options_env.c lib/options_env.h lib/option_value.c lib/option_value.h \
	lib/backend.c lib/backend.h lib/backend_nccl.c lib/backend_nccl.h \
	lib/cache.c lib/cache.h lib/hash.h lib/rank_map.h \
	lib/pcomm.c lib/pcomm.h lib/handout.c lib/handout.h lib/finalize.c lib/finalize.h \
	lib/universe.c lib/universe_comms.c lib/universe.h lib/universe_comms.h \
	lib/comm_mpi.c lib/comm_mpi.h \
	lib/handle.c lib/handle.h lib/mesh.c lib/mesh_root.c lib/mesh_root.h lib/mesh_root_args.h lib/mesh_root_args.c lib/mesh_derived.c lib/mesh_derived.h lib/mesh_query.c lib/mesh.h lib/mesh_local.h \
	lib/dim_name.c lib/dim_name.h lib/mesh_dim.c lib/mesh_dim.h lib/mesh_by_name.c \
	lib/request.c lib/request.h lib/create.c lib/create.h lib/node.c lib/node.h \
	lib/node_find.c lib/node_find.h \
	lib/comm_nccl.h lib/topo.h
lib_libdmesh_core_la_CFLAGS = $(AM_CFLAGS) $(DMESH_VISIBILITY_CFLAGS)
lib_libdmesh_core_la_CPPFLAGS = $(AM_CPPFLAGS) $(NCCL_CPPFLAGS) $(CUDA_CPPFLAGS) $(HWLOC_CPPFLAGS)
# The CUDA runtime and NCCL are not linked but loaded by the first "cuda"
# mesh (lib/gpu_lib.c), so that one build runs on nodes without them.
lib_libdmesh_core_la_LIBADD = $(DMESH_DL_LIBS) $(HWLOC_LDFLAGS) $(HWLOC_LIBS)

lib_libdmesh_la_SOURCES =
lib_libdmesh_la_LIBADD = lib/libdmesh_core.la
lib_libdmesh_la_LDFLAGS = -version-info $(DMESH_LT_VERSION)

include lib/gpu.mk

# Simulation codes: queries on the whole mesh, Cartesian
# communicators, save and restore.
lib_libdmesh_core_la_SOURCES += lib/mesh_sim.c lib/mesh_cart.c \
	lib/serialize_text.h lib/serialize.c lib/serialize_text.c lib/text.h lib/text.c \
	lib/scan.c lib/scan.h
# The MPI's ULFM calls, or their absence (ulfm.c): the ground floor, under
# error.c and agree.c.
lib_libdmesh_core_la_SOURCES += lib/ulfm.c lib/ulfm.h
# Fault tolerance built on them, in its own folder (lib/ft/; the library
# includes its headers as "ft/<name>.h"): dmesh_revoke, dmesh_get_failed
# (failed.c), dmesh_shrink (shrink.c).
lib_libdmesh_core_la_SOURCES += lib/ft/failed.c lib/ft/failed.h \
	lib/ft/shrink.c lib/ft/shrink.h
# Coming back whole: the parents' side of dmesh_respawn (respawn.c) and of
# dmesh_grow (grow.c), through the spawn they share (spawn.c); dmesh_join,
# the new processes' side (join.c); what both sides do alike
# (join_merge.c); the parents' message (join_message.c); the pure parts,
# the hosts of a respawn (respawn_plan.c) and the grown mesh
# (grow_plan.c); the program they start (program.c) and the bound on the
# merge with the new processes (call_bound.c). MPI_Finalize's bound
# (finalize_bound.c) stays beside finalize.c.
lib_libdmesh_core_la_SOURCES += lib/ft/respawn.c lib/ft/respawn_plan.c lib/ft/respawn_plan.h \
	lib/ft/grow.c lib/ft/grow.h lib/ft/grow_plan.c lib/ft/grow_plan.h \
	lib/ft/spawn.c lib/ft/spawn.h \
	lib/ft/join.c lib/ft/join_merge.c lib/ft/join_merge.h \
	lib/ft/join_message.c lib/ft/join_message.h \
	lib/ft/program.c lib/ft/program.h lib/ft/call_bound.c lib/ft/call_bound.h \
	lib/ft/repair.c \
	lib/finalize_bound.c lib/finalize_bound.h
# Copies in memory: the objects (copies.c), their memory (copies_mem.c),
# store and restore (copies_xfer.c), the schemes (the table copies_scheme.c,
# one file each: copies_partner.c, copies_xor.c), their messages
# (copies_move.c), and their pure parts: placement (copies_place.c) and
# restore (copies_plan.c); copies_device.h declares lib/gpu.mk's
# copies_device.c or copies_device_none.c.
lib_libdmesh_core_la_SOURCES += lib/copies.c lib/copies.h lib/copies_mem.c lib/copies_mem.h \
	lib/copies_xfer.c lib/copies_scheme.c lib/copies_scheme.h lib/copies_partner.c \
	lib/copies_xor.c lib/copies_move.c lib/copies_move.h \
	lib/copies_plan.c lib/copies_plan.h lib/copies_place.c lib/copies_place.h \
	lib/copies_device.h
# Version, build description, MPI identity check.
lib_libdmesh_core_la_SOURCES += lib/version.c lib/version.h

# Test-only fault hooks (configure --enable-fault-injection; lib/fault.h).
if DMESH_FAULT_INJECTION
lib_libdmesh_core_la_SOURCES += lib/fault.c
endif
