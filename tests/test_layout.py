"""The architecture, checked: catalog/ is the domain core (never Flask, never webapp), its import
graph has no cycle, neither catalog/ nor webapp/ has a cycle between its packages, and each
resolver exists once. (make lint adds the layers of pyproject.toml's [tool.importlinter].)"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "catalog"
WEBAPP = ROOT / "webapp"
TESTS = ROOT / "tests"


def _modules(top: Path = CATALOG) -> dict[str, Path]:
    found = {}
    for path in sorted(top.rglob("*.py")):
        if "versions" in path.parts:
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()
WEB_MODULES = _modules(WEBAPP)


def _imports(name: str, path: Path, modules: dict[str, Path] = MODULES) -> Iterator[str]:
    """Every module ``name`` imports (at any level, function bodies included)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            submodules = [f"{base}.{alias.name}" for alias in node.names]
            yield from (s for s in submodules if s in modules)
            if any(s not in modules for s in submodules):
                yield base


def _catalog_graph(modules: dict[str, Path] = MODULES) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(name, path, modules):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def _package_graph(graph: dict[str, set[str]], top: str) -> dict[str, set[str]]:
    """``graph`` between the packages (and the modules) directly under ``top``: ``webapp.cards``
    stands for every module of webapp/cards/. ``top`` itself (its __init__: the app factory,
    which imports every area) is left out."""

    def unit(module: str) -> str:
        return ".".join(module.split(".")[:2])

    packages: dict[str, set[str]] = {}
    for name, targets in graph.items():
        if name == top:
            continue
        packages.setdefault(unit(name), set()).update(unit(t) for t in targets if t != top and unit(t) != unit(name))
    return packages


@pytest.mark.parametrize("name", sorted(MODULES))
def test_catalog_never_imports_flask_or_webapp(name: str) -> None:
    # werkzeug.security (password hashing) is a plain library; the web framework is not.
    top_level = {imported.split(".")[0] for imported in _imports(name, MODULES[name])}
    assert sorted(t for t in top_level if t == "webapp" or t.startswith("flask")) == []


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (as a path), or [] when there is none."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_catalog_import_graph_has_no_cycle() -> None:
    assert _cycle(_catalog_graph()) == []


# The refusal path (webapp/db.py commits, webapp/errors.py answers a refused or failed request)
# is being reworked into one handler; until it lands, db.py imports errors' answer to a failed
# commit inside a function. Only that pair may import each other.
WEB_ALLOWED = {("webapp.db", "webapp.errors")}


@pytest.mark.parametrize(("top", "modules"), [("catalog", MODULES), ("webapp", WEB_MODULES)])
def test_no_cycle_between_packages(top: str, modules: dict[str, Path]) -> None:
    """catalog.collection may import catalog.decks, or the reverse, never both (nor round a
    longer loop); the same between webapp's areas."""
    graph = _package_graph(_catalog_graph(modules), top)
    for importer, imported in WEB_ALLOWED:
        graph.get(importer, set()).discard(imported)
    assert _cycle(graph) == []


def test_the_package_graph_folds_modules_into_their_package() -> None:
    graph = {"w": {"w.a.x"}, "w.a.x": {"w.b", "w.a.y"}, "w.a.y": set(), "w.b": {"w.a.y", "w"}}
    assert _package_graph(graph, "w") == {"w.a": {"w.b"}, "w.b": {"w.a"}}
    assert _cycle(_package_graph(graph, "w")) == ["w.a", "w.b", "w.a"]


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ],
)
def test_cycle_finder(graph: dict[str, set[str]], cycle: list[str]) -> None:
    assert _cycle(graph) == cycle


@pytest.mark.parametrize("function", ["find_printing", "find_card"])
def test_one_resolver(function: str) -> None:
    """A printing or card is found from what people write in one place: catalog/lookup.py."""
    defined = [
        name
        for name, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name == function
    ]
    assert defined == ["catalog.lookup"]


def _ignores_without_reason() -> list[str]:
    found = []
    for path in sorted([*CATALOG.rglob("*.py"), *(ROOT / "webapp").rglob("*.py"), *TESTS.rglob("*.py")]):
        if path == Path(__file__).resolve():
            continue  # this file names the marker in its own strings
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if "type: ignore[" not in line or "# why the type: ignore" in line:
                continue
            reason = line.split("type: ignore[", 1)[1].partition("]")[2].strip().lstrip("#").strip()
            above = lines[number - 2].strip() if number > 1 else ""
            if not reason and not above.startswith("# why the type: ignore below:"):
                found.append(f"{path.relative_to(ROOT)}:{number}")
    return found


def test_every_type_ignore_says_why() -> None:
    """mypy checks catalog/ and webapp/; where it is told to look away, the line says why.

    tests/ is not type-checked, so an ignore there would silence nothing: it must say why too
    (none is needed today)."""
    assert _ignores_without_reason() == []


TRACKER_REFERENCE = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)


def test_comments_cite_no_tracker_issue() -> None:
    """The tracker is not in the repository: code and tests say why, not which issue asked
    (measurements and history live in CHANGELOG.md). Migrations keep theirs: they are history."""
    found = []
    kinds = ("*.py", "*.html", "*.js", "*.css", "*.toml")
    for top in ("catalog", "webapp", "tests", "scripts", "static"):
        for kind in kinds:
            for path in (ROOT / top).rglob(kind):
                relative = path.relative_to(ROOT).as_posix()
                if "/migrations/" in relative or "/vendor/" in relative or relative == "tests/test_layout.py":
                    continue
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                    if TRACKER_REFERENCE.search(line):
                        found.append(f"{relative}:{number}: {line.strip()[:80]}")
    for name in ("Makefile", "pyproject.toml", ".ci/run"):
        text = (ROOT / name).read_text(encoding="utf-8")
        found += [f"{name}: {m.group(0)}" for m in TRACKER_REFERENCE.finditer(text)]
    assert found == []
