"""What each of a run's guards costs a step (docs/training.md, "When a run goes wrong"), timed inside the guard at
the CPU demo's shapes (configs/cpu-demo.yaml: 4 prompts x 8 samples, smollm2-135m-instruct, LoRA r 8), not as the
difference of two noisy runs:

  infra     the infrastructure-failure bookkeeping: `InfraGuard.stop_if_due` and the advantages' `scored_rows`,
            a third of every group failing
  stalls    the stall watch: the step's 3 `Watch.phase` marks and `Watch.finished_step`, and the heartbeat's
            `tick` (check + heartbeat.json written) x the beats of a step (one every 10 s)
  canary    `canary.attempt_metrics` for one canary prompt of 8 samples (`--canary-fraction 0.25` of 4 prompts):
            the weak harness's 8 scripts in a real `Sandbox(workers=2)`, half of them hacks
  digest    a weights sync's proof: the trainer's `fingerprint` and the engine's `files_digest`, for the adapter
            (a GPU's sync) and for the merged weights (the CPU's; the trainer hashes the base's frozen weights
            once per run, `engine_weights._frozen_digests`: the timed calls are the steady state)

Each is the median of --repeats calls; the share is of a demo step of --step-seconds (default 24 s: the demo
shape's CPU GRPO step, BENCHMARKS.md "One GRPO step, the demo's shape").

    python bench/guards.py [--repeats 5] [--step-seconds 24] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from types import SimpleNamespace


def timed(fn, repeats: int) -> float:
    """Median seconds of `repeats` calls of fn() (after one warm-up call)."""
    fn()
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def infra_cost(repeats: int) -> float:
    import torch

    from coderl.algorithms.advantages import scored_rows
    from coderl.train.infra_guard import InfraGuard

    groups = torch.arange(4).repeat_interleave(8)
    failed = torch.zeros(32, dtype=torch.bool)
    failed[::3] = True
    rolled = SimpleNamespace(rewards=torch.rand(32), infra=failed, infra_cause="injected")
    with tempfile.TemporaryDirectory() as run:
        guard = InfraGuard(run)
        guard.rate = 1.0  # counted, never stopping: the bookkeeping alone

        def step():
            guard.stop_if_due(1, rolled)
            scored_rows(failed, groups)

        return timed(step, repeats * 100)


def stalls_cost(repeats: int, step_seconds: float) -> float:
    from coderl.train.stalls import Heartbeat, Watch

    watch = Watch(lambda line: None)
    metrics = {"time/step": 24.0, "time/generation": 15.0, "time/sandbox_wait": 3.0}
    with tempfile.TemporaryDirectory() as run:
        beat = Heartbeat(run, watch)

        def marks():
            watch.phase("rollouts", 1)
            watch.phase("optimisation")
            watch.phase("bookkeeping")
            watch.finished_step(1, dict(metrics), 4096.0, 32.0)

        return timed(marks, repeats * 100) + timed(beat.tick, repeats * 100) * step_seconds / beat.beat


def canary_cost(repeats: int) -> float:
    from coderl.sandbox.client import Sandbox
    from coderl.sandbox.types import Limits
    from coderl.train.canary import attempt_metrics, canary_tasks

    task = canary_tasks()[0]
    completions = ["    return sum(int(c) for c in str(args[0]))\n", "    return -1\n",
                   "    import os\n    os._exit(0)\n", "    return 0\n"] * 2
    strict = [True, False, False, False] * 2
    with Sandbox(workers=2) as sandbox:
        return timed(lambda: attempt_metrics(sandbox, Limits(), [task] * 8, completions, strict, [False] * 8),
                     repeats)


def digest_costs(repeats: int) -> dict[str, float]:
    from peft import get_peft_model, get_peft_model_state_dict
    from safetensors.torch import save_file

    from coderl.models import load_model, lora_config
    from coderl.models.merge import merged_state_dict
    from coderl.rollout.weights_digest import files_digest, fingerprint
    from coderl.train.sources.engine_weights import _frozen_digests

    model = get_peft_model(load_model("smollm2-135m-instruct").model, lora_config(8, 16, 0.05))
    adapter = get_peft_model_state_dict(model, adapter_name="default", save_embedding_layers=False)
    merged = merged_state_dict(model)
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, state in (("adapter", adapter), ("merged", merged)):
            path = os.path.join(folder, name)
            os.makedirs(path)
            save_file({k: v.contiguous() for k, v in state.items()}, os.path.join(path, "model.safetensors"))
            known = (lambda s: _frozen_digests(model, s)) if name == "merged" else (lambda s: None)  # as `_sync`
            out[f"digest/{name}: trainer"] = timed(lambda s=state, k=known: fingerprint(s, k(s)), repeats)
            out[f"digest/{name}: engine"] = timed(lambda p=path: files_digest(p), repeats)
            out[f"digest/{name}: bytes"] = float(sum(v.numel() * v.element_size() for v in state.values()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--step-seconds", type=float, default=24.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    costs = {"infra": infra_cost(args.repeats), "stalls": stalls_cost(args.repeats, args.step_seconds),
             "canary": canary_cost(args.repeats), **digest_costs(args.repeats)}
    print(f"| guard | seconds a step | share of a {args.step_seconds:g} s demo step |")
    print("|---|---|---|")
    for name, seconds in costs.items():
        if name.endswith("bytes"):
            continue
        print(f"| {name} | {seconds * 1e3:.3f} ms | {seconds / args.step_seconds:.3%} |")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, {when}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(costs, f, indent=2)


if __name__ == "__main__":
    main()
