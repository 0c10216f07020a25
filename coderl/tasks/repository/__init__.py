"""Repository tasks: SWE-style rows (a repository at its base, an issue, F2P and P2P tests) and their generator."""
