"""The policy-gradient loop on a tiny random model: every LoRA parameter learns, ratios start at 1,
pinned losses, exact resume after SIGKILL, and one-line config errors."""

import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import ConfigError  # noqa: E402
from coderl.train.rl.policy_gradient import train  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import TASKS, base_config, learning_metrics, varied_reward  # noqa: E402

ALGOS = ["reinforce", "rloo", "grpo"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def lora_tensors(run_dir, step):
    from safetensors.torch import load_file

    return load_file(os.path.join(run_dir, "checkpoints", f"step-{step}", "adapter_model.safetensors"))


def metrics(run_dir):
    return [json.loads(line) for line in open(os.path.join(run_dir, "metrics.jsonl"))]


@pytest.mark.parametrize("algo", ALGOS)
def test_two_steps_change_every_lora_parameter(model_dir, tmp_path, algo):
    from peft import get_peft_model

    from coderl.models import load_model, lora_config

    cfg = base_config(model_dir, tmp_path / algo, algo=algo)
    torch.manual_seed(cfg.seed)  # the same LoRA initialisation as the run's
    initial = {k: v.detach().clone() for k, v in
               get_peft_model(load_model(str(model_dir)).model, lora_config(8, 16, 0.05)).named_parameters()
               if "lora_" in k}
    train(cfg, log=lambda m: None, reward_override=varied_reward)
    final = lora_tensors(cfg.out, 2)
    assert len(final) == len(initial) > 0
    for name, before in initial.items():
        key = name.replace(".default", "")
        assert key in final, key
        assert not torch.allclose(final[key], before), f"{name} did not change"


def test_reinforce_pp_with_gspo_ratio_trains(model_dir, tmp_path):
    cfg = base_config(model_dir, tmp_path / "gspo", algo="grpo", advantage="reinforce_pp",
                      ratio_level="sequence_mean", clip_eps=3e-4, aggregation="sequence_mean")
    m = train(cfg, log=lambda m: None, reward_override=varied_reward)
    assert all(math.isfinite(v) for k, v in m.items() if isinstance(v, float))
    assert not torch.allclose(lora_tensors(cfg.out, 1)[next(iter(lora_tensors(cfg.out, 1)))],
                              lora_tensors(cfg.out, 2)[next(iter(lora_tensors(cfg.out, 2)))])
    saved = open(os.path.join(cfg.out, "config.yaml")).read()
    assert "reinforce_pp" in saved and "sequence_mean" in saved


def test_overlong_filter_and_zero_variance_metrics(model_dir, tmp_path):
    kw = dict(steps=1, max_new_tokens=3)  # a random tiny model rarely stops within 3 tokens
    plain = train(base_config(model_dir, tmp_path / "plain", **kw), log=lambda m: None, reward_override=varied_reward)
    filtered = train(base_config(model_dir, tmp_path / "filtered", overlong_filter=True, **kw), log=lambda m: None,
                     reward_override=varied_reward)
    assert plain["rollout/truncated"] == filtered["rollout/truncated"] > 0
    assert 0.0 <= plain["rollout/zero_variance_groups"] <= 1.0
    assert plain["advantage/mean_abs"] > 0
    if filtered["rollout/truncated"] == 1.0:  # every row left the loss: no advantage reaches a token
        assert filtered["advantage/mean_abs"] == 0.0
    else:
        assert filtered["advantage/mean_abs"] != plain["advantage/mean_abs"]


def test_dynamic_sampling_drops_flat_groups_and_refills(model_dir, tmp_path):
    calls = []

    def reward(results, samples, tasks):
        calls.append([t.task_id for t in tasks])
        # every completion of the first task of TASKS gets 1: its group has no variance
        first_id = "Toy/0"
        varied = varied_reward(results, samples, tasks)
        return [1.0 if t.task_id == first_id else r for t, r in zip(tasks, varied)]

    cfg = base_config(model_dir, tmp_path / "dyn", steps=1, dynamic_sampling=2)
    m = train(cfg, log=lambda m: None, reward_override=reward)
    # step 1's prompts are Toy/1 and Toy/0 (seed 0): Toy/0's group is flat, so it is dropped and one
    # refill round (a seeded draw of 2 prompts: Toy/0, Toy/1) supplies the second informative group
    assert [sorted(set(c)) for c in calls] == [["Toy/0", "Toy/1"], ["Toy/0", "Toy/1"]]
    assert (m["rollout/zero_variance_groups"], m["sampling/extra_rounds"], m["sampling/kept_groups"]) == (0.5, 1, 2)
    assert all(math.isfinite(v) for v in m.values() if isinstance(v, float))


def test_dynamic_sampling_off_is_the_plain_loop(model_dir, tmp_path):
    train(base_config(model_dir, tmp_path / "a", steps=1), log=lambda m: None, reward_override=varied_reward)
    b = train(base_config(model_dir, tmp_path / "b", steps=1, dynamic_sampling=3), log=lambda m: None,
              reward_override=varied_reward)
    # varied_reward varies within every group: nothing dropped, no refill, the same update
    assert b["sampling/extra_rounds"] == 0 and b["sampling/kept_groups"] == 2
    assert lora_tensors(tmp_path / "a", 1).keys() == lora_tensors(tmp_path / "b", 1).keys()
    for key, value in lora_tensors(tmp_path / "a", 1).items():
        torch.testing.assert_close(value, lora_tensors(tmp_path / "b", 1)[key])


def test_a_run_stops_early_and_keeps_the_best_adapter(model_dir, tmp_path):
    cfg = base_config(model_dir, tmp_path / "run", steps=5, save_steps=10, eval_steps=1, eval_tasks=TASKS,
                      eval_problems=1, check_overlap=False, early_stop=1)
    lines = []
    m = train(cfg, log=lines.append, reward_override=varied_reward)
    rows = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    # a random tiny model passes nothing: the start (step 0, evaluated before training) is the best, and
    # step 1 does not beat it -> stop after step 1
    assert [r["step"] for r in rows] == [0, 1] and m["select/best_step"] == 0.0
    assert rows[0].keys() >= {"eval/pass@1", "eval/fraction_passed", "select/best_step"}
    assert "reward/total" not in rows[0]  # step 0 is only the evaluation of the start
    assert any("stopping early" in line for line in lines)
    best = json.loads((tmp_path / "run" / "best" / "best.json").read_text())
    assert best["step"] == 0 and best["eval/pass@1"] == 0.0 and best["eval_tasks"] == TASKS
    assert best["eval/fraction_passed"] == 0.0
    assert (tmp_path / "run" / "best" / "adapter" / "adapter_model.safetensors").is_file()
    assert (tmp_path / "run" / "checkpoints" / "step-1").is_dir()  # the stop is checkpointed
    assert (tmp_path / "run" / "eval" / "step-0" / "summary.json").is_file()
    # the reward-hacking watch: each evaluation step's highest-reward completions, best first
    top = [json.loads(line) for line in open(tmp_path / "run" / "top_samples" / "step-1.jsonl")]
    assert 0 < len(top) <= 8 and [t["reward"] for t in top] == sorted((t["reward"] for t in top), reverse=True)
    assert {"task_id", "completion", "raw_output", "gen_tokens"} <= top[0].keys()
    assert not (tmp_path / "run" / "top_samples" / "step-0.jsonl").exists()  # no rollouts before step 1


def test_curriculum_tracks_pass_rates_and_resumes_them(model_dir, tmp_path):
    cfg = base_config(model_dir, tmp_path / "cur", steps=2, curriculum_floor=0.1)
    m = train(cfg, log=lambda m: None, reward_override=varied_reward)
    # the random tiny model passes nothing: every task it drew has rate 0, none is on the frontier
    assert m["curriculum/frontier"] == 0.0 and 0 < m["curriculum/seen"] <= 1
    from coderl.train.checkpoint import load_trainer_state

    rates = load_trainer_state(str(tmp_path / "cur" / "checkpoints" / "step-2"))["curriculum"]["rates"]
    assert len(rates) == 3 and all(r in (None, 0.0) for r in rates) and 0.0 in rates


@pytest.mark.parametrize("algo", ALGOS)
def test_first_minibatch_is_on_policy(model_dir, tmp_path, algo):
    # Mixed prompt lengths (the three fixture tasks differ), several minibatches and epochs.
    cfg = base_config(model_dir, tmp_path / algo, algo=algo, steps=1, minibatch_size=2, epochs=2,
                      prompts_per_step=3)
    m = train(cfg, log=lambda m: None, reward_override=varied_reward)
    assert m["first_minibatch/max_abs_log_ratio"] < 1e-5
    if algo == "grpo":
        assert m["first_minibatch/clip_fraction"] == 0.0


# Loss of the second step (after one update) with seed 0: regression pins, measured once on
# torch 2.13 CPU; update them deliberately, with a reason, if the math changes.
PINNED = {"reinforce": (-0.011383, 0.714500), "rloo": (0.036920, 0.348254), "grpo": (0.0, 0.232170)}


@pytest.mark.parametrize("algo", ALGOS)
def test_pinned_second_step_loss(model_dir, tmp_path, algo):
    cfg = base_config(model_dir, tmp_path / algo, algo=algo, steps=2)
    m = train(cfg, log=lambda m: None, reward_override=varied_reward)
    # GRPO's on-policy loss value is ~0 by construction (group-centred advantages, ratio 1, equal
    # lengths), so the gradient norm is pinned too: it is what the loss actually does.
    assert (m["loss/total"], m["train/grad_norm"]) == pytest.approx(PINNED[algo], abs=1e-4), \
        (m["loss/total"], m["train/grad_norm"])


def test_kl_and_entropy_terms_are_logged(model_dir, tmp_path):
    cfg = base_config(model_dir, tmp_path / "kl", algo="grpo", steps=2, kl_beta=0.1, entropy_coef=0.01)
    m = train(cfg, log=lambda m: None, reward_override=varied_reward)
    assert m["kl/mean"] > 0  # after one update the policy moved away from the reference
    assert m["loss/entropy"] > 0


def test_log_kl_logs_the_kl_without_changing_the_update(model_dir, tmp_path):
    plain = train(base_config(model_dir, tmp_path / "plain", algo="grpo", steps=2), log=lambda m: None,
                  reward_override=varied_reward)
    logged = train(base_config(model_dir, tmp_path / "logged", algo="grpo", steps=2, log_kl=True),
                   log=lambda m: None, reward_override=varied_reward)
    assert "kl/mean" not in plain and logged["kl/mean"] > 0
    for key in ("loss/total", "train/grad_norm", "reward/total"):
        assert logged[key] == pytest.approx(plain[key], abs=1e-6), key


def _run_in_subprocess(cfg_kwargs, model_dir, out):
    code = (
        "import json, sys\n"
        "from coderl.train.rl.policy_gradient import train\n"
        "from tests.train.helpers import base_config, varied_reward\n"
        "kw = json.loads(sys.argv[1])\n"
        "train(base_config(sys.argv[2], sys.argv[3], **kw), log=print, reward_override=varied_reward)\n"
    )
    return subprocess.Popen([sys.executable, "-c", code, json.dumps(cfg_kwargs), str(model_dir), str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_resume_after_sigkill_is_exact(model_dir, tmp_path):
    kw = {"algo": "grpo", "steps": 4, "save_steps": 2}
    # Uninterrupted reference run.
    train(base_config(model_dir, tmp_path / "ref", **kw), log=lambda m: None, reward_override=varied_reward)
    # Interrupted run: SIGKILL once step-2 is checkpointed (mid step 3), then --resume.
    proc = _run_in_subprocess(kw, model_dir, tmp_path / "cut")
    ckpt = tmp_path / "cut" / "checkpoints" / "step-2" / "trainer_state.pt"
    deadline = time.time() + 240
    while not ckpt.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert ckpt.exists(), proc.communicate()[0]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "cut" / "checkpoints" / "step-4").exists()
    train(base_config(model_dir, tmp_path / "cut", resume=True, **kw), log=lambda m: None,
          reward_override=varied_reward)
    ref, cut = metrics(tmp_path / "ref"), metrics(tmp_path / "cut")
    assert [r["step"] for r in cut] == [1, 2, 3, 4]
    for a, b in zip(ref, cut):
        assert learning_metrics(a) == pytest.approx(learning_metrics(b), abs=1e-6), a["step"]
    final_ref, final_cut = lora_tensors(tmp_path / "ref", 4), lora_tensors(tmp_path / "cut", 4)
    for k in final_ref:
        assert torch.allclose(final_ref[k], final_cut[k], atol=1e-6), k


@pytest.mark.parametrize("field, value, message", [
    ("steps", 0, "--steps=0: expected an integer >= 1"),
    ("temperature", 0.0, "--temperature=0.0: expected a number > 0"),
    ("advantage", "ppo2", "--advantage='ppo2': expected one of"),
    ("loss", "dpo", "--loss='dpo': expected one of"),
    ("kl_estimator", "k1", "kl_estimator='k1': expected k2 or k3"),
    ("dynamic_sampling", -1, "--dynamic-sampling=-1: expected an integer >= 0"),
    ("curriculum_floor", -0.1, "--curriculum-floor=-0.1: expected a weight in [0, 1] (0: the frontier pool)"),
    ("curriculum_floor", 1.5, "--curriculum-floor=1.5: expected a weight in [0, 1]"),
    ("early_stop", -2, "--early-stop=-2: expected an integer >= 0"),
    ("early_stop", 2, "--early-stop=2: expected --eval-steps N as well"),
    ("ratio_level", "seq", "ratio_level='seq': expected one of"),
])
def test_bad_config_values_fail_with_one_line(model_dir, tmp_path, field, value, message):
    overrides = {field: value}
    if field == "kl_estimator":
        overrides["kl_beta"] = 0.1
    with pytest.raises(ConfigError) as exc:
        base_config(model_dir, tmp_path, **overrides)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_eval_steps_write_eval_runs_and_metrics(model_dir, tmp_path):
    from tests.train.helpers import TASKS

    cfg = base_config(model_dir, tmp_path / "ev", steps=2, eval_steps=1, eval_tasks=TASKS, eval_problems=2,
                      repeat_eval=2, check_overlap=False)  # evaluates on its training tasks: the plumbing only
    m = train(cfg, log=lambda m: None, reward_override=varied_reward)
    assert "eval/pass@1" in m
    for step in (0, 1, 2):  # step 0: the starting policy, evaluated before the first update
        summary = json.load(open(tmp_path / "ev" / "eval" / f"step-{step}" / "summary.json"))
        assert summary["num_tasks"] == 2 and summary["samples_per_task"] == 2
    rows = metrics(tmp_path / "ev")
    assert [r["step"] for r in rows] == [0, 1, 2] and all("eval/pass@1" in r for r in rows)


def test_training_on_its_eval_tasks_is_refused_before_anything_is_written(model_dir, tmp_path, monkeypatch):
    from tests.train.helpers import TASKS

    monkeypatch.setenv("CODERL_CACHE", str(tmp_path / "cache"))
    cfg = base_config(model_dir, tmp_path / "ev", steps=2, eval_steps=1, eval_tasks=TASKS)
    with pytest.raises(ConfigError) as exc:
        train(cfg, log=lambda m: None)
    assert f"training tasks '{TASKS}' overlap eval tasks '{TASKS}'" in str(exc.value)
    assert "\n" not in str(exc.value) and not (tmp_path / "ev").exists()


def test_cli_yaml_config_and_flag_precedence(model_dir, tmp_path):
    from coderl.cli import main

    cfg_file = tmp_path / "cfg.yaml"
    cfg_file.write_text(f"model: {model_dir}\ntasks: tests/fixtures/tasks/humaneval_small.jsonl\n"
                        "format: completion\nsteps: 5\nprompts_per_step: 1\nsamples_per_prompt: 2\n"
                        "max_new_tokens: 4\neval_tasks: null\nprogress: false\n")
    out = tmp_path / "run"
    assert main(["train", "--config", str(cfg_file), "--steps", "1", "--out", str(out)]) == 0
    assert [r["step"] for r in metrics(out)] == [1]  # the flag beat the YAML's steps: 5
    import yaml

    saved = yaml.safe_load(open(out / "config.yaml"))
    assert saved["samples_per_prompt"] == 2 and saved["steps"] == 1


def test_cli_rejects_unknown_yaml_field(tmp_path, capsys):
    from coderl.cli import main

    cfg_file = tmp_path / "cfg.yaml"
    cfg_file.write_text("stepz: 3\n")
    assert main(["train", "--config", str(cfg_file), "--out", str(tmp_path / "run")]) == 2
    assert "unknown field 'stepz'" in capsys.readouterr().err


def test_starting_from_an_adapter_keeps_it_as_the_reference(model_dir, tmp_path):
    """An SFT adapter as --model: the reference is that adapter (frozen), the policy starts equal to it,
    and the RL checkpoint is again one adapter over the base, loadable with load_model."""
    from peft import get_peft_model

    from coderl.models import load_model, lora_config, save_adapter
    from coderl.train.logprobs import build_sequences, token_logprobs
    from coderl.train.policy import build_policy

    torch.manual_seed(1)
    sft = get_peft_model(load_model(str(model_dir)).model, lora_config(4, 8, 0.0))
    for name, p in sft.named_parameters():
        if "lora_B" in name:
            torch.nn.init.normal_(p, std=0.5)  # a non-trivial "SFT" adapter
    save_adapter(sft, tmp_path / "sft", str(model_dir))
    cfg = base_config(model_dir, tmp_path / "rl", model=str(tmp_path / "sft"), steps=1, kl_beta=0.1)
    policy = build_policy(cfg)
    from coderl.rollout.generation import generate
    from coderl.tasks import load_tasks

    batch = generate(policy.model, policy.tokenizer, load_tasks(cfg.tasks).tasks[:2], format="completion",
                     max_new_tokens=4, temperature=1.0)
    seqs = build_sequences(batch)
    with torch.no_grad():
        now = token_logprobs(policy.model, seqs)
        with policy.reference():
            ref = token_logprobs(policy.model, seqs)
        with policy.model.disable_adapter():
            base = token_logprobs(policy.model, seqs)
    assert torch.allclose(now, ref, atol=1e-5)  # the policy starts as the SFT adapter
    assert not torch.allclose(ref, base, atol=1e-3)  # and the reference is not the bare base
    assert {n for n, p in policy.model.named_parameters() if p.requires_grad} == \
           {n for n, _ in policy.model.named_parameters() if "lora_" in n and ".default." in n}
    lines = []
    train(cfg, log=lines.append, reward_override=varied_reward)     # the run log says which LoRA it trains
    assert (f"training continues {tmp_path / 'sft'}'s LoRA (r 4, alpha 8, dropout 0.0, targets k_proj,o_proj,q_proj,"
            "v_proj)") in "\n".join(lines)
    reloaded = load_model(str(tmp_path / "rl" / "checkpoints" / "step-1"))
    assert reloaded.kind == "adapter"


def test_a_fresh_run_refuses_a_directory_holding_another_run(model_dir, tmp_path):
    from coderl.base.config import ConfigError

    train(base_config(model_dir, tmp_path / "run", steps=1), log=lambda m: None, reward_override=varied_reward)
    with pytest.raises(ConfigError, match="already holds a run .*pass --resume to continue it, --overwrite to "):
        train(base_config(model_dir, tmp_path / "run", steps=2), log=lambda m: None, reward_override=varied_reward)


def test_a_failed_run_leaves_nothing_it_made(tmp_path):
    """A model that fails to load: no config.yaml, no metrics.jsonl, no --out folder."""
    from coderl.train import run_training

    with pytest.raises(ConfigError):
        run_training(base_config(tmp_path / "no-model", tmp_path / "a" / "run"), log=lambda m: None)
    assert list(tmp_path.iterdir()) == []


def reward_nan_at(steps: set):
    """varied_reward, but NaN for every sample of the given (1-based) steps: NaN advantages, NaN loss."""
    calls = {"n": 0}

    def reward(results, samples, tasks):
        calls["n"] += 1
        totals = varied_reward(results, samples, tasks)
        return [float("nan")] * len(totals) if calls["n"] in steps else totals

    return reward


def test_a_non_finite_update_is_skipped_and_counted(model_dir, tmp_path):
    cfg = base_config(model_dir, tmp_path / "run", algo="grpo", steps=3)
    train(cfg, log=lambda m: None, reward_override=reward_nan_at({2}))
    rows = metrics(cfg.out)
    assert [r["train/skipped_update_fraction"] for r in rows] == [0.0, 1.0, 0.0]
    assert [r["train/nonfinite_steps"] for r in rows] == [0, 1, 1]
    assert math.isnan(rows[1]["loss/total"]) and math.isfinite(rows[2]["loss/total"])
    one, two, three = (lora_tensors(cfg.out, s) for s in (1, 2, 3))
    assert all(torch.equal(one[k], two[k]) for k in one)  # step 2 applied nothing
    assert all(torch.isfinite(two[k]).all() for k in two) and any(not torch.equal(two[k], three[k]) for k in two)
    opt = [torch.load(os.path.join(cfg.out, "checkpoints", f"step-{s}", "trainer_state.pt"), weights_only=False)
           ["optimizer"]["state"] for s in (1, 2)]
    assert all(torch.equal(opt[0][i]["exp_avg"], opt[1][i]["exp_avg"]) for i in opt[0])  # AdamW moments too


def test_three_non_finite_steps_in_a_row_stop_the_run(model_dir, tmp_path):
    cfg = base_config(model_dir, tmp_path / "run", algo="grpo", steps=6)
    with pytest.raises(ConfigError) as info:
        train(cfg, log=lambda m: None, reward_override=reward_nan_at({2, 3, 4}))
    message = str(info.value)
    assert message.startswith("step 4: loss or gradient not finite in 3 steps in a row (steps 2-4); not applied. "
                              "Lower --learning-rate") and "\n" not in message, message
    assert [r["train/nonfinite_steps"] for r in metrics(cfg.out)] == [0, 1, 2, 3]  # step 4 is logged ...
    assert not (tmp_path / "run" / "checkpoints" / "step-4").exists()  # ... but not checkpointed
    apart = base_config(model_dir, tmp_path / "apart", algo="grpo", steps=5)  # not in a row: runs on
    m = train(apart, log=lambda m: None, reward_override=reward_nan_at({2, 3, 5}))
    assert m["train/nonfinite_steps"] == 3


def test_the_cli_stops_on_non_finite_updates_with_one_line(model_dir, tmp_path, capsys, monkeypatch):
    from coderl.algorithms import POLICY_LOSSES
    from coderl.cli import main

    real = POLICY_LOSSES["ppo_clip"]

    def nan_loss(logprobs, old_logprobs, advantages, mask, **kwargs):
        loss, stats = real(logprobs, old_logprobs, advantages, mask, **kwargs)
        return loss * float("nan"), stats

    monkeypatch.setitem(POLICY_LOSSES, "ppo_clip", nan_loss)
    out = tmp_path / "run"
    code = main(["train", "--out", str(out), "--model", str(model_dir), "--tasks", TASKS,
                 "--format", "completion", "--steps", "4", "--prompts-per-step", "1", "--samples-per-prompt", "2",
                 "--max-new-tokens", "4", "--workers", "2", "--device", "cpu", "--no-progress",
                 "--kl-beta", "0.1"])  # a KL term in the loss: an update even where the tiny model's rewards are flat
    err = capsys.readouterr().err  # the run's log (stderr since issue 75: its lines, its progress), then one error
    errors = [line for line in err.splitlines() if "error" in line.lower()]
    assert code == 2 and "Traceback" not in err and errors == [err.splitlines()[-1]], err
    assert errors[0].startswith("coderl train: error: step 3: loss or gradient not finite in 3 steps in a row "
                                "(steps 1-3)")


def test_resume_is_honest(model_dir, tmp_path):
    """--resume refuses an --out with no run, and a setting that changes what the run computes, naming it; its
    config.yaml stays the record of the steps made; a setting that only reports (workers, progress) may change."""
    with pytest.raises(ConfigError, match=r"--resume: --out \S+ holds no run \(no config.yaml\)"):
        train(base_config(model_dir, tmp_path / "typo", resume=True), log=lambda m: None)
    cfg = base_config(model_dir, tmp_path / "run", steps=1)
    train(cfg, log=lambda m: None, reward_override=varied_reward)
    saved = open(tmp_path / "run" / "config.yaml").read()
    with pytest.raises(ConfigError, match=r"--resume: learning_rate: 0.01 -> 0.5, samples_per_prompt: 3 -> 4 "):
        train(base_config(model_dir, tmp_path / "run", steps=1, resume=True, learning_rate=0.5, samples_per_prompt=4),
              log=lambda m: None, reward_override=varied_reward)
    train(base_config(model_dir, tmp_path / "run", steps=1, resume=True, workers=1, progress=True),
          log=lambda m: None, reward_override=varied_reward)
    assert open(tmp_path / "run" / "config.yaml").read() == saved and len(metrics(tmp_path / "run")) == 1


def test_more_steps_on_resume_recompute_the_schedule_and_say_so(model_dir, tmp_path, monkeypatch):
    """--steps 2 -> 4 on --resume: the learning rate of step 3 is the 4-step linear schedule's (not the 2-step
    one's, which had decayed to 0), the log says so and metrics.jsonl records train/steps at step 3."""
    from coderl.train.updater import Updater, lr_factor

    kw = dict(lr_schedule="linear", save_steps=2)
    train(base_config(model_dir, tmp_path / "run", steps=2, **kw), log=lambda m: None, reward_override=varied_reward)
    used, said = [], []
    step = Updater.update

    def spy(self, *args, **kwargs):
        used.append(self.optimizer.param_groups[0]["lr"])
        return step(self, *args, **kwargs)

    monkeypatch.setattr(Updater, "update", spy)
    train(base_config(model_dir, tmp_path / "run", steps=4, resume=True, **kw), log=said.append,
          reward_override=varied_reward)
    assert used == [pytest.approx(1e-2 * lr_factor("linear", 0, 4)(s)) for s in (2, 3)] and used[0] > 0
    assert any("--steps 2 -> 4 at step 2" in m for m in said), said
    steps = [m.split(" reward ")[0] for m in said if m.startswith("step ")]  # the plain line, without the bar too
    assert steps == ["step 3/4", "step 4/4"], said
    rows = metrics(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2, 3, 4] and [r.get("train/steps") for r in rows] == [None, None, 4, None]


def _first_group_varies(results, samples, tasks):
    """The first group's rewards vary, every other group's are flat: most rows have a zero advantage."""
    return [float(i % 2) if i < 3 else 0.5 for i in range(len(samples))]


@pytest.mark.parametrize("fields", [dict(algo="grpo"), dict(algo="rloo", micro_batch_size=2),
                                    dict(algo="grpo", aggregation="sequence_mean")])
def test_rows_of_zero_advantage_skip_their_passes_and_the_update_is_the_same(model_dir, tmp_path, monkeypatch,
                                                                            fields):
    """Only the rows whose advantage moves the policy run the loss's forward and backward, each piece
    keeping its share of the whole minibatch's denominator: the weights equal those of the passes over
    every row (what runs when `live` is dropped)."""
    import coderl.train.updater as updater_module

    seen = []
    real = updater_module.pieces

    def counting(*args, **kw):
        parts = real(*args, **kw)
        seen.append(sum(len(rows) for rows, weight in parts if weight > 0))
        return parts

    monkeypatch.setattr(updater_module, "pieces", counting)
    kw = dict(steps=2, save_steps=2, **fields)
    train(base_config(model_dir, tmp_path / "live", **kw), log=lambda m: None, reward_override=_first_group_varies)
    assert seen == [3, 3]  # of 6 rows a step, the first group's 3
    monkeypatch.setattr(updater_module, "pieces", lambda *a, live=None, **k: counting(*a, **k))
    seen.clear()
    train(base_config(model_dir, tmp_path / "all", **kw), log=lambda m: None, reward_override=_first_group_varies)
    assert seen == [6, 6]
    live, every = lora_tensors(tmp_path / "live", 2), lora_tensors(tmp_path / "all", 2)
    for key in every:
        torch.testing.assert_close(live[key], every[key], rtol=1e-5, atol=1e-7)


@pytest.mark.slow
def test_every_step_prints_its_line_and_a_damaged_checkpoint_is_skipped(model_dir, tmp_path):
    """Without the bar (`progress: false`) each step is still one plain line in the log (step, reward, pass rate,
    tokens/s, time left).  A cut newest checkpoint (a disk that filled) is skipped on --resume with one line saying
    why, and the run goes on from the one before, exactly: the step it redoes equals the first run's."""
    import re

    from coderl.train.checkpoint import damage

    said = []
    cfg = base_config(model_dir, tmp_path / "run", steps=2, progress=False)
    train(cfg, log=said.append, reward_override=varied_reward)
    lines = [m for m in said if m.startswith("step ")]
    pattern = r"step {}/2 reward \S+  pass \S+  len \d+  \d+ tok/s  \S+s/step"
    assert re.fullmatch(pattern.format(1) + r", about .+ left", lines[0]), lines
    assert re.fullmatch(pattern.format(2), lines[1]), lines
    first = metrics(cfg.out)
    cut = os.path.join(cfg.out, "checkpoints", "step-2", "adapter_model.safetensors")
    size = os.path.getsize(cut)
    os.truncate(cut, size // 2)
    said.clear()
    train(base_config(model_dir, tmp_path / "run", steps=2, progress=False, resume=True), log=said.append,
          reward_override=varied_reward)
    assert f"--resume: skipped {os.path.dirname(cut)} (adapter_model.safetensors is {size // 2} bytes, its manifest " \
           f"says {size}); resuming from step-1" in said, said
    again = metrics(cfg.out)
    assert [r["step"] for r in again] == [1, 2] and again[1]["reward/total"] == first[1]["reward/total"]
    assert again[1]["loss/total"] == pytest.approx(first[1]["loss/total"], abs=1e-6)
    assert damage(os.path.dirname(cut)) is None  # written again, whole
