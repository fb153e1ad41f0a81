"""The numpy teacher (all-MiniLM-L6-v2 in index/teacher) gives sentence-transformers' vectors, and says clearly when its folder is broken."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from guide_tui.teacher import BUNDLED_TEACHER, TOKENS_PER_BATCH, WEIGHTS_DIR, Teacher, TeacherError, batches
from guide_tui.teacher_export import read_safetensors

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = json.loads((ROOT / "tests" / "data" / "teacher_reference.json").read_text(encoding="utf-8"))["entries"]


@pytest.fixture(scope="module")
def teacher() -> Teacher:
    return Teacher()


def test_vectors_match_sentence_transformers(teacher: Teacher) -> None:
    texts = [entry["text"] for entry in REFERENCE]
    expected = np.array([entry["vector"] for entry in REFERENCE])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    cosines = (teacher.encode(texts) * expected).sum(axis=1)
    assert cosines.min() >= 0.999, dict(zip(texts, cosines.round(5)))


def test_vectors_are_unit_float32_and_384_wide(teacher: Teacher) -> None:
    vectors = teacher.encode(["Where can I park?", "", "🚲"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert teacher.encode([]).shape == (0, 384)


def test_a_batch_gives_each_text_the_vector_it_gets_alone(teacher: Teacher) -> None:
    texts = [entry["text"] for entry in REFERENCE] + ["short", "a somewhat longer question about ferries and tides"] * 2
    batched = teacher.encode(texts)
    alone = np.vstack([teacher.encode([text]) for text in texts])
    assert np.abs(batched - alone).max() < 1e-5


def test_batches_run_shortest_first_within_the_token_budget() -> None:
    lengths = [12, 256, 3, 256, 40, 7] + [256] * 9
    runs = list(batches(lengths))
    assert runs == [[2, 5, 0, 4, 1, 3, 6, 7], list(range(8, 15))]
    assert all(len(run) * max(lengths[i] for i in run) <= TOKENS_PER_BATCH for run in runs)


def test_text_past_the_length_limit_is_cut_at_256_tokens(teacher: Teacher) -> None:
    words = "harbour " * 600
    assert len(teacher.tokenizer.encode(words).ids) == 256
    assert np.abs(teacher.encode([words]) - teacher.encode([words + " and something else entirely"])).max() == 0


def test_folder_identity_follows_its_files(teacher: Teacher, tmp_path) -> None:
    from guide_tui.embedding import model_files, model_sha256

    copy = tmp_path / "teacher"
    shutil.copytree(BUNDLED_TEACHER, copy)
    assert model_sha256(copy) == teacher.sha256 and len(teacher.sha256) == 64  # same files, same identity
    changed = model_files(copy)[-1]
    changed.write_bytes(changed.read_bytes() + b" ")
    assert model_sha256(copy) != teacher.sha256, "a changed file is a changed teacher (no stale remembered digest)"


def test_encoding_imports_neither_torch_nor_onnxruntime() -> None:
    code = (
        "import sys; from guide_tui.teacher import Teacher; Teacher().encode(['When is low tide?']);"
        "print(any(name in sys.modules for name in ('torch', 'onnxruntime', 'transformers')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TeacherError, match=r"teacher model missing from .*teacher \(config.json, tokenizer.json, weights not found\); restore"):
        Teacher(tmp_path / "teacher")


def damaged_copy(tmp_path: Path, weight: str, content: bytes | None) -> Path:
    """index/teacher with one weight file replaced by `content` (or removed when None); the rest are links."""
    folder = tmp_path / "teacher"
    (folder / WEIGHTS_DIR).mkdir(parents=True)
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(BUNDLED_TEACHER / name, folder / name)
    for path in (BUNDLED_TEACHER / WEIGHTS_DIR).iterdir():
        (folder / WEIGHTS_DIR / path.name).symlink_to(path)
    (folder / WEIGHTS_DIR / weight).unlink()
    if content is not None:
        (folder / WEIGHTS_DIR / weight).write_bytes(content)
    return folder


def test_truncated_weight_file_is_a_clear_error(tmp_path: Path) -> None:
    name = "encoder.layer.3.intermediate.dense.weight.npy"
    folder = damaged_copy(tmp_path, name, (BUNDLED_TEACHER / WEIGHTS_DIR / name).read_bytes()[:5000])
    with pytest.raises(TeacherError, match="teacher model in .* could not be loaded: .*; restore index/teacher"):
        Teacher(folder)


def test_weight_of_the_wrong_shape_or_missing_is_named(tmp_path: Path) -> None:
    import io

    buffer = io.BytesIO()
    np.save(buffer, np.zeros((384, 384), dtype=np.float16))
    folder = damaged_copy(tmp_path, "encoder.layer.0.output.dense.weight.npy", buffer.getvalue())
    with pytest.raises(TeacherError, match=r"output.dense.weight.npy is float16 \(384, 384\), not float16 \(384, 1536\)"):
        Teacher(folder)
    shutil.rmtree(folder)
    with pytest.raises(TeacherError, match="embeddings.LayerNorm.bias.npy not found"):
        Teacher(damaged_copy(tmp_path, "embeddings.LayerNorm.bias.npy", None))


def test_garbage_tokenizer_is_a_clear_error(tmp_path: Path) -> None:
    folder = damaged_copy(tmp_path, "embeddings.LayerNorm.bias.npy", (BUNDLED_TEACHER / WEIGHTS_DIR / "embeddings.LayerNorm.bias.npy").read_bytes())
    (folder / "tokenizer.json").write_text("{not json")
    with pytest.raises(TeacherError, match="could not be loaded"):
        Teacher(folder)


def test_safetensors_reader_reads_the_header_and_rejects_a_short_tensor(tmp_path: Path) -> None:
    values = np.arange(6, dtype="<f4")

    def write(shape: list[int]) -> Path:
        header = json.dumps({"__metadata__": {"format": "pt"}, "x": {"dtype": "F32", "shape": shape, "data_offsets": [0, 24]}}).encode()
        path = tmp_path / "model.safetensors"
        path.write_bytes(struct.pack("<Q", len(header)) + header + values.tobytes())
        return path

    assert np.array_equal(read_safetensors(write([2, 3]))["x"], values.reshape(2, 3))
    with pytest.raises(ValueError, match="tensor x holds 24 bytes"):
        read_safetensors(write([2, 4]))


def tiny_bert_folder(folder: Path) -> Path:
    """A sentence-transformers folder laid out like all-MiniLM-L6-v2's, with a random two-layer, 8-wide BERT."""
    from guide_tui.teacher import TeacherConfig, weight_shapes

    config = TeacherConfig(hidden_size=8, intermediate_size=16, num_layers=2, num_heads=2, layer_norm_eps=1e-12, max_seq_length=256)
    rng = np.random.default_rng(0)
    shapes = weight_shapes(config, vocab_size=30522) | {"embeddings.position_embeddings.weight": (512, 8), "pooler.dense.bias": (8,)}
    tensors = {name: rng.normal(size=shape).astype("<f4") for name, shape in shapes.items()}
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, tensor in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + tensor.nbytes]}
        offset += tensor.nbytes
    encoded = json.dumps(header).encode()
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(t.tobytes() for t in tensors.values()))
    bert = {"hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    (folder / "config.json").write_text(json.dumps(bert))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 256, "do_lower_case": False}))
    pooling = {"word_embedding_dimension": 8, "pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    shutil.copy(BUNDLED_TEACHER / "tokenizer.json", folder / "tokenizer.json")
    return folder


def test_export_is_byte_identical_on_rerun_and_loads(tmp_path: Path) -> None:
    from guide_tui.teacher_export import export

    source = tiny_bert_folder(tmp_path / "source")
    first = export(source, tmp_path / "out", "0.1.0")
    assert export(source, tmp_path / "out", "0.1.0") == first
    assert not (tmp_path / "out.partial").exists() and "pooler.dense.bias.npy" not in {p.name for p in (tmp_path / "out" / WEIGHTS_DIR).iterdir()}
    vectors = Teacher(tmp_path / "out").encode(["a tiny model still gives unit vectors", ""])
    assert vectors.shape == (2, 8) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_export_refuses_a_model_the_numpy_encoder_cannot_run(tmp_path: Path) -> None:
    from guide_tui.teacher_export import export

    source = tiny_bert_folder(tmp_path / "source")
    (source / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    with pytest.raises(ValueError, match="not a mean-pooled BERT"):
        export(source, tmp_path / "out", "0.1.0")
