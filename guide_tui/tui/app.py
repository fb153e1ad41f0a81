"""The Textual app: ask, watch the top-5 chunks and the cutoff arrive, then the answer and its sources.

Widgets only show things. Blocking work (loading the index, answering, probing
Ollama) runs in daemon threads awaited by Textual workers, so a slow or dead
Ollama never freezes the screen, delays the first paint or holds up quitting.
Retrieval itself takes about a millisecond and runs on the spot, so the table is
filled before the answer starts.
Every piece of text from a guide, a question or a model is shown literally
(Content / rich Text, never markup) after `printable` has removed control codes.
"""

from __future__ import annotations

import asyncio
import re
import select
import sys
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable

from rich.text import Text
from textual import command, events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from guide_tui.answerability import shipped_model
from guide_tui.answering import answer_question
from guide_tui.answers import REFUSAL, Answer
from guide_tui.indexes import IndexLoadError, LoadedIndex, check_built_from, load_index, rebuild_hint, require_cutoff
from guide_tui.paths import default_index
from guide_tui.questions import Question, load_questions
from guide_tui.report import cutoff_row_at, no_hits_message, teacher_cell
from guide_tui.retrieval import MAX_QUESTION_CHARS, Hit, Retrieval, Retriever, clean_question, printable
from guide_tui.settings import EXIT_AFTER, SettingsFile, environment

EXIT_AFTER_ENV = EXIT_AFTER.name  # "paint" or "ready": exit once there, for the start-up benchmark
QUESTION_SHOWN_CHARS = 300  # a huge question is shown shortened in the answer panel


def literal(text: str, style: str = "") -> Content:
    return Content.styled(printable(text), style)


# ---------------------------------------------------------------- background work


async def in_daemon_thread(func, *args):
    """Run blocking work in a daemon thread and await its result.

    Not Textual's thread workers: those run in the loop's executor, which the
    interpreter joins at exit, so quitting would wait for an Ollama read that may
    block for a minute. A daemon thread is simply dropped when the app ends.
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(outcome: str, value) -> None:
        if not future.done():  # the worker was cancelled (a newer question, or quitting)
            getattr(future, outcome)(value)

    def run() -> None:
        try:
            outcome = ("set_result", func(*args))
        except Exception as err:
            outcome = ("set_exception", err)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the app has ended and its loop is closed: nobody is waiting
            pass

    threading.Thread(target=run, name=f"guide-tui {getattr(func, '__name__', 'work')}", daemon=True).start()
    return await future


# ---------------------------------------------------------------- adapters to the answerers


def answer_with(
    retriever: Retriever, retrieval: Retrieval, generator: str, model: str | None, on_text, stop: threading.Event
) -> Answer:
    """The one call into answering (kept here so the widgets never see an answerer), with the
    retrieval already on screen, so the question is not retrieved a second time."""
    return answer_question(
        retriever, retrieval.question, generator=generator, model=model, on_text=on_text, retrieval=retrieval, stop=stop
    )


WARM_UP_QUESTION = "When does the Kestrelford bakery sell out?"


def warm_up(retriever: Retriever) -> None:
    """One retrieval and one extractive answer while the index loads, so the first real question
    does not pay the one-time costs (caches, first calls into the libraries) between Enter and the table."""
    try:
        answer_question(retriever, WARM_UP_QUESTION, generator="extractive")
    except Exception:  # noqa: BLE001 - a real question meets the same fault and says so on screen
        pass


STALL_AFTER = 3.0  # seconds without a token before the status line says the stream has stalled


@dataclass(frozen=True)
class OllamaState:
    """What the status line says about Ollama."""

    checked: bool
    usable: bool = False
    detail: str = ""


Clock = Callable[[], float]  # seconds, as time.monotonic: the status line's waits and rates are read from it


@dataclass
class Stream:
    """The answer streaming now: what the status line counts (pieces are Ollama's tokens, near enough)."""

    clock: Clock = time.monotonic
    started: float = field(init=False)
    pieces: int = 0
    first: float | None = None  # when the first piece came
    last: float | None = None  # when the latest piece came

    def __post_init__(self) -> None:
        self.started = self.clock()

    def add_piece(self) -> None:
        self.last = self.clock()
        self.first = self.first or self.last
        self.pieces += 1

    def describe(self, now: float, stall_after: float) -> str:
        """"waiting for the first token (n s)", "streaming n tok/s" or "stalled for n s"."""
        if self.last is None:
            return f"waiting for the first token ({now - self.started:.0f} s; a model's first load can take minutes)"
        if now - self.last >= stall_after:
            return f"stalled for {now - self.last:.0f} s (Esc stops)"
        rate = (self.pieces - 1) / (self.last - self.first) if self.last > self.first else 0.0
        return f"streaming {rate:.1f} tok/s (Esc stops)"


def probe_ollama(generator: str, model: str | None) -> OllamaState:
    if generator == "extractive":
        return OllamaState(True, False, "not used")
    from guide_tui.ollama_answerer import probe, resolve_model

    status = probe(model=model)
    if status.reachable and status.model_available:
        return connected(resolve_model(model))
    return OllamaState(True, False, status.detail)


def connected(model: str) -> OllamaState:
    return OllamaState(True, True, f"connected, model {model}")


@dataclass(frozen=True)
class ModelChoice:
    """One entry of the model picker: a model Ollama has, or (model None) why there is none to pick."""

    title: str
    help: str
    model: str | None = None


def model_choices(generator: str, model: str | None) -> list[ModelChoice]:
    """Ollama's models (its /api/tags) for the palette, the one in use marked; a single entry saying why when there are none."""
    if generator == "extractive":
        return [ModelChoice("Model: none to pick (--generator extractive does not use Ollama)", "Start without --generator extractive to use Ollama")]
    from guide_tui.errors import OllamaUnavailable
    from guide_tui.ollama_answerer import model_names, resolve_model

    try:
        names = model_names()
    except OllamaUnavailable as err:
        return [ModelChoice(f"Model: none to pick ({err.reason})", "Start Ollama (ollama serve), then open the palette again")]
    if not names:
        return [ModelChoice("Model: none to pick (Ollama has no models)", "Pull one first: ollama pull llama3.2")]
    in_use = resolve_model(model)
    return [
        ModelChoice(f"Model: {name}{' (in use)' if name in (in_use, f'{in_use}:latest') else ''}", f"Answer with {name} from now on (remembered)", name)
        for name in names
    ]


# ---------------------------------------------------------------- eval stepping


@dataclass(frozen=True)
class EvalOutcome:
    """How one labelled question came back: hit or miss at a glance."""

    question: Question
    expected_rank: int | None  # rank of the best-ranked expected chunk in the top 5
    ranked_chunk: str | None  # that chunk (the one the rank is of), None when no expected chunk came back
    phrase_found: bool
    refused: bool

    @property
    def rank1(self) -> bool:
        return self.expected_rank == 1

    @property
    def refusal_correct(self) -> bool:
        return self.refused != self.question.in_corpus


def judge(question: Question, answer: Answer) -> EvalOutcome:
    """The same hit rules as `guide-tui eval`: any expected chunk at rank 1, the phrase in an answer that is not a refusal."""
    from guide_tui.evaluation import expected_rank, phrase_in_answer

    chunk_ids = [hit.chunk.chunk_id for hit in answer.retrieval.hits]
    rank = expected_rank(question, chunk_ids)
    ranked = None if rank is None else chunk_ids[rank - 1]
    return EvalOutcome(question, rank, ranked, phrase_in_answer(question, answer), answer.refused)


@dataclass
class EvalSession:
    questions: list[Question]
    position: int = -1  # -1: not started
    outcomes: dict[str, EvalOutcome] = field(default_factory=dict)  # by question id; a re-run replaces

    @property
    def current(self) -> Question | None:
        return self.questions[self.position] if 0 <= self.position < len(self.questions) else None

    def tally(self) -> str:
        answerable = [o for o in self.outcomes.values() if o.question.in_corpus]
        unanswerable = [o for o in self.outcomes.values() if not o.question.in_corpus]
        return (
            f"eval {self.position + 1}/{len(self.questions)} · rank-1 hits {sum(o.rank1 for o in answerable)}/{len(answerable)}"
            f" · phrase hits {sum(o.phrase_found for o in answerable)}/{len(answerable)}"
            f" · refusals correct {sum(o.refusal_correct for o in unanswerable)}/{len(unanswerable)}"
        )


# ---------------------------------------------------------------- widgets


ESCAPE_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""A terminal escape: CSI (colours, cursor moves), OSC (titles, links) or a two-byte one."""


def pasted_text(text: str) -> str:
    """A paste as one line of the question: escape sequences dropped where they stand, line breaks and
    other control codes become spaces."""
    return printable(ESCAPE_SEQUENCE.sub("", text).replace("\r\n", "\n")).replace("\n", " ")


class QuestionInput(Input):
    """The question field. A terminal pastes text as it is, so a pasted escape sequence or control
    code would sit in the field and be drawn raw to the terminal: each becomes a space here, and a
    paste of several lines is kept whole (Textual's Input keeps only the first line)."""

    def validate_value(self, value: str) -> str:
        return printable(value).replace("\n", " ")

    def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        if text := pasted_text(event.text):
            if self.selection.is_empty:
                self.insert_text_at_cursor(text)
            else:
                self.replace(text, *self.selection)


class HitsTable(DataTable):
    """The top-5 chunks with every number behind their order; the cutoff is a row where the distances cross it."""

    # Fixed widths (a header measured from its rows can be left drawn at the old widths); the numbers'
    # columns never shrink, the source column takes what the terminal has left.
    NUMBERS = (("best-sentence\ndistance", 13), ("keyword\nBM25", 8), ("teacher\ncosine", 7), ("fused", 6))
    RANK_WIDTH = 3
    MIN_SOURCE_WIDTH = 20

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", header_height=2, **kwargs)
        self.hits: dict[str, Hit] = {}
        self.source_width = 0
        self.shown: tuple[Retrieval, tuple[str, ...]] | None = None

    def on_resize(self) -> None:
        columns = 2 + len(self.NUMBERS)
        fixed = self.RANK_WIDTH + sum(width for _, width in self.NUMBERS) + 2 * self.cell_padding * columns
        width = max(self.MIN_SOURCE_WIDTH, self.scrollable_content_region.width - fixed)
        if width != self.source_width:
            self.source_width = width
            self.clear(columns=True)
            for label, width in (("#", self.RANK_WIDTH), ("source: file § section", width), *self.NUMBERS):
                self.add_column(Text(label), width=width, key=label)
            if self.shown:
                self.show(*self.shown)

    def show(self, retrieval: Retrieval, expected: tuple[str, ...] = ()) -> None:
        """Rows in fused order; as in `guide-tui retrieve`, the cutoff row goes where the distances cross it
        for good, and every chunk beyond the cutoff is dimmed and marked ✗ (the fused order may put a
        closer chunk below a farther one)."""
        self.clear()
        self.hits = {}
        self.shown = (retrieval, expected)
        hits = retrieval.hits
        cutoff = retrieval.gate.cutoff
        crossing = cutoff_row_at(hits)
        for n, hit in enumerate(hits):
            if n == crossing:  # a hit beyond the cutoff means there is a cutoff
                self.add_cutoff_row(cutoff)
            self.add_hit_row(hit, expected)
        if crossing is None and cutoff is not None and hits:  # unlike the CLI, the app shows the cutoff below an all-within top 5
            self.add_cutoff_row(cutoff)

    BEYOND_CUTOFF = "italic grey62"  # not "dim": in 256 colours that drew grey 237 on grey 234; italic survives NO_COLOR

    def add_cutoff_row(self, cutoff: float) -> None:
        style = "bold red"
        label = Text(f"── cutoff {cutoff:.4f} ──", style=style)
        self.add_row(Text(""), label, Text(f"> {cutoff:.4f} ✗", style=style), Text(""), Text(""), Text(""), key="cutoff")

    def add_hit_row(self, hit: Hit, expected: tuple[str, ...]) -> None:
        style = self.BEYOND_CUTOFF if hit.above_cutoff else ""
        rank = Text(str(hit.rank), style=style)
        if hit.chunk.chunk_id in expected:
            rank.append(" ◆", style="bold green")
        key = f"hit-{hit.rank}"
        self.hits[key] = hit
        self.add_row(
            rank,
            Text(printable(f"{hit.chunk.chunk_id} § {hit.chunk.section}"), style=style),
            Text(f"{hit.vector_distance:.4f}{' ✗' if hit.above_cutoff else ''}", style=style),
            Text(f"{hit.keyword_score:.3f}", style=style),
            Text(teacher_cell(hit), style=style),
            Text(f"{hit.fused_score:.4f}", style=style),
            key=key,
        )

    def hit_at_cursor(self) -> Hit | None:
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return self.hits.get(row_key.value)


class AnswerPanel(VerticalScroll):
    """The question, the answer as it streams, then its sources (or the refusal and why)."""

    def compose(self) -> ComposeResult:
        yield Static(id="answer-text")

    def on_mount(self) -> None:
        self.streamed = ""
        self.heading = Content("")
        self.show(literal("Ask a question about the guides, or press F4 to step through the labelled questions.", "italic"))

    def show(self, content: Content) -> None:
        self.query_one("#answer-text", Static).update(content)

    def begin(self, question: str, answerer: str) -> None:
        shown = question if len(question) <= QUESTION_SHOWN_CHARS else question[:QUESTION_SHOWN_CHARS] + "…"
        self.heading = Content.assemble(("Question: ", "bold"), literal(shown, "bold"), "\n\n")
        self.streamed = ""
        self.show(self.heading + literal(f"Answering ({answerer})…", "italic"))

    def add_text(self, piece: str) -> None:
        self.streamed += printable(piece)  # printable works character by character: cleaning each piece is cleaning the whole
        self.show(self.heading + Content(self.streamed))
        self.scroll_end(animate=False)

    def stopped(self) -> None:
        self.show(self.heading + Content(self.streamed) + Content.assemble(
            "\n\n", ("■ stopped (Esc): the text above is unfinished and was not checked against the guides", "bold $text-warning"),
        ))  # fmt: skip

    def finish(self, answer: Answer) -> None:
        self.show(self.heading + answer_content(answer))
        self.scroll_home(animate=False)  # the whole answer reads from its question down


def answer_content(answer: Answer) -> Content:
    """A refusal with its reason, or the answer (unsupported sentences flagged), its sources and who wrote it."""
    if answer.refused:
        parts: list = [("REFUSED", "bold reverse $error"), " ", literal(refusal_reason(answer)), "\n\n", literal(REFUSAL, "bold")]
        parts += ["\n\n", ("No sources.", "italic")]
    else:
        parts = [marked_answer(answer.text, answer.unsupported), "\n"]
        if answer.unsupported:
            count = len(answer.unsupported)
            parts += ["\n", (f"⚠ {count} sentence{'s' * (count != 1)} not supported by the retrieved guides (marked)", "bold $error"), "\n"]
            parts += flag_reasons(answer)
        if answer.invented_citations:
            cited = ", ".join(answer.invented_citations)
            parts += ["\n" if not answer.unsupported else "", literal(f"⚠ cites {cited}, which the model was not shown", "bold $error"), "\n"]
        parts += ["\n", ("Sources", "bold underline"), "\n"]
        for citation in answer.citations:
            parts += ["• ", literal(f"{citation.file} § {citation.section}", "bold"), "\n  ", literal(f"“{citation.quote}”", "italic"), "\n"]
        if not answer.citations:
            parts += [("none", "italic"), "\n"]
        parts += ["\n", literal(f"answered by {answer.generator}", "dim")]
        if answer.check_note:
            parts += ["\n", literal(f"claim check: {answer.check_note}", "$text-warning")]
    if answer.fallback_reason:
        parts += ["\n", literal(f"fallback: {answer.fallback_reason}", "$text-warning")]
    for line in verdict_lines(answer):
        parts += ["\n", literal(line, "dim")]
    return Content.assemble(*parts)


def verdict_lines(answer: Answer) -> list[str]:
    """The answerability model's word on each part: its probability against the threshold, and the
    features that pushed it most, so a refusal can be read like a ranking."""
    model = shipped_model()
    lines = []
    for verdict in answer.verdicts:
        if not verdict.features:
            continue
        pushes = sorted(model.contributions(verdict.features).items(), key=lambda item: -abs(item[1]))[:3]
        why = ", ".join(f"{name} {verdict.features[name]:.2f} ({push:+.2f})" for name, push in pushes)
        label = f"“{verdict.part}”: " if len(answer.verdicts) > 1 else ""
        lines.append(f"answerability {label}p={verdict.probability:.2f} (answers at ≥ {model.threshold:.2f}); most weight: {why}")
    return lines


def refusal_reason(answer: Answer) -> str:
    gate = answer.retrieval.gate
    reasons = {
        "gate": "gate: no chunk shares a word or a meaning with the question"
        if not answer.retrieval.hits
        else f"gate: the best-sentence distance {gate.best_distance:.4f} is over the cutoff "
        + ("(none)" if gate.cutoff is None else f"{gate.cutoff:.4f}"),
        "answerability": "answerability: the retrieved chunks are close, but none of them answers this question"
        + (f" ({answer.refusal_detail})" if answer.refusal_detail else ""),
        "model": "model refused: the model found no answer in the retrieved chunks",
        "empty question": "empty question: nothing to search for",
    }
    return reasons.get(answer.refusal_reason or "", answer.refusal_reason or "refused")


def flag_reasons(answer: Answer) -> list:
    """Under the warning, each flagged sentence with why, and the guide sentence it was compared with."""
    parts: list = []
    for flag in answer.flags:
        parts += ["  • ", literal(f"“{shortened(flag.sentence)}”", "italic"), literal(f": {flag.reason}"), "\n"]
        if flag.source:
            parts += ["    ", literal(f"{flag.source.file} § {flag.source.section}: ", "dim"), literal(f"“{flag.source.quote}”", "dim italic"), "\n"]
    return parts


def shortened(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def marked_answer(text: str, unsupported: list[str]) -> Content:
    """The answer with each sentence the claim check could not support flagged and underlined."""
    spans = []
    for sentence in unsupported:
        start = text.find(sentence)
        if start < 0:  # "... 8:30. [guide_x.md]" is checked as "... 8:30 [guide_x.md].": mark its words
            sentence = sentence.split(" [")[0].split(" (")[0].rstrip(".!?")
            start = text.find(sentence)
        if start >= 0 and sentence:
            spans.append((start, start + len(sentence)))
    parts, position = [], 0
    for start, end in sorted(spans):
        if start < position:
            continue
        parts += [literal(text[position:start]), ("⚠ ", "bold $error"), literal(text[start:end], "underline $error")]
        position = end
    parts.append(literal(text[position:]))
    return Content.assemble(*parts)


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
    """One chunk's full text, without leaving the screen."""

    def compose(self) -> ComposeResult:
        yield Static(literal("Select a row in the table to read its chunk.", "italic"), id="detail-text")

    def show_hit(self, hit: Hit) -> None:
        self.query_one("#detail-text", Static).update(chunk_detail(hit))
        self.scroll_home(animate=False)


def eval_content(session: EvalSession, outcome: EvalOutcome | None, labelled: bool = True) -> Content:
    """The running tally, then this question's expected chunk and phrase beside what came back.
    labelled=False: the question asked is the user's own, which is not scored."""
    question = session.current
    if question is None:
        return Content("")
    if not labelled:
        return Content.assemble(
            (session.tally(), "bold"), "\n", literal("your own question: not scored (F4 / F3 / F2 step through the labelled ones)", "italic")
        )
    head = literal(question.id if question.in_corpus else f"{question.id} ({question.kind.replace('_', ' ')})", "bold")
    if outcome is None:
        verdict = literal("running…", "italic")
    elif question.in_corpus:
        expected = len(question.expected_chunks)
        if outcome.ranked_chunk is None:
            found = Content.assemble(literal(question.expected_chunks[0] + (f" (+{expected - 1})" if expected > 1 else ""), "bold"), " → not in the top 5 ")
        else:
            of = f" ({expected} expected)" if expected > 1 else ""
            found = Content.assemble(literal(outcome.ranked_chunk, "bold"), f"{of} → rank {outcome.expected_rank} ")
        verdict = Content.assemble(
            "expected chunk ◆ ", found, mark(outcome.rank1), " · phrase ", literal(f"“{question.expected_phrase}”", "bold"),
            " in the answer " if outcome.phrase_found else " not in the answer ", mark(outcome.phrase_found),
        )  # fmt: skip
    else:
        verdict = Content.assemble("expected a refusal → ", "refused " if outcome.refused else "answered ", mark(outcome.refusal_correct))
    return Content.assemble((session.tally(), "bold"), "  │  ", head, "\n", verdict)


def mark(ok: bool) -> Content:
    return Content.styled("✓ hit", "bold $success") if ok else Content.styled("✗ miss", "bold $error")


# ---------------------------------------------------------------- screens


class IndexErrorScreen(Screen):
    """The index cannot be used: say why and what fixes it; the app stays up."""

    BINDINGS = [Binding("q", "app.quit", "Quit")]

    def __init__(self, error: IndexLoadError, index_dir: Path) -> None:
        super().__init__()
        self.error = error
        self.index_dir = index_dir

    def compose(self) -> ComposeResult:
        message = str(self.error)  # "<problem>; <fix>": the fix comes last, and the problem may hold "; " itself
        problem, _, fix = message.rpartition("; ") if "; " in message else (message, "", "")
        body = Content.assemble(
            ("The index cannot be opened", "bold $error"), "\n\n", literal(problem), "\n\n",
            ("How to fix it", "bold"), "\n", literal(fix or "rebuild the index: guide-tui index --out DIR"), "\n\n",
            literal("Or open the bundled index: guide-tui (no --index). Press q to quit.", "italic"),
        )  # fmt: skip
        yield Static(body, id="error-text")
        yield Footer()


class ListedCommands(command.Provider):
    """A fixed list of palette entries, each (title, what it runs, help), shown whole and matched by title."""

    def entries(self) -> list[tuple[str, Callable, str]]:
        raise NotImplementedError

    async def discover(self) -> command.Hits:
        for title, run, help in self.entries():
            yield command.DiscoveryHit(title, run, help=help)

    async def search(self, query: str) -> command.Hits:
        matcher = self.matcher(query)
        for title, run, help in self.entries():
            score = matcher.match(title)
            if score > 0:
                yield command.Hit(score, matcher.highlight(title), run, help=help)


class GuideCommands(ListedCommands):
    """The app's own actions in the command palette (Ctrl+P): the same list as the footer's bindings."""

    def entries(self) -> list[tuple[str, Callable, str]]:
        return [
            (binding.tooltip or binding.description, self.runner(binding.action), action_help(binding.action))
            for binding in GuideApp.BINDINGS
            if binding.action != "quit"
        ]

    def runner(self, action: str):
        async def run() -> None:
            await self.app.run_action(action)

        return run


class ModelCommands(ListedCommands):
    """The model picker: Ollama's models, asked for when the palette opens (so never a stale list)."""

    async def startup(self) -> None:
        self.choices = await in_daemon_thread(model_choices, self.app.generator, self.app.ollama_model())

    def entries(self) -> list[tuple[str, Callable, str]]:
        return [(choice.title, partial(self.app.use_model, choice), choice.help) for choice in self.choices]


def action_help(action: str) -> str:
    return (getattr(GuideApp, f"action_{action}").__doc__ or "").strip()


COMPACT_SIZE = (100, 32)  # below either: the compact layout
MIN_SIZE = (70, 20)  # below either: only a message asking for a larger window


class GuideApp(App):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere (benchmark, tests) find it too
    TITLE = "guide-tui"
    COMMANDS = App.COMMANDS | {GuideCommands, ModelCommands}
    BINDINGS = [  # short descriptions: the footer keeps every key at 80 columns
        Binding("f2", "first_question", "First q", tooltip="First eval question"),
        Binding("f3", "previous_question", "Prev q", tooltip="Previous eval question"),
        Binding("f4", "next_question", "Next q", tooltip="Next eval question"),
        Binding("f5", "rerun", "Re-run", tooltip="Re-run the question"),
        Binding("f6", "toggle_detail", "Chunk", tooltip="Chunk detail"),
        Binding("escape", "stop", "Stop", tooltip="Stop the answer being generated"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        index_dir: Path | None = None,
        generator: str = "auto",
        model: str | None = None,
        questions: list[Question] | None = None,
        built_label: str | None = None,
        retriever: Retriever | None = None,
        corpus_dir: Path | None = None,
        gate: bool = True,
        settings: SettingsFile | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        """Tests may pass a loaded retriever (no load at start), fewer questions, and a fixed built_label
        in place of the index's build time (the status line stays the same run to run).
        corpus_dir (--corpus): the index must have been built from that folder's guides.
        gate=False (--no-gate): an index never calibrated opens, with no cutoff.
        settings: where the picked model is remembered (default: settings.json in the user's config folder);
        model (--model) and GUIDE_TUI_OLLAMA_MODEL win over it. clock: what the status line's seconds are read from."""
        super().__init__()
        self.settings = settings or SettingsFile.default()
        self.clock = clock
        self.gate = gate
        self.index_dir = Path(index_dir or (retriever.index.folder if retriever else default_index()))
        self.corpus_dir = corpus_dir
        self.generator = generator
        self.model = model  # --model, or the model picked in the palette
        self.remembered_model = self.settings.saved_model()  # picked in an earlier run
        self.built_label = built_label
        self.questions = questions
        self.index: LoadedIndex | None = None
        self.retriever: Retriever | None = None
        self.preloaded = retriever
        self.ollama = OllamaState(False)
        self.pending_question: str | None = None
        self.index_error: IndexLoadError | None = None
        self.run_id = 0
        self.answer_stop = threading.Event()  # set: the answering thread closes its Ollama stream
        self.eval: EvalSession | None = None
        self.exit_after = environment().exit_after
        self.terminal_fd: int | None = None  # run_app sets it: the app quits when that terminal hangs up
        self.compact = False  # fit_layout: a small terminal gets the one-line status
        self.stream: Stream | None = None  # the answer streaming now, if any
        self.stall_after = STALL_AFTER
        self.last_outcome = ""  # how the last answer went with Ollama: the status line's last word

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield QuestionInput(placeholder="Ask about the region: opening times, prices, buses, walks…", id="question")
        yield Static(id="message")
        yield HitsTable(id="hits")
        yield Static(id="eval")
        with Horizontal(id="main"):
            yield AnswerPanel(id="answer")
            yield DetailPane(id="detail")
        yield Static(id="status")
        yield Static(id="too-small")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self.fit_layout(event.size.width, event.size.height)

    def fit_layout(self, width: int, height: int) -> None:
        """Compact below COMPACT_SIZE (one-line status, table without a border), a message below MIN_SIZE."""
        screen = self.screen_stack[0] if self.screen_stack else self.screen
        compact = width < COMPACT_SIZE[0] or height < COMPACT_SIZE[1]
        too_small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        screen.set_class(compact, "-compact")
        for footer in screen.query(Footer):
            footer.compact = compact  # less space between the keys: at 80 columns Esc (Stop) fits beside the others
        screen.set_class(too_small, "-too-small")
        if too_small:
            self.query_one("#too-small", Static).update(literal(
                f"The terminal is {width}x{height}: guide-tui needs at least {MIN_SIZE[0]}x{MIN_SIZE[1]}. "
                "Make the window larger (Ctrl+Q quits)."
            ))  # fmt: skip
        if compact != self.compact:
            self.compact = compact
            self.refresh_status()

    def on_mount(self) -> None:
        self.fit_layout(self.size.width, self.size.height)
        self.query_one("#hits", HitsTable).border_title = "top 5 chunks"
        self.query_one("#answer", AnswerPanel).border_title = "answer"
        self.query_one("#detail", DetailPane).border_title = "chunk"
        self.query_one("#question", Input).focus()
        self.refresh_status()
        if self.preloaded is not None:
            self.index_ready(self.preloaded)
        else:
            self.load_index_worker()
        self.probe_worker()
        self.set_interval(1.0, self.tick_stream)
        if self.terminal_fd is not None:
            # Textual's input thread spins on a hung-up terminal when a wrapper (make) took the hang-up
            # signal: without this, closing the window left a process using a whole core.
            self.set_interval(1.0, self.quit_if_terminal_hung_up)
        if self.exit_after == "paint":
            self.call_after_refresh(self.exit)

    def quit_if_terminal_hung_up(self) -> None:
        if self.terminal_fd is not None and terminal_hung_up(self.terminal_fd):
            self.exit()

    # ------------------------------------------------------------ start-up workers

    @work(group="startup")
    async def load_index_worker(self) -> None:
        try:
            retriever = await in_daemon_thread(self.open_retriever)
        except IndexLoadError as err:
            self.index_failed(err)
            return
        except Exception as err:  # noqa: BLE001 - whatever else breaks on load gets the same screen, not a crash
            self.index_failed(IndexLoadError(f"unexpected error while opening {self.index_dir}: {err}; {rebuild_hint(self.index_dir)}"))
            return
        self.index_ready(retriever)

    def open_retriever(self) -> Retriever:
        """The index, checked against --corpus first when given, and its retriever (runs in the loading thread)."""
        if self.corpus_dir is not None:
            check_built_from(self.index_dir, self.corpus_dir)
        index = load_index(self.index_dir)
        if self.gate:
            require_cutoff(index, self.index_dir)
        retriever = Retriever(index)
        warm_up(retriever)
        return retriever

    def index_failed(self, err: IndexLoadError) -> None:
        self.index_error = err
        self.push_screen(IndexErrorScreen(err, self.index_dir))
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Without an index only quitting makes sense: the other keys leave the footer."""
        if action == "stop":
            return self.stream is not None
        return action == "quit" or self.index_error is None

    def index_ready(self, retriever: Retriever) -> None:
        self.index, self.retriever = retriever.index, retriever
        self.refresh_status()
        if self.index.notes:
            self.say("note: " + " · ".join(self.index.notes), "warning")
        if self.pending_question is not None:
            question, self.pending_question = self.pending_question, None
            self.ask(question)
        if self.exit_after == "ready":
            self.call_after_refresh(self.exit)

    @work(group="startup")
    async def probe_worker(self) -> None:
        self.ollama = await in_daemon_thread(probe_ollama, self.generator, self.ollama_model())
        self.refresh_status()

    # ------------------------------------------------------------ status and messages

    def say(self, message: str, kind: str = "info") -> None:
        widget = self.query_one("#message", Static)
        widget.set_classes(kind)
        widget.update(literal(message), layout=False)  # one fixed line: no re-layout of the screen

    def refresh_status(self) -> None:
        self.query_one("#status", Static).update(status_content(self))

    # ------------------------------------------------------------ asking

    @on(Input.Submitted, "#question")
    def question_submitted(self, event: Input.Submitted) -> None:
        self.ask(event.value)

    def ask(self, text: str) -> None:
        """Run one question: the table fills as soon as retrieval is done, then the answer streams in."""
        if not text.strip():
            self.say("Type a question first: an empty question is not searched.", "warning")
            return
        if self.retriever is None:
            self.pending_question = text
            self.say("Loading the index… the question runs as soon as it is ready.")
            return
        shortened = len(" ".join(text.split())) > MAX_QUESTION_CHARS
        self.say(f"Question shortened to its first {MAX_QUESTION_CHARS} characters for retrieval." if shortened else "")
        self.answer_stop.set()  # a stale stream would hold up this answer: Ollama answers one request at a time
        self.answer_stop = threading.Event()
        self.run_id += 1
        retrieval = self.retriever.retrieve(text)  # which cleans it (retrieval.question is the cleaned text)
        self.show_retrieval(retrieval)
        # the answer panel and its thread wait for the table to be on screen: they would slow that paint down
        self.call_after_refresh(self.answer_worker, retrieval, self.run_id, self.answer_stop)

    @work(exclusive=True, group="answer")
    async def answer_worker(self, retrieval: Retrieval, run_id: int, stop: threading.Event) -> None:
        self.query_one("#answer", AnswerPanel).begin(retrieval.question, self.answerer_label())
        self.refresh_eval(None, labelled=self.eval_question_for(retrieval.question) is not None)
        loop = asyncio.get_running_loop()
        self.start_stream(retrieval)

        def on_text(piece: str) -> None:  # called in the answering thread; never waits for the screen
            loop.call_soon_threadsafe(self.show_piece, run_id, piece)

        try:
            answer = await in_daemon_thread(answer_with, self.retriever, retrieval, self.generator, self.ollama_model(), on_text, stop)
        except Exception as err:  # an answerer failure must not take the screen down: say it instead
            self.answer_failed(run_id, err)
            return
        self.show_answer(run_id, answer)

    def show_retrieval(self, retrieval: Retrieval) -> None:
        table = self.query_one("#hits", HitsTable)
        question = self.eval_question_for(retrieval.question)
        table.show(retrieval, question.expected_chunks if question else ())
        table.move_cursor(row=0)
        if message := no_hits_message(retrieval):
            self.say(message, "warning")
        self.update_detail()

    def show_piece(self, run_id: int, piece: str) -> None:
        if run_id == self.run_id:
            if self.stream is not None:
                self.stream.add_piece()
                if self.stream.pieces == 1:  # "waiting for the first token" ends now, not at the next tick
                    self.refresh_status()
            self.query_one("#answer", AnswerPanel).add_text(piece)

    def start_stream(self, retrieval: Retrieval) -> None:
        """Count the answer's pieces when Ollama may write it (the status line shows the rate, or the stall)."""
        if self.generator != "extractive" and retrieval.gate.passed:
            self.stream = Stream(self.clock)
            self.refresh_bindings()
            self.refresh_status()

    def end_stream(self, outcome: str) -> None:
        self.stream = None
        self.last_outcome = outcome
        self.refresh_bindings()
        self.refresh_status()

    def tick_stream(self) -> None:
        if self.stream is not None:
            self.refresh_status()

    def action_stop(self) -> None:
        """Stop the answer being generated (its HTTP stream is closed at once)."""
        if self.stream is None:
            return
        self.answer_stop.set()  # the stream is closed within a tenth of a second, even while Ollama is silent
        self.run_id += 1  # the answer, should it still come, is not shown
        self.query_one("#answer", AnswerPanel).stopped()
        self.end_stream("stopped (Esc) mid-answer")

    def show_answer(self, run_id: int, answer: Answer) -> None:
        if run_id != self.run_id:
            return
        if self.stream is not None:
            if answer.generator.startswith("ollama:"):
                self.end_stream(f"last answer by {answer.generator.removeprefix('ollama:')}")
            elif answer.fallback_reason:
                self.end_stream(f"fell back because {answer.fallback_reason.removesuffix('; answered extractively')}")
            else:
                self.end_stream("")
        self.query_one("#answer", AnswerPanel).finish(answer)
        question = self.eval_question_for(answer.retrieval.question)
        if question is not None:
            outcome = judge(question, answer)
            self.eval.outcomes[question.id] = outcome
            self.refresh_eval(outcome)

    def answer_failed(self, run_id: int, err: Exception) -> None:
        if run_id == self.run_id:
            self.end_stream(f"failed: {err}")
            self.say(f"the answer failed: {err}", "error")
            self.query_one("#answer", AnswerPanel).show(literal(f"No answer: {err}"))

    def ollama_model(self) -> str | None:
        """--model or the model picked now, else GUIDE_TUI_OLLAMA_MODEL (read each time), else the one picked in an earlier run."""
        return self.model or environment().ollama_model or self.remembered_model

    def use_model(self, choice: ModelChoice) -> None:
        """Answer with the picked model from the next question on, and remember it for the next run."""
        if choice.model is None:
            self.say(choice.title.removeprefix("Model: ") + ". " + choice.help + ".", "warning")
            return
        self.model = choice.model
        self.ollama = connected(choice.model)  # it is in Ollama's list this moment
        self.refresh_status()
        problem = self.settings.remember(model=choice.model)
        self.say(f"Answers now come from {choice.model}; " + (problem or f"remembered in {self.settings.path}"), "warning" if problem else "info")

    def answerer_label(self) -> str:
        if self.generator == "extractive" or (self.ollama.checked and not self.ollama.usable):
            return "extractive"
        return f"{self.generator}"

    # ------------------------------------------------------------ eval stepping

    def eval_question_for(self, question: str) -> Question | None:
        """The current eval question, when the question asked is its text (typed questions are not scored)."""
        current = self.eval.current if self.eval else None
        return current if current is not None and clean_question(current.text) == question else None

    def step_eval(self, position: int) -> None:
        if self.eval is None:
            self.eval = EvalSession(self.questions if self.questions is not None else load_questions().questions)
            self.query_one("#eval").add_class("-active")
        if not self.eval.questions:
            self.say("There are no labelled questions to step through.", "warning")
            return
        self.eval.position = max(0, min(position, len(self.eval.questions) - 1))
        question = self.eval.current
        field = self.query_one("#question", Input)
        field.value = question.text
        self.ask(question.text)

    def refresh_eval(self, outcome: EvalOutcome | None, labelled: bool = True) -> None:
        if self.eval is not None:
            self.query_one("#eval", Static).update(eval_content(self.eval, outcome, labelled))

    def action_first_question(self) -> None:
        """Jump to the first labelled question."""
        self.step_eval(0)

    def action_next_question(self) -> None:
        """Step to the next labelled question (starts eval stepping)."""
        self.step_eval(self.eval.position + 1 if self.eval else 0)

    def action_previous_question(self) -> None:
        """Step back to the previous labelled question."""
        self.step_eval(self.eval.position - 1 if self.eval else 0)

    def action_rerun(self) -> None:
        """Ask the question in the input again."""
        self.ask(self.query_one("#question", Input).value)

    # ------------------------------------------------------------ chunk detail

    def action_toggle_detail(self) -> None:
        """Show or hide the selected chunk's full text."""
        self.query_one("#main").toggle_class("-detail")
        self.update_detail()

    @on(DataTable.RowSelected, "#hits")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value in self.query_one("#hits", HitsTable).hits:
            self.query_one("#main").add_class("-detail")
            self.update_detail()

    @on(DataTable.RowHighlighted, "#hits")
    def row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.update_detail()

    def update_detail(self) -> None:
        hit = self.query_one("#hits", HitsTable).hit_at_cursor()
        if hit is not None and self.query_one("#main").has_class("-detail"):
            self.query_one("#detail", DetailPane).show_hit(hit)


def answerer_state(generator: str, ollama: OllamaState) -> str:
    if generator == "extractive":
        return "extractive (--generator extractive; Ollama not used)"
    if not ollama.checked:
        return f"{generator} (checking Ollama…)"
    if ollama.usable:
        return f"Ollama, {ollama.detail}"
    return f"extractive, as the fallback: {ollama.detail}"


def answerer_line(app: GuideApp) -> str:
    """Who answers, then what Ollama is doing now or how the last answer went: never "connected" after a fallback."""
    if app.last_outcome.startswith("fell back") and app.stream is None:
        return f"extractive, {app.last_outcome} (Ollama is tried again on the next question)"
    state = answerer_state(app.generator, app.ollama)
    if app.stream is not None:
        return f"{state} · {app.stream.describe(app.clock(), app.stall_after)}"
    return f"{state} · {app.last_outcome}" if app.last_outcome else state


def status_content(app: GuideApp) -> Content:
    """Three lines: which index (and whether it is current), how it embeds and cuts off, who answers;
    one line on a small terminal, who answers and what Ollama is doing first (a cut line keeps that)."""
    index = app.index
    if app.compact:
        if index is None:
            where = f"index {app.index_dir.name}/ loading…"
        else:
            cutoff = "none" if index.cutoff is None else f"{index.cutoff:.4f}"
            where = f"index {app.index_dir.name}/ {'STALE' if index.stale else 'current'} · cutoff {cutoff}"
        return literal(f"answerer: {answerer_line(app)} · {where}")
    if index is None:
        lines = [f"index {app.index_dir.name}/: loading…", "embedding: loading…"]
    else:
        manifest = index.manifest
        built = app.built_label or str(manifest.get("built_at", "?")).replace("T", " ").replace("Z", " UTC")
        freshness = "STALE, rebuilt in memory" if index.stale else "current"
        cutoff = "not calibrated (no gate)" if index.cutoff is None else f"{index.cutoff:.4f}"
        model = manifest.get("model", {})
        lines = [
            f"index {app.index_dir.name}/: guides from {Path(str(manifest.get('corpus', '?'))).name}/ · "
            f"{len(index.chunks)} chunks · built {built} · {freshness}",
            f"embedding: {model.get('name', '?')} ({model.get('dims', '?')} dims) · cutoff {cutoff}",
        ]
    lines.append(f"answerer: {answerer_line(app)}")
    return literal("\n".join(lines))


def terminal_hung_up(fd: int) -> bool:
    """True once the terminal behind fd is gone (window closed, ssh dropped)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)  # hang-ups and errors are reported whatever is asked for
    return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, events in poller.poll(0))


def run_app(
    index_dir: Path | None = None, generator: str = "auto", model: str | None = None, corpus_dir: Path | None = None, gate: bool = True
) -> int:
    app = GuideApp(index_dir=index_dir, generator=generator, model=model, corpus_dir=corpus_dir, gate=gate)
    if sys.stdin.isatty():
        app.terminal_fd = sys.stdin.fileno()
    app.run()
    return app.return_code or 0
