"""Which tests a file defines and which go with a hidden test (`coderl.tasks.repository.node_ids`), against pytest's own
collection inside coderl's sandbox (the repository grader's run), on generated test files: module-level and nested
classes, in-file and external bases (mixins, Test classes inheriting Test classes, `unittest.TestCase`), parameters
whose ids hold `::`.  One test is taken out of each file as the generator takes it (`generate.remove_test`); what
pytest no longer collects must be exactly what `taken_out` names -- the generator hides all of it, so an issue never
lists a test the agent's working copy lacks (a subclass's inherited copy of the hidden test, as toolz's
`TestCustomMapping::test_keymap` once was)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from coderl.tasks.repository.node_ids import defines_test, node_parts, taken_out

FILES = 40  # generated files (each with its reduced copy): one pytest run in the sandbox


def _generated_file(rng: random.Random) -> str:
    out = ["import unittest", "import pytest", ""]
    for f in range(rng.randint(0, 2)):
        if rng.random() < 0.5:
            values = rng.sample(['"a::b"', '"sum(a)::int"', "1", '"x"', "(1, 2)"], rng.randint(1, 3))
            out += [f"@pytest.mark.parametrize('v', [{', '.join(values)}])", f"def test_free{f}(v):", "    assert True",
                    ""]
        else:
            out += [f"def test_free{f}():", "    assert True", ""]
    roots: list[str] = []
    defined: list[str] = []
    for c in range(rng.randint(1, 5)):
        name = f"{rng.choice(['Test', 'Test', 'Base', 'Mixin'])}{c}"
        pick = rng.random()
        if pick < 0.15 and not any(d for d in defined if "unittest" in d):
            bases = ["unittest.TestCase"]
        elif pick < 0.3 and len(roots) >= 2:
            bases = rng.sample(roots, 2)  # two classes without bases: a consistent MRO
        elif pick < 0.75 and defined:
            bases = [rng.choice(defined)]
        else:
            bases = []
        methods = rng.sample(["test_a", "test_b", "test_c", "test_d", "helper"], rng.randint(1, 4))
        out.append(f"class {name}({', '.join(bases)}):" if bases else f"class {name}:")
        if rng.random() < 0.3:
            out.append("    x = 1")
        for m in methods:
            out += [f"    def {m}(self):", "        assert True", ""]
        if rng.random() < 0.25 and name.startswith("Test"):
            inner_bases = rng.choice([[], [rng.choice(defined)] if defined else []])
            out.append(f"    class TestInner({', '.join(inner_bases)}):" if inner_bases else "    class TestInner:")
            out += ["        def test_inner(self):", "            assert True", ""]
        out.append("")
        if "unittest.TestCase" in bases:
            continue  # kept out of later bases: one unittest class a file, no MRO mixing
        defined.append(name)
        if not bases:
            roots.append(name)
    return "\n".join(out) + "\n"


def _collected(sandbox, tree, env, files: list[str]) -> dict[str, set[str]]:
    """{file: the node ids pytest collects there, without the file}."""
    from coderl.tasks.repository.grade import Repository, grading_request

    probe = Repository(tree=str(tree), environment=str(env), fail_to_pass=(), pass_to_pass=(), roots=(".",),
                       cpu_seconds=300)
    request = grading_request(probe, tests=(), select=list(files))
    result = sandbox.run(dataclasses.replace(request, limits=dataclasses.replace(request.limits, wall_seconds=600)))
    out: dict[str, set[str]] = {f: set() for f in files}
    for node in result.reports.get("records", {}):
        file, _, rest = node.partition("::")
        out.setdefault(file, set()).add(rest)
    return out


def test_node_parts_split_only_before_the_parameters():
    assert node_parts("t/test_a.py::TestA::TestB::test_x[sum(a)::int-1]") == ("t/test_a.py", ("TestA", "TestB"),
                                                                                "test_x")
    assert node_parts("t/test_a.py::test_x") == ("t/test_a.py", (), "test_x")
    assert node_parts("t/test_a.py") == ("t/test_a.py", (), "")


def test_an_inherited_copy_goes_with_the_test_it_inherits():
    from coderl.tasks.repository.generate import remove_test

    full = ("class TestDict:\n    def test_keymap(self):\n        pass\n\n    def test_other(self):\n        pass\n\n\n"
            "class TestCustomMapping(TestDict):\n    x = 1\n\n\nclass TestOwn(TestDict):\n    def test_keymap(self):\n"
            "        pass\n\n\nclass TestCase2(unittest.TestCase):\n    def test_keymap(self):\n        pass\n")
    reduced = remove_test(full, "t.py::TestDict::test_keymap")
    ids = ["t.py::TestDict::test_keymap", "t.py::TestCustomMapping::test_keymap", "t.py::TestOwn::test_keymap",
           "t.py::TestCustomMapping::test_other", "t.py::TestCase2::test_keymap", "t.py::TestCase2::test_setUp"]
    assert taken_out(full, reduced, ids) == ["t.py::TestDict::test_keymap", "t.py::TestCustomMapping::test_keymap"]
    assert defines_test(reduced, "t.py::TestCase2::test_setUp") is None  # unittest's own: not this file's to say
    assert defines_test(reduced, "t.py::TestGone::test_keymap") is False


def test_what_pytest_stops_collecting_is_what_taken_out_names(tmp_path):
    from coderl.sandbox import Sandbox
    from coderl.tasks.repository import environment
    from coderl.tasks.repository.generate import remove_test

    rng = random.Random(98)
    tree = tmp_path / "tree"
    tree.mkdir()
    sources = {}
    for i in range(FILES):
        sources[i] = _generated_file(rng)
        (tree / f"test_full_{i}.py").write_text(sources[i])
    env = environment.build(tmp_path / "envs")
    with Sandbox(workers=2, isolation="full") as sandbox:
        full = _collected(sandbox, tree, env, [f"test_full_{i}.py" for i in range(FILES)])
        reduced_sources, removed = {}, {}
        for i in range(FILES):
            if not full[f"test_full_{i}.py"]:  # no Test class and no test function drawn
                continue
            nodes = sorted(full[f"test_full_{i}.py"])
            rng.shuffle(nodes)  # a seeded draw (a set's order follows the process's hash seed)
            for node in nodes:
                reduced = remove_test(sources[i], f"t.py::{node}")
                if reduced is not None:
                    reduced_sources[i], removed[i] = reduced, node
                    (tree / f"test_red_{i}.py").write_text(reduced)
                    break
        after = _collected(sandbox, tree, env, [f"test_red_{i}.py" for i in reduced_sources])
    assert len(reduced_sources) >= FILES // 2
    inherited = 0
    for i, reduced in reduced_sources.items():
        before, now = full[f"test_full_{i}.py"], after[f"test_red_{i}.py"]
        ids = [f"t.py::{n}" for n in sorted(before)]
        assert [t for t in ids if defines_test(sources[i], t) is False] == [], sources[i]
        gone = {t.partition("::")[2] for t in taken_out(sources[i], reduced, ids)}
        assert gone == before - now, (removed[i], sources[i])
        assert now <= before
        inherited += bool({g.split("[")[0] for g in gone} - {removed[i].split("[")[0]})  # another class's copy
    assert inherited >= 3, inherited  # the generated files reach the inherited case, not only the plain one


@pytest.mark.parametrize("node", ["t.py::test_x[a::b]", "t.py::TestA::test_x[sum(a)::int]"])
def test_remove_test_reads_parameters_with_colons(node):
    from coderl.tasks.repository.generate import remove_test

    source = ("import pytest\n\n\ndef test_x(v):\n    pass\n\n\ndef test_y():\n    pass\n\n\nclass TestA:\n"
              "    def test_x(self):\n        pass\n\n    def test_y(self):\n        pass\n")
    reduced = remove_test(source, node)
    assert reduced is not None and reduced.count("def test_x") == 1 and reduced.count("def test_y") == 2
