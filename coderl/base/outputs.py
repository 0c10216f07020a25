"""What a command writes, written so that nothing is lost (every command's outputs go through here):

    refuse_inputs(outputs, inputs)          an output that is one of the inputs (same path or same file):
                                            one line, before anything is opened
    refuse_existing(flag, path, held, overwrite=..., resumable=..., kind=...)
                                            finished outputs already there: one line naming them and
                                            --overwrite (and --resume where the command has it); and
                                            `writable(flag, path, kind)`: a path that cannot be written
    with atomic(path) as f: ...             a finished file: written to PATH.tmp, renamed PATH when complete
                                            (`suffix=".partial"`: a stream of lines, PATH.partial)
    with finished(*paths) as tmps: ...      several finished files or folders, written (by any writer) to
                                            PATH.tmp and renamed together when the block completes
    write_json(path, obj), write_yaml(path, obj)
    with leave_nothing(directory, ...): ... a failed block removes what it made there (`own`: the
                                            directory is the command's run directory)
    resume_conflicts(saved, new)            the settings a resumed run may not change (`COSMETIC`, `RESUMABLE`)

Every error is a one-line `ConfigError` (exit 2 from the command line).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile

from coderl.base.config import ConfigError


def _same(a: str, b: str) -> bool:
    if os.path.abspath(a) == os.path.abspath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def refuse_inputs(outputs: dict[str, list[str]], inputs: list[tuple[str, str | None]]) -> None:
    """`outputs`: flag -> the paths it writes; `inputs`: (flag, a path it reads; None: not given).  An output
    equal to an input, or the same file under another name, is a one-line ConfigError."""
    for out_flag, paths in outputs.items():
        for path in paths:
            for in_flag, source in inputs:
                if source and _same(path, source):
                    raise ConfigError(f"{out_flag} {path}: is {in_flag} {source}, an input of this command; "
                                      f"writing it would destroy it: choose another {out_flag}")


def writable(flag: str, path: str, kind: str = "file") -> None:
    """`path` (a "file", a "folder", or a "prefix" of files: PATH.md, ...) can be written: it is no folder where a
    file goes or file where a folder goes, the nearest existing folder above it is a folder and writable; else
    one line, before any work (None: nothing is written)."""
    if path is None:
        return
    if kind == "file" and os.path.isdir(path):
        raise ConfigError(f"{flag} {path}: is a folder; expected a file name")
    if kind == "folder" and os.path.exists(path) and not os.path.isdir(path):
        raise ConfigError(f"{flag} {path}: is a file; expected a folder")
    above = os.path.abspath(path if kind == "folder" else os.path.dirname(os.path.abspath(path)))
    while not os.path.exists(above):
        above = os.path.dirname(above)
    if not os.path.isdir(above):
        raise ConfigError(f"{flag} {path}: {above} is a file, not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise ConfigError(f"{flag} {path}: cannot write in {above} (read-only or not permitted)")
    try:  # what permissions do not say (root under /proc or /sys, a pseudo or read-only file system): a file made there
        fd, probe = tempfile.mkstemp(prefix=".coderl-probe-", dir=above)
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: cannot write in {above} ({exc.strerror or exc})") from None
    os.close(fd)
    os.remove(probe)


def refuse_existing(flag: str, path: str, held: list[str], *, overwrite: bool, resumable: bool = False,
                    kind: str = "file") -> None:
    """The one overwrite policy: `held` (the finished outputs found at `path`) refused unless `overwrite`; and
    `path` must be `writable` as a `kind`."""
    writable(flag, path, kind)
    if held and not overwrite:
        fix = (f"pass --resume to continue it, --overwrite to replace it, or choose another {flag}" if resumable
               else f"pass --overwrite to replace it, or choose another {flag}")
        raise ConfigError(f"{flag} {path}: already holds {', '.join(held)}; {fix}")


@contextlib.contextmanager
def atomic(path: str, *, suffix: str = ".tmp"):
    """A file object for `path`'s contents, which appear under `path` only once the block completes (written to
    PATH.tmp and renamed); a failure leaves the previous file, if any, and no PATH.tmp."""
    tmp = path + suffix
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise


def write_json(path: str, obj) -> None:
    with atomic(path) as f:
        json.dump(obj, f, indent=2)


def write_yaml(path: str, obj: dict) -> None:
    import yaml

    with atomic(path) as f:
        yaml.safe_dump(obj, f, sort_keys=False)


@contextlib.contextmanager
def finished(*paths: str):
    """The temporary names (PATH.tmp) under which the block writes `paths` (files, or folders), renamed to `paths`
    (replacing what is there) once it completes.  The missing folders they go in are made; a failure removes them
    and the temporary names, and leaves what `paths` held before."""
    tmps = [path + ".tmp" for path in paths]
    with contextlib.ExitStack() as made:
        for parent in dict.fromkeys(os.path.dirname(os.path.abspath(path)) for path in paths):
            made.enter_context(leave_nothing(parent, own=False))
        try:
            yield tmps
            for tmp, path in zip(tmps, paths):
                if os.path.isdir(path) and not os.path.islink(path):  # a folder is not replaced by a rename
                    shutil.rmtree(path)
                os.replace(tmp, path)
        except BaseException:
            for tmp in tmps:
                shutil.rmtree(tmp, ignore_errors=True) if os.path.isdir(tmp) else _remove(tmp)
            raise


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)


@contextlib.contextmanager
def leave_nothing(directory: str, *, own: bool = True, keep=lambda directory: False):
    """Make `directory` (and missing parents); if the block fails, remove what it made: the directories it
    created and, when the directory is the command's `own` (its run directory), the entries that appeared in it;
    unless `keep(directory)` says the failed run left something worth keeping (a checkpoint to resume)."""
    directory = os.path.abspath(directory)
    made = []  # the directories that did not exist, deepest first
    p = directory
    while not os.path.exists(p):
        made.append(p)
        p = os.path.dirname(p)
    before = set(os.listdir(directory)) if not made and own else None
    os.makedirs(directory, exist_ok=True)
    try:
        yield directory
    except BaseException:
        if os.path.isdir(directory) and not keep(directory):
            if made and own:
                shutil.rmtree(directory, ignore_errors=True)
            elif before is not None:
                for name in set(os.listdir(directory)) - before:
                    target = os.path.join(directory, name)
                    shutil.rmtree(target) if os.path.isdir(target) else os.remove(target)
            for d in made:  # emptied parents too (a directory another process wrote into stays)
                with contextlib.suppress(OSError):
                    os.rmdir(d)
        raise


# Fields that change nothing a run computes: the pipeline's stale check ignores them, and `train --resume` takes
# them changed, with those of RESUMABLE (where and how often it reports, where it runs and where its directory is,
# an evaluation's names in tables); `eval --resume` takes the same.
COSMETIC = ("progress", "workers", "log_with", "resume", "overwrite", "shared_prompt")  # shared_prompt: old runs
RESUMABLE = (*COSMETIC, "out", "config", "save_steps", "eval_steps", "log_kl", "device", "deterministic",
             "check_overlap", "label", "method")


def resume_conflicts(saved: dict, new: dict) -> list[str]:
    """The settings of `new` that differ from the run's `saved` config.yaml and would change what its earlier steps
    computed or what later steps sample, each written `name: old -> new`.  `steps` may grow (the run goes on
    further); fewer steps than the run was started with is a conflict.  A path that moved with the run (the same
    place relative to its --out, as a pipeline's SFT adapter when the pipeline's folder is moved) is unchanged."""
    def moved(a, b) -> bool:
        return (all(isinstance(v, str) and os.sep in v for v in (a, b, saved.get("out"), new.get("out")))
                and os.path.relpath(a, saved["out"]) == os.path.relpath(b, new["out"]))

    def changed(k):
        if k == "steps" and isinstance(saved.get(k), int) and isinstance(new.get(k), int):
            return new[k] < saved[k]
        return k not in RESUMABLE and saved.get(k) != new.get(k) and not moved(saved.get(k), new.get(k))

    return [f"{k}: {saved.get(k)!r} -> {new.get(k)!r}" for k in sorted(set(saved) | set(new)) if changed(k)]
