# SPDX-License-Identifier: BSD-3-Clause
# Spack recipe of dmesh. Use it from a dmesh checkout with
#   spack repo add packaging/spack
#   spack install dmesh +fortran ^openmpi        (or ^mpich, +cuda +nccl, ~hwloc)
# packaging/spack/check-recipe.py checks it against a stub of the Spack API.

from spack.package import *


class Dmesh(AutotoolsPackage):
    """n-dimensional device meshes over MPI communicators: named dimensions of
    ranks (and GPUs) with one MPI communicator per dimension, slicing,
    flattening and communicators cached by layout; the MPI-native counterpart
    of PyTorch's DeviceMesh, for C and Fortran codes."""

    homepage = "https://github.com/dmesh/dmesh"
    git = "https://github.com/dmesh/dmesh.git"

    license("BSD-3-Clause")

    version("main", branch="main")

    variant("hwloc", default=True, description="GPU binding from hwloc locality")
    variant("cuda", default=False, description="CUDA device meshes (device_type cuda)")
    variant("nccl", default=False, description="NCCL communicators paired with the MPI ones")
    variant("fortran", default=True, description="Fortran modules dmesh and dmesh_f08")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("check", type="test")

    depends_on("mpi")
    depends_on("hwloc", when="+hwloc")
    depends_on("cuda", when="+cuda")
    depends_on("nccl", when="+nccl")

    conflicts("+nccl", when="~cuda", msg="NCCL communicators need CUDA (+cuda)")

    def autoreconf(self, spec, prefix):
        autoreconf("-fi")

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
