#!/usr/bin/env python3
"""Checks the Dockerfile where no Docker engine runs: it parses, and what it relies on is true.

  check_dockerfile.py SOURCE_DIR

- every instruction is known, continuations join, CMD is a JSON array, every RUN is valid sh;
- two stages from debian:bookworm; the runtime stage copies the .deb from the build stage, from the
  folder the build stage's scripts/package.sh writes it to;
- the scripts a RUN calls exist, and the install-deps.sh steps it names are steps that script knows;
- the runtime stage installs no compiler, no -dev package and no Chromium, and calls no build script;
- .dockerignore keeps every file the build stage needs in the build context.
"""
import fnmatch
import json
import os
import re
import subprocess
import sys

KNOWN = {"FROM", "RUN", "COPY", "ADD", "ARG", "ENV", "WORKDIR", "CMD", "ENTRYPOINT", "LABEL", "USER", "EXPOSE",
         "VOLUME", "SHELL", "HEALTHCHECK", "STOPSIGNAL", "ONBUILD"}
NEEDED_IN_CONTEXT = ["CMakeLists.txt", "CMakePresets.json", "cmake/install.cmake", "cmake/cpack.cmake",
                     "cmake/pecheckConfig.cmake.in", "src/CMakeLists.txt", "include/pecheck/core/vocabulary.h",
                     "properties/registry.cpp", "adapters/c/pecheck_plugin.h", "adapters/python/pecheck_subject.py",
                     "python/pecheck/__init__.py", "scripts/install-deps.sh", "scripts/package.sh"]
RUNTIME_FORBIDDEN = ("build-essential", "g++", "gcc", "clang", "cmake", "ninja-build", "-dev", "chromium")
problems = []


def problem(text):
    problems.append(text)
    print("FAIL", text)


def instructions(text):
    """(line number, KEYWORD, arguments) with continuations joined and comments dropped."""
    joined, start, out = "", None, []
    for number, line in enumerate(text.splitlines(), 1):
        if not joined and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if joined and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        start = start or number
        if line.rstrip().endswith("\\"):
            joined += line.rstrip()[:-1] + " "
            continue
        joined += line
        keyword, _, arguments = joined.strip().partition(" ")
        out.append((start, keyword.upper(), arguments.strip()))
        joined, start = "", None
    if joined:
        problem("the Dockerfile ends inside a continued line")
    return out


def install_steps(source):
    script = open(os.path.join(source, "scripts", "install-deps.sh")).read()
    return set(re.findall(r"^\s+([a-z]+)\)", script, re.MULTILINE))


def ignored(path, patterns):
    """Docker's rule: the last matching pattern wins; '!' re-includes."""
    result = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern[1:] if negate else pattern
        pattern = pattern.rstrip("/").lstrip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        if any(fnmatch.fnmatchcase(p, pattern) or fnmatch.fnmatchcase(p, pattern.replace("**/", "")) for p in prefixes):
            result = not negate
    return result


def main(source):
    dockerfile = os.path.join(source, "Dockerfile")
    steps = install_steps(source)
    stages, stage = [], None
    for number, keyword, arguments in instructions(open(dockerfile).read()):
        where = f"Dockerfile:{number}"
        if keyword not in KNOWN:
            problem(f"{where}: unknown instruction {keyword}")
            continue
        if keyword == "FROM":
            words = arguments.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            if words[0] != "debian:bookworm":
                problem(f"{where}: stage from {words[0]}, not debian:bookworm (Debian 12)")
            stage = {"name": name, "line": number, "runs": [], "copies": [], "args": set()}
            stages.append(stage)
            continue
        if stage is None:
            problem(f"{where}: {keyword} before any FROM")
            continue
        if keyword == "ARG":
            stage["args"].add(arguments.split("=")[0])
        elif keyword == "RUN":
            stage["runs"].append((where, arguments))
            syntax = subprocess.run(["sh", "-n", "-c", arguments], capture_output=True, text=True)
            if syntax.returncode != 0:
                problem(f"{where}: RUN is not valid sh: {syntax.stderr.strip()}")
            for used in re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", arguments):
                if used.isupper() and used not in stage["args"] and used not in ("PWD", "HOME"):
                    problem(f"{where}: RUN uses ${used}, which this stage does not declare with ARG")
            for script in re.findall(r"bash\s+(scripts/[\w.-]+\.sh)", arguments):
                if not os.path.isfile(os.path.join(source, script)):
                    problem(f"{where}: RUN calls {script}, which does not exist")
            for named in re.findall(r"install-deps\.sh((?:\s+[a-z]+)+)", arguments):
                for step in named.split():
                    if step not in steps:
                        problem(f"{where}: install-deps.sh has no step '{step}' (it knows {sorted(steps)})")
        elif keyword == "COPY":
            stage["copies"].append((where, arguments))
        elif keyword == "CMD":
            try:
                if not isinstance(json.loads(arguments), list):
                    raise ValueError
            except ValueError:
                problem(f"{where}: CMD is not a JSON array (the exec form)")

    if len(stages) != 2 or stages[0]["name"] is None:
        problem(f"expected two stages, the first named (FROM … AS build); found {[s['name'] for s in stages]}")
        return
    build, runtime = stages
    package_dirs = [m.group(1) for _, r in build["runs"] for m in re.finditer(r"scripts/package\.sh\s+(\S+)", r)]
    if not package_dirs:
        problem("the build stage does not run scripts/package.sh")
    from_build = [c for _, c in runtime["copies"] if c.startswith(f"--from={build['name']} ")]
    if not from_build:
        problem(f"the runtime stage copies nothing --from={build['name']}")
    for copy in from_build:
        source_path = copy.split()[1]
        if not any(source_path == f"{d.rstrip('/')}/pecheck_*.deb" for d in package_dirs):
            problem(f"the runtime stage copies {source_path}, but package.sh writes to {package_dirs}")
    for where, run in runtime["runs"]:
        for forbidden in RUNTIME_FORBIDDEN:
            if re.search(rf"(?<![\w/.-]){re.escape(forbidden)}(?![\w])" if not forbidden.startswith("-")
                         else rf"\w{re.escape(forbidden)}\b", run):
                problem(f"{where}: the runtime stage installs or runs {forbidden}")
        if "scripts/" in run:
            problem(f"{where}: the runtime stage runs a build script")
        if "/tmp/pecheck_*.deb" not in run:
            problem(f"{where}: the runtime stage does not install the copied .deb")

    patterns = [line.strip() for line in open(os.path.join(source, ".dockerignore"))
                if line.strip() and not line.startswith("#")]
    for path in NEEDED_IN_CONTEXT:
        if not os.path.exists(os.path.join(source, path)):
            problem(f"{path} is needed by the build but missing from the checkout")
        elif ignored(path, patterns):
            problem(f".dockerignore leaves {path} out of the build context")
    for path in ("build/CMakeCache.txt", ".git/HEAD", "python/pecheck/__pycache__/x.pyc", "reports/report.json"):
        if not ignored(path, patterns):
            problem(f".dockerignore lets {path} into the build context")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]))
    print(f"{len(problems)} problems in the Dockerfile" if problems else "the Dockerfile checks passed")
    sys.exit(1 if problems else 0)
