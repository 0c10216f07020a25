#!/bin/bash
# Issue 78 tuning on valid only, thirteenth session (float32 machine): GRPO from the float32 86a70e8 demo's SFT
# adapter (/work/fresh12, the demo's GRPO stage config, seed 0) with PrefixRL / SDPO options, evaluated on
# synthetic:level=1-2,n=200,split=valid (greedy and 4 x T 0.8, 128 tokens, eval seed 0), compared paired with that
# demo's SFT adapter and its GRPO step 40, level 2 alone through --exclude (level-1 ids).
# usage: tune.sh NAME [train flags...]   (NAME sft / grpo: evaluate the baselines only)
set -e
name=$1; shift
cd /work/s13run
C="env PYTHONPATH=/work/s13run /work/main/.venv/bin/coderl"
D=/work/notes/s13
F=/work/fresh12/runs/pipeline/cpu-demo
V="synthetic:level=1-2,n=200,split=valid"
date -u
case $name in
  sft) M=$F/sft/adapter ;;
  grpo) M=$F/rl/grpo/checkpoints/step-40 ;;
  *) M=/tmp/s13/$name/checkpoints/step-40
     [ -d $M ] || $C train --config $D/grpo-config.yaml --out /tmp/s13/$name --overwrite "$@" 2>&1 | grep -E "step [0-9]*0/|rror|overlap" ;;
esac
date -u
E="--model $M --tasks $V --format chat --dtype float32 --seed 0 --workers 2 --max-new-tokens 128 --batch-size 128 --label $name"
[ -f $D/eval/$name-greedy/summary.json ] || $C eval $E --out $D/eval/$name-greedy --overwrite 2>&1 | grep -E "pass@1 |time:" | head -2
[ -f $D/eval/$name-sampled/summary.json ] || $C eval $E --samples 4 --temperature 0.8 --out $D/eval/$name-sampled --overwrite 2>&1 | grep -E "pass@1 |time:" | head -2
case $name in sft|grpo) ;; *)
for m in greedy sampled; do
  $C compare $D/eval/sft-$m $D/eval/grpo-$m $D/eval/$name-$m --exclude $D/level1.txt --no-plot --out $D/cmp-$name-$m --overwrite >/dev/null
  $C compare $D/eval/grpo-$m $D/eval/$name-$m --exclude $D/level1.txt --no-plot --out $D/cmp-$name-vs-grpo-$m --overwrite >/dev/null
done ;; esac
date -u
