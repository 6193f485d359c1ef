#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the Spack recipe of dmesh without Spack.

Imports packaging/spack/packages/dmesh/package.py against a minimal stub of
the Spack API (the directives record what they are given; the build-system
helpers behave as Spack's), then for every combination of the variants that
the recipe's conflicts allow, checks the configure arguments it produces:
the MPI wrappers of the chosen MPI, and one explicit --with/--without or
--enable/--disable flag per variant. When ./configure exists, every flag
must be one configure knows. Exit status 0 when all checks pass.
"""
import importlib.util
import itertools
import os
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
RECIPE = os.path.join(HERE, "packages", "dmesh", "package.py")

directives = []  # (name, args, kwargs) in the order of the class body


def directive(name):
    def record(*args, **kwargs):
        directives.append((name, args, kwargs))

    return record


class Prefix(str):
    """A prefix path; attributes name subdirectories, as Spack's Prefix."""

    def __getattr__(self, name):
        return Prefix(os.path.join(self, name))


class Dep:
    def __init__(self, name):
        self.name = name
        self.prefix = Prefix("/opt/" + name)
        self.mpicc = os.path.join(self.prefix, "bin", "mpicc")
        self.mpifc = os.path.join(self.prefix, "bin", "mpif90")


class Spec:
    """Enough of a concrete spec: variants, "+x" / "~x" tests, spec[dep]."""

    def __init__(self, variants):
        self.variants = dict(variants)

    def _holds(self, text):
        for part in text.replace("~", " ~").replace("+", " +").split():
            name, want = part[1:], part[0] == "+"
            if self.variants[name] != want:
                return False
        return True

    def satisfies(self, text):
        return self._holds(text)

    def __contains__(self, text):
        return self._holds(text)

    def __getitem__(self, name):
        if name not in ("mpi", "cuda", "nccl", "hwloc"):
            raise KeyError(name)
        if name != "mpi" and not self.variants[name]:
            raise KeyError(name + " is not a dependency of this spec")
        return Dep(name)


class AutotoolsPackage:
    def __init__(self, spec):
        self.spec = spec

    def enable_or_disable(self, name, activation_value=None):
        return ["--{0}-{1}".format("enable" if self.spec.variants[name] else "disable", name)]

    def with_or_without(self, name, activation_value=None):
        if not self.spec.variants[name]:
            return ["--without-" + name]
        if activation_value == "prefix":
            return ["--with-{0}={1}".format(name, self.spec[name].prefix)]
        if callable(activation_value):
            return ["--with-{0}={1}".format(name, activation_value(name))]
        return ["--with-" + name]


def load_recipe():
    api = types.ModuleType("spack.package")
    for name in ("version", "variant", "depends_on", "conflicts", "license", "maintainers",
                 "patch", "provides", "requires"):
        setattr(api, name, directive(name))
    api.AutotoolsPackage = AutotoolsPackage
    api.join_path = os.path.join
    api.autoreconf = lambda *args: None
    api.__all__ = [n for n in dir(api) if not n.startswith("_")]
    spack = types.ModuleType("spack")
    spack.package = api
    sys.modules["spack"] = spack
    sys.modules["spack.package"] = api
    loader = importlib.util.spec_from_file_location("dmesh_recipe", RECIPE)
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return module.Dmesh


def configure_flags():
    """The --with/--enable/VAR names that ./configure --help lists (None without configure)."""
    configure = os.path.join(TOP, "configure")
    if not os.access(configure, os.X_OK):
        return None
    out = subprocess.run([configure, "--help"], capture_output=True, text=True, check=True).stdout
    names = set()
    for word in out.split():
        word = word.split("[")[0].split("=")[0]
        if word.startswith("--"):
            names.add(word)
        elif word.isupper():
            names.add(word)
    return names


def expected_args(v):
    mpi = Dep("mpi")
    args = ["MPICC=" + mpi.mpicc, "MPIEXEC=" + os.path.join(mpi.prefix, "bin", "mpiexec")]
    if v["fortran"]:
        args.append("MPIFC=" + mpi.mpifc)
    args.append("--enable-fortran" if v["fortran"] else "--disable-fortran")
    for dep in ("cuda", "nccl", "hwloc"):
        args.append("--with-{0}=/opt/{0}".format(dep) if v[dep] else "--without-" + dep)
    return args


def main():
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    Dmesh = load_recipe()
    variants = {a[0]: k.get("default") for n, a, k in directives if n == "variant"}
    deps = [(a[0], k.get("when")) for n, a, k in directives if n == "depends_on"]
    conflicts = [(a[0], k.get("when")) for n, a, k in directives if n == "conflicts"]
    check(set(variants) == {"cuda", "nccl", "hwloc", "fortran"}, "variants: %s" % sorted(variants))
    check(variants.get("hwloc") is True, "+hwloc must be the default")
    check(("mpi", None) in deps, "depends_on('mpi') without condition")
    for dep in ("cuda", "nccl", "hwloc"):
        check((dep, "+" + dep) in deps, "depends_on(%r, when='+%s')" % (dep, dep))
    check(any(n == "license" and a == ("BSD-3-Clause",) for n, a, k in directives), "license")
    known = configure_flags()

    combos = 0
    for values in itertools.product([False, True], repeat=4):
        v = dict(zip(("cuda", "nccl", "hwloc", "fortran"), values))
        spec = Spec(v)
        if any(spec.satisfies(c) and (w is None or spec.satisfies(w)) for c, w in conflicts):
            check(v["nccl"] and not v["cuda"], "unexpected conflict for %s" % v)
            continue
        check(not (v["nccl"] and not v["cuda"]), "+nccl ~cuda must conflict")
        combos += 1
        args = Dmesh(spec).configure_args()
        want = expected_args(v)
        check(args == want, "%s:\n  got  %s\n  want %s" % (v, args, want))
        for arg in args:
            # configure --help lists --with-X and --enable-X; their negations are implied.
            flag = arg.split("=")[0].replace("--without-", "--with-").replace("--disable-", "--enable-")
            check(known is None or flag in known, "configure does not know %s" % flag)
    check(combos == 12, "%d variant combinations checked, expected 12" % combos)
    for f in failures:
        print("spack recipe: FAIL:", f)
    print("spack recipe: %d variant combinations, %d failures%s" %
          (combos, len(failures), "" if known else " (no ./configure: flags not checked)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
