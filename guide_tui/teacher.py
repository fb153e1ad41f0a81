"""The second-stage sentence encoder: all-MiniLM-L6-v2 run with numpy alone (no torch, no onnxruntime).

It computes what sentence-transformers computes for that model: the 6-layer BERT forward pass, mean
pooling over the real tokens, L2 normalisation. The weights come from index/teacher, written by
`python -m guide_tui.teacher_export`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from guide_tui.embedding import model_sha256
from guide_tui.paths import BUNDLED_TEACHER

WEIGHTS_DIR = "weights"
TYPE_VOCAB_SIZE = 2
TOKENS_PER_BATCH = 2048  # texts run shortest first, as many at a time as keep the padded batch within this many tokens
REBUILD_HINT = "restore index/teacher from git or rebuild it with `python -m guide_tui.teacher_export`"


class TeacherError(Exception):
    """The teacher folder is missing or damaged."""


@dataclass(frozen=True)
class TeacherConfig:
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    layer_norm_eps: float
    max_seq_length: int

    @classmethod
    def from_dict(cls, saved: dict) -> TeacherConfig:
        if saved.get("pooling") != "mean" or saved.get("normalize") is not True:
            raise ValueError("config.json does not describe a mean-pooled, normalised encoder")
        return cls(**{name: saved[name] for name in cls.__dataclass_fields__})


def weight_shapes(config: TeacherConfig, vocab_size: int) -> dict[str, tuple[int, ...]]:
    """Every tensor the forward pass reads, by its name in the original model, with its shape."""
    hidden, inner = config.hidden_size, config.intermediate_size
    shapes = {
        "embeddings.word_embeddings.weight": (vocab_size, hidden),
        "embeddings.position_embeddings.weight": (config.max_seq_length, hidden),
        "embeddings.token_type_embeddings.weight": (TYPE_VOCAB_SIZE, hidden),
        "embeddings.LayerNorm.weight": (hidden,),
        "embeddings.LayerNorm.bias": (hidden,),
    }
    dense = {  # name: (output width, input width)
        "attention.self.query": (hidden, hidden),
        "attention.self.key": (hidden, hidden),
        "attention.self.value": (hidden, hidden),
        "attention.output.dense": (hidden, hidden),
        "intermediate.dense": (inner, hidden),
        "output.dense": (hidden, inner),
    }
    for index in range(config.num_layers):
        prefix = f"encoder.layer.{index}."
        for name, (rows, columns) in dense.items():
            shapes[f"{prefix}{name}.weight"] = (rows, columns)
            shapes[f"{prefix}{name}.bias"] = (rows,)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[f"{prefix}{name}.weight"] = (hidden,)
            shapes[f"{prefix}{name}.bias"] = (hidden,)
    return shapes


@dataclass(frozen=True)
class Layer:
    """One encoder layer in float32, its matrices as the model stores them, (output width, input width): see dense."""

    qkv_weight: np.ndarray  # query, key and value stacked: (3 * hidden, hidden)
    qkv_bias: np.ndarray
    attention_out_weight: np.ndarray
    attention_out_bias: np.ndarray
    attention_norm: tuple[np.ndarray, np.ndarray]
    up_weight: np.ndarray
    up_bias: np.ndarray
    down_weight: np.ndarray
    down_bias: np.ndarray
    output_norm: tuple[np.ndarray, np.ndarray]

    @classmethod
    def from_weights(cls, weights: dict[str, np.ndarray], index: int) -> Layer:
        def get(name: str) -> np.ndarray:
            return np.asarray(weights[f"encoder.layer.{index}.{name}"], dtype=np.float32)

        def parts(kind: str) -> list[np.ndarray]:
            return [get(f"attention.self.{part}.{kind}") for part in ("query", "key", "value")]

        return cls(
            qkv_weight=np.concatenate(parts("weight"), axis=0),
            qkv_bias=np.concatenate(parts("bias")),
            attention_out_weight=get("attention.output.dense.weight"),
            attention_out_bias=get("attention.output.dense.bias"),
            attention_norm=(get("attention.output.LayerNorm.weight"), get("attention.output.LayerNorm.bias")),
            up_weight=get("intermediate.dense.weight"),
            up_bias=get("intermediate.dense.bias"),
            down_weight=get("output.dense.weight"),
            down_bias=get("output.dense.bias"),
            output_norm=(get("output.LayerNorm.weight"), get("output.LayerNorm.bias")),
        )


def dense(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """x (tokens, input) times the (output, input) weight, plus bias, computed as (W xᵀ)ᵀ: for the dozen tokens
    of a question OpenBLAS runs this way round a third faster than x Wᵀ, and the weights need no transposed copy.
    The sum is laid out row by row (C order), as x Wᵀ's would be: numpy's reductions over a row (layer_norm's
    means) add in an order that depends on the layout, and the vectors stay the same to the last bit."""
    return np.add((weight @ x.T).T, bias, order="C")


def layer_norm(x: np.ndarray, norm: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    weight, bias = norm
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = np.square(centred).mean(axis=-1, keepdims=True)
    centred /= np.sqrt(variance + eps)  # in place, step for step the same sums: the vectors stay bit-identical
    centred *= weight
    centred += bias
    return centred


ERF_POLYNOMIAL = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
"""Abramowitz & Stegun 7.1.26's coefficients, highest power first (Horner's rule)."""


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, float32's own resolution); numpy has no erf.
    Worked in place on two arrays: a new array for each step took more time than the arithmetic."""
    magnitude = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * magnitude)
    polynomial = t * ERF_POLYNOMIAL[0]
    for coefficient in ERF_POLYNOMIAL[1:]:
        polynomial += coefficient
        polynomial *= t
    magnitude *= magnitude
    np.exp(np.negative(magnitude, out=magnitude), out=magnitude)
    magnitude *= polynomial
    return np.copysign(np.subtract(1.0, magnitude, out=magnitude), x, out=magnitude)


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact (erf) GELU, not the tanh approximation: 0.5 x (1 + erf(x / sqrt 2)), in place."""
    result = erf(x / math.sqrt(2.0))
    result += 1.0
    result *= x
    result *= 0.5
    return result


def softmax(scores: np.ndarray) -> np.ndarray:
    """Over the last axis, in place."""
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


def self_attention(x: np.ndarray, mask_bias: np.ndarray, layer: Layer, num_heads: int) -> np.ndarray:
    """Multi-head attention over x (batch * tokens, hidden); mask_bias (batch, tokens) is 0 for real tokens, very negative for padding."""
    (batch, tokens), hidden = mask_bias.shape, x.shape[1]
    head_size = hidden // num_heads

    def split_heads(t: np.ndarray) -> np.ndarray:  # contiguous, or numpy's stacked matmul skips BLAS and crawls
        return np.ascontiguousarray(t.reshape(batch, tokens, num_heads, head_size).transpose(0, 2, 1, 3))

    query, key, value = (split_heads(t) for t in np.split(dense(x, layer.qkv_weight, layer.qkv_bias), 3, axis=-1))
    scores = query @ key.transpose(0, 1, 3, 2) / math.sqrt(head_size) + mask_bias[:, None, None, :]
    context = (softmax(scores) @ value).transpose(0, 2, 1, 3).reshape(batch * tokens, hidden)
    return dense(context, layer.attention_out_weight, layer.attention_out_bias)


def feed_forward(x: np.ndarray, layer: Layer) -> np.ndarray:
    return dense(gelu(dense(x, layer.up_weight, layer.up_bias)), layer.down_weight, layer.down_bias)


def encoder_layer(x: np.ndarray, mask_bias: np.ndarray, layer: Layer, config: TeacherConfig) -> np.ndarray:
    """One BERT layer over the hidden states of a whole batch as one (batch * tokens, hidden) matrix: one BLAS call per weight."""
    x = layer_norm(x + self_attention(x, mask_bias, layer, config.num_heads), layer.attention_norm, config.layer_norm_eps)
    return layer_norm(x + feed_forward(x, layer), layer.output_norm, config.layer_norm_eps)


def mean_pool(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per text, the average of its real tokens' vectors (padding left out), as sentence-transformers' Pooling does."""
    counts = np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
    return (x.reshape(*mask.shape, -1) * mask[:, :, None]).sum(axis=1) / counts


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def batches(lengths: list[int]) -> Iterator[list[int]]:
    """Indices of the texts, shortest first, in runs whose padded size stays within TOKENS_PER_BATCH."""
    batch: list[int] = []
    for index in np.argsort(lengths, kind="stable").tolist():
        if batch and (len(batch) + 1) * lengths[index] > TOKENS_PER_BATCH:
            yield batch
            batch = []
        batch.append(index)
    if batch:
        yield batch


def pad(token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids right-padded to the longest in the batch, and the mask that is 1 on real tokens."""
    longest = max(len(ids) for ids in token_ids)
    ids = np.zeros((len(token_ids), longest), dtype=np.int64)
    mask = np.zeros((len(token_ids), longest), dtype=np.float32)
    for row, sequence in enumerate(token_ids):
        ids[row, : len(sequence)] = sequence
        mask[row, : len(sequence)] = 1.0
    return ids, mask


class Teacher:
    """all-MiniLM-L6-v2 from a local folder; vectors are float32, L2-normalised, 384 wide.

    Opening the folder reads the config and tokenizer and maps the float16 weights; the float32
    copies the layers compute with are made on the first encode.
    """

    def __init__(self, folder: Path | None = None) -> None:
        from tokenizers import Tokenizer

        self.folder = Path(folder or BUNDLED_TEACHER)
        missing = [name for name in ("config.json", "tokenizer.json", WEIGHTS_DIR) if not (self.folder / name).exists()]
        if missing:
            raise TeacherError(f"teacher model missing from {self.folder} ({', '.join(missing)} not found); {REBUILD_HINT}")
        try:
            self.config = TeacherConfig.from_dict(json.loads((self.folder / "config.json").read_text(encoding="utf-8")))
            self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            self.tokenizer.no_padding()
            self.tokenizer.enable_truncation(self.config.max_seq_length)
            self.weights = self._map_weights()
        except Exception as err:  # a truncated, foreign or mis-shaped file: say which folder, not a traceback
            raise TeacherError(f"teacher model in {self.folder} could not be loaded: {' '.join(str(err).split())}; {REBUILD_HINT}") from err
        self.dims = self.config.hidden_size

    def _map_weights(self) -> dict[str, np.ndarray]:
        weights = {}
        for name, shape in weight_shapes(self.config, self.tokenizer.get_vocab_size()).items():
            path = self.folder / WEIGHTS_DIR / f"{name}.npy"
            if not path.is_file():
                raise ValueError(f"{WEIGHTS_DIR}/{path.name} not found")
            weight = np.load(path, mmap_mode="r", allow_pickle=False)
            if weight.shape != shape or weight.dtype != np.float16:
                raise ValueError(f"{WEIGHTS_DIR}/{path.name} is {weight.dtype} {weight.shape}, not float16 {shape}")
            weights[name] = weight
        return weights

    @property
    def sha256(self) -> str:
        return model_sha256(self.folder)

    @cached_property
    def layers(self) -> list[Layer]:
        return [Layer.from_weights(self.weights, index) for index in range(self.config.num_layers)]

    @cached_property
    def embedding_parts(self) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Position vectors (with token type 0 added, the only type a single sentence has) and the embedding norm."""
        positions = np.asarray(self.weights["embeddings.position_embeddings.weight"], dtype=np.float32)
        token_type = np.asarray(self.weights["embeddings.token_type_embeddings.weight"][0], dtype=np.float32)
        norm = tuple(np.asarray(self.weights[f"embeddings.LayerNorm.{part}"], dtype=np.float32) for part in ("weight", "bias"))
        return positions + token_type, norm

    def embed(self, ids: np.ndarray) -> np.ndarray:
        """The input vectors of a padded batch of token ids, as one (batch * tokens, hidden) matrix."""
        positions, norm = self.embedding_parts
        words = self.weights["embeddings.word_embeddings.weight"][ids].astype(np.float32)
        return layer_norm(words + positions[: ids.shape[1]], norm, self.config.layer_norm_eps).reshape(-1, self.dims)

    def encode_padded(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        x = self.embed(ids)
        mask_bias = (1.0 - mask) * np.finfo(np.float32).min
        for layer in self.layers:
            x = encoder_layer(x, mask_bias, layer, self.config)
        return l2_normalise(mean_pool(x, mask))

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        token_ids = [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]
        vectors = np.empty((len(texts), self.dims), dtype=np.float32)
        for batch in batches([len(ids) for ids in token_ids]):
            vectors[batch] = self.encode_padded(*pad([token_ids[i] for i in batch]))
        return vectors
