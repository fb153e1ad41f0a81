"""The teacher's sentence vectors stored with an index: recorded, checked on load, used by retrieval, optional."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from guide_tui.indexes import TEACHER_VECTORS, IndexLoadError, load_index
from guide_tui.paths import BUNDLED_INDEX
from guide_tui.retrieval import Retriever


def test_the_bundled_index_records_its_teacher_and_stores_a_vector_per_sentence(bundled_index) -> None:
    from guide_tui.teacher import Teacher

    assert bundled_index.manifest["teacher"]["sha256"] == Teacher().sha256
    assert bundled_index.teacher_vectors.shape == (len(bundled_index.units), 384)
    norms = np.linalg.norm(np.asarray(bundled_index.teacher_vectors, dtype=np.float32), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-2)


def test_the_pooled_rows_show_the_teacher_cosine_and_it_is_in_the_fused_score(retriever) -> None:
    retrieval = retriever.retrieve("how many people live in Elder Ness")
    assert all(hit.teacher_similarity is not None for hit in retrieval.hits)  # the top 5 are inside the pool of 20
    best = retrieval.hits[0]
    sims = retriever.teacher_similarities(retrieval.teacher_query, [retriever.index.chunks.index(best.chunk)])
    assert sims[0] == pytest.approx(best.teacher_similarity, abs=1e-6)
    assert retriever.fusion.teacher_pool >= len(retrieval.hits)


def test_a_damaged_teacher_vectors_file_is_a_clear_load_error(tmp_path) -> None:
    copy = tmp_path / "index"
    shutil.copytree(BUNDLED_INDEX, copy, ignore=shutil.ignore_patterns("model", "teacher"), symlinks=True)
    (copy / "model").symlink_to(BUNDLED_INDEX / "model")
    with open(copy / TEACHER_VECTORS, "r+b") as file:
        file.seek(200)
        file.write(b"\x00" * 64)
    with pytest.raises(IndexLoadError, match="teacher_vectors.npy does not match the manifest"):
        load_index(copy, rebuild_if_stale=False)


def test_an_index_built_without_the_teacher_ranks_by_the_static_fusion_alone(tmp_path, bundled_index) -> None:
    from guide_tui.indexes import build_index

    manifest, _ = build_index(bundled_index.folder.parent / "corpus", tmp_path / "plain", embedder=bundled_index.embedder, with_teacher=False)
    assert manifest["teacher"] is None and TEACHER_VECTORS not in manifest["checksums"]
    plain = Retriever(load_index(tmp_path / "plain", embedder=bundled_index.embedder))
    retrieval = plain.retrieve("When does the Kestrelford bakery sell out?")
    assert retrieval.teacher_query is None and all(hit.teacher_similarity is None for hit in retrieval.hits)
    assert retrieval.hits[0].chunk.file in {"guide_kestrelford.md", "guide_eating.md"}
