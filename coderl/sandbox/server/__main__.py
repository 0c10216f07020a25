"""What the client execs: `python -s -P coderl/sandbox/server/__main__.py WORKERS LEVEL`.

Imports the modules candidates commonly use (so a forked child starts warm), loads this folder as one package,
`_coderl_server` (one spec with `submodule_search_locations`: the folder stays off `sys.path`, and the private
name is one no program can have a module of it imported by), then runs the event loop (`loop.main`)."""

import importlib
import importlib.util
import os
import sys

PACKAGE = "_coderl_server"
# Modules candidates commonly use, imported once here so a forked child starts warm.
WARM_MODULES = ("array", "bisect", "collections.abc", "copy", "datetime", "decimal", "fractions", "functools",
                "hashlib", "heapq", "itertools", "operator", "random", "re", "statistics", "string", "typing")


def load(folder: str):
    """This folder as the package `PACKAGE`, registered in `sys.modules` so its modules' relative imports resolve."""
    spec = importlib.util.spec_from_file_location(PACKAGE, os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)
    return package


if __name__ == "__main__":
    for name in WARM_MODULES:
        importlib.import_module(name)
    load(os.path.dirname(os.path.abspath(__file__)))
    importlib.import_module(PACKAGE + ".loop").main()
