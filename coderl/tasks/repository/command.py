"""`coderl tasks repos`: the generator's settings and its run (`generate.py` does the work): the repositories a
config names, fetched once (the only download, `sources.fetch`) or a local folder, and the pool written."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

from coderl.base.config import ConfigError, option
from coderl.base.paths import cache_root
from coderl.tasks.repository import sources
from coderl.tasks.repository.generate import RepoInput, generate
from coderl.tasks.repository.validate import RUNS

DEFAULT_HELD_OUT = ("inflection", "termcolor")  # repositories whose every task is test (unseen repositories)


@dataclasses.dataclass
class RepoGenConfig:
    """Generate repository tasks offline: source distributions fetched once (pinned by sha256), bugs put in by AST
    mutation, each validated in the sandbox, issues written from the failures (docs/tasks.md, "Repository tasks")."""

    out: str = option(help="the pool folder to write (tasks.jsonl, stats.json, repos/); load it as repo:OUT")
    repos: str = option("all", "comma-separated: names of the pinned repositories (coderl.tasks.repository.sources), "
                        "'all', or a local folder holding a package of its own name and a tests/ folder")
    held_out: str = option(",".join(DEFAULT_HELD_OUT), "repositories whose every task is in the test split (unseen "
                           "repositories); comma-separated, or none")
    per_function: int = option(2, "mutants validated per function at most (a seeded draw)")
    max_tasks_per_repo: int = option(0, "stop a repository after this many tasks (0: no cap)")
    runs: int = option(RUNS, "runs of the base and of the fix each test must give one outcome in")
    seed: int = option(0, "the draw of mutants and of the issues' phrasings")
    cache: str | None = option(None, "where source distributions are downloaded and unpacked (default: the coderl "
                               "cache's repository-sources)")
    workers: int = option(2, "sandbox runs at once")
    overwrite: bool = option(False, "replace an existing --out")


def inputs(cfg: RepoGenConfig) -> list[RepoInput]:
    """The repositories a config names, fetched (set-up time: the only download) and unpacked."""
    cache = Path(cfg.cache) if cfg.cache else cache_root() / "repository-sources"
    names = [n.strip() for n in cfg.repos.split(",") if n.strip()]
    if names == ["all"]:
        names = [s.name for s in sources.SOURCES]
    out = []
    for name in names:
        if os.sep in name or os.path.isdir(name):
            folder = Path(name).resolve()
            if not folder.is_dir():
                raise ConfigError(f"--repos {name!r}: no such folder")
            root = "src" if (folder / "src" / folder.name).is_dir() else "."
            if not (folder / root / folder.name).is_dir() and not (folder / root / f"{folder.name}.py").is_file():
                raise ConfigError(f"--repos {name!r}: expected a package named {folder.name!r} in it")
            out.append(RepoInput(folder.name, folder, folder.name, root, "tests"))
            continue
        try:
            src = sources.by_name(name)
        except sources.SourceError as exc:
            raise ConfigError(f"--repos: {exc}") from None
        try:
            root = sources.fetch(src, cache)
        except sources.SourceError as exc:
            raise ConfigError(str(exc)) from None
        out.append(RepoInput(src.folder, root, src.package, src.source_root, src.tests, tuple(src.test_deps)))
    return out


def run_generation(cfg: RepoGenConfig) -> dict:
    """`coderl tasks repos`: the pool written to cfg.out; returns its stats."""
    from coderl.sandbox import Sandbox

    pool = Path(cfg.out)
    if pool.exists() and any(pool.iterdir()):
        if not cfg.overwrite:
            raise ConfigError(f"--out {cfg.out!r} exists and is not empty (give --overwrite to replace it)")
        shutil.rmtree(pool)
    items = inputs(cfg)
    held = [h.strip() for h in cfg.held_out.split(",") if h.strip() and h.strip() != "none"]
    held_folders = [i.name for i in items if i.name in held or i.name.rsplit("-", 1)[0] in held]
    with Sandbox(workers=cfg.workers, isolation="full") as sandbox:
        return generate(sandbox, items, pool, held_out=held_folders, seed=cfg.seed, per_function=cfg.per_function,
                        max_tasks=cfg.max_tasks_per_repo or None, runs=cfg.runs)
