"""No module of the project uses another module's private names: what a module shares has a public
name, so that a private name can change with its module alone.

The rule, checked over the syntax trees of ``board_arena/``, ``tests/`` and ``experiments/`` (and
of the Python programs that tests hold as text, to run in a subprocess):

- ``from M import _name`` of a project module ``M`` is refused, unless ``_name`` is a module;
- so is ``m._name``, where ``m`` is a project module (bound by an import, or reached from one as
  ``pkg.mod``), and ``setattr``/``getattr``/``delattr``/``hasattr``/``monkeypatch.setattr`` of
  ``(m, "_name")`` or of ``"pkg.mod._name"``;
- a private *module* (``engines/_face.py``) is imported only from its own package: by the
  package's modules and those of its subpackages (``engines/game.py`` may import
  ``engines._face``, ``arena/`` may not), as the standard library keeps ``_collections_abc``;
- dunder names (``__file__``, ``__version__``) are public.

A module's own private names, and the private attributes of objects and classes (``self._x``,
``player._budget``), are outside the rule: which class an object has is not known from the
syntax alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("board_arena", "tests", "experiments")
ATTRIBUTE_CALLS = {"setattr", "getattr", "delattr", "hasattr"}


def project_modules(root: Path) -> dict[str, Path]:
    """Every module of the project's folders under ``root``, by dotted name (a package by its own)."""
    found = {}
    for folder in FOLDERS:
        for path in (root / folder).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_module_refused(importer: str, module: str) -> str | None:
    """The first private module on the dotted path ``module`` that ``importer`` may not import
    (one outside the package that holds it), or None."""
    parts = module.split(".")
    for end in range(1, len(parts) + 1):
        if is_private(parts[end - 1]):
            package = ".".join(parts[: end - 1])
            if not (importer == package or importer.startswith(package + ".")):
                return ".".join(parts[:end])
    return None


def violations(source: str, module: str, is_package: bool, known: dict[str, Path], where: str) -> list[str]:
    """What ``source`` (the text of ``module``) uses of other modules' private names, one line
    each: ``where:LINE: what``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found: list[str] = []
    bound: dict[str, str] = {}  # a name of this module -> the project module it is

    def absolute(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
        return ".".join(package + ([node.module] if node.module else []))

    def report(node: ast.AST, what: str) -> None:
        found.append(f"{where}:{getattr(node, 'lineno', 0)}: {what}")

    def check_module_path(node: ast.AST, target: str) -> None:
        refused = private_module_refused(module, target)
        if refused is not None and any(name == refused or name.startswith(refused + ".") for name in known):
            report(node, f"imports the private module {refused} from outside its package")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FOLDERS:
                    check_module_path(node, alias.name)
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node)
            if base.split(".")[0] not in FOLDERS or base not in known:
                continue
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in known:  # a module
                    check_module_path(node, target)
                    bound[alias.asname or alias.name] = target
                elif is_private(alias.name) and base != module:
                    report(node, f"imports the private name {alias.name} of {base}")
                else:
                    check_module_path(node, base)

    def module_of(node: ast.AST) -> str | None:
        """The project module that the expression ``node`` is (``m``, ``pkg.mod``), or None."""
        if isinstance(node, ast.Name):
            return bound.get(node.id)
        if isinstance(node, ast.Attribute):
            parent = module_of(node.value)
            if parent is not None and f"{parent}.{node.attr}" in known:
                return f"{parent}.{node.attr}"
        return None

    def check_attribute(node: ast.AST, owner: str | None, name: str) -> None:
        if owner is not None and owner != module and is_private(name):
            report(node, f"uses the private name {name} of {owner}")

    def check_dotted_text(node: ast.AST, text: str) -> None:
        """``"pkg.mod._name"``, as ``monkeypatch.setattr`` takes a target."""
        owner, _, name = text.rpartition(".")
        if owner in known:
            check_attribute(node, owner, name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            check_attribute(node, module_of(node.value), node.attr)
        elif isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called not in ATTRIBUTE_CALLS:
                continue
            arguments = node.args
            if len(arguments) >= 2 and isinstance(arguments[1], ast.Constant) and isinstance(arguments[1].value, str):
                check_attribute(node, module_of(arguments[0]), arguments[1].value)
            if arguments and isinstance(arguments[0], ast.Constant) and isinstance(arguments[0].value, str):
                check_dotted_text(node, arguments[0].value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "import " in node.value and "\n" in node.value:
            # A program held as text (run by a test in a subprocess), checked as a module of its own.
            found += violations(node.value, "__main__", False, known, f"{where}:{node.lineno} (a program in a string)")
    return found


def project_violations(root: Path) -> list[str]:
    known = project_modules(root)
    found = []
    for name, path in sorted(known.items()):
        found += violations(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", known, str(path.relative_to(root)))
    return sorted(found, key=lambda line: (line.split(":")[0], int(line.split(":")[1].split()[0])))


def test_no_module_uses_another_modules_private_names():
    assert project_violations(ROOT) == []


def test_the_check_finds_each_kind_of_use_and_allows_what_the_rule_allows(tmp_path):
    package = tmp_path / "board_arena"
    (package / "inner").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "experiments").mkdir()
    # The files' lines one string each: a text of several lines that imports is taken for a program.
    files = {
        "board_arena/__init__.py": [],
        "board_arena/_helpers.py": ["VALUE = 1"],
        "board_arena/inner/__init__.py": ["from board_arena import _helpers", "from board_arena._helpers import VALUE"],
        "board_arena/inner/_face.py": ["x = 1"],
        "board_arena/inner/game.py": ["from board_arena.inner import _face", "_own = 1", "print(_own, _face.x)"],
        "board_arena/registry.py": ["_STATE = {}", "__version__ = '1'"],
        "tests/__init__.py": [],
        "tests/test_a.py": [
            "from board_arena.registry import _STATE",                      # 1
            "from board_arena import registry",
            "import board_arena.registry as reg",
            "import board_arena.inner",
            "print(registry._STATE, reg._STATE, registry.__version__)",     # 2, 3 (a dunder is public)
            "def test(monkeypatch):",
            "    monkeypatch.setattr(registry, '_STATE', {})",              # 4
            "    monkeypatch.setattr('board_arena.registry._STATE', {})",   # 5
            "    from board_arena.inner import _face",                      # 6
            "    SCRIPT = 'from board_arena import registry\\nregistry._STATE\\n'",  # 7
            "    return board_arena.inner.game, object()._private",         # fine
        ],
        "experiments/__init__.py": [],
    }
    for name, lines in files.items():
        (tmp_path / name).write_text("".join(line + "\n" for line in lines))
    found = project_violations(tmp_path)
    assert [line.split(": ", 1)[1] for line in found] == [
        "imports the private name _STATE of board_arena.registry",
        "uses the private name _STATE of board_arena.registry",
        "uses the private name _STATE of board_arena.registry",
        "uses the private name _STATE of board_arena.registry",
        "uses the private name _STATE of board_arena.registry",
        "imports the private module board_arena.inner._face from outside its package",
        "uses the private name _STATE of board_arena.registry",
    ], found
    assert all(line.startswith("tests/test_a.py:") for line in found)
