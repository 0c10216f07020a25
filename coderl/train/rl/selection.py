"""Checkpoint selection without peeking: the best evaluation on the held-out `eval_tasks` is kept, and
training stops once it has not improved for `patience` evaluations.

Only the run's own held-out set (`--eval-tasks`, by default the corpus's valid split) is read, so
the easy set and the HumanEval test split stay untouched until the final report.  The starting
policy is evaluated too (step 0), so a run that never beats its start hands the start back.  A new
best is a strictly higher `eval/pass@1`, or an equal one with a strictly higher mean fraction of
tests passed (`eval/fraction_passed`: on a hard valid set, where pass@1 moves by one task at a time,
partial progress still ranks checkpoints); a full tie keeps the earlier checkpoint.  Its adapter is
written to `OUT/best/adapter` (full fine-tuning: the whole model, `OUT/best/model`) and `OUT/best/best.json`
says which step and scores it is.  The state
(best step, scores, evaluations since) is saved with every checkpoint, so a resumed run selects as
the uninterrupted one.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass

from coderl.base.outputs import finished, write_json

METRIC = "eval/pass@1"
TIEBREAK = "eval/fraction_passed"  # mean fraction of tests passed per sample (absent: 0)


@dataclass
class Selection:
    patience: int = 0  # evaluations without improvement before stopping (0 = never stop early)
    best_step: int | None = None
    best_score: float | None = None
    best_tiebreak: float = 0.0
    since_best: int = 0

    def update(self, step: int, metrics: dict) -> bool:
        """Record an evaluation (if `metrics` holds one); True when it is a new best."""
        if METRIC not in metrics:
            return False
        score, tiebreak = float(metrics[METRIC]), float(metrics.get(TIEBREAK) or 0.0)
        if self.best_score is None or (score, tiebreak) > (self.best_score, self.best_tiebreak):
            self.best_step, self.best_score, self.best_tiebreak, self.since_best = step, score, tiebreak, 0
            return True
        self.since_best += 1
        return False

    @property
    def should_stop(self) -> bool:
        return self.patience > 0 and self.since_best >= self.patience

    def metrics(self) -> dict:
        if self.best_step is None:
            return {}
        return {"select/best_step": float(self.best_step), "select/best_pass@1": self.best_score,
                "select/best_fraction_passed": self.best_tiebreak, "select/evals_since_best": float(self.since_best)}

    def state_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "patience"}

    @classmethod
    def from_state(cls, state: dict | None, patience: int) -> Selection:
        return cls(patience=patience, **(state or {}))


def save_best(out: str, step: int, metrics: dict, eval_tasks: str, save_adapter, name: str = "adapter") -> str:
    """Write OUT/best/`name` (the adapter; full fine-tuning's whole model: `model`) and OUT/best/best.json
    atomically (a crash leaves the previous best)."""
    final = os.path.join(out, "best")
    with finished(final) as (tmp,):
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        save_adapter(os.path.join(tmp, name))
        write_json(os.path.join(tmp, "best.json"), {"step": step, METRIC: metrics[METRIC],
                                                    TIEBREAK: metrics.get(TIEBREAK), "eval_tasks": eval_tasks})
    return final
