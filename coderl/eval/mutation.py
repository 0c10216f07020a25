"""Do a task's tests reject wrong programs?  Run mutants of its reference through the sandbox.

`audit_mutants` runs, per task, the reference (it must pass) and mutants of it
(`coderl.tasks.corpus.mutants`: wrong constant, off-by-one, wrong branch, dropped edge case,
arithmetic and call slips).  A mutant is *rejected* when its program does not pass.  By default it
stops at `need` rejections per task, in rounds that take one mutant of each operator in turn (so
the rejected mutants come from different bug classes where the reference offers them); with
`exhaustive` it runs them all and reports the mutation score (rejected / run).  Mutants run with a
1 s CPU limit: a mutant that loops is rejected by timeout without slowing the audit much.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import Limits, Status
from coderl.tasks.corpus.mutants import Mutant, mutants
from coderl.tasks.types import Task

MUTANT_CPU_SECONDS = 1.0


@dataclass
class MutantAudit:
    task_id: str
    reference_passed: bool = False
    reference_status: str = ""
    mutants: int = 0  # mutants the reference has
    run: int = 0
    rejected: list[Mutant] = field(default_factory=list)
    survived: list[Mutant] = field(default_factory=list)
    errors: int = 0  # mutants the sandbox failed to run (neither rejected nor survived)

    def ok(self, need: int) -> bool:
        return self.reference_passed and len(self.rejected) >= need

    def to_dict(self) -> dict:
        return {"task_id": self.task_id, "reference_passed": self.reference_passed,
                "reference_status": self.reference_status, "mutants": self.mutants, "run": self.run,
                "sandbox_errors": self.errors,
                "rejected": [_label(m) for m in self.rejected], "survived": [_label(m) for m in self.survived]}


def _label(m: Mutant) -> str:
    return f"#{m.index} {m.operator}: line {m.line}, {m.description}"


def _interleave(items: list[Mutant]) -> list[Mutant]:
    """One mutant of each operator in turn (source order within an operator)."""
    by_op: dict[str, list[Mutant]] = defaultdict(list)
    for m in items:
        by_op[m.operator].append(m)
    return [m for row in itertools.zip_longest(*by_op.values()) for m in row if m is not None]


def audit_mutants(tasks: list[Task], sandbox: Sandbox, limits: Limits, need: int = 2,
                  exhaustive: bool = False) -> list[MutantAudit]:
    mutant_limits = dataclasses.replace(limits, cpu_seconds=min(limits.cpu_seconds, MUTANT_CPU_SECONDS),
                                        wall_seconds=None)
    audits = {t.task_id: MutantAudit(t.task_id) for t in tasks}
    queues: dict[str, list[Mutant]] = {}
    refs = [sandbox.submit(t.build_request(t.reference_solution or "", limits)) for t in tasks]
    for task, fut in zip(tasks, refs):
        result = fut.result()
        audit = audits[task.task_id]
        audit.reference_passed, audit.reference_status = result.passed, result.status.value
        if result.passed:
            queues[task.task_id] = _interleave(mutants(task))
            audit.mutants = len(queues[task.task_id])
    by_id = {t.task_id: t for t in tasks}
    while True:
        batch = []
        for task_id, queue in queues.items():
            audit = audits[task_id]
            want = len(queue) if exhaustive else max(0, need - len(audit.rejected))
            batch += [(task_id, queue.pop(0)) for _ in range(min(want, len(queue)))]
        if not batch:
            break
        futures = [sandbox.submit(by_id[tid].build_request(m.completion, mutant_limits)) for tid, m in batch]
        for (task_id, mutant), fut in zip(batch, futures):
            audit = audits[task_id]
            result = fut.result()
            if result.status is Status.SANDBOX_ERROR:  # the sandbox's failure says nothing about the tests
                audit.errors += 1
                continue
            audit.run += 1
            (audit.survived if result.passed else audit.rejected).append(mutant)
    return [audits[t.task_id] for t in tasks]


def format_audit(audits: list[MutantAudit], need: int, families: dict[str, str] | None = None) -> str:
    """A per-family table and the tasks that fall short."""
    families = families or {}
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for a in audits:
        row = rows[families.get(a.task_id, "all")]
        row[0] += 1
        row[1] += a.ok(need)
        row[2] += len(a.rejected)
        row[3] += a.run
    lines = [f"{'family':<22} {'tasks':>5} {'ok':>5} {'rejected/run':>13}"]
    for name in sorted(rows):
        n, ok, rej, run = rows[name]
        lines.append(f"{name:<22} {n:>5} {ok:>5} {rej:>6}/{run:<6}")
    bad = [a for a in audits if not a.ok(need)]
    for a in bad:
        why = (f"reference {a.reference_status}" if not a.reference_passed
               else f"{len(a.rejected)} of {a.run} mutants rejected ({a.mutants} exist; need {need})")
        lines.append(f"FAIL {a.task_id}: {why}" + (f"; survived: {', '.join(m.description for m in a.survived[:4])}"
                                                   if a.survived else ""))
    lines.append(f"{len(audits) - len(bad)}/{len(audits)} tasks reject at least {need} mutants")
    return "\n".join(lines)
