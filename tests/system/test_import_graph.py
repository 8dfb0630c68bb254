"""The modules of ``board_arena`` import one another without a cycle, counting the imports in
function bodies too: a cycle hidden there is still a cycle (neither module can be read, tested or
loaded without the other). Imports under ``if TYPE_CHECKING:`` serve annotations only and are
left out; so are a package's own ``__init__`` imports of its parents, which Python makes anyway.
And importing the packages leaves the garbage collector as it was found; no test module imports
another."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def modules_of(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (a package by its own name)."""
    found = {}
    for path in (root / package.replace(".", "/")).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported_names(tree: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names a module imports anywhere in it (functions included), but under
    ``if TYPE_CHECKING:``; ``from X import y`` gives ``X.y`` (y may be a module, or a name of X)."""
    names: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                names.extend(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative: from the module's package
                    package = module.split(".")[: len(module.split(".")) - child.level + (1 if is_package else 0)]
                    base = ".".join(package + ([base] if base else []))
                names.extend(f"{base}.{alias.name}" for alias in child.names)
            visit(child)

    visit(tree)
    return names


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports (the longest known prefix of each name)."""
    known = modules_of(root, package)
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        for imported in _imported_names(ast.parse(path.read_text()), name, path.name == "__init__.py"):
            parts = imported.split(".")
            for end in range(len(parts), 0, -1):
                candidate = ".".join(parts[:end])
                if candidate in known:
                    if candidate != name:
                        targets.add(candidate)
                    break
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
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

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_the_modules_of_the_package_import_one_another_without_a_cycle():
    graph = import_graph(ROOT, "board_arena")
    assert graph["board_arena.arena.tournament.run"] >= {"board_arena.arena.tournament.pool", "board_arena.arena.tournament.settings"}
    assert "board_arena.agents.plugins" in graph and "board_arena.engines.game" in graph  # the whole package
    assert cycles(graph) == []


def test_the_check_finds_a_cycle_hidden_in_a_function_body_and_skips_annotations(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.c import x\n\ndef f():\n    from pkg import b\n    return b\n")
    (package / "b.py").write_text("import pkg.a\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\nx = 1\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.b", "pkg.c"} and graph["pkg.c"] == set()
    assert cycles(graph) == [["pkg.a", "pkg.b"]]


def test_importing_the_packages_leaves_the_garbage_collector_as_it_was_found():
    """The cyclic collector is paused while the packages import numba (board_arena._collector)
    and left as it was: on if it was on, off if the importer had switched it off. The arena command
    freezes the imports' objects (and asks OpenBLAS for one thread) only in its own process, never
    when called from Python."""
    import os
    import subprocess
    import sys

    script = (
        "import gc, sys\n"
        "if sys.argv[1] == 'off': gc.disable()\n"
        "from board_arena import agents, engines, envs\n"
        "from board_arena.arena import cli\n"
        "import os\n"
        "cli.main(['list', 'agents'])\n"
        "print(gc.isenabled(), gc.get_freeze_count(), os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    for state, expected in (("on", "True 0 None"), ("off", "False 0 None")):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        done = subprocess.run([sys.executable, "-c", script, state], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == expected
    script = (
        "import gc, os\n"
        "from board_arena.arena import cli\n"
        "cli.main()\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 0, os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    # The command's own process also asks numpy's OpenBLAS for one thread, unless told otherwise.
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for threads, expected in ((None, "True True 1"), ("3", "True True 3")):
        env = environment if threads is None else {**environment, "OPENBLAS_NUM_THREADS": threads}
        command = subprocess.run([sys.executable, "-c", script, "list", "agents"], capture_output=True, text=True, timeout=300,
                                 cwd=ROOT, env=env)
        assert command.returncode == 0, command.stderr
        assert command.stdout.splitlines()[-1] == expected


def test_no_test_module_imports_another():
    """What tests share lives in tests/support (and the games, plugins and references beside
    it); a test module imported by another would run its tests' module-level code twice and tie
    the two files together."""
    graph = import_graph(ROOT, "tests")
    assert "tests.support.search" in graph and "tests.engines.test_konane" in graph
    test_modules = {name for name in graph if name.rsplit(".", 1)[-1].startswith("test_")}
    assert {name: sorted(graph[name] & test_modules) for name in test_modules if graph[name] & test_modules} == {}
