#!/usr/bin/env python3
"""RapidCheck's internals are named only in the glue (issue 38).

rc::detail (RapidCheck's unexported API: its search, reproduce strings, case
descriptions) may change with any RapidCheck release; pecheck names it in the
RapidCheck glue alone, src/runner/rapidcheck_glue.{h,cpp},
rapidcheck_reproduce.cpp and rapidcheck_serialization.h. Everything else uses
what the glue offers (SearchCase, CaseVerdict, SearchParams, reproduce.h).
Code only: comments may name it. Prints every offending line and exits 1.

usage: check_rapidcheck_glue.py ROOT         check the tree at ROOT (src/, include/, properties/, tests/, fuzz/)
       check_rapidcheck_glue.py --self-test  the check fails on planted uses
"""
import pathlib
import re
import sys
import tempfile

from cpp_source import code_lines

GLUE = {"src/runner/rapidcheck_glue.h", "src/runner/rapidcheck_glue.cpp", "src/runner/rapidcheck_reproduce.cpp",
        "src/runner/rapidcheck_serialization.h"}
FOLDERS = ("src", "include", "properties", "tests", "fuzz")
INTERNAL = re.compile(r"\brc::detail\b|<rapidcheck/detail/")


def offences(root):
    root = pathlib.Path(root)
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".hpp", ".cpp", ".cc") or path.relative_to(root).as_posix() in GLUE:
                continue
            for number, line in enumerate(code_lines(path.read_text(encoding="utf-8", errors="replace")), 1):
                if INTERNAL.search(line):
                    found.append(f"{path.relative_to(root).as_posix()}:{number}: {line.strip()}")
    return found


def self_test():
    cases = [
        ("the glue itself", {"src/runner/rapidcheck_glue.cpp": "rc::detail::TestParams p;\n"}, 0),
        ("a comment", {"src/runner/cell.cpp": "// rc::detail::TestParams\n/* <rapidcheck/detail/X.h> */\n"}, 0),
        ("a use in the runner", {"src/runner/cell.cpp": "rc::detail::Example e;\n"}, 1),
        ("an include in a test", {"tests/test_x.cpp": "#include <rapidcheck/detail/Results.h>\n"}, 1),
        ("a re-declaration", {"src/cli/o.cpp": "namespace rc::detail {\nint f();\n}\n"}, 1),
    ]
    failed = 0
    for what, files, want in cases:
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                (pathlib.Path(d) / rel).parent.mkdir(parents=True, exist_ok=True)
                (pathlib.Path(d) / rel).write_text(text)
            got = 1 if offences(d) else 0
        failed += got != want
        print(f"{'ok  ' if got == want else 'FAIL'} {what}: {got} (want {want})")
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    found = offences(argv[1])
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} use(s) of RapidCheck's internals outside the glue ({', '.join(sorted(GLUE))})")
        return 1
    print("RapidCheck's internals are named only in the glue")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
