#!/usr/bin/env python3
"""No function over MAX_LINES lines in pecheck's own code, outside data tables (issue 38).

A long function hides its phases; named phases, each under a screen, say what
the code does before one reads how. This reads every C++ file under src/,
include/pecheck/ and properties/, strips comments and literals, follows the
braces, and measures each function body that is not nested in another (a
lambda counts with the function that holds it), from the first line of its
signature to its closing brace. Functions that are data tables (one return of
a braced list, or rows pushed one after another) are named in DATA_TABLES
with what they hold; a long function anywhere else fails the test, named with
its file, line and length.

Usage: check_function_length.py SOURCE_DIR [--list N]  (--list: print every function over N lines)
       check_function_length.py --self-test  (the reader finds what it must, on made-up sources)
"""
import pathlib
import re
import sys

from cpp_source import strip

MAX_LINES = 80
ROOTS = ("src", "include/pecheck", "properties")

# (file, function): data, not logic; each row is one entry of a table.
DATA_TABLES = {
    ("properties/claims.cpp", "claim_table"): "the claims registry, one row a claim",
    ("src/planted/encoder_mutants.cpp", "encoder_mutants"): "the planted encoder bugs, one row a mutant",
}

QUALIFIERS = re.compile(r"(\s*(const|noexcept(\([^()]*\))?|override|final|mutable|volatile|&&?|"
                        r"->\s*[\w:<>,\s*&]+|requires\s.*))*\s*$")


def block_kind(statement):
    s = " ".join(statement.split())
    if re.search(r"(^|\s)(namespace|extern)(\s|$)", s) and "(" not in s:
        return "scope"
    if re.search(r"(^|[\s>])(class|struct|union|enum)(\s|$)", s) and not QUALIFIERS.sub("", s).endswith(")"):
        return "scope"
    body = QUALIFIERS.sub("", s)
    init_list = re.search(r"\)\s*:\s*[\w:<>]+\s*[({]", s)
    if init_list and re.search(r"\w$", s):
        return "data"  # a member's brace initializer in a constructor's list (b_{a})
    if body.endswith(")") or init_list:
        return "function"
    return "data"


def function_name(statement):
    s = " ".join(statement.split())
    m = re.search(r"(operator\s*\S+?|[~\w:]+)\s*\(", s)
    return m.group(1) if m else "?"


def functions(path):
    """(name, first line, length) of each function body in the file that no other function holds."""
    text = strip(path.read_text(encoding="utf-8", errors="replace"), blank_literals=True)
    found = []
    stack = []  # (kind, start line, name)
    statement, statement_line = "", None
    line = 1
    for c in text:
        if c == "\n":
            line += 1
        if stack and stack[-1][0] in ("function", "inner", "data"):
            if c == "{":
                stack.append(("inner", line, ""))
            elif c == "}":
                kind, start, name = stack.pop()
                if kind == "function":
                    found.append((name, start, line - start + 1))
                    statement, statement_line = "", None
                elif kind == "data" and not stack or (kind == "data" and stack[-1][0] == "scope"):
                    statement += "{}"
            continue
        if c == "{":
            kind = block_kind(statement)
            stack.append((kind, statement_line or line, function_name(statement) if kind == "function" else ""))
            if kind == "scope":
                statement, statement_line = "", None
        elif c == "}":
            if stack:
                stack.pop()
            statement, statement_line = "", None
        elif c == ";":
            statement, statement_line = "", None
        elif c == "#" and not statement.strip():
            statement = "#"
        elif c == "\n" and statement.startswith("#") and not statement.rstrip().endswith("\\"):
            statement, statement_line = "", None
        else:
            if statement_line is None and not c.isspace():
                statement_line = line
            statement += c
    return found


def self_test():
    """The reader on made-up sources: it must see long functions wherever they hide, and nothing else."""
    import tempfile
    body = "\n".join(f"  x += {i};  // }} {{ in a comment" for i in range(90))
    source = f"""
namespace pecheck {{
namespace {{
const char* kText = "}} {{ ( ) in a string";
int short_one(int x) {{ return x; }}
}}  // namespace
struct Thing : Base {{
  Thing(int a) : a_(a), b_{{a}} {{
{body}
  }}
  int a_, b_;
}};
int long_free(int x) const noexcept {{
  auto f = [&](int y) {{ return y; }};
{body}
  return f(x);
}}
static const std::vector<int> kTable = {{
{body.replace('x +=', '')}
}};
}}  // namespace pecheck
"""
    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "t.cpp"
        path.write_text(source)
        found = {name: length for name, _, length in functions(path)}
    expected = {"short_one": 1, "Thing": 92, "long_free": 94}
    if found != expected:
        print(f"self-test: found {found}, expected {expected}")
        return 1
    print("self-test: the reader finds constructors, functions with lambdas and qualifiers, and skips tables")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = pathlib.Path(argv[1])
    listing = int(argv[argv.index("--list") + 1]) if "--list" in argv else None
    too_long = []
    for top in ROOTS:
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".cpp", ".h", ".hpp"):
                continue
            rel = path.relative_to(root).as_posix()
            for name, start, length in functions(path):
                if listing is not None and length > listing:
                    print(f"{length:5d} {rel}:{start} {name}")
                if length > MAX_LINES and (rel, name) not in DATA_TABLES:
                    too_long.append(f"{rel}:{start}: {name} is {length} lines (at most {MAX_LINES}, "
                                    "outside data tables): split it into named phases")
    if listing is not None:
        return 0
    for entry in too_long:
        print(entry)
    if too_long:
        print(f"{len(too_long)} function(s) over {MAX_LINES} lines")
        return 1
    print(f"every function under src/, include/pecheck/ and properties/ is at most {MAX_LINES} lines "
          f"({len(DATA_TABLES)} data tables aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
