# SPDX-License-Identifier: BSD-3-Clause
# test/launch.mk: the launch check. A program of N tasks whose MPI and
# launcher do not talk runs as N singletons; the first creation call says
# so (test_version checks the pure part).
TESTS += test/launch-check.sh
EXTRA_DIST += test/launch-check.sh
# A real Slurm for CI (.ci/run, stage slurm): one node, and one slurmd per
# network-namespace host.
EXTRA_DIST += test/slurm/one-node.sh test/slurm/run.sh test/slurm/lib.sh \
	test/slurm/hosts.sh test/slurm/across.sh test/slurm/node-loss.sh
# Debian 13 (Open MPI 5, MPICH 4.2) in a chroot, for CI (.ci/run, stages
# debian13).
EXTRA_DIST += test/trixie/run.sh test/trixie/inside.sh test/trixie/respawn-counts.sh \
	test/trixie/launcher-hang.sh \
	test/trixie/merge-dead-peer.c test/trixie/spawn-kill.c test/trixie/grow-kill.c \
	test/trixie/agree-threads.c test/trixie/threads-traffic.c
# Network-namespace hosts on one machine, for CI (.ci/run, stage hosts).
EXTRA_DIST += test/hosts/hosts.sh test/hosts/run.sh test/hosts/host-loss.sh test/hosts/host-loss-mpi.sh \
	test/hosts/host_loss_mpi.c test/hosts/copies-host-loss.sh test/hosts/copies_hosts.c \
	test/hosts/chroot-hosts.sh test/hosts/recover-time.sh
