"""No value within the limits breaks the parent: program data nested up to `flat.MAX_DEPTH` levels is read,
compared and printed in the parent without recursion (`coderl/sandbox/server/common/flat.py`), and one level more is a
clean failure of that program, never an exception in the trainer."""

import json
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from coderl.sandbox.judge import BadRecord, decode_value, judge
from coderl.sandbox.outputs import json_equal, loads, value_outcome
from coderl.sandbox.server.common import flat
from coderl.sandbox.types import VALUE_MARKER, CheckKind, ExecutionRequest, Mode, Status, TestCase

LIMIT = flat.MAX_DEPTH


def nest(depth, kind):
    """A value `depth` containers deep around 0, built without recursion."""
    value = 0
    for _ in range(depth):
        value = [value] if kind == "list" else (value,) if kind == "tuple" else {"k": value}
    return value


def program(depth, kind):
    wrap = {"list": "[v]", "tuple": "(v,)", "dict": "{'k': v}"}[kind]
    return f"def deep():\n    v = 0\n    for _ in range({depth}):\n        v = {wrap}\n    return v\n"


# ---- the flat form, by hand ----------------------------------------------------------------------------------
def test_flatten_gives_the_documented_tokens():
    value = [1, (2, "a"), {3: None}, {True}, 2**60, 0.5, b"\x01", 1j, Decimal("1.5"), Fraction(1, 3)]
    assert flat.flatten(value) == [
        "L", 10, 1, "T", 2, 2, "s", "a", "D", 1, 3, None, "S", 1, True, "I", hex(2**60), "f", (0.5).hex(),
        "b", "01", "c", (0.0).hex(), (1.0).hex(), "d", "1.5", "q", 1, 3]
    assert flat.unflatten(flat.flatten(value)) == value


def test_flatten_reads_builtin_subclasses_through_their_base_and_names_the_rest():
    from collections import ChainMap, Counter, namedtuple

    point = namedtuple("P", "x y")(1, 2)
    assert flat.flatten([point, Counter("aa"), ChainMap({1: 2}), {}.keys()]) == [
        "L", 4, "T", 2, 1, 2, "D", 1, "s", "a", 2, "D", 1, 1, 2, "S", 0]
    assert flat.flatten(object(), describe=lambda v: "Thing") == ["o", "Thing"]


@pytest.mark.parametrize("tokens", [
    ["L", 2, 1],  # a count past the tokens
    ["L", 1, 1, 2],  # tokens after the value
    ["S", 1, "L", 0],  # an unhashable set item
    ["D", 1, "L", 0, 1],  # an unhashable key
    ["q", "s", "x", 1],  # a Fraction of a str
    ["x", 1],  # an unknown tag
    ["L", -1],  # a negative count
    {"L": 1},  # not a token list
    ["L", LIMIT + 1] + ["L", 1] * LIMIT + [0],  # one level too deep
])
def test_unflatten_refuses_what_the_judge_cannot_have_written(tokens):
    with pytest.raises(ValueError):
        flat.unflatten(tokens)
    with pytest.raises(BadRecord):
        decode_value(tokens)


@pytest.mark.parametrize("kind", ["list", "tuple", "dict"])
def test_the_parent_reads_compares_and_prints_a_value_at_the_limit(kind):
    value = nest(LIMIT, kind)
    decoded = flat.unflatten(flat.flatten(value))
    assert flat.equal(decoded, nest(LIMIT, kind))
    assert not flat.equal(decoded, nest(LIMIT - 1, kind))
    text = flat.short_repr(decoded, 50)
    assert len(text) == 50 and text.startswith({"list": "[[", "tuple": "((", "dict": "{'k': {'k'"}[kind])
    with pytest.raises(ValueError, match="too deeply"):
        flat.flatten(nest(LIMIT + 1, kind))


@pytest.mark.parametrize("a, b", [
    ([1, 2], [1, 2]), ([1], [True]), ([1.0], [1]), ((1,), [1]), ([], ()), ({1: "a"}, {True: "a"}),
    ({1: [2]}, {1: [3]}), ({1}, frozenset({1})), ([math.nan], [math.nan]), ({"a": 1}, {"a": 1, "b": 2}),
    ([Fraction(1, 2)], [0.5]), ([Decimal("0.5")], [0.5]), ("ab", "ab"), ([[1, [2]], 3], [[1, [2]], 3]),
])
def test_equal_is_pythons_equality(a, b):
    assert flat.equal(a, b) is (a == b)


@pytest.mark.parametrize("value", [[1, (2,), {3: "x"}], (), set(), {1, 2}, frozenset({3}), {}, [10**5000, "s"],
                                   {"a": [None, True, 1.5]}])
def test_short_repr_is_repr(value):
    expected = repr(value) if not (isinstance(value, list) and len(value) == 2) else None
    text = flat.short_repr(value, 10_000)
    if expected is not None:
        assert text == expected
    else:
        assert text.startswith("[<int too large to print")


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, -0.0, 1e3, "x\\u00e9", null, true, false]}', "[]", "{}", '"s"',
                                  " [ [ ] , { } ] ", "NaN", "[-Infinity]", "12", "-1.5E-2"])
def test_loads_is_json_loads(text):
    got, want = loads(text), json.loads(text)
    assert repr(got) == repr(want)


@pytest.mark.parametrize("text", ["[1,]", "{1: 2}", "[1 2]", "", "[", '"\\x"', "[1]x", "tru", '{"a" 1}'])
def test_loads_refuses_malformed_json(text):
    with pytest.raises(ValueError):
        loads(text)


def test_loads_reads_to_the_limit_and_refuses_past_it():
    deep = loads("[" * LIMIT + "0" + "]" * LIMIT)
    assert json_equal(deep, nest(LIMIT, "list"))
    with pytest.raises(ValueError, match="too deeply"):
        loads("[" * (LIMIT + 1) + "]" * (LIMIT + 1))


def test_loads_counts_no_bracket_inside_a_string_and_reads_crafted_quotes_in_one_pass():
    # brackets inside strings (escaped quotes too) are text, not nesting
    inner = "[" * (LIMIT + 5) + '\\"{' * 50
    assert loads(json.dumps([inner, {"k": "]}" * 10}])) == [inner, {"k": "]}" * 10}]
    # what a program could print to stall the reader: a quote, then escaped quotes and no closing one (a search
    # for each quote's end from every quote took time quadratic in the line: minutes at a few hundred KB)
    for text in ('"' + '\\"' * 500_000, '"' * 1_000_000, "[" * LIMIT + '"' + "[" * 5 * LIMIT):
        with pytest.raises(ValueError):
            loads(text)


def test_loads_in_several_threads_at_once_reads_every_value_and_leaves_the_recursion_limit_as_it_was():
    # the trainer reads programs' output in several threads; the recursion limit `values.deep` raises is the
    # process's, so two reads interleaved used to run one under the limit the other restored, and leave the
    # raised limit behind
    import sys
    import threading

    text, before, failures = "[" * LIMIT + "0" + "]" * LIMIT, sys.getrecursionlimit(), []

    def read():
        for _ in range(100):
            try:
                loads(text)
            except Exception as exc:  # noqa: BLE001 -- every failure is counted
                failures.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows
    try:
        threads = [threading.Thread(target=read) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    assert sys.getrecursionlimit() == before


# ---- through the paths that read program data ------------------------------------------------------------------
def _function_request(depth, kind, expected):
    test = TestCase("0", "candidate()", CheckKind.EQUALS, expected)
    return ExecutionRequest(Mode.PYTHON_TESTS, program=program(depth, kind), entry_point="deep", tests=(test,))


@pytest.mark.parametrize("kind", ["list", "tuple", "dict"])
def test_a_function_task_returning_a_value_at_the_limit_is_judged(sandbox, kind):
    at_limit = sandbox.run(_function_request(LIMIT, kind, nest(LIMIT, kind)))
    assert at_limit.passed, at_limit.message
    wrong = sandbox.run(_function_request(LIMIT, kind, nest(LIMIT - 1, kind)))
    assert wrong.status is Status.FAILED and wrong.message.startswith("test 0: got "), wrong.message
    past = sandbox.run(_function_request(LIMIT + 1, kind, nest(LIMIT + 1, kind)))
    assert not past.passed and "too deeply" in past.message, past.message


def _run(stdout):
    return {"stdout": stdout, "stdout_total": len(stdout.encode()), "cpu_seconds": 0.0}


def test_a_printed_json_value_at_the_limit_is_judged_and_one_deeper_fails():
    test = TestCase("0", "", CheckKind.JSON, nest(LIMIT, "list"))
    line = VALUE_MARKER + "[" * LIMIT + "0" + "]" * LIMIT
    assert value_outcome(test, _run(line), None).passed
    wrong = value_outcome(test, _run(VALUE_MARKER + "[" * LIMIT + "1" + "]" * LIMIT), None)
    assert wrong.status is Status.FAILED and wrong.message.startswith("got [[[[")
    past = value_outcome(test, _run(VALUE_MARKER + "[" * (LIMIT + 1) + "0" + "]" * (LIMIT + 1)), None)
    assert past.status is Status.FAILED and "too deeply" in past.message


def test_a_deep_result_record_is_a_failure_of_that_program():
    """The judge never writes one, but a deep JSON line on the result stream is read without breaking."""
    deep = json.dumps({"event": "value", "id": "0", "value": 0})[:-1] + ', "x": ' + "[" * 50_000 + "]" * 50_000 + "}"
    run = {"result": deep + "\n" + json.dumps({"event": "end", "tamper": []}) + "\n", "stdout": "", "stderr": "",
           "stdout_total": 0, "stderr_total": 0, "cpu_seconds": 0.0, "wall_seconds": 0.0, "max_rss_bytes": 0,
           "exit_code": 0, "signal": None, "killed": None}
    request = _function_request(1, "list", [0])
    result = judge(request, [run])
    assert not result.passed and "malformed" in result.message, result.message


# ---- every type that crosses, both ways, at the limit ------------------------------------------------------------
_C = "__import__('collections')."
WRAPS = {  # one level of each type that crosses the channel, around `v`
    "list": "[v]", "tuple": "(v,)", "dict": "{'k': v}", "frozenset": "frozenset([v])", "deque": _C + "deque([v])",
    "Counter": _C + "Counter({'k': v})", "OrderedDict": _C + "OrderedDict(k=v)",
    "defaultdict": _C + "defaultdict(list, k=v)", "namedtuple": "P(v)",
    "mix": "[v] if i % 4 == 0 else (v,) if i % 4 == 1 else {'a': v} if i % 4 == 2 else " + _C + "deque([v])",
}
# How deep a value is, read without recursion (the test's and the program's own code: CPython's default limit).
DEPTH = ("P = __import__('collections').namedtuple('P', 'x')\n"
         "def depth(v):\n    d = 0\n    while not isinstance(v, int):\n"
         "        v = next(iter(v.values())) if isinstance(v, dict) else next(iter(v))\n        d += 1\n    return d\n")


def _build(kind, n, indent, bottom="0"):
    return f"{indent}v = {bottom}\n{indent}for i in range({n}):\n{indent}    v = {WRAPS[kind]}\n"


def _crossing_request(kind, n):
    """One request per type: its value `n` levels deep returned, passed in, raised with, and each through a
    test's callable (returned by it, passed to it, raised by it), and a list at its bottom appended to."""
    program = (DEPTH + f"def make(n):\n{_build(kind, 'n', '    ')}    return v\n"
               "def f(way, arg=None):\n"
               "    if way == 'ret':\n        return make(arg)\n"
               "    if way == 'arg':\n        return depth(arg)\n"
               "    if way == 'raise':\n        raise ValueError(make(arg))\n"
               "    if way == 'cbret':\n        return depth(arg())\n"
               f"    if way == 'cbarg':\n        return arg(make({n}))\n"
               "    if way == 'cbraise':\n        return arg()\n"
               "    while not isinstance(arg, list) or arg:  # 'bottom'\n"
               "        arg = next(iter(arg.values())) if isinstance(arg, dict) else next(iter(arg))\n"
               "    arg.append(1)\n")
    preamble = (DEPTH + f"def made():\n{_build(kind, n, '    ')}    return v\n"
                f"def bottom():\n    l = []\n{_build(kind, n - 1, '    ', 'l')}    return v, l\n")
    tests = [
        TestCase("ret", f"candidate('ret', {n})", CheckKind.TRUTHY),
        TestCase("arg", f"assert candidate('arg', made()) == {n}"),
        TestCase("raise", f"try:\n    candidate('raise', {n - 1})\nexcept ValueError as e:\n"
                          f"    assert depth(e.args[0]) == {n - 1}\nelse:\n    assert False"),
        TestCase("cbret", f"assert candidate('cbret', made) == {n}"),
        TestCase("cbarg", f"assert candidate('cbarg', depth) == {n}"),
        TestCase("cbraise", f"def boom():\n    raise ValueError(made())\ntry:\n    candidate('cbraise', boom)\n"
                            f"except ValueError as e:\n    assert depth(e.args[0]) == {n}\nelse:\n    assert False"),
    ]
    if kind != "frozenset":  # no list sits at the bottom of a frozenset
        tests.append(TestCase("bottom", "v, l = bottom()\ncandidate('bottom', v)\nassert l == [1], l"))
    return ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", test_preamble=preamble,
                            tests=tuple(tests))


NODE = "class Node:\n    def __init__(self, nxt=None):\n        self.nxt = nxt\n        self.val = 0\n"


def _task_objects_request(n):
    """A chain of `n` objects of a task class built by the test: passed in, changed at its far end, returned."""
    program = NODE + ("def f(way, node):\n    if way == 'ret':\n        return node\n"
                      "    while node.nxt:\n        node = node.nxt\n    node.val = 5\n")
    preamble = f"last = chain = Node()\nfor _ in range({n - 1}):\n    chain = Node(chain)\n"
    tests = (TestCase("ret", "assert candidate('ret', chain) is chain"),
             TestCase("far end", "candidate('far', chain)\nassert last.val == 5"))
    return ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", trusted_code=NODE,
                            test_preamble=preamble, tests=tests)


def test_every_type_crosses_both_ways_at_the_limit_without_a_note(sandbox):
    """Before: 60 of these 70 checks failed (RecursionError on either side, a `protocol:bad_message` note
    for a deque or namedtuple returned, a deep exception argument lost its type)."""
    requests = [_crossing_request(kind, LIMIT) for kind in WRAPS] + [_task_objects_request(LIMIT)]
    for request, result in zip(requests, sandbox.run_many(requests)):
        assert result.passed and not result.tamper, (request.program.splitlines()[-1], result.message, result.tamper)


@pytest.mark.parametrize("kind", ["list", "Counter", "mix"])
def test_one_level_past_the_limit_is_a_clean_failure_both_ways(sandbox, kind):
    request = _crossing_request(kind, LIMIT + 1)
    result = sandbox.run(request)
    by_id = {t.id: t for t in result.tests}
    assert "too deeply" in by_id["ret"].message and "too deeply" in by_id["arg"].message, result.tests
    assert not result.caught and not result.passed


@pytest.mark.parametrize("kind", sorted(WRAPS))
def test_the_walks_need_no_recursion(kind):
    """Each side's encoder and decoder, and the copy-back, at the limit under a recursion limit of 100."""
    import sys

    from coderl.sandbox.server.common import values
    ns = {"l": [1]}
    exec(DEPTH + (_build(kind, LIMIT, "") if kind == "frozenset" else _build(kind, LIMIT - 1, "", "l")), ns)
    value = ns["v"]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100)
    try:
        encoded = values.walk(value, values.encode_node, LIMIT)
        decoded = values.walk(encoded, values.decode_node)
        text = values.text(encoded)
        values.update_in_place(value, decoded)
    finally:
        sys.setrecursionlimit(old)
    assert text == values.text(values.walk(decoded, values.encode_node, LIMIT))
    with pytest.raises(ValueError, match="too deeply"):
        values.walk([value], values.encode_node, LIMIT)
