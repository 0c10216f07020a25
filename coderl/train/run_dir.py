"""A run's directory (`--out`) for SFT and the RL loops: what makes it hold a run (`run_contents`), a fresh run
refused where another run is (`refuse_existing_run`) unless --overwrite replaces it (`replace_run`), a resume
checked against the run it continues (`check_resume`), and what a failure leaves (`leave_no_run`).  No torch at
import time (`coderl sft --help` stays light)."""

from __future__ import annotations

import os
import shutil

from coderl.base.config import ConfigError
from coderl.base.outputs import leave_nothing, refuse_existing, resume_conflicts, writable
from coderl.base.yaml_file import read_yaml_mapping


def run_contents(out: str) -> list[str]:
    """What makes `out` hold a run: its checkpoints, a non-empty metrics.jsonl."""
    return [name for name in ("checkpoints", "metrics.jsonl")
            if os.path.exists(os.path.join(out, name)) and (name != "metrics.jsonl"
                                                            or os.path.getsize(os.path.join(out, name)) > 0)]


def refuse_existing_run(out: str, *, overwrite: bool) -> None:
    """A fresh run never writes into another run's directory (its checkpoints would be mixed with ours) unless
    `overwrite` (the old run is then removed by `replace_run`); both commands that call it have --resume."""
    held = run_contents(out)
    refuse_existing("--out", out, [f"a run ({', '.join(held)})"] if held else [], overwrite=overwrite,
                    resumable=True, kind="folder")


def check_resume(out: str, settings: dict, ckpt: str | None) -> None:
    """`--resume` continues a run: one in `out` (its config.yaml), with the settings its checkpoint was made with
    (`resume_conflicts`: more --steps than before are taken)."""
    writable("--out", out, "folder")
    path = os.path.join(out, "config.yaml")
    if not os.path.isfile(path):
        raise ConfigError(f"--resume: --out {out} holds no run (no config.yaml); drop --resume to start one, "
                          "or check --out")
    conflicts = resume_conflicts(read_yaml_mapping(path, empty={}, expected="a run's settings"), settings)
    if ckpt and conflicts:
        raise ConfigError(f"--resume: {', '.join(conflicts)} (changed since {path}: they change what the run "
                          "computed or samples); resume with the run's own settings, or start a new run")


def check_run_dir(out: str, settings: dict, ckpt: str | None, *, resume: bool, overwrite: bool) -> None:
    """What `out` may hold: with `resume` the run to continue (`check_resume`), else no run unless `overwrite`."""
    check_resume(out, settings, ckpt) if resume else refuse_existing_run(out, overwrite=overwrite)


def replace_run(out: str) -> None:
    """With --overwrite, once every check has passed: the run in `out` goes, so none of it mixes with the new one."""
    if run_contents(out):
        shutil.rmtree(out)


def fresh_run(out: str, *, overwrite: bool, main: bool):
    """The run directory of a fresh run (its old run replaced with `overwrite`), which a failure leaves only if it
    holds a run worth keeping (checkpoints, logged steps); rank 0 (`main`) replaces and cleans up."""
    if main and overwrite:
        replace_run(out)
    return leave_no_run(out, main=main)


def leave_no_run(out: str, *, main: bool):
    """A context: a failure removes what it made in `out`, unless `out` holds a run (to resume, or to use); an
    `out` that cannot be a run's folder is one line first."""
    writable("--out", out, "folder")
    return leave_nothing(out, keep=lambda directory: not main or bool(run_contents(directory)))
