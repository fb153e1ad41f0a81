"""Start-up stays lean: `ask` loads only what answering needs, and the lean static model changes no vector."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from conftest import ROOT

from guide_tui.embedding import BUNDLED_MODEL, Embedder


def test_lean_loader_gives_model2vec_s_own_vectors(bundled_index):
    from model2vec import StaticModel

    texts = [unit.text for unit in bundled_index.units] * 3 + ["When does the Kestrelford bakery sell out?", "", "zzzz qqqq", "x" * 5000]  # > one batch
    reference = StaticModel.from_pretrained(str(BUNDLED_MODEL))
    assert np.array_equal(Embedder(BUNDLED_MODEL).model.encode(texts), reference.encode(texts))


def test_ask_imports_no_model2vec_hub_app_or_ollama_code():
    code = (
        "import sys; from guide_tui.cli import main;"
        "main(['ask', '--generator', 'extractive', 'When does the Kestrelford bakery sell out?']);"
        "print(sorted(m for m in ('huggingface_hub', 'model2vec', 'textual', 'ollama', 'torch') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "11am" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"
