"""Set the relevance cutoff from the labelled questions (placeholder until calibration lands)."""

from __future__ import annotations

from pathlib import Path


def calibrate_index(index_dir: Path) -> float | None:
    return None
