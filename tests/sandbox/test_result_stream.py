"""The judge's result stream is read strictly: only its last line may be cut short, a bad record in the
middle or more records than the tests need stops the reading, and the program fails."""

from coderl.sandbox.judge import _records

END = '{"event": "end", "tamper": []}'


def test_a_record_cut_short_at_the_end_is_dropped():
    records, bad = _records('{"event": "test", "id": "0", "status": "passed"}\n' + END + '\n{"event": "va', 10)
    assert [r["event"] for r in records] == ["test", "end"] and bad is None


def test_a_bad_record_in_the_middle_stops_the_reading():
    records, bad = _records('{"event": "test", "id": "0", "status": "passed"}\nnot json\n' + END, 10)
    assert [r["event"] for r in records] == ["test"] and bad == "record 2 is not JSON"
    records, bad = _records('[1, 2]\n' + END, 10)
    assert records == [] and bad == "record 1 is not an object"


def test_a_deeply_nested_record_is_bad_not_a_crash():
    records, bad = _records("[" * 100_000 + "]" * 100_000 + "\n" + END, 10)
    assert records == [] and bad == "record 1 is not JSON"


def test_more_records_than_the_tests_need_is_bad():
    records, bad = _records("\n".join([END] * 20), 5)
    assert len(records) == 5 and bad == "over 5 records"


def test_a_malformed_stream_fails_the_program():
    from coderl.sandbox.judge import _judge_tests
    from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

    request = ExecutionRequest(Mode.PYTHON_TESTS, program="def f():\n    return 1\n", entry_point="f",
                               tests=(TestCase("0", "f()", CheckKind.EQUALS, 1),), limits=Limits())
    run = {"result": '{"event": "value", "id": "0", "value": 1}\ngarbage\n' + END + "\n", "exit_code": 0,
           "signal": None, "killed": None, "stderr": "", "stdout": "", "cpu_seconds": 0.0, "wall_seconds": 0.1,
           "max_rss_bytes": 0, "sandbox_error": None, "stdout_total": 0, "stderr_total": 0,
           "judge": {"exit_code": 0, "signal": None}}
    result = _judge_tests(request, run, "full")
    assert not result.passed and "malformed" in result.message, (result.status, result.message)
