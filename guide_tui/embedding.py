"""The static embedding model: load it from disk (never a hub) and turn text into unit vectors."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from guide_tui.distill import folder_sha256

BUNDLED_MODEL = Path(__file__).resolve().parent.parent / "index" / "model"
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


class ModelError(Exception):
    """The embedding model folder is missing or unreadable."""


def model_dir() -> Path:
    """The bundled model folder, or GUIDE_TUI_MODEL when set."""
    return Path(os.environ.get("GUIDE_TUI_MODEL", BUNDLED_MODEL))


@lru_cache(maxsize=4)
def model_sha256(folder: Path) -> str:
    return folder_sha256(folder)


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
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from model2vec import StaticModel

        try:
            self.model = StaticModel.from_pretrained(str(self.folder))
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
