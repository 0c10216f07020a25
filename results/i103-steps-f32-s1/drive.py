"""Issue 103 study driver: the demo's SFT stage once, then GRPO runs of the demo's RL stage (canary off) with
given seed / kl, then evaluations of checkpoints 0,10,20,30,40 on valid only. Usage: drive.py RUNNAME SEED KL"""
import dataclasses, os, subprocess, sys
sys.path.insert(0, "/work/main")
from coderl.pipeline import load_plan

ROOT = "/work/s103"
plan = load_plan("/work/main/configs/cpu-demo.yaml", out=f"{ROOT}/demo")
log = lambda m: print(m, flush=True)
sft = plan.stage("sft")
adapter = os.path.join(sft.dir, "adapter")
if not os.path.isfile(os.path.join(adapter, "adapter_model.safetensors")):
    from coderl.train.sft.run import sft as run_sft
    run_sft(sft.config, log=log)
name, seed, kl = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rl = plan.stage("rl/grpo").config
out = f"{ROOT}/{name}"
cfg = dataclasses.replace(rl, out=out, seed=seed, sampling=dataclasses.replace(rl.sampling, canary_beside=0),
                          kl=dataclasses.replace(rl.kl, kl_beta=kl))
if not os.path.isfile(f"{out}/checkpoints/step-40/adapter_model.safetensors"):
    from coderl.train import run_training
    run_training(dataclasses.replace(cfg, resume=os.path.isdir(f"{out}/checkpoints")), log=log)
PY = "/work/main/.venv/bin/python"
for step in [0, 10, 20, 30, 40]:
    model = adapter if step == 0 else f"{out}/checkpoints/step-{step}"
    base = f"{ROOT}/evals/sft" if step == 0 else f"{ROOT}/evals/{name}/step-{step}"
    for kind, args in [("greedy", ["--tasks", "synthetic:level=2,n=200,split=valid", "--samples", "1",
                                   "--temperature", "0"]),
                       ("sampled", ["--tasks", "synthetic:level=1-2,n=48,split=valid", "--samples", "8",
                                    "--temperature", "0.8"])]:
        d = f"{base}/{kind}"
        if os.path.isfile(f"{d}/summary.json"):
            continue
        subprocess.run([PY, "-m", "coderl", "eval", "--model", model, *args, "--max-new-tokens", "128",
                        "--batch-size", "64", "--dtype", "float32", "--out", d], check=True, cwd="/work/main")
