#!/usr/bin/env python3
"""No include between pecheck's layers runs against their order, and no
include cycle joins two folders.

Every #include "..." in the library (src/, include/pecheck/, properties/) is
resolved to the header it names and so to a folder: the first folder under
src/ or include/pecheck/ (the C++ adapter's include/pecheck/boost_test.h is
`cpp`'s), or `properties` for the property families.

- Layers: a file may include its own layer and the layers it depends on (the
  same table as src/CMakeLists.txt's targets); each include against the order
  is named.
- Folders: the includes make a graph of folders (an edge a -> b for each
  file of a that includes a header of b); each cycle in it is named with the
  includes that make it, so no two folders depend on each other, even inside
  one layer. The graph is drawn at every depth: at depth 1 a folder is the
  first one (subjects), at depth 2 the first two (subjects/process, and
  subjects for the files directly in src/subjects/ and
  include/pecheck/subjects/), and so on down to the deepest folder, so no two
  folders include each other at any depth.

Prints every problem and exits 1; exits 0 when there is none.
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
    # The subject protocol (op calls, their codecs, the wire, the hello's
    # readers): what the process client and serve share.
    "protocol": ["core"],
    "subjects": ["gen", "reference", "protocol"],
    "property": ["subjects", "result", "gen", "reference"],
    "config": ["core"],
    "runner": ["property", "config", "report"],
    # The steps a run can be composed with: they implement the runner's
    # interfaces (runner/session.h), and the runner includes none of them.
    "replay": ["runner"],
    "budget": ["runner"],
    "probe": ["runner"],
    "planted": ["subjects"],
    "cpp": ["runner"],
    # The CLI composes the steps (src/cli/run_steps.cpp).
    "cli": ["replay", "budget", "probe", "planted"],
}
# Folders (under src/ and include/pecheck/, and properties/) by layer.
FOLDERS = {
    "core": "core", "gen": "gen", "reference": "reference", "result": "result", "report": "report",
    "protocol": "protocol", "subjects": "subjects", "property": "property", "properties": "property", "config": "config",
    "runner": "runner", "replay": "replay", "budget": "budget", "probe": "probe", "planted": "planted",
    "cpp": "cpp", "cli": "cli",
}
# The folders a quoted include is looked up in after the including file's own
# (the targets' include directories: include/ for pecheck/..., src/ for private headers).
SEARCH = ("include", "src", "properties")
MAX_CYCLES = 100  # named one by one; more are counted


def closure(layer, seen=None):
    seen = set() if seen is None else seen
    for dep in DEPENDS[layer]:
        if dep not in seen:
            seen.add(dep)
            closure(dep, seen)
    return seen


def folders_of_file(root, path):
    """The folders a library file lies in, outermost first (["subjects", "process"] for
    src/subjects/process/x.cpp); None outside src/, include/pecheck/ and properties/."""
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "properties":
        return rel[:-1]
    if rel[0] == "src" and len(rel) > 2:
        return rel[1:-1]
    if rel[:2] == ["include", "pecheck"]:
        return ["cpp"] if len(rel) == 3 else rel[2:-1]
    return None


def at_depth(folders, depth):
    """A folder as the graph at `depth` names it: its first `depth` folders ("subjects/process")."""
    return None if folders is None else "/".join(folders[:depth])


def folder_of_file(root, path, depth=1):
    """The folder a library file lies in at `depth` (None: outside src/, include/pecheck/ and properties/)."""
    return at_depth(folders_of_file(root, path), depth)


def folders_of_name(name):
    """The folders a quoted include names when its header is not in the tree (as in the checker's tests)."""
    parts = name.split("/")
    if parts[0] == "pecheck":
        return ["cpp"] if len(parts) == 2 else parts[1:-1]
    return parts[:-1] if len(parts) > 1 else None


def folders_of_include(root, including, name):
    """The folders of the header `including` names as "name": the file beside it, else on the search path."""
    for base in [os.path.dirname(including)] + [os.path.join(root, d) for d in SEARCH]:
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            return folders_of_file(root, candidate)
    if name.startswith("."):  # ./x.h, ../folder/x.h: from the including file, whether or not it is there
        return folders_of_file(root, os.path.normpath(os.path.join(os.path.dirname(including), name)))
    # a bare name: beside the including file
    return folders_of_name(name) or folders_of_file(root, including)


def folder_of_include(root, including, name, depth=1):
    return at_depth(folders_of_include(root, including, name), depth)


def library_files(root):
    for top in ("src", "include", "properties"):
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".h", ".cpp")):
                    yield os.path.join(dirpath, name)


def read_includes(root):
    """(file, its folders, [(line number, name, folders of the header)]) for every library file."""
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    out = []
    for path in library_files(root):
        found = []
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = include.match(line)
                if m:
                    found.append((number, m.group(1), folders_of_include(root, path, m.group(1))))
        out.append((path, folders_of_file(root, path), found))
    return out


def at(files, depth):
    """read_includes's answer with each file's and header's folders named at `depth`."""
    return [(path, at_depth(folders, depth), [(n, name, at_depth(t, depth)) for n, name, t in includes])
            for path, folders, includes in files]


def deepest(files):
    return max([len(f) for _, f, _ in files if f] + [len(t) for _, _, i in files for _, _, t in i if t] + [1])


def layer_problems(files):
    problems = []
    for path, folder, includes in files:
        layer = FOLDERS.get(folder)
        if layer is None:
            problems.append(f"{path}: in no layer (add its folder to tests/check_layers.py and src/CMakeLists.txt)")
            continue
        allowed = closure(layer) | {layer}
        for number, name, target_folder in includes:
            target = FOLDERS.get(target_folder)
            if target is not None and target not in allowed:
                problems.append(f"{path}:{number}: layer '{layer}' includes {name} (layer '{target}', not below it)")
    return problems


def folder_graph(root, files):
    """folder -> {folder it includes: the first include that does, as 'file:line includes name'}."""
    graph = {}
    for path, folder, includes in files:
        if folder is None:
            continue
        graph.setdefault(folder, {})
        for number, name, target in includes:
            if target is not None and target != folder:
                graph[folder].setdefault(target, f"{os.path.relpath(path, root)}:{number} includes {name}")
    return graph


def components(graph):
    """The strongly connected components of the graph (Tarjan), each a set of folders."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            out.append(component)

    for node in sorted(set(graph) | {t for edges in graph.values() for t in edges}):
        if node not in index:
            visit(node)
    return out


def cycles(graph):
    """Every elementary cycle of the graph, each once, from its smallest folder (at most MAX_CYCLES + 1)."""
    found = []
    for component in components(graph):
        for start in sorted(component):
            stack = [(start, [start])]
            while stack and len(found) <= MAX_CYCLES:
                node, path = stack.pop()
                for nxt in sorted(graph.get(node, {}), reverse=True):
                    if nxt == start:
                        found.append(path + [start])
                    elif nxt in component and nxt > start and nxt not in path:
                        stack.append((nxt, path + [nxt]))
    return found


def cycle_problems(graph):
    problems = []
    found = cycles(graph)
    for cycle in found[:MAX_CYCLES]:
        edges = "; ".join(graph[a][b] for a, b in zip(cycle, cycle[1:]))
        problems.append(f"include cycle between folders {' -> '.join(cycle)} ({edges})")
    if len(found) > MAX_CYCLES:
        problems.append(f"more than {MAX_CYCLES} include cycles between folders")
    return problems


def main(root):
    files = read_includes(root)
    checked = sum(len(includes) for _, _, includes in files)
    layers = layer_problems(at(files, 1))
    folder_cycles = []
    for depth in range(1, deepest(files) + 1):
        for problem in cycle_problems(folder_graph(root, at(files, depth))):
            if problem not in folder_cycles:  # a cycle of top folders reappears one level down
                folder_cycles.append(problem)
    for p in layers + folder_cycles:
        print(p)
    print(f"{checked} includes checked, {len(layers)} against the layer order, "
          f"{len(folder_cycles)} include cycles between folders")
    return 1 if layers or folder_cycles or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
