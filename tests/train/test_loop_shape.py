"""The training loops read top to bottom: ranks, asynchronous ages and repair episodes live in the rollout
source, the updater and the ledger (`train/sources/rollout_source.py`, `train/updater.py`, `train/rl/ledger.py`),
never as branches in a loop (docs/architecture.md, "One GRPO step")."""

import re
from pathlib import Path

import pytest

TRAIN = Path(__file__).resolve().parents[2] / "coderl" / "train"
# What a loop must not know about: processes, asynchronous staleness, multi-turn repair.
FORBIDDEN = re.compile(r"\b(ranks?|world|is_main|ddp|async\w*|ages?|stale|repair|turns?|turn_rewards|credit)\b",
                       re.IGNORECASE)


def loop_text(name: str) -> str:
    text = (TRAIN / name).read_text()
    if name == "sft/run.py":  # its set-up writes from one process; the step loop itself is what must read plainly
        text = text[text.index("for step, micro_batches in enumerate(plan"):text.index("    finally:")]
    return text


@pytest.mark.parametrize("name", ["rl/policy_gradient.py", "rl/ppo.py", "sft/run.py"])
def test_loops_do_not_branch_on_ranks_ages_or_repair(name):
    hits = [f"{i}: {line.strip()}" for i, line in enumerate(loop_text(name).splitlines(), 1)
            if FORBIDDEN.search(line)]
    assert not hits, f"coderl/train/{name} mentions what its collaborators hide:\n" + "\n".join(hits)


def test_the_forbidden_words_are_caught():
    for line in ("if run.ranks.on:", "rolled.ages", "cfg.repair.turns", "is_main", "async_max_age"):
        assert FORBIDDEN.search(line), line
    for line in ("advantages = averages", "messages", "stages", "return"):
        assert not FORBIDDEN.search(line), line
