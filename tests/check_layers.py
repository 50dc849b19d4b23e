#!/usr/bin/env python3
"""No include between pecheck's layers runs against their order.

Every #include "..." in the library (src/, include/pecheck/, properties/) is
mapped to the layer of the header it names; a file may include its own layer
and the layers it depends on (the same table as src/CMakeLists.txt's targets).
Prints every offending include and exits 1; exits 0 when there is none.
"""
import os
import re
import sys

# layer -> the layers it may include (besides itself); transitively closed below.
DEPENDS = {
    "core": [],
    "gen": ["core"],
    "reference": ["core"],
    "result": ["core"],
    "report": ["result"],
    "subjects": ["gen", "reference"],
    "property": ["subjects", "result", "gen", "reference"],
    "config": ["core"],
    "runner": ["property", "config", "report"],
    "planted": ["subjects"],
    "cpp": ["runner"],
    "cli": ["runner", "planted"],
}
# Folders (under src/ and include/pecheck/) by layer.
FOLDERS = {
    "core": "core", "gen": "gen", "reference": "reference", "result": "result", "report": "report",
    "subjects": "subjects", "property": "property", "config": "config", "runner": "runner",
    "replay": "runner", "budget": "runner", "probe": "runner", "planted": "planted", "cpp": "cpp", "cli": "cli",
}


def closure(layer, seen=None):
    seen = set() if seen is None else seen
    for dep in DEPENDS[layer]:
        if dep not in seen:
            seen.add(dep)
            closure(dep, seen)
    return seen


def layer_of_header(path):
    """The layer a quoted include names, or None for a header outside the layers."""
    parts = path.split("/")
    if parts[0] == "pecheck":
        if len(parts) == 2:  # pecheck/boost_test.h: the C++ adapter's public header
            return "cpp"
        parts = parts[1:]
    return FOLDERS.get(parts[0]) if len(parts) > 1 else None


def layer_of_file(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "properties":
        return "property"
    if rel[0] == "src":
        return FOLDERS.get(rel[1])
    if rel[:2] == ["include", "pecheck"]:
        return "cpp" if len(rel) == 3 else FOLDERS.get(rel[2])
    return None


def main(root):
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    problems, checked = [], 0
    for top in ("src", "include", "properties"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, name)
                layer = layer_of_file(root, path)
                if layer is None:
                    problems.append(f"{path}: in no layer (add its folder to tests/check_layers.py and src/CMakeLists.txt)")
                    continue
                allowed = closure(layer) | {layer}
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = include.match(line)
                        if not m:
                            continue
                        checked += 1
                        target = layer_of_header(m.group(1))
                        if target is not None and target not in allowed:
                            problems.append(f"{path}:{number}: layer '{layer}' includes {m.group(1)} "
                                            f"(layer '{target}', not below it)")
    for p in problems:
        print(p)
    print(f"{checked} includes checked, {len(problems)} against the layer order")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
