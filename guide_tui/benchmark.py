"""Speed, memory and quality numbers behind the README's claims: `python -m guide_tui.benchmark [section...]`.

Each section is a function registered with @section; it prints its numbers and
ratios (never asserts: targets are printed as met/missed, timings never become
unit tests). With no names every section runs in registry order.

Run it from the app's venv (`.venv/bin/python -m guide_tui.benchmark`). The
MiniLM baseline needs torch + sentence-transformers, which are never runtime
dependencies: point GUIDE_TUI_BASELINE_PYTHON at an interpreter that has them, or
run this module with that interpreter (`PYTHONPATH=. /path/to/venv/bin/python -m
guide_tui.benchmark`), and the app's own numbers are then measured in .venv.
"""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
SECTIONS: dict[str, tuple[Callable[[], None], str]] = {}


def section(name: str, about: str):
    """Register a benchmark section under a name (the order of registration is the order of a full run)."""

    def register(func: Callable[[], None]) -> Callable[[], None]:
        SECTIONS[name] = (func, about)
        return func

    return register


def has_runtime_packages() -> bool:
    return all(importlib.util.find_spec(name) for name in ("tantivy", "usearch", "model2vec", "textual"))


def runtime_python() -> str:
    """The interpreter that runs guide-tui: this one when it can, else the project's .venv."""
    if has_runtime_packages():
        return sys.executable
    return str(REPO_ROOT / ".venv" / "bin" / "python")


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (p50 is the median for odd counts)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


# ---------------------------------------------------------------- sections: add yours below as @section functions


# ---------------------------------------------------------------- running


def main(argv: list[str] | None = None) -> int:
    names = list(sys.argv[1:] if argv is None else argv)
    unknown = [name for name in names if name not in SECTIONS]
    if unknown or "-h" in names or "--help" in names:
        for name in unknown:
            print(f"unknown section {name!r}", file=sys.stderr)
        print("usage: python -m guide_tui.benchmark [section ...]\nsections:", file=sys.stderr)
        for name, (_, about) in SECTIONS.items():
            print(f"  {name:<12} {about}", file=sys.stderr)
        return 2 if unknown else 0
    if not has_runtime_packages():
        # run from the baseline's venv: measure the app in its own venv, the baseline in this one
        env = os.environ | {"GUIDE_TUI_BASELINE_PYTHON": sys.executable, "PYTHONPATH": str(REPO_ROOT)}
        return subprocess.call([runtime_python(), "-m", "guide_tui.benchmark", *names], env=env)
    for name in names or list(SECTIONS):
        func, about = SECTIONS[name]
        print(f"\n== {name}: {about}", flush=True)
        func()
    return 0


if __name__ == "__main__":
    sys.exit(main())
