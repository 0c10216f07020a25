"""The config layer (coderl/base/config.py) and what the configs built on it promise: one YAML loader with
type coercion, sections with flat flags, one-line errors, options validated by name, reward presets and
weights, the sandbox's memory budget, and the layering of the package."""

import argparse
import ast
import json
import os

import pytest

from coderl.base.config import ConfigError, build, flatten, leaves
from coderl.base.yaml_file import load_config
from coderl.cli import build_parser, main
from coderl.eval.check import CheckConfig
from coderl.sandbox import client
from coderl.sandbox.config import SandboxConfig

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytest.importorskip("torch")


def _train_cfg(tmp_path, argv, yaml_text=None):
    from coderl.train.config import TrainConfig

    argv = ["train", "--out", str(tmp_path / "run"), *argv]
    if yaml_text is not None:
        (tmp_path / "c.yaml").write_text(yaml_text)
        argv += ["--config", str(tmp_path / "c.yaml")]
    parser = build_parser()
    ns = parser.parse_args(argv)
    return load_config(TrainConfig, ns, ns.parser, argv[1:], ns.config)


def test_yaml_floats_without_a_dot_are_floats(tmp_path):
    # PyYAML reads 5e-5 as the string '5e-5'; the loader coerces it to the field's type.
    cfg = _train_cfg(tmp_path, [], "learning_rate: 5e-5\nsteps: '3'\nlog_kl: 'true'\n")
    assert cfg.optim.learning_rate == 5e-5 and isinstance(cfg.optim.learning_rate, float)
    assert cfg.steps == 3 and cfg.kl.log_kl is True


@pytest.mark.parametrize("text, message", [
    ("shared_prompt: false\n", "'shared_prompt' was removed: rows that repeat a prompt always share"),
    ("async_worker_threads: 3\n", "'async_worker_threads' was removed: a generation worker beside the trainer"),
    ("group_sizes: adaptive\n", "'group_sizes' was removed: every prompt gets samples_per_prompt completions"),
    ("max_group_size: 16\n", "'max_group_size' was removed: every prompt gets samples_per_prompt completions"),
    ("split_seed: 1\n", "'split_seed' was removed: the visible/hidden split of a task is seeded with 0"),
    ("repair:\n  split_seed: 1\n", "'split_seed' was removed: the visible/hidden split of a task is seeded with 0"),
])
def test_a_removed_setting_is_one_line_saying_what_replaces_it(tmp_path, capsys, text, message):
    (tmp_path / "c.yaml").write_text(text)
    assert main(["train", "--out", str(tmp_path / "run"), "--config", str(tmp_path / "c.yaml")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err, err
    from coderl.train.config import TrainConfig

    kept = "".join(f"{key}: {json.dumps(value)}\n" for key, (value, _) in TrainConfig.REMOVED.items())
    (tmp_path / "c.yaml").write_text(kept)  # an older run's record
    assert _train_cfg(tmp_path, [], (tmp_path / "c.yaml").read_text()).steps == 20


def test_eval_shares_the_removed_repair_setting():
    """`split_seed` was a setting of the repair section that eval shares: its YAML reads the same way."""
    from coderl.eval.run import EvalConfig

    with pytest.raises(ConfigError, match=r"^EvalConfig: 'split_seed' was removed: the visible/hidden split"):
        build(EvalConfig, {"out": "run", "repair": {"split_seed": 1}})
    assert build(EvalConfig, {"out": "run", "split_seed": 0}) == build(EvalConfig, {"out": "run"})


def test_yaml_sections_may_nest_and_flags_win(tmp_path):
    cfg = _train_cfg(tmp_path, ["--timeout", "7"], "sandbox:\n  timeout: 2\n  memory_mb: 512\noptim:\n  warmup_steps: 2\n")
    assert (cfg.sandbox.timeout, cfg.sandbox.memory_mb, cfg.optim.warmup_steps) == (7.0, 512, 2)


@pytest.mark.parametrize("text, message", [
    ("steps: many\n", "--steps='many': expected an integer"),
    ("learning_rate: fast\n", "--learning-rate='fast': expected a number"),
    ("lerning_rate: 1e-4\n", "unknown field 'lerning_rate'"),
    ("sandbox:\n  timout: 2\n", "unknown field 'sandbox.timout'"),
])
def test_bad_yaml_is_one_line_naming_file_and_field(tmp_path, capsys, text, message):
    (tmp_path / "c.yaml").write_text(text)
    assert main(["train", "--out", str(tmp_path / "run"), "--config", str(tmp_path / "c.yaml")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err and "c.yaml" in err, err


def test_flatten_and_build_round_trip(tmp_path):
    from coderl.train.config import TrainConfig

    cfg = _train_cfg(tmp_path, ["--algo", "ppo", "--reward-weights", "pass=1,length_penalty=0.5"])
    again = build(TrainConfig, flatten(cfg))
    assert flatten(again) == flatten(cfg)
    assert cfg.rewards.reward_weights == {"pass": 1.0, "length_penalty": 0.5}


def test_every_setting_has_help_in_help_and_a_row_in_the_docs():
    """Every setting of `coderl train` is findable: a flag, or a YAML-only key shown in `--help`'s section of
    its own, each with its help; and a row of docs/training.md's table, which is generated from TrainConfig
    (`python scripts/settings_table.py` rewrites it when this fails)."""
    import contextlib
    import io
    import sys

    from coderl.base.config import setting_name
    from coderl.train.config import TrainConfig

    sys.path.insert(0, os.path.join(REPO, "scripts"))
    from settings_table import DOC, with_table

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["train", "--help"])
    text = out.getvalue()
    yaml_part = text[text.index("YAML-only settings:"):]
    doc = open(DOC, encoding="utf-8").read()
    for name, (_, f, _) in leaves(TrainConfig).items():
        assert f.metadata.get("help"), name
        shown = setting_name(TrainConfig, name)
        assert (f"  {name}: VALUE" in yaml_part) if shown == name else (shown in text), name
        assert f"| `{shown}`" in doc, name
    assert with_table(doc) == doc, "docs/training.md's settings table is not TrainConfig's: run scripts/settings_table.py"


def test_sandbox_section_is_shared_by_check_eval_and_train():
    from coderl.eval.run import EvalConfig
    from coderl.train.config import TrainConfig

    for cls in (CheckConfig, EvalConfig, TrainConfig):
        assert {"timeout", "memory_mb", "workers", "isolation"} <= set(leaves(cls)), cls


# ---- options validated by name


def _with_yaml(tmp_path, argv: list, fields: dict) -> list:
    """`argv` plus `--config FILE` holding `fields` (YAML-only settings), when there are any."""
    if not fields:
        return argv
    import yaml

    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump(fields))
    return [*argv, "--config", str(path)]


@pytest.mark.parametrize("argv, fields, message", [
    (["--algo", "reinforce", "--clip-eps", "0.3"], {}, "--clip-eps: not an option of --loss pg"),
    (["--algo", "reinforce"], {"normalize_std": True}, "normalize_std: not an option of --advantage reinforce"),
    (["--algo", "grpo", "--baseline", "none"], {}, "--baseline: not an option of --advantage grpo"),
    (["--algo", "rloo"], {"ratio_level": "sequence"}, "ratio_level: not an option of --loss pg"),
    (["--algo", "grpo"], {"gae_lambda": 0.9}, "gae_lambda: not an option of --advantage grpo"),
])
def test_an_option_the_chosen_function_does_not_take_is_refused(tmp_path, capsys, argv, fields, message):
    assert main(["train", "--out", str(tmp_path / "run"), *_with_yaml(tmp_path, argv, fields)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err, err


@pytest.mark.parametrize("algo", ["reinforce", "rloo", "grpo", "ppo_critic_free", "ppo"])
def test_defaults_never_error_and_record_what_is_used(tmp_path, algo):
    cfg = _train_cfg(tmp_path, ["--algo", algo])
    from coderl.algorithms import ADVANTAGES, POLICY_LOSSES

    used = {**cfg.advantage_kwargs(ADVANTAGES[cfg.advantage]), **cfg.loss_kwargs(POLICY_LOSSES[cfg.loss])}
    expected = {"reinforce": {"baseline": "running_mean", "baseline_momentum": 0.9},
                "rloo": {"normalize_std": True}, "grpo": {"normalize_std": True, "eps": 0.2, "ratio_level": "token"},
                "ppo_critic_free": {"eps": 0.2, "ratio_level": "sequence"},
                "ppo": {"gamma": 1.0, "lam": 0.95, "eps": 0.2, "ratio_level": "token"}}[algo]
    assert {k: v for k, v in used.items() if k != "eps_high"} == expected


@pytest.mark.parametrize("algo", ["reinforce", "rloo", "grpo", "ppo_critic_free", "ppo"])
@pytest.mark.parametrize("reward", ["pass", "pass_minus_length"])
def test_a_runs_config_yaml_reads_back_as_the_same_config(tmp_path, algo, reward):
    """config.yaml (what a run records) through `coderl train --config` is the same config, for every
    --algo: options the chosen setup does not take are recorded null, never as explicit values."""
    import dataclasses

    import yaml

    from coderl.train.config import TrainConfig

    cfg = _train_cfg(tmp_path, ["--algo", algo, "--reward", reward])
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    assert build(TrainConfig, yaml.safe_load((tmp_path / "config.yaml").read_text())) == cfg
    again = _train_cfg(tmp_path, [], (tmp_path / "config.yaml").read_text())  # the command line's way
    assert again.config.endswith("c.yaml") and dataclasses.replace(again, config=None) == cfg
    if algo in ("reinforce", "rloo"):
        assert cfg.loss_options.ratio_level is None and cfg.loss_options.clip_eps is None
    if algo != "ppo":
        assert (cfg.value.value_coef, cfg.value.value_clip, cfg.value.whiten_advantages) == (None, None, None)
    if reward == "pass":
        assert (cfg.rewards.length_alpha, cfg.rewards.length_penalty_on) == (None, None)
    else:
        assert (cfg.rewards.length_alpha, cfg.rewards.length_penalty_on) == (0.01, "all")


@pytest.mark.parametrize("argv, fields, message", [
    (["--algo", "grpo"], {"value_coef": 0.5}, "value_coef: only with a value head"),
    (["--algo", "ppo_critic_free"], {"value_clip": 0.1}, "value_clip: only with a value head"),
    (["--algo", "reinforce"], {"whiten_advantages": False}, "whiten_advantages: only with a value head"),
    (["--reward", "pass", "--length-alpha", "0.03"], {}, "--length-alpha: not an option of --reward pass"),
    (["--reward", "fraction", "--length-penalty-on", "passed"], {}, "--length-penalty-on: not an option of --reward "
                                                                    "fraction"),
    (["--reward", "pass_minus_length", "--reward-weights", "length_penalty=0", "--length-alpha", "0.03"], {},
     "--length-alpha: not an option of --reward pass_minus_length"),
])
def test_an_explicit_setting_the_setup_ignores_is_one_line(tmp_path, capsys, argv, fields, message):
    assert main(["train", "--out", str(tmp_path / "run"), *_with_yaml(tmp_path, argv, fields)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err, err


def test_value_head_and_length_options_fill_where_used(tmp_path):
    ppo = _train_cfg(tmp_path, ["--algo", "ppo"], "value_clip: 0\n")
    assert (ppo.value.value_coef, ppo.value.value_clip, ppo.value.whiten_advantages) == (0.5, 0.0, True)
    added = _train_cfg(tmp_path, ["--reward", "pass", "--reward-weights", "length_penalty=1", "--length-alpha", "0"])
    assert (added.rewards.length_alpha, added.rewards.length_penalty_on) == (0.0, "all")


def test_an_option_the_function_takes_is_passed(tmp_path):
    cfg = _train_cfg(tmp_path, ["--algo", "reinforce", "--baseline", "none"])
    from coderl.algorithms import ADVANTAGES

    assert cfg.advantage_kwargs(ADVANTAGES["reinforce"])["baseline"] == "none"


# ---- rewards


def test_reward_presets_are_named_for_what_they_compute_and_keep_seed_aliases(tmp_path):
    from coderl.train.rewards import reward_config

    for alias, name in (("seed001", "pass_minus_length"), ("seed003", "syntax_fraction_quality"),
                        ("seed004", "fraction_plus_perfect")):
        a, b = (reward_config(_train_cfg(tmp_path, ["--reward", r])) for r in (alias, name))
        assert a.weights == b.weights and a.weights
    rc = reward_config(_train_cfg(tmp_path, ["--reward", "pass_minus_length", "--length-alpha", "0.03"]))
    assert rc.weights == {"pass": 1.0, "length_penalty": 1.0} and rc.length_alpha == 0.03


def test_reward_weights_are_settable_from_cli_and_yaml(tmp_path):
    from coderl.train.rewards import reward_config

    cli = reward_config(_train_cfg(tmp_path, ["--reward", "fraction_plus_perfect", "--reward-weights",
                                              "perfect_bonus=0.5,format=0.2,fraction=0"]))
    assert cli.weights == {"perfect_bonus": 0.5, "format": 0.2}
    yaml = reward_config(_train_cfg(tmp_path, [], "reward: pass\nreward_weights:\n  syntax: 0.1\n  quality: 0.3\n"))
    assert yaml.weights == {"pass": 1.0, "syntax": 0.1, "quality": 0.3}


@pytest.mark.parametrize("argv, message", [
    (["--reward-weights", "speed=1"], "unknown reward component(s) 'speed'"),
    (["--reward-weights", "pass=0"], "expected at least one component"),
])
def test_bad_reward_weights_are_one_line(tmp_path, capsys, argv, message):
    assert main(["train", "--out", str(tmp_path / "run"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err, err


def test_the_quality_reward_without_ruff_is_one_line(tmp_path, capsys, monkeypatch):
    from coderl.rewards.lint import LinterMissing
    from coderl.train import rewards

    def missing():
        raise LinterMissing("no ruff")

    monkeypatch.setattr(rewards, "find_ruff", missing)
    assert main(["train", "--out", str(tmp_path / "run"), "--reward", "seed003"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "needs the ruff linter" in err and "pip install ruff" in err, err


def test_ruff_comes_with_the_train_extra():
    text = open(os.path.join(REPO, "pyproject.toml")).read()
    train = text[text.index("train = ["): text.index("]", text.index("train = ["))]
    assert '"ruff' in train


# ---- the sandbox's memory budget


def _machine(monkeypatch, cpus, gib):
    monkeypatch.setattr(client, "usable_cpus", lambda: cpus)
    monkeypatch.setattr(client, "total_memory_bytes", lambda: gib * 2**30)


def test_default_workers_fit_in_memory(monkeypatch):
    _machine(monkeypatch, 16, 32)  # 16 cores, 32 GiB: 16 x 2 GiB would be all of RAM
    assert SandboxConfig().resolved_workers() == 12  # 75% of 32 GiB / 2 GiB
    assert SandboxConfig(memory_mb=1024).resolved_workers() == 16
    _machine(monkeypatch, 2, 24)
    assert SandboxConfig().resolved_workers() == 2


def test_workers_over_the_memory_budget_are_one_line(monkeypatch, capsys, tmp_path):
    _machine(monkeypatch, 16, 32)
    with pytest.raises(ConfigError, match=r"--workers 16 x --memory-mb 2048: expected at most 75%"):
        SandboxConfig(workers=16)
    for argv in (["check", "--tasks", "easy", "--reference", "--workers", "16"],
                 ["train", "--out", str(tmp_path / "run"), "--workers", "16"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "--memory-mb" in err, err
    with pytest.raises(client.SandboxUnavailable, match="lower --workers or --memory-mb"):
        client.check_memory_budget(16, 2 * 2**30)


def test_a_memory_limit_no_worker_fits_is_one_line_before_any_model_loads(monkeypatch, capsys, tmp_path):
    _machine(monkeypatch, 2, 24)  # 75% of 24 GiB = 18 GiB: one 100,000 MiB program can never run
    with pytest.raises(ConfigError, match=r"--memory-mb 100000: expected at most 18432 MiB"):
        SandboxConfig(memory_mb=100000)
    run = tmp_path / "run"
    for argv in (["check", "--tasks", "easy", "--reference", "--memory-mb", "100000"],
                 ["train", "--out", str(run), "--memory-mb", "100000"],
                 ["eval", "--out", str(tmp_path / "eval"), "--memory-mb", "100000"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "--memory-mb 100000" in err and "--workers is" not in err, err
    assert not run.exists()  # refused before the run directory (or a model) was made


# ---- module size


def test_a_module_over_400_lines_says_why_it_is_one_file():
    """No line cap: a module is as long as its one job needs, and one over 400 lines says why in its
    docstring ("Over 400 lines: ...").  (Import layers and cycles: tests/test_import_graph.py.)"""
    unexplained = []
    for root, _, files in os.walk(os.path.join(REPO, "coderl")):
        if root.endswith(os.path.join("corpus", "families")):
            continue  # problem definitions are data: a family is one module, however many problems it has
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                text = open(path, encoding="utf-8").read()
                doc = ast.get_docstring(ast.parse(text)) or ""
                if text.count("\n") > 400 and "over 400 lines:" not in doc.lower():
                    unexplained.append(os.path.relpath(path, REPO))
    assert not unexplained, unexplained


def test_each_loop_file_reads_alone_in_at_most_300_lines():
    for name in ("sft/run.py", "rl/policy_gradient.py", "rl/ppo.py"):
        path = os.path.join(REPO, "coderl", "train", name)
        assert sum(1 for _ in open(path)) <= 300, name


def test_a_yaml_value_outside_a_fields_choices_is_a_one_line_error():
    # argparse checks a flag's choices; build (YAML, pipeline sections) checks them the same way
    from coderl.base.config import ConfigError, build
    from coderl.train.config import TrainConfig

    with pytest.raises(ConfigError) as e:
        build(TrainConfig, {"out": "x", "ratio_level": "seq"})
    assert str(e.value) == "ratio_level='seq': expected one of token, sequence, sequence_mean"


def test_an_unknown_reward_preset_in_yaml_is_one_line_naming_the_choices(tmp_path):
    with pytest.raises(ConfigError) as err:
        _train_cfg(tmp_path, [], "reward: seed002\n")
    message = str(err.value)
    assert "reward" in message and "seed002" in message and "pass_minus_length" in message and "seed001" in message
    assert "\n" not in message


def test_advantage_help_is_the_registry_and_parsing_stays_light(capsys):
    """`--advantage`'s help is generated from the estimators' registry when --help prints it; building the
    parser (every command's start) still imports no torch."""
    import subprocess
    import sys

    from coderl.algorithms import ADVANTAGES

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in ADVANTAGES) and "gae (with a value head)" in text
    code = "import sys; from coderl.cli import build_parser; build_parser(); assert 'torch' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


@pytest.mark.parametrize("argv, fields, message", [
    (["--gae-lambda", "0.9"], {}, "--gae-lambda is a YAML setting: write `gae_lambda: VALUE` in a file given with "
                                  "--config"),
    (["--no-whiten-advantages"], {}, "--no-whiten-advantages is a YAML setting: write `whiten_advantages: VALUE`"),
    ([], {"tamper_cap": float("inf")}, "--tamper-cap=inf: expected a finite number, or none (off)"),
    ([], {"tamper_cap": "abc"}, "--tamper-cap='abc': expected a number"),
    (["--tamper-cap", "abc"], {}, "argument --tamper-cap: invalid float value: 'abc'"),
])
def test_yaml_only_flags_and_a_bad_tamper_cap_are_one_line(tmp_path, capsys, argv, fields, message):
    try:
        code = main(["train", "--out", str(tmp_path / "run"), *_with_yaml(tmp_path, argv, fields)])
    except SystemExit as exc:  # argparse's own errors: usage, then one error line
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err.splitlines()[-1], err


def test_tamper_cap_none_switches_the_cap_off(tmp_path):
    assert _train_cfg(tmp_path, ["--tamper-cap", "none"]).rewards.tamper_cap is None
    assert _train_cfg(tmp_path, []).rewards.tamper_cap == 0.0


def test_what_a_resumed_run_may_change():
    """`resume_conflicts` (coderl/base/outputs.py): a setting that changes what the run computed or samples is a
    conflict; where and how often it reports is not; --steps may grow, not shrink; a path that moved with the
    run (the same place relative to --out) is unchanged, one that points elsewhere is not."""
    from coderl.base.outputs import resume_conflicts

    saved = {"out": "/a/rl/grpo", "model": "/a/sft/adapter", "steps": 4, "learning_rate": 1e-4, "workers": 2}
    moved = {**saved, "out": "/b/rl/grpo", "model": "/b/sft/adapter", "workers": 4, "steps": 8}
    assert resume_conflicts(saved, moved) == []
    assert resume_conflicts(saved, {**moved, "model": "/b/other/adapter", "steps": 3, "learning_rate": 2e-4}) == [
        "learning_rate: 0.0001 -> 0.0002", "model: '/a/sft/adapter' -> '/b/other/adapter'", "steps: 4 -> 3"]


def test_help_lists_every_flags_choices_and_whole_section_texts():
    """`--help` of every command: a flag with choices names them all; a section's text is its whole first
    paragraph (the lora section's was cut at its docstring's first line)."""
    parser = build_parser()
    commands = [p for a in parser._actions if isinstance(a, argparse._SubParsersAction) for p in a.choices.values()]
    commands += [p for c in commands for a in c._actions if isinstance(a, argparse._SubParsersAction)
                 for p in a.choices.values()]
    for command in commands:
        for action in command._actions:
            if action.choices and not isinstance(action, argparse._SubParsersAction) and action.help:
                shown = action.help % vars(action) if "%" in action.help else action.help
                assert all(str(c) in shown for c in action.choices), (command.prog, action.dest, shown)
        for group in command._action_groups:
            assert not group.description or group.description.rstrip().endswith((".", ")")), (command.prog,
                                                                                              group.description)
