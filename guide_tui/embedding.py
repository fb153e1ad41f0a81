"""The static embedding model: load it from disk (never a hub) and turn text into unit vectors."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from guide_tui.paths import BUNDLED_MODEL, digests_file
from guide_tui.settings import environment, write_whole

MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


class ModelError(Exception):
    """The embedding model folder is missing or unreadable."""


def model_dir() -> Path:
    """The bundled model folder, or GUIDE_TUI_MODEL when set."""
    return environment().embedding_model or BUNDLED_MODEL


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Whole words of the bundled model's vocabulary, not pieces of one ("##s"): an English word list (a prefixed word's
    root, claim_polarity; a word that is no typing slip, spelling)."""
    vocabulary = json.loads((BUNDLED_MODEL / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(word for word in vocabulary if word.isalpha())


def model_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def folder_sha256(folder: Path) -> str:
    """One digest over every file in the model folder, by name and content."""
    digest = hashlib.sha256()
    for path in model_files(folder):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def model_sha256(folder: Path) -> str:
    """folder_sha256, remembered until one of the folder's files changes size or modification time: in the process,
    and between runs in the user's cache (a checkout's files carry checkout times, so an index cannot record them)."""
    return remembered_sha256(folder, tuple((name, *stat) for name, stat in folder_stats(folder).items()))


@lru_cache(maxsize=8)
def remembered_sha256(folder: Path, stats: tuple) -> str:
    key, record = str(Path(folder).resolve()), [list(stat) for stat in stats]
    try:
        remembered = json.loads(digests_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, unreadable or damaged: hash in full
        remembered = {}
    entry = remembered.get(key) if isinstance(remembered, dict) else None
    if isinstance(entry, dict) and entry.get("stats") == record and isinstance(entry.get("sha256"), str):
        return entry["sha256"]
    digest = folder_sha256(folder)
    try:
        remembered = remembered if isinstance(remembered, dict) else {}
        remembered[key] = {"stats": record, "sha256": digest}
        write_whole(digests_file(), json.dumps(remembered))
    except OSError:  # a read-only home: hash again next run, nothing else lost
        pass
    return digest


def folder_stats(folder: Path) -> dict[str, list[int]]:
    """Size and modification time (ns) of every file in a model folder, by its path in the folder."""
    stats = {}
    for path in model_files(folder):
        status = path.stat()
        stats[path.relative_to(folder).as_posix()] = [status.st_size, status.st_mtime_ns]
    return stats


def model_record(folder: Path) -> dict:
    """What an index records of the model folder it was built with: its digest and its files' sizes and
    modification times (taken before the digest is read, so an edit from then on shows as a change)."""
    stats = folder_stats(folder)
    return {"sha256": folder_sha256(folder), "file_stats": stats}


def recorded_sha256(folder: Path, record: dict) -> str:
    """The model folder's digest, trusting an index's record of it when every file still has the size and
    modification time recorded (file_stats): writing a file, even with bytes of the same length, gives it a
    new modification time, so a replaced or re-exported model is read and hashed in full and found. What
    this does not see is a change that keeps both (a disk error, `touch -r`): `guide-tui doctor` hashes in full."""
    if record.get("sha256") and record.get("file_stats") == folder_stats(folder):
        return record["sha256"]
    return model_sha256(folder)


def load_static_model(folder: Path):
    """The static model from its three files: a plain one (one vector per token) as StaticVectors,
    a quantised one (weights, mapping) with model2vec's own loader."""
    from safetensors import safe_open
    from tokenizers import Tokenizer

    with safe_open(str(folder / "model.safetensors"), framework="numpy") as tensors:
        if set(tensors.keys()) != {"embeddings"}:
            from model2vec import StaticModel

            return StaticModel.from_pretrained(str(folder))
        embeddings = tensors.get_tensor("embeddings")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return StaticVectors(embeddings, tokenizer, max_length=config.get("max_length", 512), normalize=config.get("normalize", False))


class StaticVectors:
    """What model2vec's StaticModel.encode computes for a plain model (the mean of the tokens' vectors), without
    importing model2vec: its import (joblib, tqdm) and constructor (a copy of the tokenizer, the vocabulary
    sorted) were a fifth of a cold `guide-tui ask`. tests/test_startup.py checks the vectors are model2vec's own."""

    def __init__(self, embedding: np.ndarray, tokenizer, max_length: int | None, normalize: bool) -> None:
        if len(embedding) != tokenizer.get_vocab_size():
            raise ValueError(f"{len(embedding)} vectors for a vocabulary of {tokenizer.get_vocab_size()} tokens")
        self.embedding = embedding
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.normalize = normalize
        padding = tokenizer.padding
        if padding is not None:  # as model2vec: padding off, its pad token kept
            tokenizer.enable_padding(pad_id=padding["pad_id"], pad_token=padding["pad_token"], pad_type_id=padding["pad_type_id"], length=0)
        if max_length is None:
            tokenizer.no_truncation()
        else:
            tokenizer.enable_truncation(max_length)
        if hasattr(tokenizer.model, "unk_token"):  # WordPiece, BPE, word level
            unknown = tokenizer.model.unk_token
            self.unk_token_id = None if unknown is None else tokenizer.token_to_id(unknown)
        else:  # Unigram
            self.unk_token_id = json.loads(tokenizer.to_str())["model"].get("unk_id")

    @property
    def dim(self) -> int:
        return self.embedding.shape[1]

    @cached_property
    def median_token_length(self) -> int:
        return int(np.median([len(token) for token in self.tokenizer.get_vocab()]))

    def encode(self, sentences: list[str], batch_size: int = 1024) -> np.ndarray:
        if self.max_length is not None:  # cut at max_length tokens' worth of characters; a shorter text needs no median
            sentences = [s if len(s) <= self.max_length else s[: self.max_length * self.median_token_length] for s in sentences]
        return np.concatenate([self.encode_batch(sentences[i : i + batch_size]) for i in range(0, len(sentences), batch_size)], axis=0)

    def encode_batch(self, sentences: list[str]) -> np.ndarray:
        ids = [encoding.ids for encoding in self.tokenizer.encode_batch_fast(sentences, add_special_tokens=False)]
        if self.unk_token_id is not None:
            ids = [[token for token in token_ids if token != self.unk_token_id] for token_ids in ids]
        out = np.zeros((len(ids), self.dim), dtype=np.float32 if self.embedding.dtype == np.int8 else self.embedding.dtype)
        by_length: dict[int, list[int]] = defaultdict(list)
        for i, token_ids in enumerate(ids):
            if token_ids:
                by_length[len(token_ids)].append(i)
        for rows in by_length.values():
            out[rows] = self.embedding[np.array([ids[i] for i in rows], dtype=np.int64)].mean(axis=1)
        if not self.normalize:
            return out
        out32 = out.astype(np.float32)
        return (out32 / (np.linalg.norm(out32, axis=1, keepdims=True) + 1e-32)).astype(out.dtype)


class Embedder:
    """The model2vec static model of a local folder; vectors are float32 and L2-normalised."""

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

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        vectors = np.asarray(self.model.encode(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    @cached_property
    def token_lengths(self) -> np.ndarray:
        """Each token's vector length: distillation shortens the vectors of frequent tokens."""
        return np.linalg.norm(np.asarray(self.model.embedding, dtype=np.float32), axis=1)

    def word_weights(self, words: list[str]) -> np.ndarray:
        """Per word, its longest token vector: short for an everyday word ("time", "come"), long for a telling one
        ("café", "sourdough")."""
        encodings = self.model.tokenizer.encode_batch(words, add_special_tokens=False) if words else []
        return np.array([max((self.token_lengths[i] for i in e.ids), default=0.0) for e in encodings], dtype=np.float32)

    def encode_in_batches(self, texts: list[str], done: Callable[[int], None], batch: int = 4096) -> np.ndarray:
        """encode(texts) a batch at a time (the same vectors), calling done(texts encoded so far) after each."""
        parts = [self.encode([])]
        for start in range(0, len(texts), batch):
            parts.append(self.encode(texts[start : start + batch]))
            done(start + len(parts[-1]))
        return np.concatenate(parts)
