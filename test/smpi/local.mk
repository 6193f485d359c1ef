# SPDX-License-Identifier: BSD-3-Clause
# test/smpi/local.mk: make check-smpi, the mesh operations at 1,024 and
# 4,096 simulated ranks under SimGrid's SMPI (./configure --with-smpi), on
# clusters of 8-core hosts with block and cyclic placement
# (test/smpi/platform.sh writes the platforms, test/smpi/check-smpi.sh runs
# test/smpi/mesh_scale). SMPI_RANKS and SMPI_PLACEMENTS choose the runs.
# Then the node-aware meshes (test/smpi/locality, run by check-locality.sh)
# at SMPI_LOCALITY_RANKS, on block, cyclic and uneven placements; then what
# finding the nodes costs (test/smpi/node_scale) at SMPI_NODE_RANKS, block
# and cyclic, with SMPI's allgather taken as Bruck's and its allreduce as
# recursive doubling (its defaults are linear, the allgather's n^2
# messages: neither MPI's choice at scale).
EXTRA_DIST += test/smpi/platform.sh test/smpi/check-smpi.sh test/smpi/mesh_scale.c \
	test/smpi/check-locality.sh test/smpi/locality.c test/smpi/node_scale.c
SMPI_RANKS = 1024 4096
SMPI_PLACEMENTS = block cyclic
SMPI_LOCALITY_RANKS = 64
SMPI_NODE_RANKS = 1024
if DMESH_SMPI
check_PROGRAMS += test/smpi/mesh_scale test/smpi/locality test/smpi/node_scale
test_smpi_node_scale_SOURCES = test/smpi/node_scale.c
test_smpi_node_scale_CPPFLAGS = $(AM_CPPFLAGS) -DNODE_SCALE_EXSCAN
test_smpi_node_scale_LDADD = lib/libdmesh.la
test_smpi_mesh_scale_SOURCES = test/smpi/mesh_scale.c
test_smpi_mesh_scale_LDADD = lib/libdmesh.la
test_smpi_locality_SOURCES = test/smpi/locality.c
test_smpi_locality_LDADD = lib/libdmesh.la
check-smpi: test/smpi/mesh_scale test/smpi/locality test/smpi/node_scale
	$(SHELL) $(srcdir)/test/smpi/check-smpi.sh $(srcdir)/test/smpi test/smpi/mesh_scale \
		'$(MPIEXEC)' '$(SMPI_RANKS)' '$(SMPI_PLACEMENTS)'
	$(SHELL) $(srcdir)/test/smpi/check-locality.sh $(srcdir)/test/smpi test/smpi/locality \
		'$(MPIEXEC)' '$(SMPI_LOCALITY_RANKS)'
	$(SHELL) $(srcdir)/test/smpi/check-smpi.sh $(srcdir)/test/smpi test/smpi/node_scale \
		'$(MPIEXEC)' '$(SMPI_NODE_RANKS)' '$(SMPI_PLACEMENTS)' --cfg=smpi/allgather:bruck \
		--cfg=smpi/allreduce:rdb
else
check-smpi:
	@echo "make check-smpi needs a build configured with --with-smpi (SimGrid's SMPI)" >&2; exit 1
endif
.PHONY: check-smpi
