#!/usr/bin/env python3
"""Builds the Debian package with CPack and checks it as installed, without installing it on this
machine: dpkg-deb --info / --contents, then dpkg-deb -x into a temporary root and run from there.

  check_deb.py SOURCE_DIR BUILD_DIR WORK_DIR

The same cpack step the Dockerfile's build stage runs (scripts/package.sh); what the runtime image
then does with the .deb (pecheck run, Python checks, the pytest plugin, the adapter, the CMake
config) is done here from the extracted root.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap

PYTHON = "/usr/bin/python3"
failures = []


def check(condition, what, detail=""):
    """Records one check; `detail` (output) is printed only when it fails."""
    print(("ok   " if condition else "FAIL ") + what + ("" if condition or not detail else f"\n{detail}"), flush=True)
    if not condition:
        failures.append(what)


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def control_field(deb, field):
    return run(["dpkg-deb", "--field", deb, field]).stdout.strip()


def main(source, build, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    made = run(["cpack", "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"), "-B", work])
    debs = glob.glob(os.path.join(work, "pecheck_*.deb"))
    check(made.returncode == 0 and len(debs) == 1, "cpack -G DEB wrote one pecheck_*.deb", made.stdout + made.stderr)
    if not debs:
        return
    deb = debs[0]
    version = control_field(deb, "Version")
    check(os.path.basename(deb) == f"pecheck_{version}_{control_field(deb, 'Architecture')}.deb",
          f"named pecheck_<version>_<arch>.deb: {os.path.basename(deb)}")
    depends = control_field(deb, "Depends")
    for package in ("python3", "libc6", "libstdc++6", "libfmt9"):
        check(package in depends, f"Depends names {package}: {depends}")
    check("python3-numpy" in control_field(deb, "Recommends"), "Recommends python3-numpy")
    for heavy in ("python3-torch", "chromium", "build-essential", "cmake"):
        check(heavy not in depends, f"Depends does not pull in {heavy}")

    contents = run(["dpkg-deb", "--contents", deb]).stdout
    paths = {line.split()[-1].lstrip(".") for line in contents.splitlines() if line.strip()}
    for expected in ("/usr/bin/pecheck", "/usr/include/pecheck/core/vocabulary.h", "/usr/include/pecheck_plugin.h",
                     "/usr/lib/libpecheck_core.a", "/usr/lib/cmake/pecheck/pecheckConfig.cmake",
                     "/usr/lib/python3/dist-packages/pecheck/__init__.py",
                     "/usr/lib/python3/dist-packages/pecheck/pytest_plugin.py",
                     f"/usr/lib/python3/dist-packages/pecheck-{version}.dist-info/entry_points.txt",
                     "/usr/share/pecheck/adapters/python/pecheck_subject.py"):
        check(expected in paths, f"the package holds {expected}")
    for unwanted in ("__pycache__", "/planted", "libpecheck_planted", "/tests/"):
        check(not any(unwanted in p for p in paths), f"the package holds nothing matching {unwanted}")

    # What `apt-get install ./pecheck_*.deb` would do on this Debian machine: every declared dependency
    # resolves (a simulation: nothing is installed here). Needs the package lists, which the install
    # script's `apt-get update` leaves; without them there is nothing to resolve against.
    if glob.glob("/var/lib/apt/lists/*_Packages*"):
        simulated = run(["apt-get", "install", "--simulate", "--no-install-recommends", deb])
        check(simulated.returncode == 0 and "Inst pecheck" in simulated.stdout,
              "apt-get install --simulate resolves the package's dependencies", simulated.stdout + simulated.stderr)
    else:
        print("note: no apt package lists here; apt-get install --simulate skipped")

    root = os.path.join(work, "root")
    check(run(["dpkg-deb", "-x", deb, root]).returncode == 0, "dpkg-deb -x into a temporary root")
    cli = os.path.join(root, "usr", "bin", "pecheck")
    dist_packages = os.path.join(root, "usr", "lib", "python3", "dist-packages")
    env = {k: v for k, v in os.environ.items() if k not in ("PECHECK_BIN", "PYTHONPATH")}
    env.update(PATH=os.path.join(root, "usr", "bin") + os.pathsep + env.get("PATH", ""),
               PYTHONPATH=dist_packages, PECHECK_NO_REGRESSIONS="1")

    listed = run([cli, "list"], env=env)
    check(listed.returncode == 0 and "pe.bounded" in listed.stdout, "the installed CLI lists the properties")
    reports = os.path.join(work, "reports")
    ran = run([cli, "run", "--subject", "builtin:sinusoidal", "--cases", "20", "--report-dir", reports], env=env, cwd=work)
    check(ran.returncode == 0, "the installed CLI runs builtin:sinusoidal and passes", ran.stdout + ran.stderr)
    check(os.path.isfile(os.path.join(reports, "report.json")), "and writes report.json")

    # The Python package from the root: it must find the root's CLI on PATH (no PECHECK_BIN, no checkout).
    script = textwrap.dedent(f"""
        import json, numpy as np, pecheck
        def encode(dim, positions, seq_len):
            omega = 10000.0 ** (-np.arange(0, dim, 2) / dim)
            pe = np.empty((len(positions), dim)); a = positions[:, None] * omega
            pe[:, 0::2], pe[:, 1::2] = np.sin(a), np.cos(a)
            return pe
        r = pecheck.check_encoder(encode, cases=20, layout="interleaved")
        print(json.dumps({{"cli": pecheck.find_cli(), "module": pecheck.__file__, "passed": r.passed, "cells": r.cells}}))
        """)
    checked = run([PYTHON, "-c", script], env=env, cwd=work)
    try:
        answer = json.loads(checked.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = {}
    check(answer.get("cli") == cli, "the installed package finds the installed CLI on PATH", checked.stdout + checked.stderr)
    check(str(answer.get("module", "")).startswith(dist_packages), "and imports from the package's dist-packages")
    check(answer.get("passed") is True and answer.get("cells", 0) > 0, "check_encoder passes a correct encoder")

    # pytest loads the plugin from the dist-info's pytest11 entry point (no -p).
    tested = run([PYTHON, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--pecheck-cases", "20",
                  f"--basetemp={os.path.join(work, 'pytest')}", os.path.join(source, "examples", "python",
                                                                               "test_numpy_sinusoidal.py")],
                 env=env, cwd=work)
    check(tested.returncode == 0 and "1 passed" in tested.stdout,
          "pytest finds the plugin by its entry point and the example passes", tested.stdout + tested.stderr)

    adapter = os.path.join(root, "usr", "share", "pecheck", "adapters", "python")
    shim = run([PYTHON, "-c", f"import sys; sys.path.insert(0, {adapter!r}); import pecheck_subject; "
                              "print(pecheck_subject.__name__, pecheck_subject.serve.__module__)"], env=env, cwd=work)
    check(shim.stdout.split() == ["pecheck._serve", "pecheck._serve"],
          "the installed adapter is the installed package's serve loop", shim.stdout + shim.stderr)

    consumer = os.path.join(work, "consumer")
    os.makedirs(consumer)
    with open(os.path.join(consumer, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(consumer CXX)\n"
                "find_package(pecheck CONFIG REQUIRED)\n"
                "if(NOT TARGET pecheck::pecheck)\n  message(FATAL_ERROR \"no pecheck::pecheck\")\nendif()\n"
                "message(STATUS \"pecheck ${pecheck_VERSION} from ${pecheck_DIR}\")\n")
    configured = run(["cmake", "-S", consumer, "-B", os.path.join(consumer, "build"), "-G", "Ninja",
                      f"-DCMAKE_PREFIX_PATH={os.path.join(root, 'usr')}"], env=env)
    check(configured.returncode == 0 and f"pecheck {version} from {root}" in configured.stdout,
          "find_package(pecheck CONFIG) finds the packaged config", configured.stdout + configured.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*(os.path.abspath(a) for a in sys.argv[1:]))
    print(f"{len(failures)} failed" if failures else "the Debian package checks passed")
    sys.exit(1 if failures else 0)
