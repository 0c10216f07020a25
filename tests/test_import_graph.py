"""The import graph of `coderl/`: no cycles, no import up the layer order that docs/architecture.md writes
down, train/'s rooms and tasks/' loaders stacked one way, a standalone sandbox, and no private name imported
across modules.

Every `import` and `from ... import` counts wherever it stands: at module level, inside a function, under
`if TYPE_CHECKING:`.  Only edges between `coderl.*` modules count for the graph; `from pkg import name`
is an edge to the module `pkg.name` when there is one, else to `pkg`.  Importing a submodule is not
counted as importing its package's `__init__` (Python runs it, but every package would then be a cycle
with its own modules).
"""

import ast
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOP = ("coderl", "coderl.__main__", "coderl.cli")  # the entry points: the top layer, named `cli` in the docs


def module_files(root: Path, package: str = "coderl") -> dict[str, Path]:
    """Module name -> file, for every .py file under `root/package`."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(module: str, is_package: bool, node: ast.AST) -> list[str]:
    """The absolute names an import statement reaches (`pkg.name` candidates for `from pkg import name`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:  # relative: from . import x, from ..pkg import y
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]


def import_graph(root: Path, package: str = "coderl") -> tuple[dict[str, set[str]], dict[str, list[tuple]]]:
    """(edges: module -> the package's modules it imports, every import statement of each module as
    (line, names reached, the imported names))."""
    files = module_files(root, package)
    edges: dict[str, set[str]] = {}
    statements: dict[str, list[tuple]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets, found = set(), []
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = _imported(module, path.name == "__init__.py", node)
            found.append((node.lineno, names, node))
            if isinstance(node, ast.ImportFrom):
                prefix, members = names[0], names[1:]
                hits = [m for m in members if m in files]  # `from pkg import submodule`
                rest = len(hits) < len(members)
                names = hits + ([prefix] if rest or not members else [])
            for name in names:
                while name and name not in files:  # `import coderl.x.y` reaches the module that exists
                    name = name.rpartition(".")[0]
                if name and name != module:
                    targets.add(name)
        edges[module], statements[module] = targets, found
    return edges, statements


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layer_order(architecture: Path) -> list[str]:
    """The layers, bottom to top, from the line of docs/architecture.md that chains them: `base` → ..."""
    for line in architecture.read_text(encoding="utf-8").splitlines():
        if line.startswith("`base` →"):
            return re.findall(r"`(\w+)`", line)
    raise AssertionError(f"{architecture}: no line starting with '`base` →' (the layer order)")


def layer_of(module: str) -> str:
    return "cli" if module in TOP else module.split(".")[1]


def upward_imports(edges: dict[str, set[str]], order: list[str]) -> list[str]:
    rank = {name: i for i, name in enumerate(order)}
    return [f"{a} -> {b} ({layer_of(a)} imports {layer_of(b)}, a layer above it)"
            for a in sorted(edges) for b in sorted(edges[a]) if rank[layer_of(b)] > rank[layer_of(a)]]


def longest_chain(edges: dict[str, set[str]], package: str) -> list[str]:
    """The longest import chain among the modules of `package` (itself and everything under it), counting only
    their imports of each other: its modules from the importer down, as many as the package has floors
    (a module that imports none of them is one floor).  The graph must have no cycle."""
    inside = {m for m in edges if m == package or m.startswith(package + ".")}
    best: dict[str, list[str]] = {}
    for start in sorted(inside):
        work = [start]
        while work:  # depth first, a module's chain once all of its imports' chains are known
            module = work[-1]
            below = sorted(edges[module] & inside)
            todo = [b for b in below if b not in best]
            if todo:
                work += todo
                continue
            work.pop()
            best[module] = [module] + max((best[b] for b in below), key=len, default=[])
    return max(best.values(), key=len, default=[])


# ---- the checks on coderl/ ----------------------------------------------------------------------------
EDGES, STATEMENTS = import_graph(REPO)
ORDER = layer_order(REPO / "docs" / "architecture.md")


def test_coderl_has_no_import_cycle():
    assert cycles(EDGES) == []


def test_every_package_has_a_place_in_the_documented_layer_order():
    assert sorted({layer_of(m) for m in EDGES}) == sorted(ORDER), "docs/architecture.md's layer order"


def test_no_module_imports_a_layer_above_its_own():
    assert upward_imports(EDGES, ORDER) == []



def documented_imports(architecture: Path, order: list[str]) -> dict[str, set[str]]:
    """Package -> the packages its row of docs/architecture.md's table says it imports (the names in
    backticks of the row's last cell)."""
    out = {}
    for line in architecture.read_text(encoding="utf-8").splitlines():
        first = re.match(r"\| `(?:coderl/)?(\w+)/?` \|", line)
        if first and first.group(1) in order:
            out[first.group(1)] = set(re.findall(r"`(\w+)`", line.rstrip(" |").rsplit(" | ", 1)[-1])) & set(order)
    return out


def layer_imports(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Package -> the other packages its modules import."""
    out: dict[str, set[str]] = {layer_of(m): set() for m in edges}
    for a, targets in edges.items():
        out[layer_of(a)] |= {layer_of(b) for b in targets} - {layer_of(a)}
    return out


def test_the_documented_imports_of_each_package_are_the_real_ones():
    assert documented_imports(REPO / "docs" / "architecture.md", ORDER) == layer_imports(EDGES)

# Floors of train/'s longest import chain: 12 before the rooms and the owned rollout context (issue 63:
# train -> policy_gradient -> common -> ledger -> async_rollouts -> async_worker -> engine_source ->
# rollout_source -> off_policy -> logprobs -> activation_checkpointing -> distributed).  A new layer inside
# train/ must say why here.
TRAIN_FLOORS = 9


def test_train_is_no_deeper_than_its_floors():
    chain = longest_chain(EDGES, "coderl.train")
    assert len(chain) <= TRAIN_FLOORS, f"{len(chain)} floors: " + " -> ".join(chain)


# Rooms inside a package, stacked one way.  A room is a module and everything under it (a module belongs to the
# room of its longest prefix here); `allowed` says which other rooms a room may import.  Modules in no room,
# and the entries, are not checked.
#
# train/ (docs/architecture.md, "Inside train/"): the shared modules at train/'s top (the updater, the log-prob
# passes, a step's advantages, repair episodes' turn scores, ...) import no room; `sources/` (where a step's
# rollouts come from) stands on them; `rl/` (the loops) on both; `sft/` on the shared modules only.  The
# entries stand above every room: the package's `run_training` picks a loop, and `dry_run.py` is
# `coderl train --dry-run`'s account of one step (it asks `sources/rounds.py` how rollouts are chunked).
TRAIN_ROOMS = {"coderl.train": "shared", "coderl.train.sources": "sources", "coderl.train.rl": "rl",
               "coderl.train.sft": "sft"}
TRAIN_ALLOWED = {"shared": set(), "sources": {"shared"}, "rl": {"shared", "sources"}, "sft": {"shared"}}
TRAIN_ENTRIES = {"coderl.train", "coderl.train.dry_run"}
# tasks/: the kinds that load their own sets (`hdl.py`, `math_tasks.py`) import no loader; a loader may load
# their sets through them (`languages_sets.py`: Verilog, `hf.py`: GSM8K).  Both read rows from `tasks/rows.py`.
TASKS_ROOMS = {"coderl.tasks.loaders": "loaders", "coderl.tasks.hdl": "kind sets",
               "coderl.tasks.math_tasks": "kind sets"}
TASKS_ALLOWED = {"loaders": {"kind sets"}, "kind sets": set()}


def room_crossings(edges: dict[str, set[str]], rooms: dict[str, str], allowed: dict[str, set[str]],
                   entries: set[str] = frozenset()) -> list[str]:
    """The imports from one room into another that `allowed` does not list."""
    def room(module: str) -> str | None:
        prefix = max((p for p in rooms if module == p or module.startswith(p + ".")), key=len, default=None)
        return rooms.get(prefix)

    return [f"{a} -> {b} ({room(a)} imports {room(b)})" for a in sorted(edges) if a not in entries
            and room(a) is not None for b in sorted(edges[a])
            if room(b) not in (None, room(a)) and room(b) not in allowed[room(a)]]


def test_the_rooms_of_train_stand_one_way():
    assert set(TRAIN_ROOMS) <= set(EDGES) and TRAIN_ENTRIES <= set(EDGES), "a room or entry that is not a module"
    assert room_crossings(EDGES, TRAIN_ROOMS, TRAIN_ALLOWED, TRAIN_ENTRIES) == []


def test_the_task_loaders_and_the_kinds_that_load_their_sets_import_one_way():
    assert set(TASKS_ROOMS) <= set(EDGES), "a room that is not a module"
    assert room_crossings(EDGES, TASKS_ROOMS, TASKS_ALLOWED) == []


def test_the_room_rules_fail_on_the_edges_before_issue_76():
    """Hand-written from the code before issue 76 (a sample of its edges, the crossings among them): sources/
    imported rl/'s log-probs and episodes, and hdl.py and math_tasks.py read rows through tasks/loaders/, which
    loaded their sets through them.  Edges within a room, down the rooms and of the entries pass."""
    train = {
        "coderl.train": {"coderl.train.rl.policy_gradient", "coderl.train.scaffold"},
        "coderl.train.dry_run": {"coderl.train.sources.rounds", "coderl.train.memory"},
        "coderl.train.rl.common": {"coderl.train.rl.episodes", "coderl.train.sources.rounds", "coderl.train.scaffold"},
        "coderl.train.rl.ppo": {"coderl.train.rl.logprobs", "coderl.train.sources.off_policy"},
        "coderl.train.sources.off_policy": {"coderl.train.config", "coderl.train.rl.logprobs"},
        "coderl.train.sources.rounds": {"coderl.train.rl.episodes", "coderl.train.scaffold",
                                        "coderl.train.sources.curriculum"},
        "coderl.train.sft.run": {"coderl.train.scaffold", "coderl.train.updater"},
    }
    assert room_crossings(train, TRAIN_ROOMS, TRAIN_ALLOWED, TRAIN_ENTRIES) == [
        "coderl.train.sources.off_policy -> coderl.train.rl.logprobs (sources imports rl)",
        "coderl.train.sources.rounds -> coderl.train.rl.episodes (sources imports rl)"]
    # a shared module reaching up into a room, and SFT into RL's rooms, fail too
    assert room_crossings({"coderl.train.updater": {"coderl.train.rl.common"},
                           "coderl.train.sft.run": {"coderl.train.sources.rounds"}},
                          TRAIN_ROOMS, TRAIN_ALLOWED, TRAIN_ENTRIES) == [
        "coderl.train.sft.run -> coderl.train.sources.rounds (sft imports sources)",
        "coderl.train.updater -> coderl.train.rl.common (shared imports rl)"]
    tasks = {
        "coderl.tasks.hdl": {"coderl.tasks.kinds", "coderl.tasks.loaders.jsonl", "coderl.tasks.types"},
        "coderl.tasks.math_tasks": {"coderl.tasks.kinds", "coderl.tasks.loaders.jsonl", "coderl.tasks.types"},
        "coderl.tasks.loaders.languages_sets": {"coderl.tasks.hdl", "coderl.tasks.loaders.jsonl"},
        "coderl.tasks.loaders.hf": {"coderl.tasks.math_tasks", "coderl.tasks.loaders.jsonl"},
    }
    assert room_crossings(tasks, TASKS_ROOMS, TASKS_ALLOWED) == [
        "coderl.tasks.hdl -> coderl.tasks.loaders.jsonl (kind sets imports loaders)",
        "coderl.tasks.math_tasks -> coderl.tasks.loaders.jsonl (kind sets imports loaders)"]


# The HF engine's internals (issue 76): the rest of coderl reaches generation through the facade
# (`rollout.generation`, `rollout.engine`), never through the HF sampler's modules.
HF_SAMPLER = ("coderl.rollout.hf", "coderl.rollout.hf_config", "coderl.rollout.hf_callbacks", "coderl.rollout.hf_engine",
              "coderl.rollout.kv_cache", "coderl.rollout.merged_view")


def sampler_reaches(edges: dict[str, set[str]]) -> list[str]:
    return [f"{a} -> {b}" for a in sorted(edges) if not a.startswith("coderl.rollout.")
            for b in sorted(edges[a]) if b in HF_SAMPLER]


def test_nothing_outside_rollout_imports_the_hf_samplers_internals():
    assert sampler_reaches(EDGES) == []
    # before issue 76: the log-prob passes took the KV cache's name from the sampler, the FSDP lockstep its class
    assert sampler_reaches({"coderl.train.rl.logprobs": {"coderl.rollout.hf"},
                            "coderl.train.distributed": {"coderl.rollout.hf", "coderl.base.config"},
                            "coderl.rollout.collect": {"coderl.rollout.hf_config"}}) == [
        "coderl.train.distributed -> coderl.rollout.hf", "coderl.train.rl.logprobs -> coderl.rollout.hf"]


# What the sandbox may import besides the standard library, each only where present (an ImportError is handled)
SANDBOX_OPTIONAL = {"ray": "the Ray backend", "numpy": "a program's numpy arrays, decoded as arrays"}


def test_the_sandbox_is_standalone():
    """It imports only `coderl.base` of coderl, and nothing outside the standard library but its optional
    extras: a program runner other trainers can take alone."""
    outside = []
    for module, found in STATEMENTS.items():
        if layer_of(module) != "sandbox":
            continue
        for line, names, node in found:
            top = names[0].split(".")[0] if names[0] else ""
            if names[0].startswith("coderl.") and not names[0].startswith(("coderl.base", "coderl.sandbox")):
                outside.append(f"{module}:{line} imports {names[0]}")
            elif top and top != "coderl" and top not in sys.stdlib_module_names and top not in SANDBOX_OPTIONAL:
                outside.append(f"{module}:{line} imports {top}")
    assert outside == []


# The sandbox is two programs (docs/sandbox.md): the client library in coderl/sandbox/ and the fork server it execs,
# coderl/sandbox/server/, loaded as a package of its own under a private name (server/__init__.py).
SERVER, COMMON = "coderl.sandbox.server", "coderl.sandbox.server.common"


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def server_boundary(edges: dict[str, set[str]], statements: dict[str, list[tuple]]) -> list[str]:
    """Imports across the sandbox's process boundary that are not allowed: the server importing anything of coderl
    outside its own package, or anything at all by an absolute `coderl` name (it runs as `_coderl_server`, where
    only relative imports resolve); the client importing the server other than its `common/` (what both sides
    read); anything outside the sandbox importing the server."""
    wrong = []
    for a in sorted(edges):
        for b in sorted(edges[a]):
            if _under(a, SERVER) and not _under(b, SERVER):
                wrong.append(f"{a} -> {b} (the server imports the client side)")
            elif _under(b, SERVER) and not _under(a, SERVER) and not (_under(a, "coderl.sandbox") and _under(b, COMMON)):
                wrong.append(f"{a} -> {b} (only the client imports the server, and only its common/)")
    for module in sorted(statements):
        if _under(module, SERVER):
            wrong += [f"{module}:{line} imports {names[0]} by an absolute name" for line, names, node in
                      statements[module] if _under(names[0], "coderl") and not getattr(node, "level", 0)]
    return wrong


def test_the_sandbox_server_and_its_client_import_each_other_one_way():
    assert any(_under(m, SERVER) for m in EDGES) and EDGES[f"{SERVER}.loop"], "the server's edges are seen"
    assert server_boundary(EDGES, STATEMENTS) == []


def test_the_server_boundary_rule_fails_on_the_edges_it_forbids():
    """The client's import of the isolation module's constants before the split (client.py:25 then), and the
    kinds of edge the split rules out."""
    edges = {"coderl.sandbox.client": {"coderl.sandbox.server.contain.isolation", "coderl.sandbox.server.common.env"},
             "coderl.sandbox.server.judge.checks": {"coderl.sandbox.types"},
             "coderl.eval.run": {"coderl.sandbox.server.common.values"}}
    statements = {"coderl.sandbox.server.loop": [(3, ["coderl.sandbox.server.jobs"], ast.Import([]))]}
    assert server_boundary(edges, statements) == [
        "coderl.eval.run -> coderl.sandbox.server.common.values (only the client imports the server, and only its "
        "common/)",
        "coderl.sandbox.client -> coderl.sandbox.server.contain.isolation (only the client imports the server, and "
        "only its common/)",
        "coderl.sandbox.server.judge.checks -> coderl.sandbox.types (the server imports the client side)",
        "coderl.sandbox.server.loop:3 imports coderl.sandbox.server.jobs by an absolute name"]


# The one private name from outside coderl that is used, and why: the standard library's regex parser is the
# only way to read a user runner pattern's structure (languages/user.py refuses patterns that can backtrack);
# tests/languages/test_language_errors.py fails if a Python release changes what it returns.
STDLIB_PRIVATE = {("re", "_parser"), ("re", "_constants")}


def test_no_private_name_is_imported_from_another_module():
    private = [f"{module}:{line} imports {alias.name} from {names[0]}"
               for module, found in STATEMENTS.items() for line, names, node in found
               if isinstance(node, ast.ImportFrom) and node.module != "__future__"
               for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")
               and (node.module, alias.name) not in STDLIB_PRIVATE]
    assert private == []


# ---- the checks can fail: a package written to break each rule --------------------------------------------
@pytest.fixture
def broken(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/a.py": "from pkg.low import b\n",
        "pkg/low/b.py": "def f():\n    from pkg.low.a import _private\n",  # a cycle, inside a function
        "pkg/high/__init__.py": "",
        "pkg/high/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..low import a\n",
        "pkg/low/d.py": "import pkg.high.c\n",  # up the order
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return import_graph(tmp_path, "pkg")


def test_the_graph_sees_cycles_upward_imports_and_relative_type_checking_imports(broken):
    edges, _ = broken
    assert cycles(edges) == [["pkg.low.a", "pkg.low.b"]]
    assert edges["pkg.high.c"] == {"pkg.low.a"}  # relative, under TYPE_CHECKING: counted
    assert upward_imports(edges, ["low", "high"]) == ["pkg.low.d -> pkg.high.c (low imports high, a layer above it)"]


def test_the_documented_imports_are_read_from_the_last_cell_of_each_row(tmp_path):
    doc = tmp_path / "architecture.md"
    doc.write_text("| package | holds | imports |\n|---|---|---|\n| `coderl/low/` | `base`-like words | nothing |\n"
                   "| `coderl/high/` | a `low` mention | `low`; torch |\n| `cli` | `x` | `high`, `low` |\n")
    assert documented_imports(doc, ["low", "high", "cli"]) == {"low": set(), "high": {"low"}, "cli": {"high", "low"}}
    assert layer_imports({"coderl.low.a": set(), "coderl.high.b": {"coderl.low.a"}, "coderl.cli": {"coderl.high.b"}}) \
        == {"low": set(), "high": {"low"}, "cli": {"high"}}


def test_the_longest_chain_is_counted_inside_the_package_only():
    edges = {"p": {"p.a"}, "p.a": {"p.b", "q"}, "p.b": {"p.c"}, "p.c": set(), "p.d": {"p.c"}, "q": {"p.x"},
             "p.x": set()}
    assert longest_chain(edges, "p") == ["p", "p.a", "p.b", "p.c"]  # q (outside) does not lead back into p
    assert longest_chain(edges, "p.d") == ["p.d"]  # p.c is not under p.d
    assert longest_chain({"p": set()}, "p") == ["p"]


def test_every_document_the_code_cites_is_in_the_repository():
    """A comment or docstring that cites `docs/X.md` (or the founding DESIGN.md, which lives outside the
    repository) must point at a file a reader of this repository can open."""
    missing = []
    for module, path in module_files(REPO).items():
        if "corpus" in module:  # problem statements mention paths as data ("docs/readme.md")
            continue
        text = path.read_text(encoding="utf-8")
        missing += [f"{module} cites DESIGN.md (outside the repository; docs/architecture.md is its living version)"
                    for _ in re.findall(r"\bDESIGN\.md\b", text)]
        missing += [f"{module} cites {doc}" for doc in re.findall(r"\bdocs/[\w-]+\.md\b", text)
                    if not (REPO / doc).is_file()]
    assert missing == []


def _top_level_names(path: Path) -> set[str]:
    """The names a module binds at its top level (defs, classes, assignments, imports, also under if/try)."""
    names: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            todo += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", []),
                     *(s for h in getattr(node, "handlers", []) for s in h.body)]
    return names


def test_every_name_imported_from_a_coderl_module_is_defined_there():
    """`from coderl.x import name` (at module level or inside a function, which only fails when it runs):
    `name` is a submodule of `coderl.x` or bound at its top level, so a name moved between modules
    fails here, not in the one code path that imports it late."""
    files = module_files(REPO)
    bound = {module: _top_level_names(path) for module, path in files.items()}
    missing = []
    for module, found in STATEMENTS.items():
        for line, names, node in found:
            if not isinstance(node, ast.ImportFrom) or names[0] not in files or "__getattr__" in bound[names[0]]:
                continue
            missing += [f"{module}:{line} imports {alias.name} from {names[0]}" for alias in node.names
                        if alias.name != "*" and f"{names[0]}.{alias.name}" not in files
                        and alias.name not in bound[names[0]]]
    assert missing == []
