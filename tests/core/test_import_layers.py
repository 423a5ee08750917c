"""The core's modules import each other in one direction: no cycle, and nothing low imports what is built on it.

Read from the source (every ``import`` of a ``ragmetrics_core`` module, including the ones inside functions, since
a lazy import is still a dependency), so a new circle fails here before it fails at import time.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ragmetrics_core

ROOT = Path(ragmetrics_core.__file__).parent

# Modules built on the ones checked below: importing any of them from there would be an upward import.
_ABOVE_THE_FLOOR = (
    "ragmetrics_core.engine", "ragmetrics_core.ensemble", "ragmetrics_core.runner", "ragmetrics_core.batch",
    "ragmetrics_core.judge_factory", "ragmetrics_core.online", "ragmetrics_core.formats", "ragmetrics_core.report",
    "ragmetrics_core.api", "ragmetrics_core.cli", "ragmetrics_core.demo", "ragmetrics_core.scale",
)
_ABOVE_BATCH = (
    "ragmetrics_core.api", "ragmetrics_core.cli", "ragmetrics_core.demo", "ragmetrics_core.scale",
    "ragmetrics_core.online",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    known = {_module_name(path) for path in ROOT.rglob("*.py")}
    for path in ROOT.rglob("*.py"):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:  # relative: resolve against this module's package
                    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    module = f"{base}.{module}" if module else base
                # ``from package import submodule`` depends on the submodule (the package is already importing).
                submodules = {f"{module}.{alias.name}" for alias in node.names}
                targets.update(submodules & known if submodules & known else {module})
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t.startswith("ragmetrics_core") and t != name}
    return graph


def _below(graph: dict[str, set[str]], prefix: str) -> dict[str, set[str]]:
    return {name: deps for name, deps in graph.items() if name == prefix or name.startswith(prefix + ".")}


def _upward(graph: dict[str, set[str]], prefix: str, above: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{name} -> {dep}"
        for name, deps in _below(graph, prefix).items()
        for dep in deps
        if any(dep == top or dep.startswith(top + ".") for top in above)
    )


def test_no_import_cycle() -> None:
    cycles = _strongly_connected(_graph())
    assert not cycles, f"import cycles: {cycles}"


def test_results_and_judges_import_nothing_built_on_them() -> None:
    graph = _graph()
    judged = (*_ABOVE_THE_FLOOR, "ragmetrics_core.judges", "ragmetrics_core.metrics", "ragmetrics_core.explain")
    assert _upward(graph, "ragmetrics_core.judges", _ABOVE_THE_FLOOR) == []
    assert _upward(graph, "ragmetrics_core.results", judged) == []  # e.g. Usage lives here, the judges report it
    assert _upward(graph, "ragmetrics_core.evidence", (*judged, "ragmetrics_core.results")) == []


def test_batch_imports_nothing_built_on_it() -> None:
    assert _upward(_graph(), "ragmetrics_core.batch", _ABOVE_BATCH) == []


def test_the_check_sees_a_planted_cycle() -> None:
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _upward({"ragmetrics_core.judges.x": {"ragmetrics_core.engine"}}, "ragmetrics_core.judges",
                   _ABOVE_THE_FLOOR) == ["ragmetrics_core.judges.x -> ragmetrics_core.engine"]


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the groups of modules that import each other (directly or not), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(edges.get(node, ())):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found, key=len, reverse=True)
