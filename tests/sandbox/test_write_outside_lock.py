"""The client writes a request to the server without holding the lock its reader thread takes for every message
(issue 77): a write blocks while the server's input pipe is full, the server stops reading while its output pipe is
full, and only the reader empties that; with the lock held across the write, `coderl check` of HumanEval+'s 164
tasks (requests of up to 0.5 MB) hung for good, twice, before any result."""

import itertools
import threading

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase


class Stdin:
    """A server's input pipe: records whether another thread (the reader) could take the lock during each write."""

    def __init__(self, sb):
        self.sb, self.free, self.data = sb, [], b""

    def write(self, data):
        got = []

        def take():  # the reader thread, taking the lock for a message
            got.append(self.sb._lock.acquire(timeout=2))
            if got[0]:
                self.sb._lock.release()

        probe = threading.Thread(target=take)
        probe.start()
        probe.join()
        self.free.append(got[0])
        self.data += data

    def flush(self):
        pass


class Proc:
    def __init__(self, sb):
        self.stdin = Stdin(sb)


def test_a_request_is_written_with_the_readers_lock_free():
    sb = object.__new__(Sandbox)
    sb._lock, sb._write_lock, sb._ids, sb._pending = threading.RLock(), threading.Lock(), itertools.count(), {}
    sb._closed, sb.broken, sb.limits, sb.workers, sb.server_info = False, None, Limits(), 1, {"start_bytes": 0}
    sb._proc = Proc(sb)
    request = ExecutionRequest(Mode.PYTHON_TESTS, program="def f():\n    return 1\n", entry_point="f",
                               tests=(TestCase("0", "f()", CheckKind.EQUALS, 1),))
    future = sb.submit_once(request)
    assert sb._proc.stdin.free == [True] and b'"id": 0' in sb._proc.stdin.data and not future.done()
    assert list(sb._pending) == [0]  # remembered before it was written: its answer finds it
