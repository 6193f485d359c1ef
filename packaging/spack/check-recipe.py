#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the Spack recipe of dmesh against Spack's documented package API.

Spack is not needed: the recipe is parsed with Python's ast module, never
imported, and each check is a rule of Spack's documentation (cited below) or
a requirement of dmesh's build (dependency versions, configure options).

  check-recipe.py                  check the recipe and repo.yaml
  check-recipe.py --tarball T.gz   also check the recipe's sha256 of release T.gz
  check-recipe.py --self-test      check that mutated recipes are rejected

Exit status 0 when every check passes.

Spack documentation (v1.1) that the rules come from:
  repository layout, repo.yaml:  https://spack.readthedocs.io/en/v1.1.1/repositories.html
  package API v2 imports, class names, directives, versions, url / git:
      https://spack.readthedocs.io/en/v1.1.1/packaging_guide_creation.html
  directives and their signatures:
      https://spack.readthedocs.io/en/v1.1.1/_modules/spack/directives.html
  dependencies, variants, conflicts, build systems:
      https://spack.readthedocs.io/en/v1.1.1/packaging_guide_build.html
      https://spack.readthedocs.io/en/v1.1.1/build_systems/autotoolspackage.html
  stand-alone tests (test_<name> methods with a docstring):
      https://spack.readthedocs.io/en/v1.1.1/packaging_guide_testing.html
"""
import argparse
import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
NAMESPACE = "dmesh"
PACKAGE = "dmesh"
REPO = os.path.join(HERE, "spack_repo", NAMESPACE)

# The directives of spack.directives and the keyword arguments each accepts
# (_modules/spack/directives.html). "positional" is the most positional
# arguments; None means any number (*specs / *names).
_FETCH = {"url", "sha256", "sha384", "sha512", "git", "branch", "tag", "commit", "submodules",
          "expand", "extension", "fetch_options", "get_full_repo", "svn", "hg", "revision"}
DIRECTIVES = {
    "version": (1, {"preferred", "deprecated", "no_cache", "url", "extension", "expand",
                    "fetch_options", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
                    "git", "commit", "tag", "branch", "get_full_repo", "submodules",
                    "submodules_delete", "svn", "hg", "cvs", "revision", "date"}),
    "depends_on": (1, {"when", "type", "patches"}),
    "extends": (1, {"when", "type", "patches"}),
    "conflicts": (1, {"when", "msg"}),
    "requires": (None, {"policy", "when", "msg"}),
    "provides": (None, {"when"}),
    "variant": (1, {"default", "description", "values", "multi", "validator", "when", "sticky"}),
    "patch": (1, {"level", "when", "working_dir", "sha256", "archive_sha256"}),
    "resource": (0, {"when", "destination", "placement"} | _FETCH),
    "license": (1, {"checked_by", "when"}),
    "maintainers": (None, set()),
    "build_system": (None, {"default"}),
    "redistribute": (0, {"source", "binary", "when"}),
    "can_splice": (1, {"when", "match_variants"}),
}
# Context managers usable around directives in a class body.
CONTEXTS = {"when", "default_args"}
# Dependency types (packaging_guide_build.html, "Dependency types").
DEPTYPES = {"build", "link", "run", "test"}

SPEC_NAME = r"[a-z0-9][a-z0-9_-]*"
VERSION_RANGE = r"[A-Za-z0-9_.]*(:[A-Za-z0-9_.]*)?"
TOKEN = re.compile(
    r"\s*(?:(?P<name>{n})|@(?P<ver>{r}(,{r})*)|(?P<bool>[+~]{n})|(?P<kv>{n}==?[A-Za-z0-9_.,:-]+)"
    r"|%(?P<comp>{n}(@{r})?)|\^(?P<dep>{n}))".format(n=SPEC_NAME, r=VERSION_RANGE))


def parse_spec(text):
    """A spec string as documented ("Spec syntax"): name, @versions, +/~variants,
    key=value, %compiler, ^dependency. Returns a dict, or raises ValueError."""
    spec = {"name": None, "versions": [], "on": set(), "off": set(), "kv": {}}
    pos, text = 0, text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError("cannot parse spec %r at %r" % (text, text[pos:]))
        pos = m.end()
        if m.group("name"):
            if spec["name"] or spec["versions"] or spec["on"] or spec["off"]:
                raise ValueError("spec %r: name %r out of place" % (text, m.group("name")))
            spec["name"] = m.group("name")
        elif m.group("ver") is not None:
            if not m.group("ver"):
                raise ValueError("spec %r: empty version" % text)
            spec["versions"].extend(m.group("ver").split(","))
        elif m.group("bool"):
            (spec["on"] if m.group("bool")[0] == "+" else spec["off"]).add(m.group("bool")[1:])
        elif m.group("kv"):
            k, v = m.group("kv").replace("==", "=").split("=", 1)
            spec["kv"][k] = v
    return spec


def vtuple(text):
    return tuple(int(x) if x.isdigit() else x for x in text.split("."))


def lower_bound(spec):
    """The lowest version a spec's @range allows (None: no lower bound)."""
    lows = []
    for r in spec["versions"]:
        low = r.split(":")[0]
        if not low:
            return None
        lows.append(vtuple(low))
    return min(lows) if lows else None


def class_name(pkg):
    """Spack's class name of a package name (packaging_guide_creation.html:
    hyphens and underscores make CamelCase; a leading digit gets an underscore)."""
    name = "".join(p.capitalize() for p in re.split(r"[-_]", pkg))
    return "_" + name if name[:1].isdigit() else name


def literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None


def collect_directives(body, when, out, errors):
    """Calls of directives in a class body, with `with when(...)` contexts merged."""
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            name = call.func.id if isinstance(call.func, ast.Name) else ast.unparse(call.func)
            out.append((name, call, when, stmt.lineno))
        elif isinstance(stmt, ast.With):
            inner = when
            for item in stmt.items:
                ctx = item.context_expr
                cname = ctx.func.id if isinstance(ctx, ast.Call) and isinstance(ctx.func, ast.Name) else None
                if cname not in CONTEXTS:
                    errors.append("line %d: `with %s` is not a directive context (%s)" %
                                  (stmt.lineno, ast.unparse(ctx), ", ".join(sorted(CONTEXTS))))
                elif cname == "when" and ctx.args:
                    inner = " ".join(x for x in (when, literal(ctx.args[0])) if x)
            collect_directives(stmt.body, inner, out, errors)


def configure_known():
    """The --with-X / --enable-X options and variables of ./configure --help."""
    configure = os.path.join(TOP, "configure")
    if not os.access(configure, os.X_OK):
        return None
    run = subprocess.run([configure, "--help"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("spack recipe: FAIL: ./configure --help exited %d" % run.returncode)
    out = run.stdout
    names = set()
    for word in re.findall(r"(?m)^\s+(--[a-z0-9-]+|[A-Z][A-Z0-9_]+)\b", out):
        names.add(word)
    return names


def configure_version():
    with open(os.path.join(TOP, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[[^]]*\],\s*\[([^]]+)\]", f.read())
    return m.group(1) if m else None


def release_tag():
    """The release tag HEAD is at (vX.Y.Z), or None."""
    try:
        out = subprocess.run(["git", "-C", TOP, "describe", "--tags", "--exact-match", "HEAD"],
                             capture_output=True, text=True)
    except OSError:
        return None
    tag = out.stdout.strip()
    return tag if out.returncode == 0 and re.fullmatch(r"v\d+(\.\d+)*", tag) else None


def check_repo_yaml(path, errors):
    """repo.yaml: a `repo:` mapping with namespace (the directory name) and api vX.Y
    (repositories.html). Read without a YAML library: two plain keys."""
    if not os.path.exists(path):
        errors.append("no repo.yaml at %s" % os.path.relpath(path, TOP))
        return
    keys, in_repo = {}, False
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].rstrip()
            if not line:
                continue
            if not line.startswith((" ", "\t")):
                in_repo = line == "repo:"
            elif in_repo and ":" in line:
                k, v = line.strip().split(":", 1)
                keys[k] = v.strip().strip("'\"")
    if keys.get("namespace") != os.path.basename(os.path.dirname(path)):
        errors.append("repo.yaml: repo.namespace %r must be the directory name %r" %
                      (keys.get("namespace"), os.path.basename(os.path.dirname(path))))
    if not re.fullmatch(r"v\d+\.\d+", keys.get("api", "")):
        errors.append("repo.yaml: repo.api must be vMAJOR.MINOR (got %r)" % keys.get("api"))


def check_recipe(source, recipe_path, tarball=None, known=None, at_tag=None, notes=None):
    """All the checks of one recipe text. Returns the list of errors."""
    errors = []
    notes = notes if notes is not None else []
    parts = os.path.normpath(recipe_path).split(os.sep)
    # Layout: spack_repo/<namespace>/packages/<name>/package.py (repositories.html).
    if parts[-5:-2] != ["spack_repo", NAMESPACE, "packages"] or parts[-1] != "package.py":
        errors.append("recipe not at spack_repo/%s/packages/<name>/package.py" % NAMESPACE)
    pkg = parts[-2]
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return ["package.py: %s" % e]

    # Imports: package API v2 allows spack.package and the build systems of
    # spack_repo.builtin.build_systems (packaging_guide_creation.html).
    base_classes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in ("spack", "spack_repo", "llnl"):
                    errors.append("line %d: `import %s`: only `from spack.package import *` and "
                                  "spack_repo.builtin.build_systems are the package API" % (node.lineno, a.name))
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod == "spack.package":
                continue
            if mod.startswith("spack_repo.builtin.build_systems."):
                base_classes.update(a.asname or a.name for a in node.names)
                continue
            if mod.split(".")[0] in ("spack", "spack_repo", "llnl"):
                errors.append("line %d: `from %s import`: not the package API" % (node.lineno, mod))
    if not any(isinstance(n, ast.ImportFrom) and n.module == "spack.package" for n in tree.body):
        errors.append("no `from spack.package import *`")

    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    want = class_name(pkg)
    cls = next((c for c in classes if c.name == want), None)
    if cls is None:
        return errors + ["no class %s (the class name of package %r)" % (want, pkg)]
    bases = [ast.unparse(b) for b in cls.bases]
    if not any(b in base_classes for b in bases):
        errors.append("class %s(%s): base not imported from spack_repo.builtin.build_systems" %
                      (want, ", ".join(bases)))
    attrs = {}
    methods = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    attrs[t.id] = literal(stmt.value)
        elif isinstance(stmt, ast.FunctionDef):
            methods[stmt.name] = stmt

    calls = []
    collect_directives(cls.body, None, calls, errors)
    versions, variants, deps, have = {}, {}, [], set()
    for name, call, ctx_when, line in calls:
        where = "line %d: %s(...)" % (line, name)
        if name not in DIRECTIVES:
            errors.append("%s: not a Spack directive" % where)
            continue
        have.add(name)
        npos, kws = DIRECTIVES[name]
        if npos is not None and len(call.args) > npos:
            errors.append("%s: %d positional arguments, the directive takes %d" % (where, len(call.args), npos))
        kw = {}
        for k in call.keywords:
            if k.arg is None or k.arg not in kws:
                errors.append("%s: keyword %r is not a documented argument" % (where, k.arg))
            else:
                kw[k.arg] = literal(k.value)
        args = [literal(a) for a in call.args]
        when = " ".join(x for x in (ctx_when, kw.get("when")) if isinstance(x, str) and x) or None
        if name == "version":
            versions[args[0]] = (kw, line)
        elif name == "variant":
            variants[args[0]] = kw
            if "default" not in kw or "description" not in kw:
                errors.append("%s: a variant needs default= and description=" % where)
        elif name == "depends_on":
            deps.append((args[0], when, kw, line))
        elif name == "maintainers":
            if not args or not all(isinstance(a, str) and a for a in args):
                errors.append("%s: maintainers are GitHub user names (strings)" % where)
        elif name == "license":
            if not isinstance(args[0] if args else None, str):
                errors.append("%s: an SPDX identifier" % where)
        for key in ("when",) + ((0,) if name in ("depends_on", "conflicts", "provides") else ()):
            text = args[0] if key == 0 else kw.get(key)
            if key in kw or key == 0:
                try:
                    parse_spec(text if isinstance(text, str) else "")
                except ValueError as e:
                    errors.append("%s: %s" % (where, e))

    for required in ("maintainers", "license", "version"):
        if required not in have:
            errors.append("no %s(...) directive" % required)
    if "homepage" not in attrs:
        errors.append("no homepage")

    # Versions (packaging_guide_creation.html, "Versions and fetching"):
    # a branch needs the class's git=; a release a sha256 and a url= (class
    # attribute, version keyword or url_for_version).
    releases = []
    for v, (kw, line) in versions.items():
        if not isinstance(v, str):
            errors.append("line %d: version %r must be a string" % (line, v))
        elif "branch" in kw:
            if not attrs.get("git") and not kw.get("git"):
                errors.append("line %d: version %r has branch= but the package has no git" % (line, v))
        elif "tag" in kw or "commit" in kw:
            pass
        else:
            sha = kw.get("sha256")
            if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
                errors.append("line %d: release %r needs sha256= (64 lowercase hex digits)" % (line, v))
            if not attrs.get("url") and "url" not in kw and "url_for_version" not in methods:
                errors.append("line %d: release %r has no url (class url, url= or url_for_version)" % (line, v))
            if re.fullmatch(r"\d+(\.\d+)*", v):
                releases.append(v)
            else:
                errors.append("line %d: release version %r is not numeric" % (line, v))
    if "main" not in versions or "branch" not in versions["main"][0]:
        errors.append('no version("main", branch=...)')

    # Releases against configure.ac: none newer than this tree; at a release
    # tag, that release must be listed.
    ac_version = configure_version()
    newer = [r for r in releases if ac_version and vtuple(r) > vtuple(ac_version)]
    if newer:
        errors.append("release(s) %s newer than configure.ac's %s" % (", ".join(newer), ac_version))
    if at_tag and at_tag[1:] not in releases:
        errors.append("HEAD is release tag %s but the recipe has no version(%r, sha256=...)" %
                      (at_tag, at_tag[1:]))
    elif not releases:
        notes.append("no release versions (none published; %s is configure.ac's)" % ac_version)
    if tarball:
        base = os.path.basename(tarball)
        m = re.fullmatch(r"dmesh-(.+)\.tar\.gz", base)
        with open(tarball, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if not m or m.group(1) not in versions:
            errors.append("%s: the recipe has no version for it" % base)
        elif versions[m.group(1)][0].get("sha256") != digest:
            errors.append("%s: sha256 %s, the recipe says %s" %
                          (base, digest, versions[m.group(1)][0].get("sha256")))

    # Dependencies (packaging_guide_build.html): what dmesh's build needs.
    def dep_list(name):
        out = []
        for text, when, kw, line in deps:
            try:
                spec = parse_spec(text)
                wspec = parse_spec(when) if when else None
            except ValueError:
                continue  # reported above
            if spec["name"] == name:
                out.append((spec, wspec, kw, line))
        return out

    def need(name, minimum=None, variant=None):
        found = dep_list(name)
        what = "depends_on(%r%s)" % (name + ("@%s:" % minimum if minimum else ""),
                                     ", when='+%s'" % variant if variant else "")
        if not found:
            errors.append("missing " + what)
        for spec, wspec, kw, line in found:
            if variant and (wspec is None or variant not in wspec["on"]):
                errors.append("line %d: %s must be conditional on +%s" % (line, name, variant))
            if variant is None and wspec is not None:
                errors.append("line %d: %s must not be conditional" % (line, name))
            low = lower_bound(spec)
            if minimum and (low is None or low < vtuple(minimum)):
                errors.append("line %d: %s must be %s@%s: or newer (got %r)" %
                              (line, name, name, minimum, name + ("@" + ",".join(spec["versions"]) if spec["versions"] else "")))

    need("mpi", "3")
    need("hwloc", "2.1", "hwloc")
    need("nccl", "2.18", "nccl")
    need("cuda", None, "cuda")
    # A release tarball ships configure: autotools only for the git version(s).
    git_versions = {v for v, (kw, _) in versions.items() if "branch" in kw or "tag" in kw or "commit" in kw}
    for tool in ("autoconf", "automake", "libtool"):
        found = dep_list(tool)
        if git_versions and not found:
            errors.append("missing depends_on(%r, type='build', when='@main'): git checkouts need autoreconf" % tool)
        for spec, wspec, kw, line in found:
            vs = set(wspec["versions"]) if wspec else set()
            if not vs or not vs <= git_versions:
                errors.append("line %d: %s must be needed only by the git versions (when='@main'), "
                              "not by release tarballs" % (line, tool))
            if kw.get("type") not in ("build", ("build",), ["build"]):
                errors.append("line %d: %s is a build dependency (type='build')" % (line, tool))
    for text, when, kw, line in deps:
        t = kw.get("type")
        ts = [t] if isinstance(t, str) else list(t or [])
        if any(x not in DEPTYPES for x in ts):
            errors.append("line %d: dependency type %r is not one of %s" % (line, t, sorted(DEPTYPES)))
        if when:
            try:
                w = parse_spec(when)
            except ValueError:
                continue
            for v in w["on"] | w["off"]:
                if v not in variants:
                    errors.append("line %d: when=%r names undeclared variant %r" % (line, when, v))
            for r in w["versions"]:
                if ":" not in r and r not in versions:
                    errors.append("line %d: when=%r names undeclared version %r" % (line, when, r))

    # Stand-alone tests: methods test_<name> with a docstring (packaging_guide_testing.html).
    tests = [m for n, m in methods.items() if n.startswith("test_")]
    if not tests:
        errors.append("no stand-alone test (a test_<name>(self) method)")
    for m in tests:
        if not ast.get_docstring(m):
            errors.append("line %d: %s needs a docstring (the test's description)" % (m.lineno, m.name))
        if [a.arg for a in m.args.args] != ["self"]:
            errors.append("line %d: %s takes only self" % (m.lineno, m.name))

    # The sources a test builds must be installed examples (examples/local.mk).
    installed = set()
    try:
        with open(os.path.join(TOP, "examples", "local.mk")) as f:
            mk = f.read().replace("\\\n", " ")
        for m in re.finditer(r"(?m)^\w*example_DATA\s*\+?=(.*)$", mk):
            installed.update(os.path.basename(w) for w in m.group(1).split())
    except OSError:
        pass
    for m in tests:
        for node in ast.walk(m):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    re.fullmatch(r"[\w.-]+\.(c|f90)", node.value) and node.value not in installed:
                errors.append("line %d: %s builds %s, which is not an installed example" %
                              (node.lineno, m.name, node.value))

    # configure_args: the flags it names must be ones ./configure knows.
    if "configure_args" not in methods:
        errors.append("no configure_args")
    else:
        flags = set()
        for node in ast.walk(methods["configure_args"]):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                m = re.match(r"(--[a-z0-9-]+|[A-Z][A-Z0-9_]+)(=|\{|$)", node.value)
                if m:
                    flags.add(m.group(1))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("with_or_without", "enable_or_disable"):
                arg = literal(node.args[0]) if node.args else None
                names = [arg] if isinstance(arg, str) else []
                if not names and isinstance(node.args[0], ast.Name):
                    # for dep in ("a", "b"): self.with_or_without(dep)
                    for loop in ast.walk(methods["configure_args"]):
                        if isinstance(loop, ast.For) and ast.unparse(loop.target) == node.args[0].id:
                            names = [x for x in (literal(loop.iter) or []) if isinstance(x, str)]
                for n in names:
                    if n not in variants:
                        errors.append("configure_args: %s(%r): no such variant" % (node.func.attr, n))
                    flags.add("--%s-%s" % ("with" if node.func.attr == "with_or_without" else "enable", n))
        if known is not None:
            for flag in sorted(flags):
                if flag not in known:
                    errors.append("configure_args: ./configure --help does not list %s" % flag)
        else:
            notes.append("no ./configure: configure_args' flags %s not checked" % " ".join(sorted(flags)))
    return errors


MUTATIONS = [
    # (what, old text, new text, an expected fragment of an error)
    ("hwloc without its version range", 'depends_on("hwloc@2.1:"', 'depends_on("hwloc"', "hwloc@2.1:"),
    ("hwloc range too old", 'depends_on("hwloc@2.1:"', 'depends_on("hwloc@2.0:"', "hwloc@2.1:"),
    ("nccl range dropped", 'depends_on("nccl@2.18:"', 'depends_on("nccl"', "nccl@2.18:"),
    ("mpi without @3:", 'depends_on("mpi@3:")', 'depends_on("mpi")', "mpi@3:"),
    ("hwloc unconditional", 'depends_on("hwloc@2.1:", when="+hwloc")', 'depends_on("hwloc@2.1:")',
     "conditional on +hwloc"),
    ("autoconf for every version", 'depends_on("autoconf", type="build", when="@main")',
     'depends_on("autoconf", type="build")', "autoconf must be needed only by the git"),
    ("libtool dropped", '    depends_on("libtool", type="build", when="@main")\n', "", "missing depends_on('libtool'"),
    ("a release with a bad sha256", 'version("main", branch="main")',
     'version("main", branch="main")\n    version("0.1.0", sha256="0123abc")', "needs sha256="),
    ("a release newer than configure.ac", 'version("main", branch="main")',
     'version("main", branch="main")\n    version("99.0.0", sha256="%s")' % ("a" * 64), "newer than configure.ac"),
    ("an undocumented directive", 'license("BSD-3-Clause")', 'license("BSD-3-Clause")\n    depends("mpi")',
     "not a Spack directive"),
    ("an undocumented keyword", 'depends_on("check", type="test")', 'depends_on("check", type="test", optional=True)',
     "not a documented argument"),
    ("a bad dependency type", 'depends_on("check", type="test")', 'depends_on("check", type="tests")',
     "dependency type"),
    ("no maintainers", 'maintainers(', '# maintainers(', "no maintainers"),
    ("a test of an example that is not installed", '"hello_mesh.c"', '"hello_mesh2.c"', "not an installed example"),
    ("no stand-alone test", "def test_hello_mesh(self):", "def hello_mesh(self):", "no stand-alone test"),
    ("class name not the package's", "class Dmesh(", "class DMesh(", "no class Dmesh"),
    ("the old import path", "from spack_repo.builtin.build_systems.autotools import AutotoolsPackage",
     "from spack.build_systems.autotools import AutotoolsPackage", "not the package API"),
    ("a configure flag configure does not know", '"MPICC={0}"', '"--with-mpi-cc={0}"', "does not list --with-mpi-cc"),
    ("a with_or_without of no variant", 'for dep in ("cuda", "nccl", "hwloc")', 'for dep in ("cuda", "nccl", "hwlocx")',
     "no such variant"),
    ("a when= naming no variant", 'when="+nccl")\n', 'when="+nccl2")\n', "undeclared variant"),
    ("an unparsable spec", 'depends_on("mpi@3:")', 'depends_on("mpi@@3:")', "spec 'mpi@@3:'"),
    ("a spec with stray characters", 'when="+hwloc")', 'when="+hwloc!")', "cannot parse spec"),
]


def self_test(source, recipe_path, known):
    """Each mutation of the recipe must be rejected with the expected error;
    release-line.sh's line for a tarball must pass --tarball, a wrong one fail."""
    failures = 0
    if known is None:
        # The configure-flag mutation needs ./configure --help: use its known options.
        known = {"--with-cuda", "--with-nccl", "--with-hwloc", "--enable-fortran", "MPICC", "MPIFC", "MPIEXEC"}
    base = check_recipe(source, recipe_path, known=known)
    if base:
        print("spack recipe self-test: FAIL: the recipe itself: %s" % base)
        return 1
    for what, old, new, expect in MUTATIONS:
        if old not in source:
            print("spack recipe self-test: FAIL: %s: %r not in the recipe" % (what, old))
            failures += 1
            continue
        errs = check_recipe(source.replace(old, new, 1), recipe_path, known=known)
        if not any(expect in e for e in errs):
            print("spack recipe self-test: FAIL: %s not caught (errors: %s)" % (what, errs))
            failures += 1
    # The release path: a make-dist-shaped tarball of configure.ac's version.
    version = configure_version()
    tmp = tempfile.mkdtemp()
    try:
        root = os.path.join(tmp, "dmesh-%s" % version)
        os.makedirs(root)
        with open(os.path.join(root, "configure"), "w") as f:
            f.write("#!/bin/sh\n")
        tarball = os.path.join(tmp, "dmesh-%s.tar.gz" % version)
        subprocess.run(["tar", "-czf", tarball, "-C", tmp, "dmesh-%s" % version], check=True)
        line = subprocess.run([os.path.join(HERE, "release-line.sh"), tarball], capture_output=True,
                              text=True, check=True).stdout.rstrip("\n")
        anchor = '    version("main", branch="main")'
        released = source.replace(anchor, anchor + "\n" + line, 1)
        errs = check_recipe(released, recipe_path, tarball=tarball, known=known, at_tag="v" + version)
        if errs:
            print("spack recipe self-test: FAIL: release-line.sh's line rejected: %s" % errs)
            failures += 1
        wrong = released.replace(line.split('sha256="')[1][:8], "00000000", 1)
        if not any("sha256" in e for e in check_recipe(wrong, recipe_path, tarball=tarball, known=known)):
            print("spack recipe self-test: FAIL: a sha256 that is not the tarball's not caught")
            failures += 1
        if not any("no version(" in e for e in check_recipe(source, recipe_path, known=known, at_tag="v" + version)):
            print("spack recipe self-test: FAIL: a release tag without its release line not caught")
            failures += 1
    finally:
        shutil.rmtree(tmp)
    total = len(MUTATIONS) + 3
    print("spack recipe self-test: %d of %d mutations rejected" % (total - failures, total))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tarball", help="a release tarball dmesh-X.Y.Z.tar.gz whose sha256 the recipe must carry")
    ap.add_argument("--self-test", action="store_true", help="check that mutated recipes fail")
    opts = ap.parse_args()
    recipe = os.path.join(REPO, "packages", PACKAGE, "package.py")
    with open(recipe) as f:
        source = f.read()
    known = configure_known()
    if opts.self_test:
        return self_test(source, recipe, known)
    notes = []
    tag = release_tag()
    errors = check_recipe(source, recipe, tarball=opts.tarball, known=known, at_tag=tag, notes=notes)
    check_repo_yaml(os.path.join(REPO, "repo.yaml"), errors)
    for e in errors:
        print("spack recipe: FAIL:", e)
    for n in notes:
        print("spack recipe: note:", n)
    print("spack recipe: %s, %d failures" % (os.path.relpath(recipe, TOP), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
