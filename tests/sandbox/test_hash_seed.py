"""One string-hash seed for every process the sandbox judges (docs/sandbox.md, "One hash seed").

A program whose result depends on the iteration order of a set of strings gets the verdict the plain interpreter
gives it under `PYTHONHASHSEED=0`, in every sandbox session: function tasks (the program forks from the server),
stdin/stdout scripts (likewise) and commands (a Python the command starts).  Checked on generated programs against
the interpreter, and across fresh sessions (each server once drew its own seed: such a program passed in 2 of 16
sessions and in 0 of 60 runs within one, and a demo's training changed with the session)."""

import os
import random
import string
import subprocess
import sys
import tempfile

import pytest

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, Status, TestCase

# Function bodies whose value depends on the order strings hash into a set or dict, or on hash() itself.
BODIES = (
    "    return list(set(words))\n",
    "    return [w for w in frozenset(words)]\n",
    "    seen = {}\n    for w in set(words):\n        seen[w] = 1\n    return list(seen)\n",
    "    return sorted(words, key=lambda w: hash(w) % 3)\n",
    "    return list({w.upper() for w in words})\n",
)
SCRIPT = "print(*set(input().split()))\n"
PLAIN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


def word_lists(n, seed):
    """`n` lists of 2-5 random words (a repeat now and then), each with the value a correct program returns: the
    words in first-seen order (upper-cased for the body that upper-cases)."""
    rng = random.Random(seed)
    lists = []
    for _ in range(n):
        words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(1, 6))) for _ in range(rng.randint(2, 5))]
        if rng.random() < 0.3:
            words.append(rng.choice(words))
        lists.append(words)
    return lists


def function_cases(n, seed):
    cases = []
    for i, words in enumerate(word_lists(n, seed)):
        body = BODIES[i % len(BODIES)]
        expected = list(dict.fromkeys(w.upper() if "upper" in body else w for w in words))
        if "hash(w)" in body:
            expected = list(words)
        cases.append(("def f(words):\n" + body, words, expected))
    return cases


def plain_function_verdict(program, words, expected):
    check = program + f"\nimport sys\nsys.exit(0 if f({words!r}) == {expected!r} else 1)\n"
    run = subprocess.run([sys.executable, "-s", "-c", check], env=PLAIN_ENV, capture_output=True, timeout=30)
    assert run.returncode in (0, 1), run.stderr.decode()
    return run.returncode == 0


def plain_script_verdict(words, expected_line):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "main.py"), "w") as f:
            f.write(SCRIPT)
        run = subprocess.run([sys.executable, "-s", "main.py"], cwd=d, env=PLAIN_ENV, input=" ".join(words) + "\n",
                             capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return run.stdout.split() == expected_line.split()


def function_request(program, words, expected):
    return ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                            tests=(TestCase("0", f"candidate({words!r})", CheckKind.EQUALS, expected),))


def stdio_tests(words):
    return (TestCase("0", " ".join(words) + "\n", CheckKind.STDOUT, " ".join(dict.fromkeys(words))),)


def verdicts(sb, requests):
    results = [f.result() for f in [sb.submit(r) for r in requests]]
    assert not [r for r in results if r.status not in (Status.PASSED, Status.FAILED)], results
    return [r.status == Status.PASSED for r in results]


def test_function_tasks_get_the_interpreters_verdict_under_seed_0_in_every_session():
    cases = function_cases(60, seed=5)
    plain = [plain_function_verdict(*c) for c in cases]
    assert 10 <= sum(plain) <= 50  # both verdicts occur: the programs do depend on the seed
    sessions = []
    for _ in range(2):  # two servers, each started afresh
        with Sandbox(workers=2) as sb:
            sessions.append(verdicts(sb, [function_request(*c) for c in cases]))
    assert sessions[0] == plain
    assert sessions[1] == plain


def test_scripts_and_commands_get_the_interpreters_verdict_under_seed_0():
    lists = word_lists(40, seed=6)
    plain = [plain_script_verdict(w, " ".join(dict.fromkeys(w))) for w in lists]
    assert 5 <= sum(plain) <= 35
    scripts = [ExecutionRequest(Mode.PYTHON_SCRIPT, program=SCRIPT, tests=stdio_tests(w), limits=Limits())
               for w in lists]
    with Sandbox(workers=2) as sb:
        assert verdicts(sb, scripts) == plain
        python = sys.executable if sb.isolation == "full" else "/usr/bin/python3"  # one the slot uid may run
        if not os.access(python, os.X_OK):
            pytest.skip(f"no {python} here")
        commands = [ExecutionRequest(Mode.COMMAND, files={"main.py": SCRIPT}, argv=(python, "main.py"),
                                     tests=stdio_tests(w), limits=Limits()) for w in lists]
        assert verdicts(sb, commands) == plain


def test_the_callers_python_variables_reach_neither_the_server_nor_a_program(tmp_path, monkeypatch):
    """The server no longer runs under `-I` (whose `-E` would drop the seed): its environment must still be the
    client's own dict, so a PYTHONPATH, PYTHONSTARTUP or PYTHONHASHSEED in the trainer's environment changes nothing
    a program sees (an attack on the change: a module planted on the caller's path shadowing one the judge imports)."""
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "json.py").write_text("raise SystemExit('planted json imported')\n")
    monkeypatch.setenv("PYTHONPATH", str(planted))
    monkeypatch.setenv("PYTHONHASHSEED", "123")
    monkeypatch.setenv("PYTHONINSPECT", "1")
    program = ("import os, sys\n"
               "print(sorted(k for k in os.environ if k.startswith('PYTHON')), os.environ['PYTHONHASHSEED'],\n"
               "      any('planted' in p for p in sys.path), sys.flags.hash_randomization)\n")
    with Sandbox(workers=1) as sb:
        result = sb.run(ExecutionRequest(Mode.PYTHON_SCRIPT, program=program, limits=Limits(),
                                         tests=(TestCase("0", "", CheckKind.STDOUT, "x"),)))
        assert result.stdout.split("\n")[0] == "['PYTHONHASHSEED', 'PYTHONIOENCODING'] 0 False 0", result
        verdicts_ = verdicts(sb, [function_request(*c) for c in function_cases(10, seed=5)])
    assert verdicts_ == [plain_function_verdict(*c) for c in function_cases(10, seed=5)]
