#!/usr/bin/env python3
"""Subject-kind prefixes are spelt in one place: the subject spec.

A subject spec is KIND:PAYLOAD (builtin:NAME, mutant:NAME, cmd:COMMAND,
plugin:PATH, plugin-inproc:PATH, fd:READ,WRITE, cpp:NAME). Only
include/pecheck/core/subject_spec.h and src/core/subject_spec.cpp may start a
string literal with a kind's prefix ("cmd:", "mutant:attention-x",
"cmd:python3 x.py"); everything else parses with parse_subject_spec, builds a
SubjectSpec (builtin_spec, mutant_spec, ...) and writes text with format_spec,
spec_of or subject_spec_syntax. Comments may name the prefixes. Prints every
offending line and exits 1; exits 0 when there is none.

usage: check_boundaries.py ROOT      check the tree at ROOT
       check_boundaries.py --self-test   the check fails on a planted literal
"""
import os
import re
import subprocess
import sys
import tempfile

from cpp_source import code_lines

KINDS = ["cmd", "plugin", "plugin-inproc", "builtin", "mutant", "fd", "cpp"]


def prefix_pattern(kinds):
    """A string literal that starts with a kind's prefix: "cmd:", "mutant:foo", "cmd:python3 x.py".

    The quote must open a literal (possibly u8"", L"", ...), not be an escaped
    quote inside one ("\\"cmd:" is JSON text, not a spec literal)."""
    return re.compile(r'(?<![\w"\\])(?:u8|u|U|L)?"(' + "|".join(re.escape(k) for k in kinds) + r'):')


PREFIX = prefix_pattern(KINDS)
FOLDERS = ["src", "include", "properties"]
OWNERS = {os.path.join("include", "pecheck", "core", "subject_spec.h"), os.path.join("src", "core", "subject_spec.cpp")}
SUFFIXES = (".h", ".hpp", ".c", ".cc", ".cpp")


def offences(root):
    found = []
    for folder in FOLDERS:
        for base, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                if rel in OWNERS:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for number, (line, code) in enumerate(zip(text.split("\n"), code_lines(text)), 1):
                    if PREFIX.search(code):
                        found.append(f"{rel}:{number}: {line.strip()}")
    return found


def self_test():
    """The check passes on a clean tree and a commented prefix, and fails on a planted literal."""
    me = os.path.abspath(__file__)

    def run(files):
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            return subprocess.run([sys.executable, me, root], capture_output=True, text=True)

    owner = {"src/core/subject_spec.cpp": 'auto k = "plugin-inproc:";\n'}
    clean = dict(owner, **{"src/cli/a.cpp": '// a "cmd:" subject, "mutant:x"\nint x; /* "builtin:y" */\n'
                                            'auto s = "write builtin:NAME or cmd:COMMAND";\nauto t = "\\"fd:5,6\\"";\n'})
    cases = [
        ("a clean tree", clean, 0),
        ("a concatenated prefix", dict(clean, **{"src/planted/b.cpp": 'auto s = "mutant:" + name;\n'}), 1),
        ("a matched prefix", dict(clean, **{"include/pecheck/x.h": 'bool b = s.starts_with("fd:");  // fd\n'}), 1),
        ("a prefix after a string", dict(clean, **{"properties/p.cpp": 'f("//", "plugin:");\n'}), 1),
        ("a prefix after a block comment", dict(clean, **{"src/c.cpp": '/* x\n y */ auto k = "builtin:";\n'}), 1),
        ("a whole spec", dict(clean, **{"src/planted/d.cpp": 'info("x", "mutant:attention-causal-path");\n'}), 1),
        ("a command spec", dict(clean, **{"src/e.cpp": 'make_subject("cmd:python3 x.py");\n'}), 1),
        ("a wide literal", dict(clean, **{"src/f.cpp": 'auto w = L"builtin:attention";\n'}), 1),
        ("a C++ object's spec", dict(clean, **{"include/pecheck/g.h": 'info.spec = "cpp:" + name;\n'}), 1),
    ]
    failed = 0
    for what, files, want in cases:
        got = run(files)
        ok = got.returncode == want
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {got.returncode} (want {want}) {got.stdout.strip()}")
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    found = offences(sys.argv[1])
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} subject-kind prefix literal(s) outside the subject spec "
              "(include/pecheck/core/subject_spec.h): parse with parse_subject_spec, build a SubjectSpec, write it with format_spec")
        return 1
    print("subject-kind prefixes are spelt only in the subject spec")
    return 0


if __name__ == "__main__":
    sys.exit(main())
