# SPDX-License-Identifier: BSD-3-Clause
# Spack recipe of dmesh, in a Spack v1 package repository (package API v2.0).
# Use it from a dmesh checkout:
#   spack repo add packaging/spack/spack_repo/dmesh
#   spack install dmesh ^openmpi          (or ^mpich; +cuda +nccl; ~hwloc; ~fortran)
#   spack test run dmesh
# packaging/spack/check-recipe.py checks it against Spack's documented
# package API without Spack.
#
# Releases: a release adds one line, printed by
#   packaging/spack/release-line.sh dmesh-X.Y.Z.tar.gz
# for the tarball of `make dist` that is published as the release (the
# recipe is not in that tarball, so the line can name its sha256).
# No release has been published yet (NEWS: 0.1.0 unreleased): until then
# only the git version "main" can be installed.

from spack_repo.builtin.build_systems.autotools import AutotoolsPackage

from spack.package import *


class Dmesh(AutotoolsPackage):
    """n-dimensional device meshes over MPI communicators: named dimensions of
    ranks (and GPUs) with one MPI communicator per dimension, slicing,
    flattening and communicators cached by layout; the MPI-native counterpart
    of PyTorch's DeviceMesh, for C and Fortran codes."""

    homepage = "https://github.com/dmesh/dmesh"
    url = "https://github.com/dmesh/dmesh/releases/download/v0.1.0/dmesh-0.1.0.tar.gz"
    git = "https://github.com/dmesh/dmesh.git"

    maintainers("dmesh")

    license("BSD-3-Clause")

    version("main", branch="main")
    # Release lines (newest first) go here, from release-line.sh.

    variant("hwloc", default=True, description="GPU binding from hwloc locality")
    variant("cuda", default=False, description="CUDA device meshes (device_type cuda)")
    variant("nccl", default=False, description="NCCL communicators paired with the MPI ones")
    variant("fortran", default=True, description="Fortran modules dmesh and dmesh_f08")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    # A release tarball ships configure; a git checkout needs autoreconf.
    depends_on("autoconf", type="build", when="@main")
    depends_on("automake", type="build", when="@main")
    depends_on("libtool", type="build", when="@main")
    depends_on("m4", type="build", when="@main")
    depends_on("pkgconfig", type="build")
    depends_on("check", type="test")

    # MPI_Comm_split_type (node communicators) is MPI 3.
    depends_on("mpi@3:")
    # hwloc_topology_set_components is new in hwloc 2.1.
    depends_on("hwloc@2.1:", when="+hwloc")
    depends_on("cuda", when="+cuda")
    # ncclCommSplit is new in NCCL 2.18.
    depends_on("nccl@2.18:", when="+nccl")

    conflicts("+nccl", when="~cuda", msg="NCCL communicators need CUDA (+cuda)")

    def configure_args(self):
        spec = self.spec
        mpi = spec["mpi"]
        # The MPI wrappers of the chosen MPI, never whatever is first on PATH.
        args = ["MPICC={0}".format(mpi.mpicc), "MPIEXEC={0}".format(join_path(mpi.prefix.bin, "mpiexec"))]
        if spec.satisfies("+fortran"):
            args.append("MPIFC={0}".format(mpi.mpifc))
        args.extend(self.enable_or_disable("fortran"))
        # Explicit --with-X=PREFIX / --without-X: configure never probes.
        for dep in ("cuda", "nccl", "hwloc"):
            args.extend(self.with_or_without(dep, activation_value="prefix"))
        return args

    def test_hello_mesh(self):
        """build the installed hello_mesh example with the MPI compiler, run it on 2 ranks"""
        examples = join_path(self.prefix.share.doc, "dmesh", "examples")
        mpi = self.spec["mpi"]
        mpicc = Executable(mpi.mpicc)
        mpiexec = Executable(join_path(mpi.prefix.bin, "mpiexec"))
        mpicc(
            join_path(examples, "hello_mesh.c"),
            "-I{0}".format(self.prefix.include),
            "-L{0}".format(self.prefix.lib),
            "-Wl,-rpath,{0}".format(self.prefix.lib),
            "-ldmesh",
            "-o",
            "hello_mesh",
        )
        # hello_mesh exits 1 (a failed test) when the allreduce over its tp
        # communicator gives a wrong sum; each rank prints its coordinate.
        out = mpiexec("-n", "2", "./hello_mesh", output=str, error=str)
        for rank in (0, 1):
            assert "rank {0}: (dp, pp, tp)".format(rank) in out, "rank {0} missing".format(rank)
