"""`coderl pipeline`: seed 001's whole flow from one YAML file -- base evaluation -> SFT -> RL runs ->
evaluation of every checkpoint on the same tasks -> one report directory.

Schema (every section's fields are the fields of the real dataclass config, validated by building it)::

    out: runs/pipeline/demo        # output directory (`--out DIR` overrides it)
    model: smollm2-135m-instruct   # the base model every stage starts from (alias, HF folder, GGUF, hub id)
    format: chat                   # prompt format of every stage: SFT, RL and evaluation must agree
    dtype: float32                 # weights of the base model in every stage (float32, bfloat16, or auto:
                                   # bfloat16 where the GPU/CPU runs it natively, else float32)
    device: auto                   # optional: auto, cpu or cuda for every stage that sets no device of its own
                                   # (without it: each stage's default, auto = the GPU when one is present)
    seed: 0                        # seed of every stage; it also picks the train/test split of file task
                                   # sources, so SFT's train split and the evaluation's test split agree
    title: ...                     # optional: heading of the report
    allow_eval_overlap: false      # optional: allow training tasks that are, or solve, evaluation tasks
    eval:                          # `EvalConfig` fields (`coderl eval --help`) but out, model, format,
      tasks: humaneval             #   seed, label, method (the pipeline sets those per checkpoint)
      split: test
      max_new_tokens: 256
    evals:                         # optional: further evaluation sets, each run for base, SFT and every RL
      - name: heldout              #   checkpoint (OUT/evals/<name>/...; a name as rl's, not "eval"); each set's
        tasks: synthetic:level=2,n=400,split=test   # `EvalConfig` fields over the `eval:` section's
    sft:                           # `SFTConfig` fields (`coderl sft --help`) but out, model, format, seed;
      method: SFT (LoRA)           #   null or absent: no SFT.  `method`: its label in tables (default
      data: humaneval              #   "SFT (LoRA)", or "SFT (QLoRA + LoRA)" with qlora: true)
      split: train
    rl:                            # a list of runs (absent or []: no RL); each is
      - name: reinforce-a0.01      #   name: directory OUT/rl/<name> (letters, digits, . _ -; unique; not "sft")
        method: REINFORCE (α = 0.01)  # label in tables (default: the algo, plus alpha for reward seed001)
        split: train               #   optional: train on this split of `tasks` (file sources; see below)
        algo: reinforce            #   + `TrainConfig` fields (`coderl train --help`) but out, model, format,
        reward: seed001            #   config, resume; `seed` defaults to the top-level seed
        length_alpha: 0.01

RL runs start from the SFT adapter when SFT ran, else from `model`.  Validation builds `EvalConfig`,
`SFTConfig` and `TrainConfig` for every stage with its planned output path, so `--dry-run` checks every
field: an unknown name is one line naming the section and field; a bad value is the dataclass's own
one-line error prefixed with the section (`rl[2] (ppo): --clip-eps=-1.0: expected a positive number`).
It also loads the task sets (not the model) and refuses training prompts identical to evaluation prompts
(SFT data or an RL run's tasks), naming the fix; a stage whose training tasks solve an evaluation or
selection task by behaviour is refused too (`run.check_overlap`: the run makes it before it writes anything, so a
refused run leaves nothing; `--dry-run` does not run references and says so); `allow_eval_overlap: true` permits
both (tiny tests).

RL `split`.  `coderl train` has no split field: it trains on every task of its spec.  With `split:
train`, the pipeline writes that split of a file source (`humaneval`, `easy`, `humaneval:PATH`, ...)
for the top-level seed to `OUT/data/<spec>-<split>-seed<seed>.jsonl` (the source rows, byte for byte)
and trains on that file.  Synthetic specs carry their own `split=` option instead.

Layout and order (each RL run is evaluated right after it finishes, so results arrive early)::

    OUT/pipeline.yaml        the config file as given          OUT/plan.json   the resolved plan: every
    OUT/pipeline.log         everything the stages logged                       stage's full config
    OUT/base-eval/           `coderl eval` run of `model`
    OUT/sft/                 `coderl sft` run (adapter in OUT/sft/adapter)
    OUT/eval/sft/            `coderl eval` run of OUT/sft/adapter
    OUT/rl/<name>/           `coderl train` run (final checkpoint OUT/rl/<name>/checkpoints/step-<steps>)
    OUT/eval/<name>/         `coderl eval` run of that checkpoint
    OUT/evals/<set>/...      the same evaluations on each set of `evals:` (base-eval/, eval/sft/, eval/<name>/)
    OUT/data/                task splits written for RL runs with `split:`
    OUT/report/              report.md, report.json, PNGs (`coderl.pipeline.report`)

Resume.  A finished stage writes `pipeline_stage.json` into its directory: its config (paths inside OUT
written as `OUT/...`) and the sha256 of the adapter it started from.  A rerun skips every stage whose
stamp matches the current plan, resumes an RL run from its newest checkpoint (`coderl train --resume`:
exact), and an interrupted SFT or evaluation from what it kept (`--resume`: its newest checkpoint, its
finished chunks) when its settings are the plan's, else from scratch.  A stage whose stamp (or an RL run
whose config.yaml) differs from the plan -- an edited config, or an upstream stage that will run again --
stops the run before anything starts, with one line naming the directories to delete: outputs are never
deleted or mixed silently.  The report is rebuilt on every run.
"""

from coderl.pipeline.plan import ALGO_LABELS, PipelineConfig, Plan, Stage, load_plan
from coderl.pipeline.run import code_version, run_command, run_pipeline
from coderl.pipeline.state import format_plan, plan_states, portable_config, stage_status, stale_error
from coderl.pipeline.tasks import write_split

__all__ = ["ALGO_LABELS", "PipelineConfig", "Plan", "Stage", "code_version", "format_plan", "load_plan",
           "plan_states", "portable_config", "run_command", "run_pipeline", "stage_status",
           "stale_error", "write_split"]
