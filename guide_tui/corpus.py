"""Read a folder of guides into titled sections, reporting malformed files by name.

A guide is a `guide_*.md` file: one `# Title` line first, an optional preamble,
then `## Heading` sections. A file that breaks those rules is reported and
skipped (or, for softer problems, indexed with a warning) so that one bad guide
never stops the rest of the corpus from indexing.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

GUIDE_GLOB = "guide_*.md"
HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)
TITLE = re.compile(r"^# +(.+?)\s*$")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 (but tab and newline), DEL, C1: what a terminal obeys


@dataclass(frozen=True)
class Section:
    heading: str
    body: str
    start: int  # character offset of the `## ` line in the file
    end: int  # character offset just past the body


@dataclass(frozen=True)
class Guide:
    file: str
    title: str
    preamble: str
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    skipped: bool  # True when the file was left out of the corpus

    def __str__(self) -> str:
        verdict = "skipped" if self.skipped else "indexed anyway"
        return f"{self.file}: {self.message} ({verdict})"


@dataclass
class Corpus:
    folder: Path
    guides: list[Guide] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)  # sha256 of every guide file read, skipped ones too

    def file_hashes(self) -> dict[str, str]:
        """sha256 of every guide file read, skipped ones too: what hash_files will see in the folder,
        so a guide skipped at build time does not make the index look stale ever after."""
        return dict(sorted(self.hashes.items()))


class CorpusError(Exception):
    """The folder itself cannot be read as a corpus."""


def guide_text(raw: bytes) -> tuple[str, int]:
    """A guide's bytes as the text that chunk offsets count in, and how many control characters it had.

    UTF-8 without a BOM, every line ending as \\n, control characters replaced by spaces one for one (so
    offsets stay true; quoted to a terminal, they would act). Raises UnicodeDecodeError for other bytes.
    """
    text = raw.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return CONTROL.subn(" ", text)


def parse_guide(file: str, raw: bytes) -> tuple[Guide | None, list[Problem]]:
    """Parse one guide's bytes; None when the file cannot be indexed."""
    try:
        text, controls = guide_text(raw)
    except UnicodeDecodeError as err:
        return None, [Problem(file, f"not UTF-8 text (bad byte at offset {err.start})", True)]
    if not text.strip():
        return None, [Problem(file, "empty file", True)]
    first_line_start = len(text) - len(text.lstrip())
    first_line = text[first_line_start:].split("\n", 1)[0]
    title_match = TITLE.match(first_line)
    if not title_match:
        if re.search(r"^# +\S", text, re.MULTILINE):
            return None, [Problem(file, "text before the '# Title' line; the title must come first", True)]
        return None, [Problem(file, "no '# Title' line (H1) at the top", True)]
    title = title_match.group(1)
    problems: list[Problem] = []
    if controls:
        problems.append(Problem(file, f"{controls} control character{'s' * (controls != 1)} (terminal escapes) replaced by spaces", False))
    headings = list(HEADING.finditer(text))
    if not headings:
        return None, [Problem(file, "no '## ' sections; nothing to chunk", True)]
    preamble = text[first_line_start + len(first_line) : headings[0].start()].strip()
    sections = []
    seen: set[str] = set()
    for i, match in enumerate(headings):
        end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
        heading = match.group(1)
        body = text[match.end() : end].strip()
        if heading in seen:
            problems.append(Problem(file, f"duplicate heading '## {heading}'", False))
        seen.add(heading)
        if not body:
            problems.append(Problem(file, f"heading '## {heading}' has no text; dropped", False))
            continue
        body_end = match.end() + len(text[match.end() : end].rstrip())
        sections.append(Section(heading, body, match.start(), body_end))
    if not sections:
        return None, problems + [Problem(file, "every section is empty; nothing to chunk", True)]
    return Guide(file, title, preamble, tuple(sections)), problems


def load_corpus(folder: Path) -> Corpus:
    """Every guide in the folder that parses, plus a problem line for each that does not."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CorpusError(f"corpus folder {folder} does not exist")
    corpus = Corpus(folder)
    for path in sorted(folder.iterdir()):
        if path.is_dir() or path.name.startswith("."):
            continue
        if not path.match(GUIDE_GLOB):
            corpus.problems.append(Problem(path.name, "not a guide (guides are named guide_*.md)", True))
            continue
        try:
            raw = path.read_bytes()
        except OSError as err:
            corpus.problems.append(Problem(path.name, f"cannot be read: {err.strerror}", True))
            continue
        corpus.hashes[path.name] = hashlib.sha256(raw).hexdigest()
        guide, problems = parse_guide(path.name, raw)
        corpus.problems.extend(problems)
        if guide:
            corpus.guides.append(guide)
    if not corpus.guides:
        raise CorpusError(f"no usable guides (guide_*.md) in {folder}")
    return corpus


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def guide_files(folder: Path) -> list[os.DirEntry]:
    """The guide files (GUIDE_GLOB) of a folder, by name; scandir's entries keep their stat, so a
    region of thousands of guides is listed in one pass."""
    with os.scandir(folder) as entries:
        return sorted((e for e in entries if fnmatch.fnmatchcase(e.name, GUIDE_GLOB) and e.is_file()), key=lambda e: e.name)


def hash_files(folder: Path, known: dict[str, str] | None = None, stats: dict[str, list[int]] | None = None) -> dict[str, str]:
    """sha256 of every guide file in a folder, to tell whether an index is stale. known, stats: the hashes
    and file_stats recorded at a build; a file of the same size and modification time keeps its known hash."""
    known, stats = known or {}, stats or {}
    hashes = {}
    for entry in guide_files(folder):
        same = entry.name in known and stats.get(entry.name) == stat_of(entry)
        hashes[entry.name] = known[entry.name] if same else sha256_file(Path(entry.path))
    return hashes


def stat_of(entry: os.DirEntry) -> list[int]:
    status = entry.stat()
    return [status.st_size, status.st_mtime_ns]


def file_stats(folder: Path) -> dict[str, list[int]]:
    """Size and modification time of every guide file (taken before a build reads them)."""
    return {entry.name: stat_of(entry) for entry in guide_files(folder)}
