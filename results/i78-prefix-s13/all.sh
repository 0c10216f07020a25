#!/bin/bash
cd /work/notes/s13
./tune.sh sft > log-sft.txt 2>&1
./tune.sh grpo > log-grpo.txt 2>&1
./tune.sh pw9f1 --prefix-below 0.1 --prefix-cut words --prefix-fraction 0.9 --curriculum-floor 1.0 > log-pw9f1.txt 2>&1
./tune.sh sd05 --self-distill 0.5 > log-sd05.txt 2>&1
