"""The status line: which index, how it embeds and cuts off, who answers and what Ollama is doing."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from guide_tui.answers import Answer
from guide_tui.indexes import LoadedIndex
from guide_tui.retrieval import cutoff_text
from guide_tui.tui.ollama_status import STALL_AFTER, Clock, OllamaState, Stream
from guide_tui.tui.text import literal


def answerer_state(generator: str, ollama: OllamaState) -> str:
    if generator == "extractive":
        return "extractive (--generator extractive; Ollama not used)"
    if not ollama.checked:
        return f"{generator} (checking Ollama…)"
    if ollama.usable:
        return f"Ollama, {ollama.detail}"
    return f"extractive, as the fallback: {ollama.detail}"


class StatusLine(Static):
    """Three lines: which index (and whether it is current), how it embeds and cuts off, who answers;
    one line on a small terminal, who answers and what Ollama is doing first (a cut line keeps that).
    Each of its reactive attributes redraws it when the app sets it."""

    index: reactive[LoadedIndex | None] = reactive(None, always_update=True, init=False)
    ollama: reactive[OllamaState] = reactive(OllamaState(False), init=False)
    stream: reactive[Stream | None] = reactive(None, always_update=True, init=False)  # the answer Ollama may be writing now
    last_outcome: reactive[str] = reactive("", init=False)  # how the last answer went with Ollama: the line's last word
    compact: reactive[bool] = reactive(False, init=False)

    def __init__(self, index_dir: Path, generator: str, built_label: str | None, clock: Clock, stall_after: float = STALL_AFTER, **kwargs):
        super().__init__(**kwargs)
        self.index_dir, self.generator, self.built_label = index_dir, generator, built_label
        self.clock, self.stall_after = clock, stall_after
        self.cutoff: float | None = None  # the cutoff in force (the knobs may have moved it off the index's)

    def on_mount(self) -> None:
        for name in ("index", "ollama", "stream", "last_outcome", "compact"):
            self.watch(self, name, self.redraw, init=False)
        self.redraw()

    def redraw(self) -> None:
        self.update(self.content())

    def tick(self) -> None:
        """Once a second: the stream's wait, rate or stall moves on."""
        if self.stream is not None:
            self.redraw()

    def start_stream(self) -> None:
        self.stream = Stream(self.clock)

    def end_stream(self, outcome: str) -> None:
        self.stream = None
        self.last_outcome = outcome

    def answer_ended(self, answer: Answer) -> None:
        """Who wrote the answer that just came, or why Ollama did not."""
        if self.stream is None:
            return
        if answer.generator.startswith("ollama:"):
            self.end_stream(f"last answer by {answer.generator.removeprefix('ollama:')}")
        elif answer.fallback_reason:
            self.end_stream(f"fell back because {answer.fallback_reason.removesuffix('; answered extractively')}")
        else:
            self.end_stream("")

    def answerer_label(self) -> str:
        """Who is expected to answer: the answer pane says it while the answer is on its way."""
        if self.generator == "extractive" or (self.ollama.checked and not self.ollama.usable):
            return "extractive"
        return f"{self.generator}"

    def answerer_line(self) -> str:
        """Who answers, then what Ollama is doing now or how the last answer went: never "connected" after a fallback."""
        if self.last_outcome.startswith("fell back") and self.stream is None:
            return f"extractive, {self.last_outcome} (Ollama is tried again on the next question)"
        state = answerer_state(self.generator, self.ollama)
        if self.stream is not None:
            return f"{state} · {self.stream.describe(self.clock(), self.stall_after)}"
        return f"{state} · {self.last_outcome}" if self.last_outcome else state

    def cutoff_text(self, index, uncalibrated: str) -> str:
        """The cutoff in force, and the index's calibrated one beside it when a knob has moved it."""
        return cutoff_text(self.cutoff if self.cutoff is not None else index.cutoff, index.cutoff, uncalibrated)

    def content(self) -> Content:
        index = self.index
        if self.compact:
            if index is None:
                where = f"index {self.index_dir.name}/ loading…"
            else:
                where = f"index {self.index_dir.name}/ {'STALE' if index.stale else 'current'} · cutoff {self.cutoff_text(index, 'none')}"
            return literal(f"answerer: {self.answerer_line()} · {where}")
        if index is None:
            lines = [f"index {self.index_dir.name}/: loading…", "embedding: loading…"]
        else:
            manifest = index.manifest
            built = self.built_label or str(manifest.get("built_at", "?")).replace("T", " ").replace("Z", " UTC")
            freshness = "STALE, rebuilt in memory" if index.stale else "current"
            cutoff = self.cutoff_text(index, "not calibrated (no gate)")
            model = manifest.get("model", {})
            lines = [
                f"index {self.index_dir.name}/: guides from {Path(str(manifest.get('corpus', '?'))).name}/ · "
                f"{len(index.chunks)} chunks · built {built} · {freshness}",
                f"embedding: {model.get('name', '?')} ({model.get('dims', '?')} dims) · cutoff {cutoff}",
            ]
        lines.append(f"answerer: {self.answerer_line()}")
        return literal("\n".join(lines))
