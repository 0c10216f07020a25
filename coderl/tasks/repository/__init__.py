"""Repository tasks (issue 97): SWE-style tasks judged in coderl's own sandbox.

One verifier, both halves in this folder: `process/` is what runs in the sandbox (the test process's start and the
pytest reporter), `grade.py` what the parent decides (the submission, the grading request, FULL / PARTIAL / NO);
`task.py` the kind and its pool files, `environment.py` the shared read-only environments, `validate.py` the build-time
validation, `generate.py` the offline generator (over `sources.py`'s repositories and `mutations.py`'s bugs, with
`issue_text.py`'s issues), `swebench.py` rows in SWE-bench's layout.  docs/tasks.md, "Repository tasks".
"""
