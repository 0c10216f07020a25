#!/bin/bash
# Issue 78 tuning on valid only: GRPO from the 7d0aec7 demo's SFT adapter (the demo's stage config, seed 0) with PrefixRL
# options, evaluated on synthetic:level=1-2,n=200,split=valid (greedy and 4 x T 0.8, as the step study), compared
# with SFT and plain GRPO seed 0 (the step study's evaluations), level 2 alone through --exclude (level-1 ids).
# usage: tune.sh NAME [train flags...]
set -e
name=$1; shift
cd /work/main
C=/work/main/.venv/bin/coderl
D=/work/notes/s9/prefix
S=/work/notes/s7/seeds/eval
V="synthetic:level=1-2,n=200,split=valid"
date -u
[ -d /tmp/prefix/$name/checkpoints/step-40 ] || $C train --config $D/grpo-config.yaml --out /tmp/prefix/$name --overwrite "$@" 2>&1 | grep -E "step (10|20|30|40)/|rror"
date -u
E="--model /tmp/prefix/$name/checkpoints/step-40 --tasks $V --format chat --dtype bfloat16 --seed 0 --workers 2 --max-new-tokens 128 --batch-size 128 --label $name"
[ -f $D/eval/$name-greedy/summary.json ] || $C eval $E --out $D/eval/$name-greedy --overwrite 2>&1 | grep -E "pass@1 |time:" | head -2
[ -f $D/eval/$name-sampled/summary.json ] || $C eval $E --samples 4 --temperature 0.8 --out $D/eval/$name-sampled --overwrite 2>&1 | grep -E "pass@1 |time:" | head -2
for m in greedy sampled; do
  $C compare $S/sft-$m $S/s0-40-$m $D/eval/$name-$m --exclude $D/level1.txt --no-plot --out $D/cmp-$name-$m --overwrite >/dev/null
  $C compare $S/s0-40-$m $D/eval/$name-$m --exclude $D/level1.txt --no-plot --out $D/cmp-$name-vs-grpo-$m --overwrite >/dev/null
done
date -u
