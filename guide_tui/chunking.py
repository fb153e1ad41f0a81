"""Split guides the way their authors did: one `##` section, one chunk.

The opening part (title and preamble) joins the first section's chunk; every
chunk repeats its guide's title so it reads on its own. Sentences are split
here too, because the vector side scores a chunk by its best sentence and the
answerer quotes sentences verbatim.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from guide_tui.corpus import Corpus, Guide

CHUNKER_VERSION = 1
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[*]*[A-Z0-9£])")


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    file: str
    title: str
    section: str
    text: str
    start: int  # offsets of the chunk's source span in the guide file
    end: int

    @property
    def context(self) -> str:
        """"Guide title, Section heading": where its section's sentences stand, embedded with each of them."""
        return f"{self.title}, {self.section}"

    @property
    def body(self) -> str:
        """The text after the title line: what the chunk says beyond its name."""
        return self.text.split("\n\n", 1)[1]

    def to_json(self) -> dict:
        return asdict(self)


def chunk_guide(guide: Guide) -> list[Chunk]:
    chunks = []
    for n, section in enumerate(guide.sections):
        opening = f"# {guide.title}\n\n"
        start = section.start
        if n == 0 and guide.preamble:
            opening += f"{guide.preamble}\n\n"
            start = 0
        elif n == 0:
            start = 0
        text = f"{opening}## {section.heading}\n\n{section.body}"
        chunks.append(Chunk(f"{guide.file}#{n}", guide.file, guide.title, section.heading, text, start, section.end))
    return chunks


def chunk_corpus(corpus: Corpus) -> list[Chunk]:
    return [chunk for guide in corpus.guides for chunk in chunk_guide(guide)]


def sentences(text: str) -> list[str]:
    """Prose sentences of a chunk, headings left out, wrapped lines joined with one space."""
    return [sentence for paragraph in paragraphs(text) for sentence in paragraph]


def paragraphs(text: str) -> list[list[str]]:
    """The sentences of each prose paragraph (headings left out): region-wide guides give one town a
    paragraph ("**Marchwood** has ... The city museum is step-free.")."""
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        if paragraph.strip() and not paragraph.lstrip().startswith("#"):
            flat = " ".join(paragraph.split())
            found.append([s.strip() for s in SENTENCE_END.split(flat) if s.strip()])
    return [p for p in found if p]


def chunk_stats(chunks: list[Chunk]) -> str:
    lengths = [len(c.text) for c in chunks]
    return (
        f"chunked {len(chunks)} chunks, {sum(lengths) / len(lengths):.1f} characters on average "
        f"(shortest {min(lengths)}, longest {max(lengths)})"
    )


def check_chunks(chunks: list[Chunk]) -> list[str]:
    """Rule breaks, one line each: title line first, sentence end last, a body, unique ids."""
    failures = []
    seen: set[str] = set()
    for chunk in chunks:
        if not chunk.text.startswith(f"# {chunk.title}\n\n"):
            failures.append(f"{chunk.chunk_id}: does not start with its title line")
        if not re.search(r"[.!?][\"')\]*]*$", chunk.text):
            failures.append(f"{chunk.chunk_id}: does not end at a sentence end")
        if not chunk.text.split(f"## {chunk.section}\n\n", 1)[-1].strip():
            failures.append(f"{chunk.chunk_id}: empty body")
        if chunk.chunk_id in seen:
            failures.append(f"{chunk.chunk_id}: duplicate id")
        seen.add(chunk.chunk_id)
    return failures
