"""No value within the limits breaks the parent: program data nested up to `flat.MAX_DEPTH` levels is read,
compared and printed in the parent without recursion (`coderl/sandbox/flat.py`), and one level more is a
clean failure of that program, never an exception in the trainer."""

import json
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from coderl.sandbox import flat
from coderl.sandbox.judge import BadRecord, decode_value, judge
from coderl.sandbox.outputs import json_equal, loads, value_outcome
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
