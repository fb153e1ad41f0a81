"""Shared fixtures: the real bundled index and a retriever over it (loaded once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from guide_tui.indexes import BUNDLED_INDEX, load_index
from guide_tui.retrieval import Retriever

ROOT = Path(__file__).resolve().parent.parent
ORIGINALS = ROOT.parent / "shared" / "corpora" / "city_guides"


@pytest.fixture(scope="session")
def bundled_index():
    return load_index(BUNDLED_INDEX)


@pytest.fixture(scope="session")
def retriever(bundled_index) -> Retriever:
    return Retriever(bundled_index)
