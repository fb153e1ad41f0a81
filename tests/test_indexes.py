"""The prebuilt index: it matches corpus/, and every kind of damage gives a clear message with the fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from guide_tui.cli import main
from guide_tui.corpus import hash_files
from guide_tui.embedding import folder_sha256
from guide_tui.indexes import (
    BUNDLED_CORPUS,
    BUNDLED_INDEX,
    CHUNKS,
    FORMAT_VERSION,
    KEYWORD_DIR,
    MANIFEST,
    VECTORS,
    IndexLoadError,
    build_index,
    load_index,
    resolve_corpus,
)
from guide_tui.retrieval import Retriever


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the bundled corpus and index side by side, as in the repo (the model stays bundled)."""
    shutil.copytree(BUNDLED_CORPUS, tmp_path / "corpus")
    shutil.copytree(BUNDLED_INDEX, tmp_path / "index", ignore=shutil.ignore_patterns("model"))
    return tmp_path


def record_edit(folder: Path, name: str) -> None:
    """The manifest made to agree with an edited file (its checksum and size), so only the file's content is wrong."""
    from guide_tui.indexes import sha256_file

    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["checksums"][name] = sha256_file(folder / name)
    manifest["sizes"][name] = (folder / name).stat().st_size
    (folder / MANIFEST).write_text(json.dumps(manifest))


def load(folder: Path, embedder, **kwargs):
    return load_index(folder, embedder=embedder, **kwargs)


def test_committed_index_matches_corpus_and_model(bundled_index) -> None:
    manifest = bundled_index.manifest
    assert manifest["format_version"] == FORMAT_VERSION
    assert manifest["files"] == hash_files(BUNDLED_CORPUS) and len(manifest["files"]) == 14
    assert manifest["model"]["sha256"] == folder_sha256(BUNDLED_INDEX / "model")
    assert manifest["counts"]["chunks"] == len(bundled_index.chunks) == 84
    assert manifest["counts"]["sentences"] == len(bundled_index.units) == bundled_index.vectors.size
    assert set(manifest["libraries"]) == {"tantivy", "usearch", "model2vec", "numpy"}
    assert bundled_index.notes == [] and not bundled_index.stale


def test_index_of_the_originals_loads(tmp_path: Path, bundled_index) -> None:
    from conftest import ORIGINALS

    if not ORIGINALS.is_dir():
        pytest.skip("original guides not beside the repo")
    manifest, _ = build_index(ORIGINALS, tmp_path / "x", embedder=bundled_index.embedder)
    loaded = load(tmp_path / "x", bundled_index.embedder)
    assert manifest["counts"]["chunks"] == len(loaded.chunks) == 84 and loaded.notes == []


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: shutil.rmtree(d), "no index at"),
        (lambda d: (d / MANIFEST).unlink(), "manifest.json is missing"),
        (lambda d: (d / MANIFEST).write_text("{not json"), "manifest.json is unreadable"),
        (lambda d: (d / VECTORS).unlink(), "vectors.usearch is missing"),
        (lambda d: (d / VECTORS).write_bytes((d / VECTORS).read_bytes()[:1000]), "vectors.usearch does not match the manifest"),
        (lambda d: (d / CHUNKS).write_text((d / CHUNKS).read_text()[:500]), "chunks.jsonl does not match the manifest"),
        (lambda d: shutil.rmtree(d / KEYWORD_DIR), "keyword index"),
    ],
    ids=["no-folder", "no-manifest", "bad-manifest", "no-vectors", "truncated-vectors", "truncated-chunks", "no-keyword"],
)
def test_damaged_index_says_what_and_how_to_fix(workspace: Path, bundled_index, damage, message: str) -> None:
    damage(workspace / "index")
    with pytest.raises(IndexLoadError, match=message) as caught:
        load(workspace / "index", bundled_index.embedder)
    assert "guide-tui index --corpus" in str(caught.value)


def edit_manifest(folder: Path, **changes) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest.update(changes)
    (folder / MANIFEST).write_text(json.dumps(manifest))


def test_other_format_version_is_refused(workspace: Path, bundled_index) -> None:
    edit_manifest(workspace / "index", format_version=FORMAT_VERSION + 1)
    with pytest.raises(IndexLoadError, match=f"built in index format {FORMAT_VERSION + 1}"):
        load(workspace / "index", bundled_index.embedder)


def test_other_model_is_refused(workspace: Path, bundled_index) -> None:
    edit_manifest(workspace / "index", model={"name": "something else", "sha256": "0" * 64, "dims": 256})
    with pytest.raises(IndexLoadError, match="different embedding model"):
        load(workspace / "index", bundled_index.embedder)


def test_chunks_edited_to_garbage_is_refused(workspace: Path, bundled_index) -> None:
    folder = workspace / "index"
    (folder / CHUNKS).write_text("garbage\n")
    record_edit(folder, CHUNKS)
    with pytest.raises(IndexLoadError, match="chunks.jsonl is corrupt"):
        load(folder, bundled_index.embedder)


def test_stale_corpus_is_rebuilt_in_memory_and_said(workspace: Path, bundled_index) -> None:
    guide = workspace / "corpus" / "guide_kestrelford.md"
    guide.write_text(guide.read_text().replace("## Getting around", "## Getting around\n\nA zipline crosses the valley at dawn.\n\n## Zip", 1))
    loaded = load(workspace / "index", bundled_index.embedder)
    assert loaded.stale and "changed: guide_kestrelford.md" in loaded.notes[0] and "rebuilt in memory" in loaded.notes[0]
    assert Retriever(loaded).retrieve("Is there a zipline at dawn?").hits[0].chunk.file == "guide_kestrelford.md"
    assert loaded.folder == workspace / "index"  # the index it stands in for, not the corpus folder
    assert resolve_corpus(loaded.folder, loaded.manifest).resolve() == (workspace / "corpus").resolve()
    kept = load(workspace / "index", bundled_index.embedder, rebuild_if_stale=False)
    assert kept.stale and "guide-tui index --corpus" in kept.notes[0]
    assert len(kept.chunks) == 84


def test_cli_reports_a_broken_index_without_traceback(tmp_path: Path, capsys) -> None:
    assert main(["retrieve", "--index", str(tmp_path / "nowhere"), "bakery"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("guide-tui: no index at") and "Traceback" not in err


def test_unwritable_output_is_a_clear_error(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    assert main(["index", "--corpus", str(BUNDLED_CORPUS), "--out", str(blocker / "idx")]) == 2
    assert "cannot write the index" in capsys.readouterr().err


def test_rebuild_keeps_other_files_and_replaces_index_files(workspace: Path, bundled_index) -> None:
    folder = workspace / "index"
    (folder / "notes.txt").write_text("mine")
    build_index(workspace / "corpus", folder, embedder=bundled_index.embedder)
    assert (folder / "notes.txt").read_text() == "mine"
    assert load(folder, bundled_index.embedder).notes == []


def test_a_guide_with_unicode_line_separators_builds_an_index_that_loads(tmp_path: Path, bundled_index) -> None:
    """JSON keeps U+2028/U+2029 raw inside a string; the chunk file is still one record a line."""
    folder = tmp_path / "guides"
    folder.mkdir()
    (folder / "guide_sep.md").write_text("# Sep\n\n## A\n\nThe ferry\u2028leaves at 9am.\u2029It returns at noon.\n", encoding="utf-8")
    build_index(folder, tmp_path / "idx", embedder=bundled_index.embedder)
    loaded = load(tmp_path / "idx", bundled_index.embedder)
    assert len(loaded.chunks) == 1 and "\u2028" in loaded.chunks[0].text


def test_a_start_parses_no_chunk_but_the_first_and_last_and_a_question_only_its_hits(bundled_index) -> None:
    loaded = load(BUNDLED_INDEX, bundled_index.embedder, rebuild_if_stale=False)
    assert sorted(loaded.chunks.read) == [0, len(loaded.chunks) - 1]
    retriever = Retriever(loaded)
    assert sorted(loaded.chunks.read) == [0, len(loaded.chunks) - 1]
    retrieval = retriever.retrieve("When does the Kestrelford bakery sell out?")
    assert set(loaded.chunks.read) == {0, len(loaded.chunks) - 1} | {hit.ordinal for hit in retrieval.hits}
    assert [hit.chunk for hit in retrieval.hits] == [bundled_index.chunks[hit.ordinal] for hit in retrieval.hits]
    assert [u.text for u in loaded.units] == [u.text for u in bundled_index.units] and len(loaded.units) == 386


def test_chunk_offsets_that_do_not_fit_chunks_are_refused(workspace: Path, bundled_index) -> None:
    import numpy as np

    from guide_tui.indexes import CHUNK_OFFSETS

    folder = workspace / "index"
    offsets = np.load(folder / CHUNK_OFFSETS)
    np.save(folder / CHUNK_OFFSETS, offsets[:-1])  # one line short
    record_edit(folder, CHUNK_OFFSETS)
    with pytest.raises(IndexLoadError, match="does not fit chunk_offsets.npy .* rebuild it with"):
        load(folder, bundled_index.embedder)


def test_a_model_file_rewritten_after_the_build_is_found_and_an_unchanged_model_is_not_reread(tmp_path: Path) -> None:
    """A start trusts the manifest's model digest while every model file keeps its recorded size and modification
    time; a file written since (here with bytes of the same length) is hashed again and the index refused."""
    from guide_tui.embedding import Embedder, folder_stats, recorded_sha256
    from guide_tui.indexes import read_manifest

    model = tmp_path / "model"
    shutil.copytree(BUNDLED_INDEX / "model", model)
    build_index(BUNDLED_CORPUS, tmp_path / "index", embedder=Embedder(model), with_teacher=False)
    record = read_manifest(tmp_path / "index")["model"]
    assert record["file_stats"] == folder_stats(model) and "model.safetensors" in record["file_stats"]
    assert load(tmp_path / "index", Embedder(model)).notes == []
    assert recorded_sha256(model, record | {"sha256": "f" * 64}) == "f" * 64  # trusted as recorded: nothing was read

    config = model / "config.json"
    rewritten = config.read_bytes().replace(b"    ", b"\t   ", 1)
    assert len(rewritten) == config.stat().st_size
    config.write_bytes(rewritten)
    assert recorded_sha256(model, record) != record["sha256"]
    with pytest.raises(IndexLoadError, match="different embedding model"):
        load(tmp_path / "index", Embedder(model))


def test_a_model_digest_is_remembered_between_runs_until_a_file_changes(tmp_path: Path) -> None:
    """The bundled index cannot record its model files' times (a checkout sets them): the user's cache remembers
    the digest by size and time instead, so later starts read nothing; a file written since is hashed again."""
    import json

    from guide_tui.embedding import folder_sha256, model_sha256, remembered_sha256
    from guide_tui.paths import digests_file

    model = tmp_path / "model"
    shutil.copytree(BUNDLED_INDEX / "model", model)
    assert model_sha256(model) == folder_sha256(model)
    remembered = json.loads(digests_file().read_text(encoding="utf-8"))
    remembered[str(model.resolve())]["sha256"] = "f" * 64  # what a later run trusts without reading the files
    digests_file().write_text(json.dumps(remembered), encoding="utf-8")
    remembered_sha256.cache_clear()  # a new process
    assert model_sha256(model) == "f" * 64

    config = model / "config.json"
    config.write_bytes(config.read_bytes().replace(b"    ", b"\t   ", 1))  # same length, new modification time
    remembered_sha256.cache_clear()
    assert model_sha256(model) == folder_sha256(model) != "f" * 64
    digests_file().write_text("{not json", encoding="utf-8")  # a damaged cache is read past, then rewritten
    remembered_sha256.cache_clear()
    assert model_sha256(model) == folder_sha256(model)
    assert json.loads(digests_file().read_text(encoding="utf-8"))[str(model.resolve())]["sha256"] == folder_sha256(model)


def test_doctor_reads_the_models_in_full_and_finds_a_change_that_kept_size_and_time(tmp_path: Path) -> None:
    import os

    from guide_tui.doctor import model_problems
    from guide_tui.embedding import Embedder

    model = tmp_path / "model"
    shutil.copytree(BUNDLED_INDEX / "model", model)
    build_index(BUNDLED_CORPUS, tmp_path / "index", embedder=Embedder(model), with_teacher=False)
    assert model_problems(load(tmp_path / "index", Embedder(model))) == []
    config = model / "config.json"
    status = config.stat()
    config.write_bytes(config.read_bytes().replace(b"    ", b"\t   ", 1))
    os.utime(config, ns=(status.st_atime_ns, status.st_mtime_ns))  # as `touch -r` or a disk error would leave it
    loaded = load(tmp_path / "index", Embedder(model))  # a start trusts size and time
    problems = model_problems(loaded)
    assert len(problems) == 1 and f"the embedding model in {model} is not the one the index was built with" in problems[0]
