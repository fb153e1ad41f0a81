"""The package's modules import each other in one direction: a circle means shared types live in the wrong module."""

import ast
from pathlib import Path

import guide_tui

PACKAGE = Path(guide_tui.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package's modules this file imports at run time, at the top or inside a function (not for type checking only)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from guide_tui import claims` names a module; `from guide_tui.x import y` names x
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in modules else node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in modules and name != module_name(path)}


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {name: imported_modules(path, set(paths)) for name, path in paths.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as the list of modules along it, or None."""
    state: dict[str, str] = {}  # "open" while on the current path, "done" once fully explored

    def walk(name: str, path: list[str]) -> list[str] | None:
        state[name] = "open"
        for target in sorted(graph[name]):
            if state.get(target) == "open":
                stack = path + [name]
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := walk(target, path + [name])):
                return cycle
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state and (cycle := walk(name, [])):
            return cycle
    return None


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_walker_sees_imports_inside_functions_but_not_type_checking_ones():
    graph = import_graph()
    assert "guide_tui.ollama_answerer" in graph["guide_tui.answerers"]  # imported inside OllamaAnswerer.stream
    assert graph["guide_tui.answers"] == set()  # its Retrieval and Verdict are for type checking only
    assert graph["guide_tui.errors"] == set()
