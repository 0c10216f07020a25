"""The fork server: the program `coderl.sandbox.client.Sandbox` execs, one process tree of its own.

Standard library only, and nothing here imports the client (`coderl.sandbox`), which imports only `common/`.
`__main__.py` is what the client execs (`python -s -P .../server/__main__.py WORKERS LEVEL`); it loads this
folder as one package under the private name `_coderl_server` (one spec with `submodule_search_locations`), so
the modules import each other by relative imports whatever the package is called, and a program's view has none
of them by a name it could import: the folder is on no `sys.path`, and `common.values.importable` refuses a
private name, so no module of this package crosses the channel by name.

One folder per process (docs/sandbox.md's process table):

    __main__.py, loop.py, jobs.py, meter.py   the server: its event loop, the runs in flight, the CPU meter
    lifetime.py                               the server's uids and its watchdog (forked at start-up)
    zygote.py                                 the zygote: forks every process below
    contain/                                  what runs beside a program: isolation levels, cgroups, the view,
                                              the host's shared places, Linux calls (server, zygote, each child
                                              as it joins its slot)
    program/                                  the program process's runtime (function tasks, stdin/stdout scripts)
    judge/                                    the judge process: the task's tests against the program's proxies
    common/                                   what both sides read: the value codec (`values`, `flat`), the
                                              program-judge channel (`wire`), the client's environment names
"""
