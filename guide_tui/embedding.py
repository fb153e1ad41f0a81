"""The static embedding model: load it from disk (never a hub) and turn text into unit vectors."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from guide_tui.paths import BUNDLED_MODEL
from guide_tui.settings import environment

MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


class ModelError(Exception):
    """The embedding model folder is missing or unreadable."""


def model_dir() -> Path:
    """The bundled model folder, or GUIDE_TUI_MODEL when set."""
    return environment().embedding_model or BUNDLED_MODEL


def folder_sha256(folder: Path) -> str:
    """One digest over every file in the model folder, by name and content."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=4)
def model_sha256(folder: Path) -> str:
    return folder_sha256(folder)


def load_static_model(folder: Path):
    """The model2vec StaticModel from its three files, built as StaticModel.from_pretrained builds a
    plain (unquantised) model but without importing model2vec's hub code: that import alone was a
    third of a cold `guide-tui ask` (benchmarks/benchmark.py cold)."""
    import json

    from model2vec import StaticModel
    from safetensors import safe_open
    from tokenizers import Tokenizer

    with safe_open(str(folder / "model.safetensors"), framework="numpy") as tensors:
        if set(tensors.keys()) != {"embeddings"}:  # quantised vocabularies (weights, mapping): model2vec's own loader
            return StaticModel.from_pretrained(str(folder))
        embeddings = tensors.get_tensor("embeddings")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return StaticModel(
        vectors=embeddings, tokenizer=tokenizer, config=config, normalize=config.get("normalize", False), max_length=config.get("max_length", 512)
    )


class Embedder:
    """model2vec StaticModel loaded from a local folder; vectors are float32 and L2-normalised."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder or model_dir())
        missing = [name for name in MODEL_FILES if not (self.folder / name).is_file()]
        if missing:
            raise ModelError(
                f"embedding model missing from {self.folder} ({', '.join(missing)} not found); "
                "restore index/model from git or rebuild it with `python -m guide_tui.distill`"
            )
        try:
            self.model = load_static_model(self.folder)
        except Exception as err:  # a truncated or foreign file: say which folder, not a traceback
            raise ModelError(
                f"embedding model in {self.folder} could not be loaded: {' '.join(str(err).split())}; "
                "restore index/model from git or rebuild it with `python -m guide_tui.distill`"
            ) from err
        self.dims = int(self.model.dim)

    @property
    def sha256(self) -> str:
        return model_sha256(self.folder)

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        vectors = np.asarray(self.model.encode(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def encode_in_batches(self, texts: list[str], done: Callable[[int], None], batch: int = 4096) -> np.ndarray:
        """encode(texts) a batch at a time (the same vectors), calling done(texts encoded so far) after each."""
        parts = [self.encode([])]
        for start in range(0, len(texts), batch):
            parts.append(self.encode(texts[start : start + batch]))
            done(start + len(parts[-1]))
        return np.concatenate(parts)
