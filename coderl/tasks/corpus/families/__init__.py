"""The corpus's families: every module here defines `FAMILY`, a `coderl.tasks.corpus.define.Family`.

Modules are found by listing this package, so adding a family is adding a module."""

from __future__ import annotations

import importlib
import pkgutil

from coderl.tasks.corpus.define import Family


def family_modules() -> list[str]:
    """The module names (= family names), sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load_families(only: str | None = None) -> list[Family]:
    """Every family (or the one named `only`), sorted by module name."""
    families = []
    for name in family_modules():
        if only is not None and name != only:
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        family = getattr(module, "FAMILY", None)
        if not isinstance(family, Family) or family.name != name:
            raise ImportError(f"{module.__name__}: expected FAMILY = Family({name!r}, ...)")
        families.append(family)
    return families
