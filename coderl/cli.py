"""The `coderl` command line.  Each sub-command is one dataclass config; its field docs are the --help.

Start-up stays light: sub-commands import their modules lazily, and `coderl check` never imports torch.
"""

from __future__ import annotations

import argparse
import sys

from coderl.config import ConfigError, add_arguments, from_args


def _cmd_check(ns: argparse.Namespace) -> int:
    from coderl.eval.check import CheckConfig, describe_isolation, format_summary, run_check

    cfg = from_args(CheckConfig, ns)
    if cfg.show_isolation:
        print(describe_isolation(cfg))
        return 0
    summary = run_check(cfg)
    print(format_summary(summary))
    if cfg.out:
        print(f"results: {cfg.out}\nsummary: {cfg.out}.summary.json")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from coderl.eval.check import CheckConfig

    parser = argparse.ArgumentParser(
        prog="coderl",
        description="Fine-tune code language models with reinforcement learning from verifiable rewards.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("check", help="run completions against task tests in the sandbox; pass@k",
                       description=CheckConfig.__doc__)
    add_arguments(p, CheckConfig)
    p.set_defaults(func=_cmd_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    from coderl.sandbox.client import SandboxUnavailable
    from coderl.tasks import TaskFormatError

    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        return ns.func(ns)
    except (ConfigError, TaskFormatError, SandboxUnavailable) as exc:
        print(f"coderl {ns.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
