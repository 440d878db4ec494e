"""The layer rules of DESIGN.md, read from the source (AST), not from what happens to be imported.

- The core never imports an interface (cli, mcp, hooks, server) or the installer.
- The store never imports anything above it (core, context, capture, graph, interfaces).
- No layer below the interfaces imports one.
- Interfaces never import each other. Allowed, as the design allows:
  * ``kenning.cli`` -> ``kenning.install``: installing agents is a CLI command over the installer library.
  * ``kenning.cli.mcp`` -> ``kenning.mcp``: ``kenning mcp`` is the MCP server's entry point (agent
    configs run that command); it starts the server and calls none of its tools.
  * ``kenning.cli.ui`` -> ``kenning.web``: ``kenning ui`` starts the web app and renders none of it.
  * ``kenning.server`` -> ``kenning.web``: the team server mounts the same web app behind its login.
  * ``kenning.cli.serve`` -> ``kenning.server``: ``kenning serve`` starts the team server (its
    admin commands use the server store directly, not the server).
- Only entry points read the environment (``os.environ``, ``os.getenv``, click ``envvar=``).
- Storage goes through the store protocols: no module outside ``kenning.store`` imports a
  backend (``kenning.store.sqlite``, ``kenning.store.postgres``, a database driver) or holds SQL.
- Packages stack in the order README.md draws (interfaces, sync, context, core, capture, graph,
  store, domain, platform): a package imports only from the layers under it, so no two packages
  import each other; and no module imports itself back through others at run time.
- The domain (``kenning.domain``) is pure: it imports neither the store nor the core (nor
  anything above them), nor the platform modules that read the world (settings, the clock,
  git), and calls no clock.

Imports are found at any depth (inside functions too) and through ``importlib.import_module``
and ``__import__`` with a literal name.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
INTERFACES = ("kenning.cli", "kenning.mcp", "kenning.hooks", "kenning.server", "kenning.web")
ABOVE_STORE = (
    "kenning.core",
    "kenning.context",
    "kenning.capture",
    "kenning.graph",
    "kenning.install",
    "kenning.sync",
    *INTERFACES,
)
ALLOWED_INTERFACE_IMPORTS = {
    ("kenning.cli", "kenning.install"),
    ("kenning.cli.mcp", "kenning.mcp"),
    ("kenning.cli.ui", "kenning.web"),
    ("kenning.server", "kenning.web"),
    ("kenning.cli.serve", "kenning.server"),
}

# Who may read the environment, at function level ("*" = the whole module).
ENTRY_POINTS = {
    "kenning.config": {"data_dir", "load_settings"},  # the one place settings come from
    "kenning.cli.main": {"*"},  # the `kenning` command
    "kenning.cli.mcp": {"*"},  # `kenning mcp`, the MCP server's entry point
    "kenning.hooks.main": {"main"},  # the hook process (run() takes env as an argument)
    # kenning.server.app joins here when the HTTP server exists.
}
# Copying the whole environment into a child process it starts (git, gh, the hook process):
# the child needs PATH and HOME; no setting is read from it here.
CHILD_ENV = {
    "kenning.gitinfo": {"_env"},
    "kenning.ghinfo": {"_gh_env"},
    "kenning.cli.hooks": {"hook_cmd"},
}
# Reads outside an entry point, reported to the lead to be passed down from the entry point
# instead. This list only shrinks: the test fails when one no longer reads the environment.
KNOWN_OUTSIDE = {
}


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def package(self) -> str:
        return self.name if self.path.name == "__init__.py" else self.name.rsplit(".", 1)[0]


@cache
def modules() -> tuple[Module, ...]:
    out = []
    for path in sorted((SRC / "kenning").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out.append(Module(name, path, ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return tuple(out)


def imports(module: Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.package.split(".")[: len(module.package.split(".")) - node.level + 1]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            found.add(name)
            found |= {f"{name}.{a.name}" for a in node.names}  # `from kenning import cli`
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def offending(source_prefixes: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{module.name} imports {target}"
        for module in modules()
        if any(under(module.name, p) for p in source_prefixes)
        for target in sorted(imports(module))
        if any(under(target, f) for f in forbidden)
    ]


def test_the_scanner_sees_imports_at_every_depth() -> None:
    tree = ast.parse(
        "import kenning.a\nfrom kenning import b\nfrom . import c\nfrom ..d import e\n"
        "def f():\n    from kenning.g import h\n    importlib.import_module('kenning.i')\n    __import__('kenning.j')\n"
    )
    found = imports(Module("kenning.x.y.z", Path("z.py"), tree))
    for name in (
        "kenning.a",
        "kenning.b",
        "kenning.x.y.c",
        "kenning.x.d.e",
        "kenning.g.h",
        "kenning.i",
        "kenning.j",
    ):
        assert name in found, name


def test_core_never_imports_an_interface_or_the_installer() -> None:
    assert offending(("kenning.core",), (*INTERFACES, "kenning.install")) == []


def test_store_never_imports_what_sits_above_it() -> None:
    assert offending(("kenning.store",), ABOVE_STORE) == []


def test_no_layer_below_the_interfaces_imports_one() -> None:
    below = (
        "kenning.core",
        "kenning.context",
        "kenning.capture",
        "kenning.graph",
        "kenning.store",
        "kenning.install",
        "kenning.sync",
        "kenning.domain",
    )
    assert offending(below, INTERFACES) == []
    # Platform modules (kenning/clock.py, config.py, gitinfo.py, ...) sit under everything.
    platform = [m.name for m in modules() if m.name.count(".") == 1 and m.path.name != "__init__.py"]
    assert offending(tuple(platform), (*INTERFACES, "kenning.core", "kenning.install")) == []


def test_only_the_cli_mcp_and_the_server_use_sync() -> None:
    """Sync is a machine's push and pull (``kenning sync``, ``kenning mcp --remote``, recall
    across workspaces) and the server's side of a push: the hooks and the web app never sync, and
    nothing under the interfaces reaches up to it (the layer order checks that too)."""
    users = sorted({module.name.split(".")[1] for module in modules() if not under(module.name, "kenning.sync")
                    for target in imports(module) if under(target, "kenning.sync")})  # fmt: skip
    assert users == ["cli", "mcp", "server"]


def test_interfaces_never_import_each_other() -> None:
    bad = []
    for module in modules():
        home = next((i for i in INTERFACES if under(module.name, i)), None)
        if home is None:
            continue
        for target in sorted(imports(module)):
            other = next((i for i in (*INTERFACES, "kenning.install") if under(target, i)), None)
            if other is None or other == home:
                continue
            allowed = any(
                under(module.name, src) and under(target, dst) for src, dst in ALLOWED_INTERFACE_IMPORTS
            )
            if not allowed:
                bad.append(f"{module.name} imports {target}")
    assert bad == []


def _reads_environment(tree: ast.Module) -> set[str]:
    """Functions (top-level name, or "*" for module level) that read the environment."""
    readers: set[str] = set()

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            here = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and where == "*":
                here = child.name
            reads = (
                (isinstance(child, ast.Attribute) and child.attr in ("environ", "environb", "getenv")
                 and isinstance(child.value, ast.Name) and child.value.id == "os")
                or (isinstance(child, ast.ImportFrom) and child.module == "os"
                    and any(a.name in ("environ", "environb", "getenv") for a in child.names))
                or (isinstance(child, ast.keyword) and child.arg in ("envvar", "auto_envvar_prefix"))
            )  # fmt: skip
            if reads:
                # A decorator's envvar= belongs to the function it decorates.
                readers.add(here)
            visit(child, here)

    visit(tree, "*")
    return readers


def test_only_entry_points_read_the_environment() -> None:
    allowed = {**ENTRY_POINTS, **CHILD_ENV, **KNOWN_OUTSIDE}
    unexpected, stale = [], []
    seen: dict[str, set[str]] = {}
    for module in modules():
        readers = _reads_environment(module.tree)
        if readers:
            seen[module.name] = readers
        ok = allowed.get(module.name, set())
        unexpected += [f"{module.name}:{fn}" for fn in sorted(readers) if "*" not in ok and fn not in ok]
    for name, functions in allowed.items():
        if name not in seen:
            stale.append(f"{name} (module gone or reads nothing)")
        elif "*" not in functions:
            stale += [f"{name}:{fn}" for fn in sorted(functions - seen[name])]
    assert unexpected == [], "read the environment only in an entry point and pass Settings down"
    assert stale == [], "remove these from the allowlists in tests/test_architecture.py"


def test_the_environment_scanner_sees_every_form() -> None:
    tree = ast.parse(
        "import os\nfrom os import getenv\nX = os.environ.get('A')\n"
        "def f():\n    return os.getenv('B')\n"
        "@click.option('--home', envvar='KENNING_HOME')\ndef g(home):\n    pass\n"
        "class C:\n    def m(self):\n        return dict(os.environ)\n"
    )
    assert _reads_environment(tree) == {"*", "f", "g", "C"}


# -- storage behind the protocols ----------------------------------------------------------------
BACKENDS = ("kenning.store.sqlite", "kenning.store.postgres", "kenning.store.server.postgres", "sqlite3", "psycopg",
            "psycopg_pool")  # fmt: skip
# Modules outside the store that may still reach a backend, each with why. OpenCode keeps its
# transcripts in its own SQLite file: reading it is a capture source's job, not our store's.
BACKEND_OUTSIDE_STORE: dict[str, str] = {
    "kenning.capture.sources.opencode": "reads OpenCode's own SQLite database (a transcript source)",
}
# Statements a store would run; matched in string constants of modules outside the store.
SQL = re.compile(
    r"\bSELECT\b[^;]*\bFROM\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b"
    r"|\bCREATE\s+(TABLE|INDEX|VIRTUAL\s+TABLE|TRIGGER)\b|\bPRAGMA\s+\w+|\bALTER\s+TABLE\b"
)


def _sql_in(tree: ast.Module) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value)
    ]


def test_only_the_store_reaches_a_backend() -> None:
    found = {
        module.name: [t for t in sorted(imports(module)) if any(under(t, b) for b in BACKENDS)]
        for module in modules()
        if not under(module.name, "kenning.store")
    }
    found = {name: targets for name, targets in found.items() if targets}
    unexpected = sorted(f"{name} imports {', '.join(t)}" for name, t in found.items() if name not in BACKEND_OUTSIDE_STORE)
    stale = sorted(set(BACKEND_OUTSIDE_STORE) - set(found))
    assert unexpected == [], "go through the store protocols (kenning.store.protocol) instead"
    assert stale == [], "remove these from BACKEND_OUTSIDE_STORE in tests/test_architecture.py"


def test_only_the_store_writes_sql() -> None:
    found = {m.name: _sql_in(m.tree) for m in modules() if not under(m.name, "kenning.store")}
    unexpected = sorted(f"{name}:{lines}" for name, lines in found.items() if lines and name not in BACKEND_OUTSIDE_STORE)
    assert unexpected == [], "SQL belongs in a store backend (kenning.store.sqlite, kenning.store.postgres)"


def test_the_sql_scanner_sees_statements() -> None:
    tree = ast.parse(
        "a = 'SELECT x FROM t'\nb = \"INSERT OR IGNORE INTO t VALUES (1)\"\nc = 'UPDATE t SET x = 1'\n"
        "d = 'DELETE FROM t'\ne = 'PRAGMA user_version'\nf = 'select what you need from the list'\n"
    )
    assert _sql_in(tree) == [1, 2, 3, 4, 5]


# Top to bottom; a package imports only from the layers under its own (README.md, "How it is
# built"). Interfaces and the installer sit on top (their own rules are above); top-level
# modules (kenning/config.py, clock.py, ...) are the platform at the bottom.
LAYERS = (
    ("kenning.sync",),  # push/pull with a team server; the CLI, MCP and the server call it
    ("kenning.context",),
    ("kenning.core",),
    ("kenning.capture",),
    ("kenning.graph",),
    ("kenning.store",),
    ("kenning.domain",),
)


def _layer(name: str) -> int | None:
    for depth, packages in enumerate(LAYERS):
        if any(under(name, p) for p in packages):
            return depth
    if name.startswith("kenning.") and name.count(".") == 1 and not (SRC / "kenning" / name[8:]).is_dir():
        return len(LAYERS)  # platform
    return None


# -- the pure domain ------------------------------------------------------------------------------
# What the domain may not import: the stores and everything that works over them, and the
# platform modules that read the world (settings and the data folder, the clock, git, GitHub,
# files beside the store).
NOT_FROM_THE_DOMAIN = (
    "kenning.store", "kenning.core", "kenning.context", "kenning.capture", "kenning.graph", "kenning.sync",
    "kenning.install", *INTERFACES,
    "kenning.config", "kenning.userconfig", "kenning.clock", "kenning.gitinfo", "kenning.githistory",
    "kenning.ghinfo", "kenning.sessionmarks", "kenning.private", *BACKENDS,
)  # fmt: skip
CLOCK_CALLS = ("now", "utcnow", "today", "time", "time_ns", "monotonic", "perf_counter")


def test_the_domain_imports_neither_the_store_nor_the_core() -> None:
    assert [m.name for m in modules() if under(m.name, "kenning.domain")], "kenning.domain has modules"
    assert offending(("kenning.domain",), NOT_FROM_THE_DOMAIN) == []


def test_the_domain_reads_no_clock() -> None:
    """Time rules take ``now`` as an argument, so one clock (a FixedClock in tests) governs them."""
    reads = [f"{m.name} calls {name}()" for m in modules() if under(m.name, "kenning.domain")
             for name in CLOCK_CALLS if _calls(m.tree, name)]  # fmt: skip
    assert reads == []


def test_the_domain_scanners_see_what_they_forbid() -> None:
    tree = ast.parse("from kenning.store.protocol import Hit\nimport kenning.core.service\nx = datetime.now()\n")
    module = Module("kenning.domain.x", Path("x.py"), tree)
    assert {"kenning.store.protocol", "kenning.core.service"} <= imports(module)
    assert _calls(tree, "now") == 1


# Imports against the layer order that are known and reported to the lead, each with why and
# where it should go. This list only shrinks: the tests fail when an entry is no longer needed.
LAYER_EXCEPTIONS: dict[str, tuple[str, str]] = {}


def _excepted(module: str, target: str) -> bool:
    exception = LAYER_EXCEPTIONS.get(module)
    return exception is not None and under(target, exception[0])


def test_packages_import_only_the_layers_under_them() -> None:
    bad, used = [], set()
    for module in modules():
        mine = _layer(module.name)
        if mine is None:
            continue
        for target in sorted(imports(module)):
            theirs = _layer(target) if target.startswith("kenning.") else None
            if theirs is not None and theirs < mine:
                if _excepted(module.name, target):
                    used.add(module.name)
                else:
                    bad.append(f"{module.name} imports {target}")
    assert bad == []
    assert set(LAYER_EXCEPTIONS) - used == set(), "remove these from LAYER_EXCEPTIONS in tests/test_architecture.py"


def test_no_two_packages_import_each_other() -> None:
    def package(name: str) -> str:
        return ".".join(name.split(".")[:2])

    edges: dict[str, set[str]] = {}
    for module in modules():
        for target in imports(module):
            if (target.startswith("kenning.") and package(target) != package(module.name)
                    and not _excepted(module.name, target)):  # fmt: skip
                edges.setdefault(package(module.name), set()).add(package(target))
    both = sorted(f"{a} <-> {b}" for a, targets in edges.items() for b in targets
                  if a < b and a in edges.get(b, set()))  # fmt: skip
    assert both == []


def _without_type_checking(tree: ast.Module) -> ast.Module:
    """The module as it runs: blocks under ``if TYPE_CHECKING:`` left out (mypy reads them; Python does not)."""

    class Strip(ast.NodeTransformer):
        def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt] | None:
            test = node.test
            if getattr(test, "id", getattr(test, "attr", "")) == "TYPE_CHECKING":
                return node.orelse or None
            return self.generic_visit(node)

    return Strip().visit(ast.parse(ast.unparse(tree)))


def test_no_import_cycle_between_modules_at_run_time() -> None:
    """Counting every import a module runs (inside functions too), none leads back to it. Type
    annotations may name a module above (``core: Core``), under ``TYPE_CHECKING`` only."""
    names = {m.name for m in modules()}
    graph: dict[str, set[str]] = {}
    for module in modules():
        runs = Module(module.name, module.path, _without_type_checking(module.tree))
        targets = set()
        for target in imports(runs):
            while target and target not in names:
                target = target.rpartition(".")[0]
            if target and target != module.name and not under(module.name, target):
                targets.add(target)
        graph[module.name] = targets
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target):], target]))
            elif target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    assert sorted(set(cycles) - set(KNOWN_CYCLES)) == []
    assert sorted(set(KNOWN_CYCLES) - set(cycles)) == [], "remove these from KNOWN_CYCLES in tests/test_architecture.py"


# Run-time cycles reported to the lead, each with its way out. This list only shrinks.
KNOWN_CYCLES: dict[str, str] = {}


def test_the_cycle_finder_reads_past_type_checking_only() -> None:
    tree = ast.parse("if TYPE_CHECKING:\n    import kenning.a\nelse:\n    import kenning.b\nimport kenning.c\n")
    found = imports(Module("kenning.x", Path("x.py"), _without_type_checking(tree)))
    assert "kenning.a" not in found and {"kenning.b", "kenning.c"} <= found


# -- the one door (kenning.redacted) -----------------------------------------------------------
def _calls(tree: ast.Module, name: str) -> int:
    """Calls of ``name(...)`` or ``<anything>.name(...)``."""
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == name)
            or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
        )
    )


def test_only_the_redactor_makes_redacted_text() -> None:
    """Text becomes ``Redacted`` in kenning.redacted only (by redacting it); nothing else calls
    the constructor, so a store write or a renderer typed to take it cannot be handed raw text."""
    makers = [m.name for m in modules() if _calls(m.tree, "Redacted")]
    assert makers == ["kenning.redacted"]


def test_only_the_store_takes_its_rows_back_as_redacted() -> None:
    """``stored()`` vouches that text came out of the store (which only took Redacted text in):
    only store modules may say so."""
    callers = [m.name for m in modules() if _calls(m.tree, "stored") and m.name != "kenning.redacted"]
    assert callers and all(under(name, "kenning.store") for name in callers), callers


def test_the_door_scanner_sees_calls() -> None:
    tree = ast.parse("x = Redacted('a')\ny = redacted.Redacted('b')\nz = stored('c')\n")
    assert _calls(tree, "Redacted") == 2 and _calls(tree, "stored") == 1


def test_the_web_stack_loads_only_for_the_web_app() -> None:
    """The CLI and the hooks must not pay for FastAPI, Jinja2 or uvicorn: only the web package
    and the team server (and ``kenning ui``'s and ``kenning serve``'s commands, inside their
    functions) import them."""
    heavy = ("fastapi", "starlette", "jinja2", "uvicorn")
    outside = [
        f"{module.name} imports {target}"
        for module in modules()
        if not under(module.name, "kenning.web") and not under(module.name, "kenning.server")
        for target in sorted(imports(module))
        if any(under(target, h) for h in heavy)
    ]
    assert outside == []
    def names(node: ast.stmt) -> list[str]:
        if isinstance(node, ast.ImportFrom):
            return [node.module or ""]
        return [a.name for a in node.names] if isinstance(node, ast.Import) else []

    top_level = [
        f"{module.name} imports {name}"
        for module in modules()
        if module.name.startswith("kenning.cli")
        for node in module.tree.body
        for name in names(node)
        if under(name, "kenning.web") or under(name, "kenning.server")
    ]
    assert top_level == [], "import kenning.web / kenning.server inside the command function, not at module level"
