"""The environment variables by which the client configures the fork server it starts (`client.Sandbox`
sets them, `contain/isolation.py` reads them).  Standard library only, like all of `common/`."""

HIDE_ENV = "CODERL_SANDBOX_HIDE"  # a JSON list of paths to hide from programs (isolation.env_paths)
EXPOSE_ENV = "CODERL_SANDBOX_EXPOSE"  # toolchain directories to show at `full` (isolation.env_paths)
CGROUPS_ENV = "CODERL_SANDBOX_CGROUPS"  # "none": no cgroups even where writable (passed on from the caller's)
