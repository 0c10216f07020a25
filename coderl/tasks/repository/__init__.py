"""Repository tasks: SWE-style rows (a repository at its base, an issue text, FAIL_TO_PASS and PASS_TO_PASS tests, a gold patch) and their offline generator."""
