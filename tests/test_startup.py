"""Start-up stays lean: `ask` loads only what answering needs, and the lean static model changes no vector."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import numpy as np
import pytest
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


def test_ask_with_no_ollama_running_falls_back_without_importing_the_ollama_client():
    """Nothing listens at the written-out address: the fallback is said at once, and the client (with pydantic),
    a third of a cold start, is never imported."""
    code = (
        "import sys; from guide_tui.cli import main;"
        "main(['ask', 'When does the Kestrelford bakery sell out?']);"
        "print(sorted(m for m in ('ollama', 'pydantic', 'httpx', 'guide_tui.claims') if m in sys.modules))"
    )
    env = os.environ | {"OLLAMA_HOST": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True, env=env)
    assert "11am" in done.stdout and done.stdout.strip().splitlines()[-1] == "[]"
    assert "Ollama not reachable at http://127.0.0.1:9" in done.stderr


@pytest.mark.parametrize(
    "host, url",
    [(None, "http://127.0.0.1:11434"), ("http://10.1.2.3:8080", "http://10.1.2.3:8080"), ("https://ollama.local:443", "https://ollama.local:443"),
     ("10.1.2.3", None), (":11434", None), ("http://example.com", None), ("example.com:1/path", None)],
)
def test_only_an_address_written_out_in_full_is_probed_without_the_client(host, url):
    """Any other form takes the ollama client's own defaults (port, scheme), which only its parser knows."""
    from guide_tui.ollama_address import written_out

    assert written_out(host) == url


def test_nothing_listens_is_true_only_for_a_refused_connection():
    from guide_tui.ollama_address import nothing_listens

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert not nothing_listens(f"http://127.0.0.1:{server.getsockname()[1]}")
    assert nothing_listens("http://127.0.0.1:9")
    assert not nothing_listens("http://127.0.0.1:99999")  # out of range: left to the client, which says so
