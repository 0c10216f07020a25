"""A stalled or slowing RL run says so: the heartbeat file, stalls, slowdowns and the hard limit on every wait.

    watch = Watch(log)                       # pure: its clock is injected (tests never wait on wall time)
    watch.phase("rollouts", step)            # what the step waits on now (the loops mark it)
    lines = watch.finished_step(step, m, tokens, programs)   # stalls and slowdowns of a finished step
    state, stop = watch.check()              # the wait in flight: a stall line once, a stop line past the limit
    with Heartbeat(run_dir, watch):          # a thread: RUN/heartbeat.json every `beat_seconds`, and `check()`
        ...

* A stall: a step, its generation (`time/generation`) or its sandbox wait (`time/sandbox_wait`) longer than
  `STALL_MULTIPLE` x the running median of the earlier ones (once `HISTORY` of them are known) is logged
  with what it waited on; the wait in flight is checked too, every beat, so a hang is said while it lasts.
* A slowdown: generated tokens per second or programs run per second of sandbox wait below
  `SLOW_FRACTION` x their running median for `SLOW_STEPS` steps in a row is logged.
* The hard limit: a wait longer than max(`HARD_MULTIPLE` x its median, `HARD_FLOOR_SECONDS`) stops the
  run with one line (`StallStop`, exit 4) instead of hanging; the first `HISTORY` steps (model loading,
  compilation) have no median and so no limit.

docs/training.md, "When a run goes wrong".
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable

from coderl.base.config import ConfigError

STALL_MULTIPLE = 10.0  # x the running median: a stall
HARD_MULTIPLE = 50.0  # x the running median: the run stops
HARD_FLOOR_SECONDS = 600.0  # never stop on a wait shorter than this
HISTORY = 3  # earlier values needed before a median is trusted
SLOW_FRACTION = 0.3  # x the running median of a rate: slow
SLOW_STEPS = 3  # slow steps in a row: a slowdown
HEARTBEAT = "heartbeat.json"

# what each timed part of a step waits on: (metric, what the line calls it)
PARTS = {"step": ("time/step", "the whole step"), "generation": ("time/generation", "the generation engine"),
         "sandbox": ("time/sandbox_wait", "the sandbox")}
WAITS_ON = {"rollouts": "the generation engine and the sandbox (rollouts)", "optimisation": "the update",
            "bookkeeping": "evaluation, logging and the checkpoint", "starting": "the start (model, first evaluation)",
            "ended": "nothing: the loop has ended"}


class StallStop(ConfigError):
    """A wait ran past its hard limit: one line, exit code 4 (`coderl train`)."""

    exit_code = 4


class Watch:
    """Running medians of a run's step parts and rates; what the step in flight waits on."""

    def __init__(self, log: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.log, self.clock = log, clock
        self.times: dict[str, list[float]] = {part: [] for part in PARTS}
        self.rates: dict[str, list[float]] = {"tokens": [], "programs": []}
        self.slow: dict[str, int] = {"tokens": 0, "programs": 0}
        self.step: int | None = None  # 0-based step in flight
        self.current = "starting"  # the phase in flight
        self.phase_began = self.step_began = clock()
        self.said: tuple | None = None  # the live stall already logged (step, phase)
        self.stalls = 0  # stall lines so far

    def phase(self, name: str, step: int | None = None) -> None:
        """The run now waits on `name` (a WAITS_ON key); with `step`, a new step begins."""
        now = self.clock()
        if step is not None:
            self.step, self.step_began = step, now
        self.current, self.phase_began = name, now

    @staticmethod
    def median(values: list[float]) -> float | None:
        return statistics.median(values) if len(values) >= HISTORY else None

    def limit(self, part: str) -> float | None:
        """The hard limit (seconds) of a wait of `part`, or None while its median is unknown."""
        median = self.median(self.times[part])
        return None if median is None else max(HARD_MULTIPLE * median, HARD_FLOOR_SECONDS)

    def finished_step(self, step: int, metrics: dict, tokens: float | None = None,
                      programs: float | None = None) -> list[str]:
        """Lines for the stalls and slowdowns of finished step `step` (1-based: its time/* metrics, the tokens it
        generated and the programs it ran); adds `watch/stalls` (so far) and `watch/slowdown` (0/1) to `metrics`;
        the parts and rates join the medians after."""
        lines = []
        for part, (key, what) in PARTS.items():
            seconds = metrics.get(key)
            if seconds is None:
                continue
            median = self.median(self.times[part])
            if median is not None and median > 0 and seconds > STALL_MULTIPLE * median:
                lines.append(f"step {step}: stall: {what} took {seconds:.1f} s, {seconds / median:.0f}x its median "
                             f"of {median:.1f} s")
            self.times[part].append(float(seconds))
        slow = []
        for name, rate, what in (("tokens", self._rate(tokens, metrics.get("time/generation")), "generated tokens/s"),
                                 ("programs", self._rate(programs, metrics.get("time/sandbox_wait")),
                                  "programs run/s of sandbox wait")):
            if rate is None:
                continue
            median = self.median(self.rates[name])
            self.slow[name] = self.slow[name] + 1 if median and rate < SLOW_FRACTION * median else 0
            if self.slow[name] >= SLOW_STEPS:
                slow.append(name)
                lines.append(f"step {step}: slowdown: {what} {rate:.1f}, under {SLOW_FRACTION:.0%} of its median of "
                             f"{median:.1f} for {self.slow[name]} steps in a row")
            if not self.slow[name]:  # a slow spell does not drag the median down with it
                self.rates[name].append(rate)
        self.stalls += sum(line.split(": ", 2)[1] == "stall" for line in lines)
        metrics["watch/stalls"] = float(self.stalls)
        metrics["watch/slowdown"] = float(bool(slow))
        return lines

    @staticmethod
    def _rate(count, seconds) -> float | None:
        return count / seconds if count is not None and seconds else None

    def check(self) -> tuple[dict, str | None]:
        """The wait in flight: (its state for the heartbeat, the stop line once past its hard limit, else None);
        a stall line is logged once per phase."""
        now = self.clock()
        step_seconds = now - self.step_began
        state = {"step": None if self.step is None else self.step + 1, "phase": self.current,
                 "waits_on": WAITS_ON.get(self.current, self.current),
                 "phase_seconds": round(now - self.phase_began, 3),
                 "step_seconds": round(step_seconds, 3), "stalls": self.stalls}
        median = self.median(self.times["step"])
        if self.step is None or median is None or median <= 0:
            return state, None
        where = f"step {self.step + 1}: "
        waited = f"waiting on {state['waits_on']} for {state['phase_seconds']:.0f} s"
        limit = self.limit("step")
        if limit is not None and step_seconds > limit:
            return state, (f"{where}stalled past the hard limit: {waited}, the step {step_seconds:.0f} s, over "
                           f"{limit:.0f} s (max of {HARD_MULTIPLE:g}x the median step of {median:.1f} s and "
                           f"{HARD_FLOOR_SECONDS:g} s); stopped")
        if step_seconds > STALL_MULTIPLE * median and self.said != (self.step, self.current):
            self.said = (self.step, self.current)
            self.stalls += 1
            state["stalls"] = self.stalls
            self.log(f"{where}stall: {waited}, the step {step_seconds:.0f} s, {step_seconds / median:.0f}x the median "
                     f"step of {median:.1f} s")
        return state, None


def write_heartbeat(run_dir: str, state: dict) -> None:
    """RUN/heartbeat.json: `state` with the time and pid, written whole (a temporary file renamed over it)."""
    path = os.path.join(run_dir, HEARTBEAT)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({**state, "time": time.time(), "pid": os.getpid()}, f)
    os.replace(tmp, path)


class Heartbeat:
    """A thread that writes the heartbeat every `beat_seconds` and checks the wait in flight; past the hard limit
    it logs the stop line and raises `StallStop` in the main thread (SIGUSR2: a blocked wait is interrupted),
    and ends the process with exit 4 if that has not ended it within `grace_seconds`."""

    def __init__(self, run_dir: str, watch: Watch, *, beat_seconds: float = 10.0, grace_seconds: float = 60.0,
                 write: Callable[[str, dict], None] = write_heartbeat):
        self.run_dir, self.watch, self.beat, self.grace, self.write = run_dir, watch, beat_seconds, grace_seconds, write
        self.stop_line: str | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="coderl-heartbeat")
        self._handler_set = False

    def __enter__(self) -> Heartbeat:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGUSR2, self._raise)
            self._handler_set = True
        self.tick()  # one at once: a run that ends before its first beat still leaves one
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join(timeout=5)
        self.watch.phase("ended")
        self.tick()
        if self._handler_set:
            signal.signal(signal.SIGUSR2, self._previous)

    def _raise(self, signum, frame):
        raise StallStop(self.stop_line or "stalled past the hard limit")

    def tick(self) -> str | None:
        """One beat: the heartbeat written, the wait checked; the stop line when the run must stop."""
        state, stop = self.watch.check()
        try:
            self.write(self.run_dir, state)
        except OSError:
            pass  # a full disk is the checkpoint's to report; the beat goes on
        return stop

    def _run(self) -> None:
        while not self._done.wait(self.beat):
            stop = self.tick()
            if stop is None:
                continue
            self.stop_line = stop
            if self._handler_set:
                signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR2)
            if not self._done.wait(self.grace):  # the main thread did not unwind: nothing else will end it
                print(f"coderl train: error: {stop}", flush=True, file=sys.stderr)
                os._exit(StallStop.exit_code)
            return
