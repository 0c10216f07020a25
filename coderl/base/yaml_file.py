"""`read_yaml_mapping`: the top-level mapping of a YAML file a user wrote (a `--config`), read strictly: a key
given twice is refused, and every failure is one `ConfigError` line naming the file and, where YAML has one, the
line.  `load_config`: a command's config from its flags and such a file."""

from __future__ import annotations

import argparse
from typing import Any

from coderl.base.config import ConfigError, explicit_fields, flat_values, from_args


def read_yaml_mapping(path: str, *, empty: dict | None = None, expected: str) -> dict:
    """The top-level mapping of the YAML file at `path` (`empty`: what an empty (or falsy) document means, None =
    an error); a key given twice in one mapping is an error (PyYAML would keep the last), and every failure is one
    `ConfigError` line, with the line of the file where YAML has one."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def mapping(loader, node):
        seen = set()
        for k, _ in node.value:
            key = loader.construct_object(k, deep=True)
            if key in seen:
                raise ConfigError(f"--config {path}: line {k.start_mark.line + 1}: field '{key}' given twice in one "
                                  "mapping")
            seen.add(key)
        return loader.construct_mapping(node, deep=True)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.load(f, Loader=StrictLoader)  # noqa: S506 -- a SafeLoader
    except FileNotFoundError:
        raise ConfigError(f"--config {path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"--config {path}: is a folder; expected a YAML file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"--config {path}: not a text file; expected a YAML file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        raise ConfigError(f"--config {path}: {where}invalid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not data and empty is not None:
        data = empty
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected {expected}")
    return data


def load_config(cls: type, ns: argparse.Namespace, parser: argparse.ArgumentParser, argv: list[str],
                path: str | None) -> Any:
    """The config of a command: its flags, with the fields of the YAML file at `path` (if any) for every
    flag not given on the command line; unknown YAML fields are one ConfigError naming the file."""
    if not path:
        return from_args(cls, ns)
    data = read_yaml_mapping(path, expected="a mapping of field: value")
    given = explicit_fields(parser, argv)
    try:
        flat = flat_values(cls, data, where=path)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (see `coderl {parser.prog.split()[-1]} --help`)") from None
    overrides = {k: v for k, v in flat.items() if k not in given}
    try:
        return from_args(cls, ns, overrides)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
