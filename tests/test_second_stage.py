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
    (teacher,) = [part for part in best.parts if part.name == "teacher"]
    assert teacher.weight == retriever.fusion.teacher_weight > 0 and teacher.scaled > 0  # it counts in the fused score
    assert best.fused_score == pytest.approx(sum(part.value for part in best.parts))


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


def test_a_region_of_towns_alike_but_for_their_names_is_encoded_with_the_names_masked(tmp_path, bundled_index) -> None:
    """Three renamed copies of the guides: masking the town names leaves a third of the texts distinct, so the
    teacher encodes one copy's worth; the fourteen guides themselves keep their names (every text distinct)."""
    import subprocess
    import sys

    from guide_tui.chunking import chunk_corpus
    from guide_tui.corpus import load_corpus
    from guide_tui.indexes import BUNDLED_CORPUS, chunk_units, teacher_texts
    from guide_tui.retrieval import TownNames, place_guides

    texts, masked = teacher_texts(bundled_index.units, bundled_index.analysis.towns)
    assert not masked and texts == [u.embedded_text for u in bundled_index.units]
    maker = BUNDLED_CORPUS.parent / "benchmarks" / "make_region.py"  # run, not imported: tests import no benchmark
    subprocess.run([sys.executable, str(maker), str(BUNDLED_CORPUS), "3", str(tmp_path / "region")], check=True, capture_output=True)
    chunks = chunk_corpus(load_corpus(tmp_path / "region"))
    units = chunk_units(chunks)
    texts, masked = teacher_texts(units, TownNames(place_guides(chunks).values()).names)
    assert masked and len(set(texts)) * 3 <= len(texts) * 1.01
    assert not any("Kestrelford" in text for text in texts)


def test_questions_are_masked_as_the_index_sentences_were(bundled_index) -> None:
    import dataclasses

    teacher = dict(bundled_index.manifest["teacher"], towns="masked")
    masked = Retriever(dataclasses.replace(bundled_index, manifest=dict(bundled_index.manifest, teacher=teacher)))
    question = "When does the Kestrelford bakery sell out?"
    assert np.allclose(masked.teacher_encode([question]), masked.teacher.encode(["When does the   bakery sell out?"]))
    assert not np.allclose(Retriever(bundled_index).teacher_encode([question]), masked.teacher_encode([question]))


def test_the_teacher_folder_is_trusted_while_its_files_keep_their_recorded_sizes_and_times(bundled_index) -> None:
    """A start does not re-read the teacher's 45 MB when its files look as recorded at the build; when one does
    not (written since), the folder is hashed and a digest other than the index's turns the second stage off."""
    import dataclasses

    from guide_tui.embedding import folder_stats
    from guide_tui.paths import BUNDLED_TEACHER

    def retriever_recording(sha256: str, file_stats: dict) -> Retriever:
        teacher = dict(bundled_index.manifest["teacher"], sha256=sha256, file_stats=file_stats)
        return Retriever(dataclasses.replace(bundled_index, manifest=dict(bundled_index.manifest, teacher=teacher), notes=[]))

    stats = folder_stats(BUNDLED_TEACHER)
    assert retriever_recording("0" * 64, stats).teacher is not None  # a wrong digest, trusted: the files were not read
    size, mtime = stats["config.json"]
    written_since = retriever_recording("0" * 64, stats | {"config.json": [size, mtime - 1]})
    assert written_since.teacher is None and "not the one this index was built with" in written_since.index.notes[0]
    real = bundled_index.manifest["teacher"]["sha256"]
    assert retriever_recording(real, stats | {"config.json": [size, mtime - 1]}).teacher is not None
