"""One owner per output: a command that writes a run folder or an output file holds it for its whole life.

    with owned(("--out", path), ...): ...   the command's outputs held (an exclusive `flock` on a lock file
                                            beside each, `.NAME.lock`, naming the holder: pid, host, command,
                                            start); a second command on the same output, on a folder the output
                                            is inside, on a folder holding an output in use, or on a file written
                                            beside one in use (its `SIDECARS`: OUT.summary.json, ...) or beside
                                            which one in use writes, is refused in one line naming the holder
                                            (`ConfigError`: exit 2), before it writes
    with file_lock(path): ...               a lock file waited for, not refused (a model converted once)

The kernel releases a `flock` when its holder dies however it dies (SIGKILL too): a lock file left behind by a
killed holder is free for the next command.  A holder removes its lock file when it ends.  `--resume` and
`--overwrite` are refused alike while the output is in use.

One lock per run: `coderl launch` holds the run's folder for all its ranks and names its lock file in
`CODERL_OWNER` (`ENV`); a process started under it (a rank), writing there, takes none of its own.  Under a plain
`accelerate launch` rank 0 takes it and the other ranks none.  A pipeline holds its whole tree (its stages run
inside its process and take none).
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import socket
import sys
import time

from coderl.base.config import ConfigError
from coderl.base.outputs import writable

ENV = "CODERL_OWNER"  # the lock file that the launching process holds for the processes it starts
# What a command writes beside its output OUT, under OUT's lock: check's OUT.summary.json, --skip-bad-rows'
# OUT.skipped_rows.txt, an output prefix's OUT.md / OUT.json / OUT.png (decontaminate, compare)
SIDECARS = (".summary.json", ".skipped_rows.txt", ".md", ".json", ".png")
_MINE: set[str] = set()  # the lock files this process holds (two outputs of one command may sit side by side)


def lock_file(path: str) -> str:
    """The lock file of output `path` (a folder, a file or a prefix of files): `.NAME.lock` beside it, where the
    links in its path lead (two names of one output have one lock)."""
    path = os.path.realpath(path)
    return os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.lock")


@contextlib.contextmanager
def file_lock(path: str):
    """An exclusive lock on `path` waited for (two processes do not download or convert at once), its file
    removed on release by its holder (a process that waited on the removed file takes a new one), so none is
    left behind, whether the block succeeded or failed."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    f = _lock(path, wait=True)
    try:
        yield
    finally:
        _release(path, f)


def _lock(path: str, *, wait: bool):
    """The open lock file at `path`, locked; None when another process holds it (`wait` False)."""
    while True:
        f = open(path, "a+", encoding="utf-8")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            f.close()
            return None
        with contextlib.suppress(FileNotFoundError):
            if os.path.samestat(os.fstat(f.fileno()), os.stat(path)):
                return f  # locked, and still the file at `path`
        f.close()  # its holder removed it meanwhile: lock the next one


def _release(path: str, f) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)  # while still held
    f.close()


def _held(path: str) -> bool:
    """Whether a process holds the lock file at `path` (a file left by a killed holder is not held)."""
    try:
        f = open(path, encoding="utf-8")
    except OSError:
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False


def _holder(path: str) -> str:
    """The holder a lock file names, as a phrase: `pid 123 (coderl train --out x, started 2026-...)`."""
    for _ in range(20):  # a holder writes its name just after it locks
        with contextlib.suppress(OSError, ValueError):
            with open(path, encoding="utf-8") as f:
                who = json.load(f)
            where = "" if who.get("host") == socket.gethostname() else f" on {who.get('host')}"
            return f"pid {who['pid']}{where} ({who['command']}, started {who['started']})"
        time.sleep(0.05)
    return "another process"


def _another(flag: str) -> str:
    """What to choose instead: the flag (`--out`), or the key a config file names it by (`run.yaml: out`)."""
    return flag if flag.startswith("-") else flag.rsplit(": ", 1)[-1]


def _outputs_inside(folder: str, depth: int = 3) -> list[str]:
    """The lock files of outputs at most `depth` folders below `folder` (a pipeline's stages are two below)."""
    found, level = [], [folder]
    for _ in range(depth):
        below = []
        for d in level:
            with contextlib.suppress(OSError), os.scandir(d) as entries:
                for entry in entries:
                    if entry.name.startswith(".") and entry.name.endswith(".lock") and entry.is_file():
                        found.append(entry.path)
                    elif entry.is_dir(follow_symlinks=False):
                        below.append(entry.path)
        level = below
    return found


def _outputs_beside(folder: str) -> list[str]:
    """The names of the outputs in `folder` that have a lock file (held or left by a killed holder)."""
    try:
        with os.scandir(folder) as entries:
            return [e.name[1:-len(".lock")] for e in entries if e.name.startswith(".") and e.name.endswith(".lock")]
    except OSError:
        return []


def _refuse_if_in_use(flag: str, given: str, mine: str) -> None:
    """One line when a folder above `given`, or an output inside it, is held by another process."""
    path = os.path.realpath(given)
    above, p = [], os.path.dirname(path)
    while p != os.path.dirname(p):
        above.append(p)
        p = os.path.dirname(p)
    for folder in above:
        lock = lock_file(folder)
        if os.path.exists(lock) and _held(lock):
            raise ConfigError(f"{flag} {given}: inside {folder}, which is in use by {_holder(lock)}; wait for it "
                              f"to end or stop it, or choose another {_another(flag)}")
    name = os.path.basename(path)
    for other in _outputs_beside(os.path.dirname(path)):
        lock = os.path.join(os.path.dirname(path), f".{other}.lock")
        if lock in (mine, *_MINE) or not any(name == other + s or other == name + s for s in SIDECARS) \
                or not _held(lock):
            continue
        whose = (f"written beside {os.path.join(os.path.dirname(path), other)}, which is" if name.startswith(other)
                 else f"{os.path.join(os.path.dirname(path), other)} is written beside it and")
        raise ConfigError(f"{flag} {given}: {whose} in use by {_holder(lock)}; wait for it to end or stop it, or "
                          f"choose another {_another(flag)}")
    if os.path.isdir(path):
        for lock in _outputs_inside(path):
            if lock != mine and _held(lock):
                inner = os.path.join(os.path.dirname(lock), os.path.basename(lock)[1:-len(".lock")])
                raise ConfigError(f"{flag} {given}: {inner} in it is in use by {_holder(lock)}; wait for it to end "
                                  f"or stop it, or choose another {_another(flag)}")


def _launched_here(lock: str) -> bool:
    """Whether a process that started this one (`coderl launch`) holds `lock` for it; or, under a launcher
    that names none, whether this is a rank other than 0 (rank 0 holds the run)."""
    if os.environ.get(ENV):
        return os.environ[ENV] == lock and _held(lock)
    return int(os.environ.get("RANK", "0")) > 0 and int(os.environ.get("WORLD_SIZE", "1")) > 1


@contextlib.contextmanager
def owned(*outputs: tuple[str, str | None]):
    """Hold each output (flag, path; None: nothing written) for the block, or refuse in one line (module
    docstring); the folders made for a lock file that stay empty are removed after."""
    with contextlib.ExitStack() as stack:
        held: dict[str, tuple[str, str]] = {}  # lock file -> the output that holds it
        for flag, path in outputs:
            if not path:
                continue
            first = held.setdefault(lock_file(path), (flag, path))
            if first != (flag, path):  # two outputs of one command in one file: the second would wait on the first
                raise ConfigError(f"{flag} {path}: is also written by {first[0]} {first[1]}")
            stack.enter_context(_owned(flag, path))
        yield


@contextlib.contextmanager
def _owned(flag: str, given: str):
    """`given` held, as `owned`; messages name it as given."""
    lock = lock_file(given)
    if _launched_here(lock):
        yield
        return
    writable(flag, given, "prefix")  # the folders it goes in: a file among them, a read-only one
    made, p = [], os.path.dirname(lock)
    while not os.path.exists(p):
        made.append(p)
        p = os.path.dirname(p)
    try:
        os.makedirs(os.path.dirname(lock), exist_ok=True)
        f = None
        for _ in range(5):  # a moment's retry: another command may be looking at a lock file left by a killed one
            f = _lock(lock, wait=False)
            if f is not None:
                break
            time.sleep(0.05)
    except OSError as exc:
        _remove_empty(made)
        raise ConfigError(f"{flag} {given}: cannot write in {os.path.dirname(lock)} ({exc.strerror})") from None
    if f is None:
        _remove_empty(made)
        raise ConfigError(f"{flag} {given}: in use by {_holder(lock)}; wait for it to end or stop it, or choose "
                          f"another {_another(flag)}")
    try:
        _refuse_if_in_use(flag, given, lock)
        _MINE.add(lock)
        command = " ".join(["coderl", *sys.argv[1:]])
        f.truncate(0)
        f.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                            "command": command if len(command) <= 200 else command[:197] + "...",
                            "started": datetime.datetime.now().isoformat(timespec="seconds")}))
        f.flush()
        yield
    finally:
        _MINE.discard(lock)
        _release(lock, f)
        _remove_empty(made)


def _remove_empty(folders: list[str]) -> None:
    for d in folders:  # deepest first; a folder the command filled stays
        with contextlib.suppress(OSError):
            os.rmdir(d)
