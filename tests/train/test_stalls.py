"""A stalled or slowing run says so (`coderl/train/stalls.py`), with an injected clock: stalls of a finished
step and of the wait in flight, slowdowns, the heartbeat file, and the hard limit's one-line stop (exit 4)."""

import json
import threading

import pytest

from coderl.train.stalls import HARD_FLOOR_SECONDS, HEARTBEAT, Heartbeat, StallStop, Watch, write_heartbeat


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def watched():
    lines, clock = [], Clock()
    return Watch(lines.append, clock), lines, clock


def steady(watch, steps=3, step=10.0, gen=6.0, sandbox=3.0, tokens=600.0, programs=30):
    for i in range(steps):
        metrics = {"time/step": step, "time/generation": gen, "time/sandbox_wait": sandbox}
        assert watch.finished_step(i + 1, metrics, tokens, programs) == []


def test_a_step_part_over_ten_times_its_median_is_a_stall_naming_what_it_waited_on():
    watch, _, _ = watched()
    steady(watch)
    metrics = {"time/step": 40.0, "time/generation": 6.0, "time/sandbox_wait": 33.0}
    lines = watch.finished_step(4, metrics, 600.0, 30)
    assert lines == ["step 4: stall: the sandbox took 33.0 s, 11x its median of 3.0 s"]
    assert metrics["watch/stalls"] == 1.0
    assert watch.finished_step(5, {"time/step": 10.0}, None, None) == []  # back to normal: nothing


def test_no_stall_is_said_before_the_median_is_known():
    watch, _, _ = watched()
    steady(watch, steps=2)
    assert watch.finished_step(3, {"time/step": 500.0}, None, None) == []


def test_a_rate_under_its_fraction_of_the_median_for_three_steps_is_a_slowdown():
    watch, _, _ = watched()
    steady(watch)  # 100 tokens/s, 10 programs/s
    said = []
    for step in (4, 5, 6):
        metrics = {"time/step": 10.0, "time/generation": 6.0, "time/sandbox_wait": 3.0}
        said.append(watch.finished_step(step, metrics, 60.0, 30))  # 10 tokens/s: under 30% of 100
    assert said[:2] == [[], []] and said[2] == ["step 6: slowdown: generated tokens/s 10.0, under 30% of its median "
                                                "of 100.0 for 3 steps in a row"]
    assert metrics["watch/slowdown"] == 1.0
    assert watch.median(watch.rates["tokens"]) == 100.0  # the slow spell did not drag the median down


def test_the_wait_in_flight_is_a_stall_once_then_past_the_hard_limit_a_stop():
    watch, lines, clock = watched()
    steady(watch)  # median step 10 s
    watch.phase("rollouts", step=3)
    clock.now += 50
    assert watch.check()[1] is None and lines == []
    clock.now += 60  # 110 s: over 10x the median
    state, stop = watch.check()
    assert stop is None and state["step"] == 4 and state["waits_on"].startswith("the generation engine and the sandbox")
    assert lines == ["step 4: stall: waiting on the generation engine and the sandbox (rollouts) for 110 s, the step "
                     "110 s, 11x the median step of 10.0 s"]
    watch.check()
    assert len(lines) == 1  # said once per phase
    clock.now += HARD_FLOOR_SECONDS  # past max(50 x 10 s, 600 s)
    _, stop = watch.check()
    assert stop.startswith("step 4: stalled past the hard limit: waiting on the generation engine") and "\n" not in stop


def test_the_heartbeat_file_is_written_whole(tmp_path):
    write_heartbeat(str(tmp_path), {"step": 3, "phase": "rollouts"})
    beat = json.loads((tmp_path / HEARTBEAT).read_text())
    assert beat["step"] == 3 and beat["phase"] == "rollouts" and "time" in beat and "pid" in beat
    assert [p.name for p in tmp_path.iterdir()] == [HEARTBEAT]  # no temporary left


def test_past_the_hard_limit_a_blocked_main_thread_stops_with_one_line(tmp_path):
    watch, _, clock = watched()
    steady(watch)
    watch.phase("rollouts", step=3)
    beats = []
    heart = Heartbeat(str(tmp_path), watch, beat_seconds=0.01, write=lambda d, state: beats.append(state))
    with pytest.raises(StallStop) as info:
        with heart:
            clock.now += 10 * HARD_FLOOR_SECONDS
            threading.Event().wait(30)  # a wait that would hang: the signal ends it
    assert info.value.exit_code == 4 and str(info.value).startswith("step 4: stalled past the hard limit")
    assert beats[0]["phase"] == "rollouts" and beats[-1]["phase"] == "ended"
