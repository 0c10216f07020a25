"""The `coderl` command line.  Each sub-command is one dataclass config; its field docs are the --help.

Start-up stays light: sub-commands import their modules lazily, and `coderl check` never imports torch.

Ctrl-C (SIGINT) and SIGTERM stop a command the same way: an exception where it is, so that what it was
writing is cleaned up (base/outputs.py), then one line ("interrupted", "terminated") and exit 130 or 143.

Over 400 lines: every sub-command's few lines of glue (its config, its output's owner, its call) beside the one
dispatch, error and signal handling they all share; split by command, each piece would import that shared part
back for a dozen lines of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import re
import signal
import subprocess
import sys

from coderl.base.config import ConfigError, add_arguments, from_args, suggest
from coderl.base.ownership import ENV as OWNER
from coderl.base.ownership import lock_file, owned


def _cmd_check(ns: argparse.Namespace) -> int:
    from coderl.eval.check import CheckConfig, describe_isolation, format_summary, run_check, run_mutant_check

    cfg = from_args(CheckConfig, ns)
    if cfg.show_isolation:
        print(describe_isolation(cfg))
        return 0
    if cfg.mutants:
        ok, report = run_mutant_check(cfg)
        print(report)
        return 0 if ok else 1
    ns.own(("--out", cfg.out), ("--time-limits", cfg.time_limits))
    summary = run_check(cfg)
    print(format_summary(summary))
    if cfg.out:
        print(f"results: {cfg.out}\nsummary: {cfg.out}.summary.json")
    return 0


def _cmd_decontaminate(ns: argparse.Namespace) -> int:
    from coderl.eval.leak_report import DecontaminateConfig, run_decontaminate

    cfg = from_args(DecontaminateConfig, ns)
    ns.own(("--out", cfg.out))
    report, text, _ = run_decontaminate(cfg)
    print(text, end="")
    if cfg.out:
        print(f"written: {cfg.out}.md, {cfg.out}.json")
    return 1 if report.leaks or report.same or report.incomplete else 0


def _cmd_eval(ns: argparse.Namespace) -> int:
    from coderl.base.config import explicit_fields
    from coderl.eval.chunks import PARTIAL, read_chunks
    from coderl.eval.run import EvalConfig, format_summary, run_eval
    from coderl.models.spec import recorded_format

    partial = os.path.join(ns.out or "", PARTIAL)  # --resume: the interrupted evaluation's settings, unless given
    saved = read_chunks(partial)[0].get("config", {}) if ns.resume and os.path.isfile(partial) else {}
    given = explicit_fields(ns.parser, ns.argv) | {"overwrite"}
    overrides = {k: v for k, v in saved.items() if k not in given}
    trained = recorded_format(ns.model) if "format" not in given | set(saved) else None
    if trained:  # an adapter is evaluated in the prompt format it was trained with
        overrides["format"] = trained
        print(f"--format {trained}: the format {ns.model} was trained with", file=sys.stderr)
    elif trained == "":
        print(f"note: {ns.model} does not record its prompt format (an adapter saved before adapters did); "
              f"using --format {ns.format}; pass --format to choose", file=sys.stderr)
    cfg = from_args(EvalConfig, ns, overrides)
    ns.own(("--out", cfg.out))
    summary = run_eval(cfg, log=lambda m: print(m, file=sys.stderr))
    print(format_summary(summary))
    print(f"run directory: {cfg.out}")
    return 0


def _cmd_compare(ns: argparse.Namespace) -> int:
    from coderl.eval.compare import CompareConfig, run_compare

    cfg = from_args(CompareConfig, ns)
    ns.own(("--out", cfg.out))
    print(run_compare(cfg), end="")
    print(f"written: {cfg.out}.md" + (f", {cfg.out}.png" if cfg.plot else ""))
    return 0


def _train_config(ns: argparse.Namespace):
    import dataclasses

    from coderl.base.config import explicit_fields
    from coderl.base.yaml_file import load_config
    from coderl.train.config import TrainConfig

    saved = os.path.join(ns.out or "", "config.yaml")  # --resume: the run's own settings, unless given
    cfg = load_config(TrainConfig, ns, ns.parser, ns.argv, saved if ns.resume and not ns.config
                      and os.path.isfile(saved) else ns.config)
    if cfg.resume and "steps" not in explicit_fields(ns.parser, ns.argv):  # a run grown with --steps N goes on to N
        from coderl.train.checkpoint import recorded_steps

        cfg = dataclasses.replace(cfg, steps=max(cfg.steps, recorded_steps(cfg.out)))
    return cfg


def _cmd_train(ns: argparse.Namespace) -> int:
    from coderl.base.progress import to_stderr

    cfg = _train_config(ns)
    if ns.dry_run:
        from coderl.train.dry_run import dry_run_report

        print(dry_run_report(cfg, int(os.environ.get("WORLD_SIZE", "1"))))
        return 0
    ns.own(("--out", cfg.out))  # before torch is imported: a refusal is quick
    if cfg.resume:
        from coderl.train.checkpoint import run_finished

        finished = run_finished(cfg.out, cfg.steps)
        if finished:  # said without loading a model
            print(finished, file=sys.stderr)
            return 0
    from coderl.train import run_training
    from coderl.train.distributed import is_main_process

    metrics = run_training(cfg, log=to_stderr)  # what the run says, its progress lines among it: a log's
    if not is_main_process():  # under `accelerate launch` rank 0 reports
        return 0
    shown = {k: round(v, 4) for k, v in metrics.items() if k.startswith(("reward/", "sandbox/pass", "eval/"))}
    print(f"done: {cfg.steps} steps in {cfg.out}; last step: {shown}")
    return 0


def _sft_config(ns: argparse.Namespace):
    from coderl.base.yaml_file import load_config
    from coderl.train.sft.config import SFTConfig

    saved = os.path.join(ns.out or "", "config.yaml")  # --resume: the run's own settings, unless given
    return load_config(SFTConfig, ns, ns.parser, ns.argv, saved if ns.resume and os.path.isfile(saved) else None)


def _cmd_sft(ns: argparse.Namespace) -> int:
    from coderl.base.progress import to_stderr

    cfg = _sft_config(ns)
    ns.own(("--out", cfg.out))  # before torch is imported: a refusal is quick
    from coderl.train.distributed import is_main_process
    from coderl.train.sft.run import sft

    result = sft(cfg, log=to_stderr)
    if not is_main_process():  # under `accelerate launch` rank 0 reports
        return 0
    print(f"done: {result.steps} optimizer steps, {result.examples_seen} examples seen ({result.examples} kept) "
          f"in {cfg.out}; "
          f"last sft/loss {result.metrics['sft/loss']:.4f}; "
          f"{'model' if cfg.lora.full else 'adapter'}: {result.adapter} "
          f"(= {result.checkpoint}; use it as --model)")
    return 0


def _cmd_tasks_export(ns: argparse.Namespace) -> int:
    from coderl.integrations.export import ExportConfig, export_tasks

    cfg = from_args(ExportConfig, ns)
    if ns.skip_bad_rows and cfg.format in ("verl", "trl"):
        raise ConfigError(f"--skip-bad-rows with --format {cfg.format}: its rows name the task spec, which their "
                          "scorer reloads whole; export with --format jsonl or parquet first (the good rows, as a "
                          "file of their own)")
    ns.own(("--out", cfg.out))
    count = export_tasks(cfg)
    print(f"wrote {count} {cfg.format} rows of {cfg.tasks} to {cfg.out}")
    return 0


def _cmd_tasks_repos(ns: argparse.Namespace) -> int:
    from coderl.tasks.repository.command import RepoGenConfig, run_generation

    cfg = from_args(RepoGenConfig, ns)
    ns.own(("--out", cfg.out))
    stats = run_generation(cfg)
    total = stats["total"]
    print(f"wrote {total.get('validated', 0)} validated repository tasks from {len(stats['repositories'])} "
          f"repositories to {cfg.out} (repo:{cfg.out}; counts in {cfg.out}/stats.json)")
    return 0


def _cmd_tasks_oracle(ns: argparse.Namespace) -> int:
    from coderl.eval.oracle import OracleConfig, write_oracle_trajectories

    cfg = from_args(OracleConfig, ns)
    ns.own(("--out", cfg.out))
    kept, total = write_oracle_trajectories(cfg)
    print(f"wrote {kept} trajectories of {total} tasks (those the oracle resolved) to {cfg.out}; train on them with "
          f"coderl sft --data {cfg.out}")
    return 0


def _cmd_pipeline(ns: argparse.Namespace) -> int:
    from coderl.pipeline import PipelineConfig, run_command

    return run_command(from_args(PipelineConfig, ns), own=ns.own)


def _run_skipping(ns: argparse.Namespace) -> int:
    """The command with bad task rows skipped; their reasons written beside its output."""
    from coderl.tasks.rows import skipping_bad_rows

    with skipping_bad_rows() as skipped:
        try:
            return ns.func(ns)
        finally:  # the list is saved even when the command fails (every row of a source bad)
            out = getattr(ns, "out", None)
            skipped = list(dict.fromkeys(skipped))  # a spec loaded twice (train, then its evaluation) counts once
            if skipped and out:
                path = f"{out}.skipped_rows.txt" if ns.command == "check" or not os.path.isdir(out) else \
                    os.path.join(out, "skipped_rows.txt")
                os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.writelines(line + "\n" for line in skipped)
                print(f"skipped {len(skipped)} bad task row(s): {path}", file=sys.stderr)
            elif skipped:
                print(f"skipped {len(skipped)} bad task row(s)", file=sys.stderr)


class Parser(argparse.ArgumentParser):
    """argparse's parser (and its sub-commands'), with a bad flag said in one line that points at --help, not
    argparse's whole usage block."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # `--lr` is not `--lr-schedule`: a flag is named whole
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _command(sub, name: str, help: str, config, func, *, skip_bad_rows: bool = True):
    """A sub-command whose flags are `config`'s fields (its docstring the description), run by `func`."""
    p = sub.add_parser(name, help=help, description=config.__doc__)
    add_arguments(p, config)
    p.set_defaults(func=func, parser=p)
    if skip_bad_rows:
        p.add_argument("--skip-bad-rows", action="store_true",
                       help="leave out task rows (of files and datasets) that fail their checks instead of stopping at "
                       "the first; each is printed and listed in OUT's skipped_rows.txt")
    return p


def build_parser() -> argparse.ArgumentParser:
    from coderl.eval.check import CheckConfig
    from coderl.eval.compare import CompareConfig
    from coderl.eval.run import EvalConfig
    from coderl.models.cli import ModelsConfig, run_models

    parser = Parser(
        prog="coderl",
        description="Fine-tune code language models with reinforcement learning from verifiable rewards.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _command(sub, "check", "run completions against task tests in the sandbox; pass@k", CheckConfig, _cmd_check)
    _command(sub, "eval", "generate completions with a model, check them, report pass@k and length", EvalConfig,
             _cmd_eval)
    from coderl.eval.leak_report import DecontaminateConfig

    _command(sub, "decontaminate", "training tasks vs evaluation sets: behaviour (tests vs references) and n-gram "
             "overlap", DecontaminateConfig, _cmd_decontaminate, skip_bad_rows=False)
    _command(sub, "compare", "seed 001's table and a pass@1-vs-length plot over eval runs", CompareConfig,
             _cmd_compare, skip_bad_rows=False)
    _command(sub, "models", "list built-in model aliases and cached model folders", ModelsConfig,
             lambda ns: run_models(from_args(ModelsConfig, ns)), skip_bad_rows=False)
    from coderl.train.config import TrainConfig

    p = _command(sub, "train", "RL from unit-test rewards: REINFORCE, RLOO, GRPO, PPO (LoRA)", TrainConfig,
                 _cmd_train)
    p.add_argument("--dry-run", action="store_true", help="validate the config (its task specs parsed, not read: a "
                   "path not on this machine is said, not refused) and print one step's shape on 1, 2 and 8 "
                   "processes; load no model, tasks or sandbox")
    from coderl.train.sft.run import SFTConfig

    _command(sub, "sft", "supervised fine-tuning on reference solutions, prompt masked (LoRA/QLoRA)", SFTConfig,
             _cmd_sft)
    from coderl.integrations.export import ExportConfig

    p = sub.add_parser("tasks", help="export a task spec as verl or TRL rows or a task file of coderl's own; generate "
                       "repository tasks",
                       description="Task sets for other trainers (docs/data.md).")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    # --skip-bad-rows: jsonl and parquet only: verl and TRL rows name a spec their scorer reloads whole
    _command(actions, "export", "write a task spec as verl's RL parquet, a TRL dataset folder, or coderl's own JSONL "
             "or parquet task file", ExportConfig, _cmd_tasks_export)
    from coderl.tasks.repository.command import RepoGenConfig

    _command(actions, "repos", "generate repository tasks offline: pinned source distributions, AST bugs validated "
             "in the sandbox, issues from the failures", RepoGenConfig, _cmd_tasks_repos, skip_bad_rows=False)
    from coderl.eval.oracle import OracleConfig

    _command(actions, "oracle", "a scripted agent resolves repository tasks through the agent's tools; its "
             "trajectories (chat messages) for coderl sft", OracleConfig, _cmd_tasks_oracle, skip_bad_rows=False)
    from coderl.pipeline import PipelineConfig

    _command(sub, "pipeline", "seed 001's flow from one YAML: base eval, SFT, RL runs, evals, report", PipelineConfig,
             _cmd_pipeline, skip_bad_rows=False)
    sub.add_parser("launch", help="`accelerate launch` of `coderl train` or `coderl sft` on several processes; "
                   "Ctrl-C ends it in one line", description=_launch.__doc__, add_help=False)
    return parser


def _launch(argv: list[str]) -> int:
    """`coderl launch [accelerate launch options] train|sft [options]`: accelerate's own launcher (the options and
    config files of `accelerate launch`, docs/scaling.md) starting `python -m coderl train|sft ...` on every process.
    Where `accelerate launch` ends on Ctrl-C or SIGTERM with its elastic agent's traceback, this ends with rank 0's
    one line and exit 130 / 143; a rank that fails ends it with that rank's exit code, its own error printed."""
    import logging

    from accelerate.commands.launch import launch_command, launch_command_parser
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    at = next((i for i, arg in enumerate(argv) if arg in ("train", "sft")), None)
    if at is None and argv in (["-h"], ["--help"]):
        print(f"usage: coderl launch [accelerate launch options] train|sft [options]\n\n{_launch.__doc__}\n\n"
              f"{_launch_options(launch_command_parser())}")
        return 0
    if at is None:
        print("coderl launch: error: expected the command to launch, train or sft, after accelerate launch's options "
              f"(got {' '.join(argv) or 'nothing'})", file=sys.stderr)
        return 2
    parser = launch_command_parser()
    try:
        args = _launch_args(parser, [*argv[:at], "--module", "coderl", *argv[at:]])
    except ValueError as exc:  # accelerate's parser would print its whole usage block
        print(f"coderl launch: error: {exc} (see `coderl launch --help`)", file=sys.stderr)
        return 2
    ns = _parse(argv[at:])
    import torch.distributed.run  # noqa: F401  (the elastic agent's modules, each with a logger of its own level)

    for name in list(logging.root.manager.loggerDict):  # its "rank 0 failed" and "death signal" said twice
        if name.startswith("torch.distributed.elastic"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        with _sigterm_unwinds(), contextlib.ExitStack() as held:
            config = _train_config if ns.command == "train" else _sft_config
            cfg = None if getattr(ns, "dry_run", False) else config(ns)
            refused = cfg is not None and _more_ranks_than_gpus(args, cfg.device)
            if refused:
                print(f"coderl launch: error: {refused}", file=sys.stderr)
                return 2
            out = cfg.out if cfg is not None else None
            if out:  # one owner for the run: this launcher, for all its ranks (base/ownership.py)
                held.enter_context(owned(("--out", out)))
                os.environ[OWNER] = lock_file(out)
            os.environ[LAUNCHER] = str(os.getpid())  # its ranks die with it
            launch_command(args)
    except ConfigError as exc:  # the run's settings, or its --out in use: before any rank starts
        print(f"{ns.parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    except SignalException as exc:  # the elastic agent has stopped every rank, and rank 0 has said its line
        return 128 + exc.sigval
    except KeyboardInterrupt as exc:  # one process: the launcher's child has the signal too
        return 143 if isinstance(exc, Terminated) else 130
    except ChildFailedError as exc:
        return next((f.exitcode for f in exc.failures.values() if f.exitcode > 0), 1)
    except subprocess.CalledProcessError as exc:
        return exc.returncode if exc.returncode > 0 else 128 - exc.returncode
    return 0


LAUNCH_OPTIONS = ("--config_file", "--num_processes", "--num_machines", "--machine_rank", "--main_process_ip",
                  "--main_process_port", "--mixed_precision", "--cpu")  # those docs/scaling.md uses, and their kin


def _launch_options(parser: argparse.ArgumentParser) -> str:
    """`coderl launch --help`'s options: the accelerate launch options docs/scaling.md uses, with accelerate's help
    (its own help shows only some of its groups)."""
    lines = ["accelerate launch options (these, and every other of `accelerate launch --help`):"]
    for action in parser._actions:
        flag = next((o for o in action.option_strings if o in LAUNCH_OPTIONS), None)
        if flag is not None:
            value = "" if action.nargs == 0 else f" {(action.metavar or action.dest).upper()}"
            lines.append(f"  {flag}{value}\n      {' '.join((action.help or '').split())}")
    return "\n".join(lines)


def _launch_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """accelerate launch's options read, a bad one a ValueError of one line naming it (with the closest option)."""
    def error(message: str):
        raise ValueError(message)

    parser.error = error  # argparse's errors: exit 2 with the whole usage block otherwise
    args, extra = parser.parse_known_args(argv)
    if extra:
        flags = [o for action in parser._actions for o in action.option_strings]
        raise ValueError(f"unrecognized accelerate launch option: {extra[0]}"
                         f"{suggest(extra[0].split('=')[0], flags, '--')}")
    return args


def _more_ranks_than_gpus(args: argparse.Namespace, device: str) -> str | None:
    """Why a launch of `args` (accelerate launch's options) would start more ranks on this machine than it has
    CUDA devices when the run uses CUDA (`device` auto or cuda, CUDA present): every rank takes the device of its
    local rank, and one past the last fails (`CUDA error: invalid device ordinal` in accelerate's barrier, after
    tens of seconds; BENCHMARKS.md, "On a GPU, third lease").  Only `--device cpu` makes CPU ranks: accelerate's
    --cpu or use_cpu changes accelerate's backend, not where coderl puts the model (`Ranks.start`,
    `resolve_device`).  None when the launch fits."""
    import torch

    if device == "cpu" or not torch.cuda.is_available():
        return None
    from accelerate.commands.config import default_config_file, load_config_from_file

    processes, machines, cpu = args.num_processes, args.num_machines, args.cpu
    path = args.config_file or (default_config_file if os.path.isfile(default_config_file) else None)
    if path is not None:
        try:
            defaults = load_config_from_file(path)
        except Exception:  # noqa: BLE001 (accelerate itself reports a config file it cannot read)
            return None
        processes = processes if processes is not None else defaults.num_processes
        machines = machines if machines is not None else defaults.num_machines
        cpu = cpu or bool(getattr(defaults, "use_cpu", False))
    if processes is None or processes < 1:  # without a number, accelerate starts one rank per device
        return None
    gpus, here = torch.cuda.device_count(), -(-processes // max(machines or 1, 1))
    if here <= gpus:
        return None
    return (f"--num_processes {processes}" + (f" over {machines} machines" if (machines or 1) > 1 else "")
            + f" starts {here} ranks on this machine, which has {gpus} CUDA device{'s' * (gpus != 1)}: one rank "
            f"per device, so --num_processes at most {gpus}" + (f" x {machines} machines" if (machines or 1) > 1
                                                               else "")
            + "; or --device cpu (CPU ranks over gloo" + (", which accelerate's --cpu/use_cpu alone does not make"
                                                            if cpu else "") + ")")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is: it unwinds as after Ctrl-C."""


@contextlib.contextmanager
def _sigterm_unwinds():
    """SIGTERM raises `Terminated` while the block runs (main thread only; the previous handler after)."""
    def terminated(signum, frame):
        raise Terminated

    try:
        before = signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread: signals are not ours to take
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _disk_error(exc: BaseException | None) -> OSError | None:
    """The full or read-only disk (or the permission) behind `exc`: an OSError, also under the exception a library
    raised over it (torch.save's RuntimeError) or written into its message as Rust does ("... (os error 28)":
    safetensors); None for anything else."""
    while exc is not None:
        rust = re.search(r"\(os error (\d+)\)$", str(exc))
        code = exc.errno if isinstance(exc, OSError) else int(rust.group(1)) if rust else None
        if code in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES):
            return exc if isinstance(exc, OSError) else OSError(code, os.strerror(code))
        exc = exc.__cause__ or exc.__context__
    return None


def _parse(argv: list[str]) -> argparse.Namespace:
    """The sub-command's namespace (`ns.func` runs it); a bad flag or an empty value exits 2 in one line."""
    ns, extra = build_parser().parse_known_args(argv)
    if extra:  # named by the sub-command, with the flag it most resembles
        flags = [o for action in ns.parser._actions for o in action.option_strings]
        ns.parser.error(f"unrecognized arguments: {' '.join(extra)}{suggest(extra[0].split('=')[0], flags, '--')}")
    empty = [a.option_strings[-1] for a in ns.parser._actions if a.option_strings and getattr(ns, a.dest, None) == ""]
    if empty:  # an unset shell variable (`--out $OUT`): no value of any option is empty
        ns.parser.error(f"argument {empty[0]}: expected a value, got an empty string")
    ns.argv = argv
    return ns


LAUNCHER = "CODERL_LAUNCHER"  # the pid of the `coderl launch` whose ranks this process is one of


def _die_with_launcher() -> None:
    """A rank of `coderl launch` dies with the launcher, however it dies (SIGKILL too): the parent-death signal,
    set here, in the rank, whose parent is the launcher's main thread (torch's elastic agent starts the ranks
    from the thread that runs it); a launcher already gone before that ends the rank at once."""
    launcher = os.environ.get(LAUNCHER)
    if not launcher:
        return
    from coderl.base.process import die_with_parent

    die_with_parent()
    if os.getppid() != int(launcher):  # the launcher died before the signal was set: as if it had come
        os.kill(os.getpid(), signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    from coderl.models.hub import quiet_library_warnings
    from coderl.sandbox.client import SandboxUnavailable
    from coderl.tasks import TaskFormatError

    quiet_library_warnings()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["launch"]:
        return _launch(argv[1:])
    _die_with_launcher()
    ns = _parse(argv)
    try:
        with _sigterm_unwinds(), contextlib.ExitStack() as held:
            if ns.command not in ("train", "sft") and int(os.environ.get("WORLD_SIZE", "1")) > 1:
                raise ConfigError(f"runs on one process (WORLD_SIZE is {os.environ['WORLD_SIZE']}); under accelerate "
                                  "launch only `coderl train` and `coderl sft` share work across processes "
                                  "(docs/scaling.md)")
            # the command's outputs, held until it ends (its skipped rows written too): base/ownership.py
            ns.own = lambda *outputs: held.enter_context(owned(*outputs))
            return _run_skipping(ns) if getattr(ns, "skip_bad_rows", False) else ns.func(ns)
    except (ConfigError, TaskFormatError, SandboxUnavailable) as exc:
        print(f"{ns.parser.prog}: error: {exc}", file=sys.stderr)
        # 2: the input; 3: a failing sandbox (train/infra_guard.py); 4: a stall (train/stalls.py); 5: a weights
        # sync the engine did not load (train/sources/engine_weights.py); docs/training.md, "When a run goes wrong"
        return getattr(exc, "exit_code", 2)
    except Exception as exc:  # the machine's: a full or read-only disk, a permission; any other keeps its traceback
        disk = _disk_error(exc)
        if disk is None:
            raise
        print(f"{ns.parser.prog}: error: {disk.filename or 'writing'}: {disk.strerror}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Terminated too; under `accelerate launch` one line for the launch (rank 0)
        if int(os.environ.get("RANK", "0")) == 0:
            print("terminated" if isinstance(exc, Terminated) else "interrupted", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130


if __name__ == "__main__":
    sys.exit(main())
