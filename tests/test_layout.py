"""What lives where: the runtime package holds no benchmark, and the tests use none."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_top_level(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_benchmarks_live_outside_the_package_and_tests_import_none():
    assert not list((ROOT / "guide_tui").rglob("benchmark*.py"))
    benchmark_modules = {path.stem for path in (ROOT / "benchmarks").glob("*.py")}
    for test in (ROOT / "tests").glob("*.py"):
        assert not imported_top_level(test) & (benchmark_modules | {"benchmarks"}), test.name
