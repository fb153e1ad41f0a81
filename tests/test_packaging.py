"""What a fresh install gets: the runtime needs no torch and never reaches for a model hub."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from guide_tui.embedding import Embedder, ModelError

ROOT = Path(__file__).resolve().parent.parent


def test_runtime_dependencies_are_the_agreed_ones_and_never_torch() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {dep.split(">")[0].split("=")[0].split("<")[0].strip() for dep in project["dependencies"]}
    assert names == {"textual", "rich", "tantivy", "model2vec", "usearch", "ollama", "numpy", "platformdirs"}
    assert "torch==2.13.0" in project["optional-dependencies"]["distill"]


def test_answering_a_question_imports_no_torch() -> None:
    code = (
        "import sys; from guide_tui.cli import main; main(['retrieve', '--json', 'When does the bakery sell out?']);"
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip().splitlines()[-1] == "False False"


def test_missing_model_folder_is_a_clear_error_not_a_download(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="embedding model missing from .*model.safetensors"):
        Embedder(tmp_path / "model")


def test_truncated_model_file_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    bundled = ROOT / "index" / "model"
    for name in ("config.json", "tokenizer.json", "modules.json"):
        (folder / name).write_bytes((bundled / name).read_bytes())
    (folder / "model.safetensors").write_bytes((bundled / "model.safetensors").read_bytes()[:4096])
    with pytest.raises(ModelError, match="could not be loaded"):
        Embedder(folder)
