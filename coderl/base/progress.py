"""The one progress line of every long stage (RL and SFT steps, `coderl check`, `coderl decontaminate`), plain text
that a log keeps, with or without a terminal.  Its format is stable (a stall alarm reads it):

    LABEL DONE/TOTAL[ DETAILS][, about T left]

e.g. `step 3/20 reward 0.412  pass 0.38  512 tok/s  9.8s/step, about 3 min left`.  The time left is the mean
seconds per unit done so far in this process times the units left; the last line (DONE = TOTAL) has none.

    line = ProgressLine("step", total, start, log=log, every=0)   # every=0: a line per update
    line.update(done, details)                                    # a line when `every` seconds have passed
    line.close()
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def eta(seconds: float) -> str:
    """`seconds` to go, as a person reads it: "about 40 s", "about 12 min", "about 2 h 5 min"."""
    minutes = round(seconds / 60)
    if seconds < 60:
        return f"about {max(1, round(seconds))} s"
    return f"about {minutes} min" if minutes < 60 else f"about {minutes // 60} h {minutes % 60} min"


def progress_line(label: str, done: int, total: int, details: str = "", seconds_left: float | None = None) -> str:
    """The line (module docstring)."""
    return (f"{label} {done}/{total}" + (f" {details}" if details else "")
            + (f", {eta(seconds_left)} left" if seconds_left is not None and done < total else ""))


def to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class ProgressLine:
    """`progress_line`s through `log`: one when `every` seconds have passed since the last (or the start), and at the
    last unit when one was shown before (a stage shorter than `every` says nothing).  `live`: a terminal's line
    rewritten in place at every update (`close` ends it), instead of lines through `log`."""

    def __init__(self, label: str, total: int, start: int = 0, *, log: Callable[[str], None] = to_stderr,
                 every: float = 30.0, live: bool = False):
        self.label, self.total, self.start, self.log, self.every, self.live = label, total, start, log, every, live
        self.began = self.last = time.perf_counter()
        self.shown = False

    def left(self, done: int) -> float:
        return (time.perf_counter() - self.began) / max(done - self.start, 1) * (self.total - done)

    def update(self, done: int, details: str = "") -> None:
        now = time.perf_counter()
        if self.live:
            print(f"\r{progress_line(self.label, done, self.total, details, self.left(done))}  ", end="",
                  file=sys.stderr, flush=True)
            self.shown = True
        elif now - self.last >= self.every or (done >= self.total and self.shown):
            self.last, self.shown = now, True
            self.log(progress_line(self.label, done, self.total, details, self.left(done)))

    def close(self) -> None:
        if self.live and self.shown:
            print(file=sys.stderr)


EVERY = 30.0  # seconds between the lines of `on_stderr` outside a terminal


def on_stderr(label: str, total: int) -> ProgressLine:
    """The progress of a stage on stderr: a live line on a terminal, else a plain line every `EVERY` seconds (a log)."""
    return ProgressLine(label, total, every=EVERY, live=sys.stderr.isatty())
