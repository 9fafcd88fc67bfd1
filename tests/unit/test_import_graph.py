"""No module of the package imports itself back through others (an import circle), and the
benchmarks' modules neither, counting imports made for type checking only: imports go one way,
as the layers in `.importlinter` say."""

from __future__ import annotations

import grimp
import pytest


def _circles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph.find_modules_directly_imported_by(module) & modules:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return groups


@pytest.mark.parametrize("package", ["mockserver", "benchmarks"])
def test_no_import_circles(package: str) -> None:
    graph = grimp.build_graph(package, exclude_type_checking_imports=False)
    modules = {m for m in graph.modules if m == package or m.startswith(package + ".")}
    assert _circles(graph, modules) == []
