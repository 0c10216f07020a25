"""Process trees of the interrupt tests (tests/test_interrupts.py, tests/sandbox/test_interrupts.py)."""

import subprocess


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, theirs, ...), from `ps`."""
    out = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True).stdout
    children = {}
    for line in out.splitlines():
        child, parent = map(int, line.split())
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        below = children.get(todo.pop(), [])
        found.extend(below)
        todo.extend(below)
    return found
