"""Build and load the prebuilt indexes: usearch vectors, tantivy keywords, chunks, manifest.

An index folder holds
  manifest.json      what it was built from (per-file sha256, model sha256, versions, counts, cutoff)
  chunks.jsonl       one chunk a line, with its sentences (the vector side's units)
  vectors.usearch    one cosine vector per sentence; key = sentence number
  keyword/           tantivy index of the chunks (English stemming)
Loading checks every one of them against the manifest and raises IndexLoadError
with the command that fixes the problem, never a library traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Callable

import numpy as np

from guide_tui.chunking import CHUNKER_VERSION, Chunk, chunk_corpus, sentences
from guide_tui.corpus import Corpus, CorpusError, hash_files, load_corpus, sha256_file
from guide_tui.embedding import Embedder, ModelError
from guide_tui.paths import BUNDLED_CORPUS, BUNDLED_INDEX, default_index  # noqa: F401 (the bundled folders are imported from here too)

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
VECTORS = "vectors.usearch"
KEYWORD_DIR = "keyword"
LIBRARIES = ("tantivy", "usearch", "model2vec", "numpy")
# Searches are exact (brute force over the stored vectors), so the HNSW graph only needs to be
# cheap to build: a sparse graph keeps a 5 MB guide's ~150k sentences to seconds, single-threaded.
USEARCH_OPTIONS = {"metric": "cos", "dtype": "f32", "connectivity": 8, "expansion_add": 32}
VECTOR_UNIT = "sentence, embedded as 'title, section: sentence'"  # change it when Unit.embedded_text changes


MANIFEST_FIELDS = {  # what the loader reads from a manifest, and the shape it needs; a hand edit must not be a traceback
    "corpus": lambda value: isinstance(value, str),
    "files": lambda value: isinstance(value, dict),
    "model": lambda value: isinstance(value, dict),
    "vector_unit": lambda value: isinstance(value, str),
    "checksums": lambda value: isinstance(value, dict),
    "cutoff": lambda value: value is None or (isinstance(value, dict) and isinstance(value.get("value"), (int, float))),
}


class IndexLoadError(Exception):
    """The index cannot be used as it is; the message says why and what to run."""


def rebuild_hint(index_dir: Path, corpus_dir: Path | str | None = None) -> str:
    corpus = corpus_dir or "CORPUS_DIR"
    return f"rebuild it with: guide-tui index --corpus {corpus} --out {index_dir}"


@dataclass
class Unit:
    """One vector: a sentence of a chunk, embedded together with where it stands in its guide."""

    chunk: int
    text: str  # the sentence as written: what the retriever shows and the answerer quotes
    context: str  # "Guide title, Section heading" ("Guide title" for the opening part)

    @property
    def embedded_text(self) -> str:
        """What the vector encodes. The title and heading let "how long is the drive to Corry Vale?"
        meet "Corry Vale, Getting there: ...35 minutes..." although the sentence alone names neither;
        measured on the tune questions: rank-1 0.49 with bare sentences, 0.68 with this context."""
        return f"{self.context}: {self.text}"


@dataclass(eq=False)  # compared and hashed by identity: caches keyed on the loaded index (extractive.analysed)
class LoadedIndex:
    folder: Path
    manifest: dict
    chunks: list[Chunk]
    units: list[Unit]
    vectors: object  # usearch.index.Index
    keyword: object  # tantivy.Index
    embedder: Embedder
    notes: list[str] = field(default_factory=list)  # things the user should see (stale, rebuilt in memory)
    keyword_copy: tempfile.TemporaryDirectory | None = None  # where `keyword` was opened from; lives as long as it

    @property
    def cutoff(self) -> float | None:
        cutoff = self.manifest.get("cutoff")
        return None if cutoff is None else float(cutoff["value"])

    @property
    def stale(self) -> bool:
        return any(note.startswith("stale") for note in self.notes)


def keyword_schema():
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("ordinal", stored=True, indexed=True)
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("file", stored=True, tokenizer_name="raw")
    builder.add_text_field("title", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("section", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("text", stored=True, tokenizer_name="en_stem")
    return builder.build()


def chunk_units(chunks: list[Chunk]) -> list[Unit]:
    """Every sentence of every chunk, in order; the opening part's sentences carry no section heading."""
    units = []
    for n, chunk in enumerate(chunks):
        opening, _, section_body = chunk.text.partition(f"\n## {chunk.section}\n")
        for part, context in ((opening, chunk.title), (section_body, f"{chunk.title}, {chunk.section}")):
            units.extend(Unit(n, sentence, context) for sentence in sentences(part))
    return units


def build_vectors(units: list[Unit], embedder: Embedder):
    from usearch.index import Index

    index = Index(ndim=embedder.dims, **USEARCH_OPTIONS)
    vectors = embedder.encode([u.embedded_text for u in units])
    if len(units):
        index.add(np.arange(len(units), dtype=np.uint64), vectors, threads=1)
    return index


def build_keyword(chunks: list[Chunk], path: str | None):
    import tantivy

    index = tantivy.Index(keyword_schema(), path=path)
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for n, chunk in enumerate(chunks):
        doc = tantivy.Document()
        doc.add_unsigned("ordinal", n)
        for name in ("chunk_id", "file", "title", "section", "text"):
            doc.add_text(name, getattr(chunk, name))
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def make_manifest(corpus: Corpus, corpus_dir: Path, chunks: list[Chunk], units: list[Unit], embedder: Embedder, cutoff: dict | None) -> dict:
    return {
        "format_version": FORMAT_VERSION,
        "chunker_version": CHUNKER_VERSION,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "corpus": str(corpus_dir),
        "files": corpus.file_hashes(),
        "problems": [str(p) for p in corpus.problems],
        "model": {"name": "model2vec distilled from all-MiniLM-L6-v2", "sha256": embedder.sha256, "dims": embedder.dims},
        "vector_unit": VECTOR_UNIT,
        "usearch": USEARCH_OPTIONS,
        "libraries": {name: version(name) for name in LIBRARIES},
        "counts": {"guides": len(corpus.guides), "chunks": len(chunks), "sentences": len(units)},
        "cutoff": cutoff,
    }


def corpus_path_for_manifest(corpus_dir: Path, out_dir: Path) -> str:
    """Relative to the index folder when possible, so a cloned repo's index still finds its corpus."""
    try:
        return os.path.relpath(corpus_dir.resolve(), out_dir.resolve())
    except ValueError:
        return str(corpus_dir.resolve())


def build_index(
    corpus_dir: Path,
    out_dir: Path,
    embedder: Embedder | None = None,
    progress: Callable[[str, int, int], None] = lambda step, done, total: None,
    cutoff: dict | None = None,
) -> tuple[dict, Corpus]:
    """Build every index file for a corpus into out_dir (written beside, then swapped in)."""
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    steps = 5
    progress("reading guides", 0, steps)
    corpus = load_corpus(corpus_dir)
    chunks = chunk_corpus(corpus)
    units = chunk_units(chunks)
    embedder = embedder or Embedder()
    if out_dir.exists() and not out_dir.is_dir():
        raise IndexLoadError(f"cannot write the index to {out_dir}: it is a file, not a folder; choose another --out")
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=out_dir.parent))
    except OSError as err:
        raise IndexLoadError(f"cannot write the index to {out_dir}: {err.strerror}; choose another --out") from err
    try:
        progress("embedding sentences", 1, steps)
        vectors = build_vectors(units, embedder)
        vectors.save(str(staging / VECTORS))
        progress("keyword index", 2, steps)
        (staging / KEYWORD_DIR).mkdir()
        build_keyword(chunks, str(staging / KEYWORD_DIR))
        progress("writing chunks", 3, steps)
        by_chunk: list[list[str]] = [[] for _ in chunks]
        for unit in units:
            by_chunk[unit.chunk].append(unit.text)
        with open(staging / CHUNKS, "w", encoding="utf-8") as out:
            for chunk, texts in zip(chunks, by_chunk):
                out.write(json.dumps(chunk.to_json() | {"sentences": texts}, ensure_ascii=False) + "\n")
        manifest = make_manifest(corpus, Path(corpus_path_for_manifest(corpus_dir, out_dir)), chunks, units, embedder, cutoff)
        manifest["checksums"] = {VECTORS: sha256_file(staging / VECTORS), CHUNKS: sha256_file(staging / CHUNKS)}
        write_manifest(staging, manifest)
        progress("swapping in", 4, steps)
        swap_in(staging, out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    progress("done", steps, steps)
    return manifest, corpus


def swap_in(staging: Path, out_dir: Path) -> None:
    """Replace the index files in out_dir with the staged ones, leaving anything else (the model) alone."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (VECTORS, CHUNKS, KEYWORD_DIR, MANIFEST):
        target = out_dir / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        shutil.move(str(staging / name), str(target))


def write_manifest(folder: Path, manifest: dict) -> None:
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(folder / MANIFEST)


def read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    if not folder.is_dir():
        raise IndexLoadError(f"no index at {folder}; {rebuild_hint(folder)}")
    if not path.is_file():
        raise IndexLoadError(f"{path} is missing, so {folder} is not a usable index; {rebuild_hint(folder)}")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise IndexLoadError(f"{path} is unreadable ({err}); {rebuild_hint(folder)}") from err
    if not isinstance(manifest, dict) or manifest.get("format_version") != FORMAT_VERSION:
        found = manifest.get("format_version") if isinstance(manifest, dict) else None
        raise IndexLoadError(
            f"{folder} was built in index format {found!r}, this guide-tui reads format {FORMAT_VERSION}; {rebuild_hint(folder)}"
        )
    for name, wanted in MANIFEST_FIELDS.items():
        if not wanted(manifest.get(name)):
            raise IndexLoadError(f"{path}: the {name!r} field is not what guide-tui writes (edited by hand?); {rebuild_hint(folder)}")
    return manifest


def resolve_corpus(folder: Path, manifest: dict) -> Path:
    corpus = Path(manifest.get("corpus", ""))
    return corpus if corpus.is_absolute() else (folder / corpus)


def read_chunks(folder: Path, manifest: dict) -> tuple[list[Chunk], list[Unit]]:
    path = folder / CHUNKS
    if not path.is_file():
        raise IndexLoadError(f"{path} is missing; {rebuild_hint(folder)}")
    raw = path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != manifest.get("checksums", {}).get(CHUNKS):
        raise IndexLoadError(f"{path} does not match the manifest (edited or truncated); {rebuild_hint(folder)}")
    chunks, stored_sentences = [], []
    try:
        # one JSON record a "\n"-ended line; splitlines() would also cut at U+2028/U+2029 inside a guide's text
        for line in raw.decode("utf-8").split("\n")[:-1]:
            row = json.loads(line)
            stored_sentences.extend(row.pop("sentences"))
            chunks.append(Chunk(**row))
    except (ValueError, TypeError, KeyError) as err:
        raise IndexLoadError(f"{path} is corrupt ({err}); {rebuild_hint(folder)}") from err
    units = chunk_units(chunks)
    if [u.text for u in units] != stored_sentences:  # the vectors were made from other sentences
        raise IndexLoadError(f"{path} was split into sentences by another guide-tui version; {rebuild_hint(folder)}")
    return chunks, units


def read_vectors(folder: Path, manifest: dict, units: list[Unit], dims: int):
    from usearch.index import Index

    path = folder / VECTORS
    if not path.is_file():
        raise IndexLoadError(f"{path} is missing; {rebuild_hint(folder)}")
    raw = path.read_bytes()
    # usearch trusts its file header; a truncated file must be caught before it is read
    if hashlib.sha256(raw).hexdigest() != manifest.get("checksums", {}).get(VECTORS):
        raise IndexLoadError(f"{path} does not match the manifest (truncated or replaced); {rebuild_hint(folder)}")
    index = Index(ndim=dims, **USEARCH_OPTIONS)
    try:
        index.load(raw)  # from the bytes just checked (usearch copies them): the file is read once
    except (RuntimeError, ValueError) as err:
        raise IndexLoadError(f"{path} could not be read ({err}); {rebuild_hint(folder)}") from err
    if index.size != len(units):
        raise IndexLoadError(f"{path} holds {index.size} vectors, chunks.jsonl has {len(units)} sentences; {rebuild_hint(folder)}")
    return index


def read_keyword(folder: Path, chunks: list[Chunk]) -> tuple[object, tempfile.TemporaryDirectory]:
    """The tantivy index, opened from a private copy: tantivy creates and locks a lock file in the
    folder it opens, so opening it in place writes into the index folder, and fails when that
    folder is read-only (an installed or mounted index, another user's files)."""
    import tantivy

    path = folder / KEYWORD_DIR
    copy = tempfile.TemporaryDirectory(prefix="guide-tui-keyword-")
    try:
        index = tantivy.Index.open(str(shutil.copytree(path, Path(copy.name) / KEYWORD_DIR)))
        count = index.searcher().num_docs
    except (ValueError, OSError, RuntimeError) as err:
        copy.cleanup()
        raise IndexLoadError(f"keyword index {path} could not be opened ({err}); {rebuild_hint(folder)}") from err
    if count != len(chunks):
        copy.cleanup()
        raise IndexLoadError(f"keyword index {path} holds {count} chunks, not {len(chunks)}; {rebuild_hint(folder)}")
    return index, copy


def load_index(folder: Path | None = None, embedder: Embedder | None = None, rebuild_if_stale: bool = True) -> LoadedIndex:
    """Open an index, checking it against its manifest, its model and its corpus.

    A corpus that changed since the build is rebuilt in memory (it takes well under
    a second for the guides) and said so in `notes`, unless rebuild_if_stale is off.
    """
    folder = Path(folder or default_index())
    manifest = read_manifest(folder)
    try:
        embedder = embedder or Embedder()
    except ModelError as err:
        raise IndexLoadError(str(err)) from err
    if manifest.get("model", {}).get("sha256") != embedder.sha256:
        raise IndexLoadError(
            f"{folder} was built with a different embedding model than {embedder.folder}; {rebuild_hint(folder)}"
        )
    if manifest.get("vector_unit") != VECTOR_UNIT:
        raise IndexLoadError(
            f"{folder} embeds {manifest.get('vector_unit')!r}, this guide-tui embeds {VECTOR_UNIT!r}; {rebuild_hint(folder)}"
        )
    chunks, units = read_chunks(folder, manifest)
    vectors = read_vectors(folder, manifest, units, embedder.dims)
    keyword, keyword_copy = read_keyword(folder, chunks)
    loaded = LoadedIndex(folder, manifest, chunks, units, vectors, keyword, embedder, keyword_copy=keyword_copy)
    corpus_dir = resolve_corpus(folder, manifest)
    if not corpus_dir.is_dir():
        loaded.notes.append(f"corpus folder {corpus_dir} not found; cannot tell whether the index is current")
        return loaded
    changed = describe_changes(manifest.get("files", {}), hash_files(corpus_dir))
    if changed:
        note = f"stale: the corpus changed since the build ({changed})"
        if not rebuild_if_stale:
            loaded.notes.append(f"{note}; {rebuild_hint(folder, corpus_dir)}")
            return loaded
        try:
            loaded = build_in_memory(corpus_dir, embedder, manifest.get("cutoff"))
        except CorpusError as err:
            raise IndexLoadError(f"{note}, and the corpus cannot be read: {err}; fix or restore the guides in {corpus_dir}") from err
        loaded.notes.append(f"{note}; rebuilt in memory for this session ({rebuild_hint(folder, corpus_dir)} to save it)")
        loaded.notes.extend(loaded.manifest["problems"])  # each guide the rebuild skipped or doubted, by name
    return loaded


def check_built_from(folder: Path, corpus_dir: Path) -> None:
    """For --corpus: the index in `folder` must have been built from the guides now in corpus_dir.

    Its own corpus folder, edited since, only makes it stale (load_index rebuilds it in memory);
    any other folder must hold exactly the guides it was built from.
    """
    folder, corpus_dir = Path(folder), Path(corpus_dir)
    manifest = read_manifest(folder)
    own = resolve_corpus(folder, manifest)
    if not corpus_dir.is_dir():
        raise IndexLoadError(f"corpus folder {corpus_dir} does not exist; name the folder the index was built from ({own})")
    if own.is_dir() and own.resolve() == corpus_dir.resolve():
        return
    changed = describe_changes(manifest.get("files", {}), hash_files(corpus_dir))
    if changed:
        raise IndexLoadError(
            f"index {folder} was built from a different corpus than {corpus_dir} ({changed}); {rebuild_hint(folder, corpus_dir)}"
        )


def describe_changes(built: dict[str, str], now: dict[str, str]) -> str:
    parts = []
    for label, names in (
        ("changed", [n for n in built if n in now and now[n] != built[n]]),
        ("removed", [n for n in built if n not in now]),
        ("added", [n for n in now if n not in built]),
    ):
        if names:
            parts.append(f"{label}: {', '.join(sorted(names))}")
    return "; ".join(parts)


def build_in_memory(corpus_dir: Path, embedder: Embedder, cutoff: dict | None = None) -> LoadedIndex:
    """The same index as build_index, held in memory: for stale or read-only situations."""
    corpus = load_corpus(corpus_dir)
    chunks = chunk_corpus(corpus)
    units = chunk_units(chunks)
    manifest = make_manifest(corpus, corpus_dir, chunks, units, embedder, cutoff) | {"in_memory": True}
    return LoadedIndex(corpus_dir, manifest, chunks, units, build_vectors(units, embedder), build_keyword(chunks, None), embedder)


def set_cutoff(folder: Path, cutoff: dict) -> None:
    """Record a calibrated cutoff in the manifest (the only field written after a build)."""
    manifest = read_manifest(folder)
    manifest["cutoff"] = cutoff
    try:
        write_manifest(folder, manifest)
    except OSError as err:
        raise IndexLoadError(
            f"cannot write {folder / MANIFEST}: {err.strerror}; `guide-tui calibrate --dry-run` shows the cutoff without writing it"
        ) from err
