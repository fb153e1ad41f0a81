"""Build and load the prebuilt indexes: usearch vectors, tantivy keywords, chunks, manifest.

An index folder holds
  manifest.json      what it was built from (per-file sha256, model sha256, versions, counts, cutoff)
  chunks.jsonl       one chunk a line, with its sentences (the vector side's units)
  chunk_offsets.npy  where each line of chunks.jsonl starts: chunks are read at their first use, not at load
  vectors.usearch    one cosine vector per sentence; key = sentence number
  keyword/           tantivy index of the chunks (English stemming)
  teacher_vectors.npy  the teacher model's vector of every sentence (float16), for second-stage scoring
  analysis.json, analysis_*.npy  the extractive answerer's per-sentence analysis (analysis.py), memory-mapped
and whatever else was put there (model/ and teacher/, the embedding models). A build writes a whole new folder
and swaps it in (staging.replace_folder), so a killed build leaves the old index or the new one.
Loading checks every file against the manifest and raises IndexLoadError with the command that
fixes the problem, never a library traceback.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from guide_tui.analysis import ANALYSIS_FILES, SentenceAnalysis, analyse, load_analysis, mapped, save_analysis
from guide_tui.chunking import CHUNKER_VERSION, Chunk, chunk_corpus, sentences
from guide_tui.corpus import Corpus, CorpusError, file_stats, hash_files, load_corpus, sha256_file
from guide_tui.embedding import Embedder, ModelError, model_record, recorded_sha256
from guide_tui.paths import BUNDLED_CORPUS, BUNDLED_INDEX, default_index  # noqa: F401 (the bundled folders are imported from here too)
from guide_tui.settings import FusionSettings, environment
from guide_tui.staging import WriteSteps, new_locked_folder, remove_abandoned, replace_folder, restore_interrupted_swap

FORMAT_VERSION = 3  # 2: the sentence analysis (analysis.py) is stored; 3: chunk_offsets and the per-chunk tables, read lazily
MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
CHUNK_OFFSETS = "chunk_offsets.npy"
VECTORS = "vectors.usearch"
KEYWORD_DIR = "keyword"
TEACHER_VECTORS = "teacher_vectors.npy"
KEYWORD_ORDINALS = "keyword_ordinals.npy"
KEYWORD_OPENING_PREFIX = "guide-tui-opening-"  # the short-lived folder in the temp dir the keyword index is opened through
LIBRARIES = ("tantivy", "usearch", "model2vec", "numpy")
TEACHER_DIMS = 384
TEACHER_MASKED_SHARE = 0.5
"""The teacher encodes sentences with their town names masked when that leaves at most this share of them
distinct: a region of many towns alike but for their names costs the encodes of one (the 14 guides: 0.9, kept)."""
# Searches are exact (brute force over the stored vectors), so the HNSW graph only needs to be
# cheap to build: a sparse graph keeps a 5 MB guide's ~150k sentences to seconds, single-threaded.
USEARCH_OPTIONS = {"metric": "cos", "dtype": "f32", "connectivity": 8, "expansion_add": 32}
HASHED_AT_LOAD = 8 * 2**20  # larger memory-mapped files are checked by size at load (their checksum at the build)
BUILD_STEPS = 6  # what build_index's progress calls count to
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


class StoredChunks(Sequence):
    """The chunks of a memory-mapped chunks.jsonl, each parsed at its first use (then kept, so the same
    chunk is the same object): a start costs nothing per chunk."""

    def __init__(self, path: Path, line_starts: np.ndarray) -> None:
        with open(path, "rb") as file:
            self.data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) if line_starts[-1] else b""
        self.line_starts = line_starts
        self.read: dict[int, tuple[Chunk, list[str], int]] = {}

    def __len__(self) -> int:
        return len(self.line_starts) - 1

    def __getitem__(self, n):
        if isinstance(n, slice):
            return [self[i] for i in range(*n.indices(len(self)))]
        return self.row(n)[0]

    def row(self, n: int) -> tuple[Chunk, list[str], int]:
        """Chunk n, its sentences, and how many of them are the opening part's."""
        n = range(len(self))[n]  # IndexError beyond the end, as a list
        if n not in self.read:
            row = json.loads(self.data[int(self.line_starts[n]) : int(self.line_starts[n + 1])])
            texts, opening = row.pop("sentences"), row.pop("opening")
            self.read[n] = (Chunk(**row), texts, opening)
        return self.read[n]


class StoredUnits(Sequence):
    """The units (sentences) of StoredChunks, made at each use from their chunk's line."""

    def __init__(self, chunks: StoredChunks, first_unit: np.ndarray) -> None:
        self.chunks = chunks
        self.first_unit = first_unit

    def __len__(self) -> int:
        return int(self.first_unit[-1])

    def __getitem__(self, n):
        if isinstance(n, slice):
            return [self[i] for i in range(*n.indices(len(self)))]
        n = range(len(self))[n]
        chunk_n = int(np.searchsorted(self.first_unit, n, side="right")) - 1
        chunk, texts, opening = self.chunks.row(chunk_n)
        at = n - int(self.first_unit[chunk_n])
        return Unit(chunk_n, texts[at], chunk.title if at < opening else chunk.context)


@dataclass(eq=False)  # compared and hashed by identity: caches keyed on the loaded index (extractive.analysed)
class LoadedIndex:
    folder: Path
    manifest: dict
    chunks: Sequence[Chunk]  # StoredChunks when loaded, a list when built in memory
    units: Sequence[Unit]
    vectors: object  # usearch.index.Index
    keyword: object  # tantivy.Index
    embedder: Embedder
    analysis: SentenceAnalysis  # stored by the build, memory-mapped (computed when built in memory)
    notes: list[str] = field(default_factory=list)  # things the user should see (stale, rebuilt in memory)
    teacher_vectors: np.ndarray | None = None  # per unit, the teacher's vector (None: built without the teacher)
    ordinals: np.ndarray | None = None  # keyword_ordinals, stored by the build (None: read from the keyword index)

    @property
    def cutoff(self) -> float | None:
        cutoff = self.manifest.get("cutoff")
        return None if cutoff is None else float(cutoff["value"])

    def document_ordinals(self) -> np.ndarray:
        """The keyword index's document -> chunk ordinal map: as the build stored it, else read from the keyword index."""
        return self.ordinals if self.ordinals is not None else keyword_ordinals(self.keyword)

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
        for part, context in ((opening, chunk.title), (section_body, chunk.context)):
            units.extend(Unit(n, sentence, context) for sentence in sentences(part))
    return units


def build_vectors(units: list[Unit], embedder: Embedder, done: Callable[[int], None] = lambda units_done: None):
    """The usearch index of every unit's vector; done(units embedded so far) after each batch."""
    from usearch.index import Index

    index = Index(ndim=embedder.dims, **USEARCH_OPTIONS)
    vectors = embedder.encode_in_batches([u.embedded_text for u in units], done)
    if len(units):
        index.add(np.arange(len(units), dtype=np.uint64), vectors, threads=1)
    return index


def teacher_texts(units: Sequence[Unit], towns: list[str], mask_towns: bool | None = None) -> tuple[list[str], bool]:
    """What the teacher encodes per unit, and whether town names were masked in it: the embedded texts as
    they are, unless masking the town names leaves at most TEACHER_MASKED_SHARE of them distinct (a region
    of towns alike but for their names), or mask_towns says which."""
    from guide_tui.retrieval import TownNames

    texts = [u.embedded_text for u in units]
    names = TownNames(towns)
    masked = [names.masked(text) for text in texts]
    if mask_towns is None:
        mask_towns = len(set(masked)) <= TEACHER_MASKED_SHARE * len(set(texts))
    return (masked if mask_towns else texts), mask_towns


def build_teacher_vectors(texts: list[str], teacher) -> np.ndarray:
    """The teacher's vector of every text (teacher_texts), each distinct text encoded once."""
    distinct = list(dict.fromkeys(texts))
    encoded = teacher.encode(distinct) if distinct else np.zeros((0, TEACHER_DIMS), dtype=np.float32)
    row = {text: n for n, text in enumerate(distinct)}
    return encoded[[row[t] for t in texts]].astype(np.float16).reshape(len(texts), encoded.shape[1])


def load_teacher(wanted: bool, teacher=None):
    """The teacher model to build with: the one given, the bundled one, or None when not wanted."""
    if not wanted:
        return None
    if teacher is not None:
        return teacher
    from guide_tui.teacher import Teacher, TeacherError

    try:
        return Teacher()
    except TeacherError as err:
        raise IndexLoadError(f"{err}; or build without it: guide-tui index --no-teacher") from err


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


def keyword_ordinals(keyword) -> np.ndarray:
    """Per tantivy document: its segment, its address in the segment and its chunk ordinal (rows of three)."""
    import tantivy

    searcher = keyword.searcher()
    everything = searcher.search(tantivy.Query.all_query(), limit=max(searcher.num_docs, 1)).hits
    rows = [(a.segment_ord, a.doc, searcher.doc(a)["ordinal"][0]) for _, a in everything]
    return np.array(rows, dtype=np.int64).reshape(len(rows), 3)


def timestamp() -> str:
    """Now, in UTC; SOURCE_DATE_EPOCH (the reproducible-builds convention) fixes it, so a rebuild can be byte-identical."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(environment().source_date_epoch))


def make_manifest(
    corpus: Corpus, corpus_dir: Path, chunks: list[Chunk], units: list[Unit], embedder: Embedder, cutoff: dict | None, teacher=None,
    teacher_masks_towns: bool = False,
) -> dict:
    from importlib.metadata import version  # a build's only: its import is a tenth of a cold `ask`

    return {
        "format_version": FORMAT_VERSION,
        "chunker_version": CHUNKER_VERSION,
        "built_at": timestamp(),
        "corpus": str(corpus_dir),
        "files": corpus.file_hashes(),
        "problems": [str(p) for p in corpus.problems],
        "model": {"name": "model2vec distilled from all-MiniLM-L6-v2", **model_record(embedder.folder), "dims": embedder.dims},
        "vector_unit": VECTOR_UNIT,
        "teacher": None if teacher is None else {
            "name": "all-MiniLM-L6-v2 (numpy)", **model_record(teacher.folder), "towns": "masked" if teacher_masks_towns else "kept"
        },
        "usearch": USEARCH_OPTIONS,
        "libraries": {name: version(name) for name in LIBRARIES},
        "counts": {"guides": len(corpus.guides), "chunks": len(chunks), "sentences": len(units)},
        "cutoff": cutoff,
        "fusion": FusionSettings().to_json(),  # the retrieval settings the cutoff was calibrated beside
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
    calibrate: Callable[[Path], dict | None] | None = None,
    steps: WriteSteps | None = None,
    with_teacher: bool = True,
    teacher=None,
) -> tuple[dict, Corpus]:
    """Build every index file for a corpus, and the cutoff with calibrate(folder) when given, into a new
    folder that replaces out_dir in one swap: a failed or killed build leaves out_dir as it was.
    with_teacher: also store the teacher model's sentence vectors (second-stage scoring)."""
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    steps = steps or WriteSteps.from_env()
    total = BUILD_STEPS
    progress("reading guides", 0, total)
    stats = file_stats(corpus_dir) if corpus_dir.is_dir() else {}  # before reading: an edit from now on shows as a change
    corpus = load_corpus(corpus_dir)
    chunks = chunk_corpus(corpus)
    units = chunk_units(chunks)
    embedder = embedder or Embedder()
    teacher = load_teacher(with_teacher, teacher)
    if out_dir.exists() and not out_dir.is_dir():
        raise IndexLoadError(f"cannot write the index to {out_dir}: it is a file, not a folder; choose another --out")
    corpus_path = Path(corpus_path_for_manifest(corpus_dir, out_dir))

    def write(staging: Path) -> dict:
        manifest = write_index_files(staging, corpus, corpus_path, chunks, units, embedder, progress, steps, teacher)
        manifest["file_stats"] = {name: stats[name] for name in manifest["files"] if name in stats}
        write_manifest(staging, manifest)
        if calibrate is not None:
            progress("calibrating the cutoff", 4, total)
            manifest["cutoff"] = calibrate(staging)
            write_manifest(staging, manifest)
            steps("cutoff written")
        progress("swapping in", 5, total)
        return manifest

    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        manifest = replace_folder(out_dir, write, verify_checksums, steps)
    except OSError as err:
        raise IndexLoadError(f"cannot write the index to {out_dir}: {err.strerror or err}; choose another --out") from err
    progress("done", total, total)
    return manifest, corpus


def write_index_files(
    folder: Path,
    corpus: Corpus,
    corpus_path: Path,
    chunks: list[Chunk],
    units: list[Unit],
    embedder: Embedder,
    progress: Callable[[str, int, int], None],
    steps: WriteSteps,
    teacher=None,
) -> dict:
    """The index files themselves, written into a fresh folder: vectors, keyword index, chunks, manifest."""
    def chunks_done(step: str) -> Callable[[int], None]:
        """For a step over the units: progress counted in chunks (the units are in chunk order)."""
        return lambda units_done: progress(step, units[units_done - 1].chunk + 1 if units_done else 0, len(chunks))

    progress("embedding sentences", 1, BUILD_STEPS)
    build_vectors(units, embedder, chunks_done("embedding sentences")).save(str(folder / VECTORS))
    steps(f"{VECTORS} written")
    analysis = analyse(chunks, units, embedder, chunks_done("analysing sentences"))
    save_analysis(folder, analysis)
    steps("sentence analysis written")
    masks_towns = False
    if teacher is not None:
        texts, masks_towns = teacher_texts(units, analysis.towns)
        np.save(folder / TEACHER_VECTORS, build_teacher_vectors(texts, teacher), allow_pickle=False)
        steps(f"{TEACHER_VECTORS} written")
    progress("keyword index", 2, BUILD_STEPS)
    (folder / KEYWORD_DIR).mkdir()
    np.save(folder / KEYWORD_ORDINALS, keyword_ordinals(build_keyword(chunks, str(folder / KEYWORD_DIR))), allow_pickle=False)
    steps(f"{KEYWORD_DIR}/ written")
    progress("writing chunks", 3, BUILD_STEPS)
    by_chunk: list[list[Unit]] = [[] for _ in chunks]
    for unit in units:
        by_chunk[unit.chunk].append(unit)
    line_starts = [0]
    with open(folder / CHUNKS, "wb") as out:
        for chunk, its_units in zip(chunks, by_chunk):
            opening = sum(u.context == chunk.title for u in its_units)  # the opening part's sentences come first
            row = chunk.to_json() | {"sentences": [u.text for u in its_units], "opening": opening}
            line_starts.append(line_starts[-1] + out.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")))
    np.save(folder / CHUNK_OFFSETS, np.array(line_starts, dtype=np.int64), allow_pickle=False)
    steps(f"{CHUNKS} written")
    manifest = make_manifest(corpus, corpus_path, chunks, units, embedder, None, teacher, masks_towns)
    stored = [name for name in (VECTORS, TEACHER_VECTORS, CHUNKS, CHUNK_OFFSETS, KEYWORD_ORDINALS, *ANALYSIS_FILES) if (folder / name).exists()]
    manifest["checksums"] = {name: sha256_file(folder / name) for name in stored}
    manifest["sizes"] = {name: (folder / name).stat().st_size for name in stored}
    write_manifest(folder, manifest)
    steps(f"{MANIFEST} written")
    return manifest


def verify_checksums(folder: Path) -> None:
    """Re-read every file the manifest has a checksum for: what is swapped in is what was written."""
    manifest = read_manifest(folder)
    for name, digest in manifest["checksums"].items():
        if sha256_file(folder / name) != digest:
            raise IndexLoadError(f"{folder / name} did not read back as written (a disk error?); the index was left as it was")


def write_manifest(folder: Path, manifest: dict) -> None:
    """Into a folder being staged, never a live index (set_cutoff stages a new folder too)."""
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    restore_interrupted_swap(folder)
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
    return corpus if corpus.is_absolute() else Path(os.path.normpath(folder / corpus))  # "index/../corpus" -> "corpus"


def read_chunks(folder: Path, manifest: dict, analysis: SentenceAnalysis) -> tuple[StoredChunks, StoredUnits]:
    """The chunks and their sentences, memory-mapped: each chunk is parsed when first used. The first and
    last are parsed now, so a file that does not fit its line offsets is found at load."""
    path = check_mapped_file(folder, manifest, CHUNKS)
    if manifest.get("chunker_version") != CHUNKER_VERSION:  # the vectors were made from other sentences
        raise IndexLoadError(f"{path} was split into sentences by another guide-tui version; {rebuild_hint(folder)}")
    offsets = check_mapped_file(folder, manifest, CHUNK_OFFSETS)
    try:
        line_starts = np.load(offsets, allow_pickle=False)
        if line_starts.ndim != 1 or len(line_starts) != analysis.chunk_count + 1 or line_starts[-1] != path.stat().st_size:
            raise ValueError(f"{len(line_starts) - 1} lines for {analysis.chunk_count} chunks")
        chunks = StoredChunks(path, line_starts)
        for end in {0, len(chunks) - 1} if len(chunks) else ():
            chunks.row(end)
    except (ValueError, TypeError, KeyError, OSError) as err:
        raise IndexLoadError(f"{path} is corrupt or does not fit {offsets.name} ({err}); {rebuild_hint(folder)}") from err
    return chunks, StoredUnits(chunks, analysis.first_unit)


def check_mapped_file(folder: Path, manifest: dict, name: str) -> Path:
    """A file about to be memory-mapped, checked against the manifest: its size, and its checksum
    up to HASHED_AT_LOAD bytes (the build verified every checksum before swapping the index in)."""
    path = folder / name
    if not path.is_file():
        raise IndexLoadError(f"{path} is missing; {rebuild_hint(folder)}")
    size = path.stat().st_size
    if size != manifest.get("sizes", {}).get(name) or (size <= HASHED_AT_LOAD and sha256_file(path) != manifest.get("checksums", {}).get(name)):
        raise IndexLoadError(f"{path} does not match the manifest (truncated or replaced); {rebuild_hint(folder)}")
    return path


def read_vectors(folder: Path, manifest: dict, units: list[Unit], dims: int):
    """The sentence vectors, memory-mapped (usearch views the file)."""
    from usearch.index import Index

    path = check_mapped_file(folder, manifest, VECTORS)  # usearch trusts its file header: check before it reads
    index = Index(ndim=dims, **USEARCH_OPTIONS)
    try:
        index.view(str(path))
    except (RuntimeError, ValueError) as err:
        raise IndexLoadError(f"{path} could not be read ({err}); {rebuild_hint(folder)}") from err
    if index.size != len(units):
        raise IndexLoadError(f"{path} holds {index.size} vectors, chunks.jsonl has {len(units)} sentences; {rebuild_hint(folder)}")
    return index


def read_teacher_vectors(folder: Path, manifest: dict, units: list[Unit]) -> np.ndarray | None:
    """The teacher's sentence vectors, when the index was built with them (checked, then memory-mapped)."""
    if not manifest.get("teacher"):
        return None
    path = check_mapped_file(folder, manifest, TEACHER_VECTORS)
    try:
        vectors = mapped(path)
    except (ValueError, OSError) as err:
        raise IndexLoadError(f"{path} could not be read ({err}); {rebuild_hint(folder)}") from err
    if vectors.ndim != 2 or len(vectors) != len(units):
        raise IndexLoadError(f"{path} holds {len(vectors)} vectors, chunks.jsonl has {len(units)} sentences; {rebuild_hint(folder)}")
    return vectors


def read_analysis(folder: Path, manifest: dict) -> SentenceAnalysis:
    """The stored sentence analysis, memory-mapped."""
    sentences = manifest.get("counts", {}).get("sentences")
    for name in ANALYSIS_FILES:
        if not (folder / name).is_file():
            raise IndexLoadError(f"the sentence analysis in {folder} is missing {name}; {rebuild_hint(folder)}")
        check_mapped_file(folder, manifest, name)
    try:
        return load_analysis(folder, sentences)
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise IndexLoadError(f"the sentence analysis in {folder} is missing or unreadable ({err}); {rebuild_hint(folder)}") from err


def read_ordinals(folder: Path, manifest: dict, chunks: int) -> np.ndarray:
    """The keyword index's document -> chunk ordinal map (keyword_ordinals), as the build stored it."""
    path = check_mapped_file(folder, manifest, KEYWORD_ORDINALS)
    try:
        ordinals = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as err:
        raise IndexLoadError(f"{path} could not be read ({err}); {rebuild_hint(folder)}") from err
    if ordinals.shape != (chunks, 3):
        raise IndexLoadError(f"{path} maps {len(ordinals)} documents, not {chunks}; {rebuild_hint(folder)}")
    return ordinals


def read_keyword(folder: Path, chunks: list[Chunk]):
    """The tantivy index, opened without writing into the index folder (it may be read-only)."""
    path = folder / KEYWORD_DIR
    try:
        index = open_keyword_index(path)
        count = index.searcher().num_docs
    except (ValueError, OSError, RuntimeError) as err:
        raise IndexLoadError(f"keyword index {path} could not be opened ({err}); {rebuild_hint(folder)}") from err
    if count != len(chunks):
        raise IndexLoadError(f"keyword index {path} holds {count} chunks, not {len(chunks)}; {rebuild_hint(folder)}")
    return index


def open_keyword_index(path: Path):
    """tantivy creates and locks a lock file in the folder it opens. So it opens a temporary folder of
    symlinks to the index's files (nothing copied), which is deleted as soon as the index is open: the
    files stay mapped, and a process killed later leaves nothing. One left by a process killed while
    opening is removed by the next start (its flock is free). The file links are short ("source/NAME",
    through one link to the folder): a long symlink takes a disk block, slow to free on some disks."""
    import tantivy

    temp = Path(tempfile.gettempdir())
    for leftover in temp.glob(f"{KEYWORD_OPENING_PREFIX}*"):
        remove_abandoned(leftover)
    if not path.is_dir():
        raise OSError(f"{path} is missing")
    opening, lock = new_locked_folder(temp, KEYWORD_OPENING_PREFIX, mode=0o700)
    try:
        os.symlink(os.path.abspath(path), opening / "source")
        for entry in os.scandir(path):
            if not (entry.name.startswith(".tantivy-") and entry.name.endswith(".lock")):
                os.symlink(f"source/{entry.name}", opening / entry.name)
        index = tantivy.Index.open(str(opening))
        index.config_reader("manual")  # the searchers keep what they opened; nothing watches the folder about to go
        return index
    finally:
        shutil.rmtree(opening, ignore_errors=True)
        os.close(lock)


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
    if manifest["model"].get("sha256") != recorded_sha256(embedder.folder, manifest["model"]):
        raise IndexLoadError(
            f"{folder} was built with a different embedding model than {embedder.folder}; {rebuild_hint(folder)}"
        )
    if manifest.get("vector_unit") != VECTOR_UNIT:
        raise IndexLoadError(
            f"{folder} embeds {manifest.get('vector_unit')!r}, this guide-tui embeds {VECTOR_UNIT!r}; {rebuild_hint(folder)}"
        )
    analysis = read_analysis(folder, manifest)
    chunks, units = read_chunks(folder, manifest, analysis)
    vectors = read_vectors(folder, manifest, units, embedder.dims)
    teacher_vectors = read_teacher_vectors(folder, manifest, units)
    keyword = read_keyword(folder, chunks)
    ordinals = read_ordinals(folder, manifest, len(chunks))
    loaded = LoadedIndex(folder, manifest, chunks, units, vectors, keyword, embedder, analysis, teacher_vectors=teacher_vectors, ordinals=ordinals)
    corpus_dir = resolve_corpus(folder, manifest)
    if not corpus_dir.is_dir():
        loaded.notes.append(f"corpus folder {corpus_dir} not found; cannot tell whether the index is current")
        return loaded
    changed = describe_changes(manifest.get("files", {}), hash_files(corpus_dir, manifest.get("files"), manifest.get("file_stats")))
    if changed:
        note = f"stale: the corpus changed since the build ({changed})"
        if not rebuild_if_stale:
            loaded.notes.append(f"{note}; {rebuild_hint(folder, corpus_dir)}")
            return loaded
        try:
            loaded = build_in_memory(corpus_dir, folder, embedder, manifest.get("cutoff"), with_teacher=bool(manifest.get("teacher")))
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


def build_in_memory(
    corpus_dir: Path, folder: Path, embedder: Embedder, cutoff: dict | None = None, with_teacher: bool = True
) -> LoadedIndex:
    """The same index as build_index, held in memory in place of the one in `folder` (its folder and its manifest's
    corpus path are that index's, so whatever finds the guides from an index finds them from this one too)."""
    corpus = load_corpus(corpus_dir)
    chunks = chunk_corpus(corpus)
    units = chunk_units(chunks)
    teacher = load_teacher(with_teacher)
    analysis = analyse(chunks, units, embedder)
    texts, masks_towns = teacher_texts(units, analysis.towns) if teacher is not None else ([], False)
    corpus_path = Path(corpus_path_for_manifest(corpus_dir, folder))
    manifest = make_manifest(corpus, corpus_path, chunks, units, embedder, cutoff, teacher, masks_towns) | {"in_memory": True}
    return LoadedIndex(
        folder, manifest, chunks, units, build_vectors(units, embedder), build_keyword(chunks, None), embedder,
        analysis, teacher_vectors=None if teacher is None else build_teacher_vectors(texts, teacher),
    )


def set_cutoff(folder: Path, cutoff: dict) -> None:
    """Record a calibrated cutoff in the manifest (the only field written after a build), swapped in as a build is."""
    manifest = read_manifest(folder) | {"cutoff": cutoff}
    try:
        replace_folder(folder, lambda staging: write_manifest(staging, manifest), verify_checksums, WriteSteps.from_env())
    except OSError as err:
        raise IndexLoadError(
            f"cannot write {folder / MANIFEST}: {err.strerror or err}; `guide-tui calibrate --dry-run` shows the cutoff without writing it"
        ) from err


def require_cutoff(index: LoadedIndex, folder: Path) -> None:
    """ask, retrieve and the app refuse an index whose gate was never calibrated (unless --no-gate)."""
    if index.cutoff is None:
        raise IndexLoadError(
            f"{folder} has no relevance cutoff (it was never calibrated), so the gate would pass every question; "
            f"calibrate it with: guide-tui calibrate --index {folder} (or pass --no-gate to go without one)"
        )
