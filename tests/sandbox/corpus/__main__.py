"""`python -m tests.sandbox.corpus`: run the corpus and print a table (see the package docstring)."""

from . import _main

_main()
