from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

ADD_TESTS = (
    TestCase("0", "candidate(1, 2)", CheckKind.EQUALS, 3),
    TestCase("1", "assert candidate(2, 2) == 4", CheckKind.ASSERT),
    TestCase("2", "candidate(0, 0)", CheckKind.FALSY),
)
ADD = "def add(a, b):\n    return a + b\n"


def make_tests_request(program: str, tests=ADD_TESTS, entry_point="add", **limits) -> ExecutionRequest:
    return ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point=entry_point, tests=tuple(tests),
                            limits=Limits(**limits))


def make_script_request(program: str, cases=(("", ""),), tolerance=None, **limits) -> ExecutionRequest:
    tests = tuple(TestCase(str(i), stdin, CheckKind.STDOUT, out) for i, (stdin, out) in enumerate(cases))
    return ExecutionRequest(Mode.PYTHON_SCRIPT, program=program, tests=tests, float_tolerance=tolerance,
                            limits=Limits(**limits))
