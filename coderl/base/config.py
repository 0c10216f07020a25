"""Dataclass configs: one per entry point, each field documented where it is defined.

`option(default, help)` declares a field; `section(Cls)` nests a config of its own (a `SandboxConfig`,
a `LoraConfig`) whose fields keep their flat names on the command line and in YAML (`--timeout`,
`timeout: 3`; YAML may also nest them: `sandbox: {timeout: 3}`).  `add_arguments` turns a config
class into argparse flags (the help text *is* the field's documentation), `from_args` and `build`
make the config back from flags or from a flat mapping, coercing each value to the field's type
(YAML reads `5e-5` as a string), and `flatten` is the inverse.  Configs validate themselves in
`__post_init__` and raise `ConfigError` with one line naming the field, the value and what was expected.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import re
import types
import typing
from typing import Any


class ConfigError(ValueError):
    """A bad config value; the message is one line naming the field, the value and what was expected."""


def option(default: Any = dataclasses.MISSING, help: str = "", *, choices=None, positional: bool = False,
           cli: bool = True) -> Any:
    """A config field.  `cli=False`: a setting of YAML files only (`--config`), kept off the command line so
    `--help` lists what runs commonly change; its old flag, if given, is one line saying where it went,
    and errors name it by its YAML key (`setting_name`)."""
    meta = {"help": help, "choices": choices, "positional": positional, "cli": cli}
    if isinstance(default, (list, dict, set)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def section(cls: type, help: str = "") -> Any:
    """A nested config; its fields are flags and YAML keys under their own names."""
    return dataclasses.field(default_factory=cls, metadata={"section": cls, "help": help})


def _base_type(tp: Any) -> tuple[Any, bool]:
    """(scalar type, optional?) of an annotation like `int | None`."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0], True
    return tp, False


def leaves(cls: type) -> dict[str, tuple[tuple[str, ...], dataclasses.Field, Any]]:
    """Flat name -> (path through sections, field, annotation) for every leaf field of `cls`."""
    out: dict[str, tuple[tuple[str, ...], dataclasses.Field, Any]] = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        sub = f.metadata.get("section")
        found = {f.name: ((), f, hints[f.name])} if sub is None else leaves(sub)
        for name, (path, leaf, tp) in found.items():
            if name in out:
                raise TypeError(f"{cls.__name__}: field {name!r} appears twice")
            out[name] = ((f.name, *path), leaf, tp)
    return out


def sections(cls: type) -> dict[str, type]:
    """Section field name -> its config class, for every section of `cls` (and of its sections)."""
    out: dict[str, type] = {}
    for f in dataclasses.fields(cls):
        if f.metadata.get("section"):
            out[f.name] = f.metadata["section"]
            out.update(sections(f.metadata["section"]))
    return out


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def add_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """Flags of `cls`'s fields, grouped by section; its YAML-only settings in a group of their own at the end,
    each shown as `key: VALUE` with its help and default."""
    groups: dict[str, Any] = {}
    table = leaves(cls)
    yaml_only = [name for name, (_, f, _) in table.items() if not f.metadata.get("cli", True)]
    for name, (path, f, annotation) in table.items():
        target = parser
        if len(path) > 1 and name not in yaml_only:
            if path[-2] not in groups:  # a section's name is unique (`leaves` checks its fields)
                doc = sections(cls)[path[-2]].__doc__ or ""
                groups[path[-2]] = parser.add_argument_group(path[-2], " ".join(doc.strip().split("\n\n")[0].split()))
            target = groups[path[-2]]
        if name not in yaml_only:
            _add_argument(target, name, f, annotation)
    if yaml_only:
        parser.formatter_class = _HelpFormatter
        group = parser.add_argument_group("YAML-only settings", "`key: VALUE` in a YAML file (--config, pipelines)")
        for name in yaml_only:
            _add_argument(group, name, *table[name][1:])


def _add_argument(parser, name: str, f: dataclasses.Field, annotation: Any) -> None:
    meta = f.metadata
    tp, optional = _base_type(annotation)
    default = _default(f)
    required = default is dataclasses.MISSING
    help_text = meta.get("help", "")
    choices = meta.get("choices")
    if choices and not all(str(c) in str(help_text) for c in choices):
        help_text = _join_help(help_text, f" (one of: {', '.join(map(str, choices))})")
    if not required and default is not None and tp is not bool and not isinstance(default, (dict, list, tuple)):
        help_text = _join_help(help_text, f" (default: {default})")
    if meta.get("positional"):  # a list (compare's runs)
        parser.add_argument(name, nargs="+", metavar=name.upper().rstrip("S"), help=help_text,
                            type=typing.get_args(tp)[0])
        return
    flag = "--" + name.replace("_", "-")
    if not meta.get("cli", True):
        if tp is bool:  # as YAML writes it
            help_text = _join_help(help_text, f" (default: {str(default).lower()})")
        flags = [flag] + (["--no-" + flag[2:]] if tp is bool else [])
        parser.add_argument(*flags, action=_YamlOnly, nargs="?", help=help_text, dest=f"_yaml_only_{name}")
        return
    kwargs: dict[str, Any] = {"help": help_text, "dest": name}
    if tp is bool:
        action = "store_true" if default is False else argparse.BooleanOptionalAction
        parser.add_argument(flag, action=action, default=default, **kwargs)
        return
    if typing.get_origin(tp) is dict:
        kwargs["type"] = _mapping_arg(flag)
    else:
        kwargs.update(type=_or_none(tp) if optional and tp in (int, float) else tp, choices=choices)
    parser.add_argument(flag, metavar=name.upper(), required=required, default=None if required else default,
                        **kwargs)


class LazyHelp(str):
    """Help text computed when `--help` prints it (`fn()`), not when the parser is built: a field whose help
    lists a registry that imports heavy modules (the advantage estimators need torch) keeps every other
    command, and parsing, light.  `option(help=LazyHelp(fn))`."""

    def __new__(cls, fn, suffix: str = ""):
        obj = super().__new__(cls, "(computed when printed)")
        obj.fn, obj.suffix = fn, suffix
        return obj

    def __mod__(self, params):  # argparse expands help with `help % params` just before printing it
        return (self.fn() + self.suffix).replace("%", "%%") % params


def _join_help(text: str, suffix: str) -> str:
    return LazyHelp(text.fn, text.suffix + suffix) if isinstance(text, LazyHelp) else text + suffix


class _YamlOnly(argparse.Action):
    """The flag of a YAML-only setting: one line naming the key to set instead."""

    def __call__(self, parser, namespace, values, option_string=None):
        key = self.dest.removeprefix("_yaml_only_")
        parser.error(f"{option_string} is a YAML setting: write `{key}: VALUE` in a file given with --config "
                     f"({parser.prog} --help lists the flags, and the YAML-only settings at its end)")


class _HelpFormatter(argparse.HelpFormatter):
    """Shows a YAML-only setting as its key (`gae_lambda: VALUE`), not its refused flag, nor in the usage."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, [a for a in actions if not isinstance(a, _YamlOnly)], groups, prefix)

    def _format_action_invocation(self, action):
        if isinstance(action, _YamlOnly):
            return action.dest.removeprefix("_yaml_only_") + ": VALUE"
        return super()._format_action_invocation(action)


def setting_name(cls: type, name: str) -> str:
    """How errors name field `name` of config `cls`: its flag (`--name-with-dashes`), or for a YAML-only
    setting its YAML key (`name`)."""
    found = leaves(cls).get(name)
    if found is not None and not found[1].metadata.get("cli", True):
        return name
    return "--" + name.replace("_", "-")


def _or_none(tp: type):
    """A number flag whose field may be None: `none` (or `off`) on the command line is None."""
    def parse(text: str):
        return None if text.strip().lower() in ("none", "off", "null") else tp(text)

    parse.__name__ = tp.__name__  # argparse names the type in "invalid float value: ..."
    return parse


def _mapping_arg(flag: str):
    """`name=value,name=value` -> {name: float(value)} (a dict-valued flag, e.g. --reward-weights)."""
    def parse(text: str) -> dict[str, float]:
        out = {}
        for item in filter(None, (s.strip() for s in text.split(","))):
            key, sep, value = item.partition("=")
            try:
                out[key.strip()] = float(value)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{item!r}: expected name=number") from None
            if not sep or not key.strip():
                raise argparse.ArgumentTypeError(f"{item!r}: expected name=number")
        return out

    parse.__name__ = flag
    return parse


def from_args(cls: type, ns: argparse.Namespace, overrides: dict | None = None) -> Any:
    """The config of the parsed flags; `overrides` (flat names, e.g. from YAML) replace their values."""
    values = {name: getattr(ns, name) for name in leaves(cls) if hasattr(ns, name)}
    values.update(overrides or {})
    return build(cls, values)


def coerce(value: Any, annotation: Any, name: str) -> Any:
    """`value` as the field's type: YAML's strings for numbers ("5e-5"), ints for floats; else one ConfigError."""
    tp, optional = _base_type(annotation)
    if value is None:
        if optional:
            return None
        expected = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(tp, "a value")
        raise ConfigError(f"{name}=None: expected {expected}")
    origin = typing.get_origin(tp)
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "on", "off"):
            return value.lower() in ("true", "yes", "on")
        raise ConfigError(f"{name}={value!r}: expected true or false")
    if tp in (int, float):  # a whole float is an integer; a number's text is that number
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number and (tp is float or isinstance(value, int) or value.is_integer()):
            return tp(value)
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                return tp(value.strip())
        raise ConfigError(f"{name}={value!r}: expected {'an integer' if tp is int else 'a number'}")
    if tp is str:
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        raise ConfigError(f"{name}={value!r}: expected a string")
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{name}={value!r}: expected a mapping of name: number")
        _, value_type = typing.get_args(tp)
        return {str(k): coerce(v, value_type, f"{name}.{k}") for k, v in value.items()}
    if origin in (list, tuple):
        if isinstance(value, str) and origin is tuple:
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{name}={value!r}: expected a list")
        item_type = typing.get_args(tp)[0] if typing.get_args(tp) else Any
        items = [v if item_type is Any else coerce(v, item_type, f"{name}[{i}]") for i, v in enumerate(value)]
        return origin(items)
    return value


def build(cls: type, values: dict, *, where: str = "") -> Any:
    """`cls` from a flat mapping of leaf names (a section's name may also map to a mapping of its own
    fields); every value is coerced to its field's type; an unknown name is a ConfigError naming `where`."""
    return _construct(cls, flat_values(cls, values, where=where))


def flat_values(cls: type, values: dict, *, where: str = "") -> dict:
    """`values` with every section mapping (`sandbox: {timeout: 3}`) spread into leaf names; unknown names
    are a ConfigError naming `where`."""
    table, removed, secs = leaves(cls), getattr(cls, "REMOVED", {}), sections(cls)
    flat: dict[str, Any] = {}
    for key, value in values.items():
        sub = secs.get(key)
        if sub is not None and isinstance(value, dict):
            for k, v in value.items():
                if k not in leaves(sub) and k not in removed:
                    raise ConfigError(f"{where or cls.__name__}: unknown field '{key}.{k}'{suggest(k, leaves(sub))}")
                flat[k] = v
        elif key in table or key in removed:
            flat[key] = value
        elif sub is not None:
            raise ConfigError(f"{where or cls.__name__}: field '{key}' is {value!r}; expected a mapping of its fields "
                              f"({', '.join(leaves(sub))})")
        else:
            raise ConfigError(f"{where or cls.__name__}: unknown field '{key}'{suggest(key, [*table, *secs])}")
    for key in flat.keys() & removed.keys():  # a removed setting at the behaviour it kept is no error
        if flat.pop(key) != removed[key][0]:
            raise ConfigError(f"{where or cls.__name__}: '{key}' was removed: {removed[key][1]}")
    return flat


def _construct(cls: type, flat: dict) -> Any:
    kwargs: dict[str, Any] = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        sub = f.metadata.get("section")
        if sub is not None:
            kwargs[f.name] = _construct(sub, flat)
        elif f.name in flat:
            name = "--" + f.name.replace("_", "-") if f.metadata.get("cli", True) else f.name
            value = coerce(flat[f.name], hints[f.name], name)
            choices = f.metadata.get("choices")
            if choices and value is not None and value not in choices:  # as argparse checks a flag's value
                raise ConfigError(f"{name}={value!r}: expected one of {', '.join(map(str, choices))}")
            kwargs[f.name] = value
    return cls(**kwargs)


def flatten(obj: Any) -> dict:
    """Leaf name -> value of a config (sections flattened): what `build` takes back."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if f.metadata.get("section"):
            out.update(flatten(value))
        else:
            out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def require(condition: bool, field: str, value: Any, expected: str) -> None:
    if not condition:
        raise ConfigError(f"{field}={value!r}: expected {expected}")


def explicit_fields(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """Names of the fields whose flags appear in `argv` (so a YAML file does not override them)."""
    given = set()
    for action in parser._actions:
        for opt in action.option_strings:
            if any(arg == opt or arg.startswith(opt + "=") for arg in argv):
                given.add(action.dest)
    return given


def suggest(name: str, known, prefix: str = "") -> str:
    """" (did you mean 'x'?)" for the known name closest to a mistyped `name`, or "" (`prefix`: what both start
    with, as `--` for flags, left out of the comparison)."""
    import difflib

    typed, names = str(name).removeprefix(prefix), [k.removeprefix(prefix) for k in known]
    close = difflib.get_close_matches(typed, names, n=1)
    if not close:  # an abbreviation by initials: `--lr` for `--learning-rate`
        close = [k for k in names if len(typed) > 1 and "".join(w[:1] for w in re.split(r"[-_]", k)) == typed][:1]
    return f" (did you mean '{prefix}{close[0]}'?)" if close else ""


DEVICES = ("auto", "cpu", "cuda")  # --device of sft, train and eval (resolved by coderl.models.resolve_device)
