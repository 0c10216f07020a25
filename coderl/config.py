"""Dataclass configs: one per entry point, each field documented where it is defined.

`option(default, help)` declares a field; `add_arguments` turns a config class into argparse flags
(the help text *is* the field's documentation), and `from_args` builds the config back.  Configs
validate themselves in `__post_init__` and raise `ConfigError` with one line naming the field.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from typing import Any


class ConfigError(ValueError):
    """A bad config value; the message is one line naming the field, the value and what was expected."""


def option(default: Any = dataclasses.MISSING, help: str = "", *, choices=None, flag: str | None = None,
           positional: bool = False) -> Any:
    meta = {"help": help, "choices": choices, "flag": flag, "positional": positional}
    return dataclasses.field(default=default, metadata=meta)


def _base_type(tp: Any) -> tuple[type, bool]:
    """(scalar type, optional?) of an annotation like `int | None`."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0], True
    return tp, False


def add_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        meta = f.metadata
        tp, _ = _base_type(hints[f.name])
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        help_text = meta.get("help", "")
        if not required and f.default is not None and tp is not bool:
            help_text += f" (default: {f.default})"
        if meta.get("positional"):
            many = typing.get_origin(tp) is list
            parser.add_argument(f.name, nargs="+" if many else None, metavar=f.name.upper().rstrip("S"),
                                help=help_text, type=typing.get_args(tp)[0] if many else tp)
            continue
        flag = meta.get("flag") or "--" + f.name.replace("_", "-")
        kwargs: dict[str, Any] = {"help": help_text, "dest": f.name}
        if tp is bool:
            action = "store_true" if f.default is False else argparse.BooleanOptionalAction
            parser.add_argument(flag, action=action, default=f.default, **kwargs)
            continue
        kwargs.update(type=tp, choices=meta.get("choices"))
        if required:
            kwargs["required"] = True
        else:
            kwargs["default"] = f.default
        parser.add_argument(flag, metavar=f.name.upper(), **kwargs)


def from_args(cls: type, ns: argparse.Namespace) -> Any:
    return cls(**{f.name: getattr(ns, f.name) for f in dataclasses.fields(cls)})


def require(condition: bool, field: str, value: Any, expected: str) -> None:
    if not condition:
        raise ConfigError(f"{field}={value!r}: expected {expected}")


def explicit_fields(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """Names of the fields whose flags appear in `argv` (so a YAML preset does not override them)."""
    given = set()
    for action in parser._actions:
        for opt in action.option_strings:
            if any(arg == opt or arg.startswith(opt + "=") for arg in argv):
                given.add(action.dest)
    return given


def read_yaml_mapping(path: str, *, loader=None, empty: dict | None = None, expected: str) -> dict:
    """The top-level mapping of the YAML file at `path` (`loader`: a yaml Loader class, default SafeLoader;
    `empty`: what an empty (or falsy) document means, None = an error); every failure is one `ConfigError` line."""
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.load(f, Loader=loader or yaml.SafeLoader)  # noqa: S506 -- SafeLoader or a subclass
    except FileNotFoundError:
        raise ConfigError(f"--config {path}: no such file") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"--config {path}: invalid YAML ({str(exc).splitlines()[0]})") from None
    if not data and empty is not None:
        data = empty
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected {expected}")
    return data


DEVICES = ("auto", "cpu", "cuda")  # --device of sft, train and eval (resolved by coderl.models.resolve_device)
