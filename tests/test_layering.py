#!/usr/bin/env python3
"""The layering check can fail: tests/check_layers.py run on small trees.

It exits 1 naming an include against the layer order, a file that lies in no
layer, and an include cycle between folders (also one inside a layer, which
the order alone allows, and one between folders inside a folder, at any depth); 0 on a tree that keeps the order; and its table of
layers (folders and dependencies) is the one src/CMakeLists.txt builds the
targets from, so the script and the linker enforce the same order.
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
SCRIPT = os.path.join(HERE, "check_layers.py")


def load_script():
    spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tree(files):
    """A temporary source tree holding `files` (relative path -> text)."""
    root = tempfile.TemporaryDirectory(prefix="pecheck-layers-")
    for path, text in files.items():
        full = os.path.join(root.name, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
    return root


def check(root):
    run = subprocess.run([sys.executable, SCRIPT, root], capture_output=True, text=True, timeout=60)
    return run.returncode, run.stdout + run.stderr


class CheckLayers(unittest.TestCase):
    def test_an_include_against_the_order_fails_naming_it(self):
        with tree({
            "src/core/x.cpp": '#include "pecheck/core/dtype.h"\n#include "pecheck/runner/session.h"\n',
            "src/report/fine.cpp": '#include "pecheck/core/dtype.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("src/core/x.cpp:2: layer 'core' includes pecheck/runner/session.h (layer 'runner'", out)
        self.assertNotIn("fine.cpp", out)
        self.assertIn("1 against the layer order", out)

    def test_a_public_header_and_a_family_file_are_checked_too(self):
        with tree({
            "include/pecheck/result/check.h": '#include "pecheck/report/json_writer.h"\n',
            "properties/pe/structure.cpp": '#include "pecheck/runner/cell.h"\n#include "pecheck/subjects/subject.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("layer 'result' includes pecheck/report/json_writer.h", out)
        self.assertIn("properties/pe/structure.cpp:1: layer 'property' includes pecheck/runner/cell.h", out)
        self.assertIn("2 against the layer order", out)

    def test_a_file_in_no_layer_fails(self):
        with tree({
            "src/core/ok.cpp": '#include "pecheck/core/json.h"\n',
            "src/misc/y.cpp": '#include "pecheck/core/json.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("src/misc/y.cpp: in no layer", out)

    def test_a_tree_in_order_passes(self):
        with tree({
            "src/runner/a.cpp": '#include "pecheck/core/dtype.h"\n#include "pecheck/property/registry.h"\n',
            "src/planted/b.cpp": '#include "pecheck/subjects/subject.h"\n',
            "src/cli/c.cpp": '#include "pecheck/planted/mutants.h"\n#include "cli/commands.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 0, out)

    def test_a_cycle_between_two_folders_of_one_layer_fails_naming_its_includes(self):
        # properties/ and src/property/ are one layer: only the cycle check sees this.
        with tree({
            "properties/pe_common.h": '#include "pecheck/property/property.h"\n',
            "properties/pe.cpp": '#include "pe_common.h"\n',
            "src/property/registry.cpp": '#include "pecheck/core/json.h"\n#include "pe_common.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("0 against the layer order", out)
        self.assertIn("include cycle between folders properties -> property -> properties "
                      "(properties/pe_common.h:1 includes pecheck/property/property.h; "
                      "src/property/registry.cpp:2 includes pe_common.h)", out)
        self.assertIn("1 include cycles between folders", out)

    def test_a_runner_that_includes_its_steps_back_is_a_cycle(self):
        # The cycle issue 19 removed: the runner composing the steps whose headers include it.
        with tree({
            "include/pecheck/replay/regression_store.h": '#include "pecheck/runner/session.h"\n',
            "include/pecheck/budget/precision_budget.h": '#include "pecheck/runner/session.h"\n',
            "src/runner/session.cpp": '#include "pecheck/runner/session.h"\n'
                                      '#include "pecheck/replay/regression_store.h"\n'
                                      '#include "../budget/steps.h"\n',
            "src/budget/steps.h": '#include "pecheck/budget/precision_budget.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("src/runner/session.cpp:2: layer 'runner' includes pecheck/replay/regression_store.h "
                      "(layer 'replay', not below it)", out)
        self.assertIn("src/runner/session.cpp:3: layer 'runner' includes ../budget/steps.h (layer 'budget'", out)
        self.assertIn("include cycle between folders replay -> runner -> replay", out)
        self.assertIn("include cycle between folders budget -> runner -> budget", out)
        self.assertIn("2 include cycles between folders", out)

    def test_every_cycle_through_several_folders_is_named(self):
        with tree({
            "src/core/a.cpp": '#include "pecheck/gen/x.h"\n',
            "src/gen/b.cpp": '#include "pecheck/reference/y.h"\n#include "pecheck/core/a.h"\n',
            "src/reference/c.cpp": '#include "pecheck/core/z.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("include cycle between folders core -> gen -> core", out)
        self.assertIn("include cycle between folders core -> gen -> reference -> core", out)
        self.assertIn("2 include cycles between folders", out)

    def test_a_cycle_between_two_folders_inside_one_folder_fails(self):
        # The cycle issue 38 removed: the codecs and the process client including each other, one
        # folder down, where the graph of top folders sees one folder (subjects) and no cycle.
        with tree({
            "src/subjects/ops/codec.h": '#include "subjects/process/wire.h"\n',
            "src/subjects/process/wire.h": '#include "pecheck/core/json.h"\n',
            "src/subjects/process/requests.cpp": '#include "subjects/ops/codec.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("0 against the layer order", out)
        self.assertIn("include cycle between folders subjects/ops -> subjects/process -> subjects/ops "
                      "(src/subjects/ops/codec.h:1 includes subjects/process/wire.h; "
                      "src/subjects/process/requests.cpp:1 includes subjects/ops/codec.h)", out)
        self.assertIn("1 include cycles between folders", out)

    def test_a_folder_and_one_inside_it_that_include_each_other_are_a_cycle(self):
        # A folder's own files (public headers included) are one folder, the folders inside it others.
        with tree({
            "include/pecheck/subjects/typed_subject.h": '#include "pecheck/core/json.h"\n',
            "include/pecheck/subjects/builtin/rope.h": '#include "pecheck/subjects/typed_subject.h"\n',
            "src/subjects/factory.cpp": '#include "pecheck/subjects/builtin/rope.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("include cycle between folders subjects -> subjects/builtin -> subjects", out)

    def test_a_cycle_is_found_at_any_depth(self):
        with tree({
            "properties/identify/search/a.h": '#include "pecheck/core/json.h"\n',
            "properties/identify/search/a.cpp": '#include "identify/fit/b.h"\n',
            "properties/identify/fit/b.h": '#include "identify/search/a.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)
        self.assertIn("include cycle between folders properties/identify/fit -> properties/identify/search "
                      "-> properties/identify/fit", out)
        self.assertIn("1 include cycles between folders", out)

    def test_folders_inside_one_folder_in_order_pass(self):
        with tree({
            "src/subjects/process/client.cpp": '#include "protocol/codec.h"\n#include "pecheck/subjects/subject.h"\n',
            "src/subjects/kinds/factory.cpp": '#include "pecheck/subjects/builtin/rope.h"\n',
            "include/pecheck/subjects/builtin/rope.h": '#include "pecheck/subjects/subject.h"\n',
            "src/protocol/codec.h": '#include "pecheck/protocol/calls.h"\n',
        }) as root:
            code, out = check(root)
        self.assertEqual(code, 0, out)

    def test_a_tree_with_nothing_to_check_fails(self):
        with tree({"src/core/empty.cpp": "int x;\n"}) as root:
            code, out = check(root)
        self.assertEqual(code, 1, out)

    def test_the_table_is_the_one_cmake_builds(self):
        layers = load_script()
        with open(os.path.join(SOURCE, "src", "CMakeLists.txt"), encoding="utf-8") as f:
            cmake = f.read()
        calls = re.findall(r"^\s*pecheck_add_layer\((\w+)(.*?)\)\s*$", cmake, re.S | re.M)
        self.assertTrue(calls)
        cmake_depends, cmake_folders = {}, {}
        for layer, body in calls:
            words = body.split()
            dirs = words[words.index("DIRS") + 1:]
            for word in dirs:
                if word in ("PUBLIC", "PRIVATE"):
                    break
                folder = word.split("/")[-1]
                cmake_folders[folder] = "property" if folder == "properties" else layer
            cmake_depends[layer] = {w[len("pecheck_"):] for w in words
                                    if w.startswith("pecheck_") and w[len("pecheck_"):] in layers.DEPENDS}
        script_layers = {k for k in layers.DEPENDS if k != "cli"}  # the CLI is a target of its own
        self.assertEqual(set(cmake_depends), script_layers)
        for layer, deps in cmake_depends.items():
            closed = set(deps)
            for d in deps:
                closed |= layers.closure(d)
            self.assertEqual(closed, layers.closure(layer), f"layer {layer}")
        folders = {k: v for k, v in layers.FOLDERS.items() if k != "cli"}
        self.assertEqual(cmake_folders, folders)


if __name__ == "__main__":
    unittest.main()
