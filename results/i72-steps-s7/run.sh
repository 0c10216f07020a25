#!/bin/bash
# Steps study: GRPO seeds 1, 2 from the 7d0aec7 demo's SFT adapter; SFT and steps 20/30/40 of seeds 0-2 on valid.
set -e
cd /tmp/fresh72f
C=/tmp/fresh72f/.venv/bin/coderl
S=/work/notes/s7/seeds
V="synthetic:level=1-2,n=200,split=valid"
ev() {  # name model
  E="--model $2 --tasks $V --format chat --dtype bfloat16 --seed 0 --workers 2 --max-new-tokens 128 --batch-size 128 --label $1"
  [ -f $S/eval/$1-greedy/summary.json ] || $C eval $E --out $S/eval/$1-greedy --overwrite 2>&1 | grep -E "pass@1 |time:" | head -2
  [ -f $S/eval/$1-sampled/summary.json ] || $C eval $E --samples 4 --temperature 0.8 --out $S/eval/$1-sampled --overwrite 2>&1 | grep -E "pass@1 |time:" | head -2
  echo "$(date +%T) evaluated $1"
}
G0=runs/pipeline/cpu-demo/rl/grpo/checkpoints
date
ev sft runs/pipeline/cpu-demo/sft/adapter
for k in 40 30 20; do ev s0-$k $G0/step-$k; done
for s in 1 2; do
  [ -d $S/grpo-s$s/checkpoints/step-40 ] || $C train --config runs/pipeline/cpu-demo/rl/grpo/config.yaml --seed $s --out $S/grpo-s$s --overwrite 2>&1 | grep -E "step (10|20|30|40)/|rror" 
  echo "$(date +%T) trained seed $s"
  for k in 40 30 20; do ev s$s-$k $S/grpo-s$s/checkpoints/step-$k; done
done
date
