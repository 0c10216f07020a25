"""What both adapters do with another trainer's text: extract the completion as `coderl train` would,
build the task's program and run the whole batch in coderl's sandbox at once."""

from __future__ import annotations

from collections.abc import Sequence

from coderl.rollout.formats import get_format
from coderl.rollout.types import Sample


def run_outputs(sandbox, limits, rows: Sequence[tuple]) -> tuple[list[Sample], list]:
    """rows: (task, format name, prompt, output text, generated ids) -> (the Sample each would be in a coderl
    rollout, its ExecutionResult), in row order; `coderl.rewards.score` takes them with the tasks."""
    samples, requests = [], []
    for i, (task, format_name, prompt, output, ids) in enumerate(rows):
        extraction = get_format(format_name).extract(task, output)
        samples.append(Sample(task_id=task.task_id, group=i, prompt=prompt, raw_output=output,
                              completion=extraction.completion, gen_tokens=tuple(ids), code_tokens=(),
                              truncated=False, format_ok=extraction.format_ok))
        requests.append(task.build_request(extraction.completion, limits))
    return samples, sandbox.run_many(requests)
