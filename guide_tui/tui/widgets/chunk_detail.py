"""The chunk pane: one chunk's full text, its best-matching sentence highlighted."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from guide_tui.retrieval import Hit
from guide_tui.tui.text import literal


def sentence_pattern(sentence: str) -> re.Pattern | None:
    """The matched sentence as it sits in the chunk text: its words with any whitespace between."""
    words = sentence.split()
    return re.compile(r"\s+".join(map(re.escape, words))) if words else None


KEEPS_ITS_LINE = re.compile(r"\s*(?:#|[-*+] |\d+[.)] |\|)")  # headings, list items, table rows


def reflowed(text: str) -> str:
    """A guide's hard-wrapped paragraphs as one line each, so the pane wraps them to its own width."""
    lines: list[str] = []
    for line in text.split("\n"):
        joins = lines and lines[-1].strip() and line.strip() and not KEEPS_ITS_LINE.match(line) and not lines[-1].lstrip().startswith("#")
        if joins:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return "\n".join(lines)


def chunk_detail(hit: Hit) -> Content:
    chunk = hit.chunk
    header = Content.assemble(
        literal(f"{chunk.chunk_id}", "bold"),
        literal(f" · {chunk.section} · rank {hit.rank} · best-sentence distance {hit.vector_distance:.4f}\n"),
        ("best-matching sentence highlighted", "italic dim"),
        "\n\n",
    )
    text = reflowed(chunk.text)
    pattern = sentence_pattern(hit.matched_sentence)
    found = pattern.search(text) if pattern else None
    if not found:
        return header + literal(text)
    return header + Content.assemble(
        literal(text[: found.start()]), literal(text[found.start() : found.end()], "bold reverse $accent"), literal(text[found.end() :])
    )


class DetailPane(VerticalScroll):
    """One chunk's full text, without leaving the screen; beside the answer while shown (F6, Enter on a row)."""

    shown = reactive(False)

    def watch_shown(self, shown: bool) -> None:
        self.set_class(shown, "-shown")

    def on_mount(self) -> None:
        self.border_title = "chunk"

    def compose(self) -> ComposeResult:
        yield Static(literal("Select a row in the table to read its chunk.", "italic"), id="detail-text")

    def follow(self, hit: Hit | None) -> None:
        """Show the chunk of the table's selected row, while the pane is shown."""
        if hit is not None and self.shown:
            self.show_hit(hit)

    def show_hit(self, hit: Hit) -> None:
        self.query_one("#detail-text", Static).update(chunk_detail(hit))
        self.scroll_home(animate=False)
