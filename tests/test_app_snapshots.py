"""Screens of the app at 120x40 and 80x24, compared with the SVGs in the top-level snapshots/ folder.

`pytest tests/test_app_snapshots.py --snapshot-update` rewrites them there (look at
snapshot_report.html or the SVGs before committing). Everything on screen is fixed
for these runs: the bundled index, a frozen build time, Ollama either down at a
closed port or the fake server (whose port never shows), and a frozen clock where the
status line counts seconds.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import LABELLED_CUT, labelled_cut_by_gate, labelled_near_miss, settle, submit_and_go_on
from pytest_textual_snapshot import SVGImageExtension
from syrupy.assertion import SnapshotAssertion
from textual.widgets import Input

from guide_tui.tui.app import GuideApp

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"
SIZE = (120, 40)
BUILT = "2026-01-01 12:00 UTC"
BAKERY = "When does the Kestrelford bakery sell out?"


class TopLevelSVG(SVGImageExtension):
    """pytest-textual-snapshot's SVG files, kept in snapshots/<test module>/ instead of tests/__snapshots__/."""

    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(SNAPSHOTS / test_location.basename)


class TopLevelSnapshots(SnapshotAssertion):
    def use_extension(self, extension_class=None) -> SnapshotAssertion:
        return super().use_extension(TopLevelSVG)  # snap_compare asks for its SVG extension: ours is that one


@pytest.fixture
def snapshot(snapshot):
    return TopLevelSnapshots(
        session=snapshot.session,
        extension_class=TopLevelSVG,
        test_location=snapshot.test_location,
        update_snapshots=snapshot.update_snapshots,
    )


@pytest.fixture(autouse=True)
def no_ollama(ollama_down):
    """Ollama down at a closed port (conftest.CLOSED_OLLAMA, the address the screens show) unless a test starts the fake server."""


def asking(*questions: str, then: tuple[str, ...] = ()):
    """A run_before that asks each question (Enter in the question field), then presses keys, waiting for each answer."""

    async def run(pilot) -> None:
        field = pilot.app.query_one("#question", Input)
        field.cursor_blink = False  # a blinking cursor would be caught on or off at random
        await settle(pilot)
        for question in questions:
            field.value = question
            await pilot.press("enter")
            await settle(pilot)
        for key in then:
            await pilot.press(key)
            await settle(pilot)

    return run


def app(retriever, generator: str = "extractive", **kwargs) -> GuideApp:
    return GuideApp(generator=generator, retriever=retriever, built_label=BUILT, **kwargs)


def test_empty_start_screen(snap_compare):
    """The first screen: the question field, an empty table, the hint, the status lines (index loaded from disk)."""
    assert snap_compare(GuideApp(generator="auto", built_label=BUILT), terminal_size=SIZE, run_before=asking())


def test_answered_question_with_cutoff_line(snap_compare, retriever):
    """An answer quoted from the guides with its sources (❝ on the row it quotes); above the cutoff line the chunks
    within the cutoff (ranks 1 and 3), below it every chunk beyond it, dimmed and marked ✗ (rank 2 too: the fused
    order put it above a closer chunk)."""
    assert snap_compare(app(retriever), terminal_size=SIZE, run_before=asking("When does the bakery sell out?"))


def test_refusal_by_the_gate(snap_compare, retriever):
    """An off-topic question: every distance is over the cutoff, so the gate refuses and names no source."""
    assert snap_compare(app(retriever), terminal_size=SIZE, run_before=asking("How do I reverse a list in Python?"))


def test_refusal_near_miss_answerability(snap_compare, retriever):
    """A near miss: the gate lets it through (the town matches), answerability refuses."""
    assert snap_compare(app(retriever), terminal_size=SIZE, run_before=asking("Is there a cinema in Thornby Wells?"))


def test_fallback_note_when_ollama_is_down(snap_compare, retriever):
    """--generator auto with Ollama unreachable: the extractive answer with the fallback note, and the status says so."""
    assert snap_compare(app(retriever, generator="auto"), terminal_size=SIZE, run_before=asking(BAKERY))


def test_streamed_ollama_answer_with_a_flagged_sentence(snap_compare, retriever, fake_ollama):
    """The fake Ollama server streams an answer with one invented claim: that sentence is flagged."""
    from fake_ollama import QUESTION

    fake_ollama.scenario = "invented_claim"
    assert snap_compare(app(retriever, generator="auto"), terminal_size=SIZE, run_before=asking(QUESTION))


def test_chunk_detail_view(snap_compare, retriever):
    """Row 2 selected: why it ranks there (its fused score's parts) and its chunk beside the answer."""
    assert snap_compare(app(retriever), terminal_size=SIZE, run_before=asking(BAKERY, then=("tab", "down", "enter")))


def test_question_with_rich_markup(snap_compare, retriever):
    """Markup and an escape sequence in a question are shown as typed, never as styles."""
    question = "[bold red]When[/] does the bakery [link=x]sell out?\x1b[31m"
    assert snap_compare(app(retriever), terminal_size=SIZE, run_before=asking(question))


def test_eval_stepping_view(snap_compare, retriever):
    """F4 twice: the second labelled question, its expected chunk and phrase against what came back, and the tally."""
    assert snap_compare(app(retriever), terminal_size=SIZE, run_before=asking(then=("f4", "f4")))


SMALL = (80, 24)


def test_answer_at_80x24(snap_compare, retriever):
    """The compact layout: a one-line status, the table without its border, the answer with the rows left over."""
    assert snap_compare(app(retriever), terminal_size=SMALL, run_before=asking(BAKERY))


def test_eval_stepping_at_80x24(snap_compare, retriever):
    """F4 at 80x24: the tally and the verdict a line each, the answer still has room, every key in the footer."""
    assert snap_compare(app(retriever), terminal_size=SMALL, run_before=asking(then=("f4",)))


CROSSING = "When does the bakery sell out?"  # the answer quotes rank 1; rank 2 is beyond the cutoff, rank 3 within
COACH = "Where do long-distance coaches stop in Brightwater?"  # rank 4 beyond the cutoff, rank 5 within


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_why_this_rank_pane(snap_compare, retriever, size):
    """F6 on the quoted first row: its fused score as the sum of its weighted parts, the terms matched, and the
    chunk with the matched words, the best sentence and the answer's quotation marked; ❝ on the row."""
    assert snap_compare(app(retriever), terminal_size=size, run_before=asking(CROSSING, then=("f6",)))


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_top_20_table(snap_compare, retriever, size):
    """F7, then the cursor down to rank 7: the top 20 scroll inside the table's box; above the line only the top 5's
    chunks within the cutoff, below it rank 4 (beyond the cutoff) and then ranks 6-20."""
    assert snap_compare(app(retriever), terminal_size=size, run_before=asking(COACH, then=("f7", "tab", *["down"] * 7)))


def test_too_small_terminal(snap_compare, retriever):
    """Below 70x20: one message asking for a larger window instead of panels too small to read."""
    assert snap_compare(app(retriever), terminal_size=(60, 18), run_before=asking())


class FrozenClock:
    """The app's clock for the Ollama snapshots: time moves only when the test says, so "n s" is the same every run."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


STALLED_FOR = 7  # seconds the status line says the stream has been silent
READ_TIMEOUT = "60"  # the stall must not reach the read timeout (and fall back) before the screen is taken


def stalled_stream(clock: FrozenClock, then: tuple[str, ...] = ()):
    """A run_before that asks the fake server's question, waits for the stall scenario's few tokens (without
    settle: the answer never finishes), moves the clock STALLED_FOR seconds on, then presses keys."""
    from fake_ollama import QUESTION, TOKENS_BEFORE_FAULT

    async def run(pilot) -> None:
        app = pilot.app
        app.query_one("#question", Input).cursor_blink = False
        await submit_and_go_on(pilot, QUESTION)
        for _ in range(500):
            if app.stream is not None and app.stream.pieces == TOKENS_BEFORE_FAULT:
                break
            await asyncio.sleep(0.02)
        assert app.stream is not None and app.stream.pieces == TOKENS_BEFORE_FAULT, "the stall scenario's tokens never came"
        clock.now += STALLED_FOR
        app.refresh_status()
        for key in then:
            await pilot.press(key)
        await pilot.pause()

    return run


def test_ollama_stalled_at_80x24(snap_compare, retriever, fake_ollama, monkeypatch):
    """The fake server sends four tokens, then nothing: the half sentence, and the status line saying how long
    the stream has stalled and that Esc stops it."""
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_TIMEOUT", READ_TIMEOUT)
    fake_ollama.scenario = "stall"
    clock = FrozenClock()
    guide = app(retriever, generator="auto", clock=clock)
    assert snap_compare(guide, terminal_size=SMALL, run_before=stalled_stream(clock))


def test_ollama_stopped_at_80x24(snap_compare, retriever, fake_ollama, monkeypatch):
    """Esc on that stalled stream: the text so far marked unfinished and unchecked, the status line says it was stopped."""
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_TIMEOUT", READ_TIMEOUT)
    fake_ollama.scenario = "stall"
    clock = FrozenClock()
    guide = app(retriever, generator="auto", clock=clock)
    assert snap_compare(guide, terminal_size=SMALL, run_before=stalled_stream(clock, then=("escape",)))


def opening(question_id: str, then: tuple[str, ...] = ()):
    """A run_before that opens a labelled question by its id (as the palette does), then presses keys."""

    async def run(pilot) -> None:
        pilot.app.query_one("#question", Input).cursor_blink = False
        await settle(pilot)
        pilot.app.open_question(question_id)
        await settle(pilot)
        for key in then:
            await pilot.press(key)
            await settle(pilot)

    return run


def tuned(*keys: str, question: str = "When does the bakery sell out?"):
    """A run_before that asks a question, then presses knob keys in a row (one re-score for them all) and waits for it."""

    async def run(pilot) -> None:
        await asking(question)(pilot)
        await pilot.press(*keys)
        await settle(pilot)
        await pilot.pause(0.2)  # the histogram is drawn after the panel's layout

    return run


RESULTS_IDS = (  # right ones of each kind, and one the extractive answerer gets wrong (two more: labelled_cut_by_gate, labelled_near_miss)
    "kestrelford-bakery-sellout", "kestrelford-bakery-early", "dull-town-in-summer",
    "near-marchwood-bakery", "off-python-reverse-list", "off-curry-recipe",
)  # fmt: skip


def results_questions():
    """A results view that fits on one screen at 80x24."""
    from guide_tui.questions import load_questions

    return [q for q in load_questions().questions if q.id in RESULTS_IDS] + [labelled_cut_by_gate(), labelled_near_miss()]


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_eval_line_with_a_failure_class(snap_compare, retriever, size):
    """A labelled question the gate cuts: "cut by the gate" on the eval line, its expected chunk at rank 4 beyond the cutoff."""
    from guide_tui.questions import load_questions

    questions = load_questions().questions + [labelled_cut_by_gate()]
    assert snap_compare(app(retriever, questions=questions), terminal_size=size, run_before=opening(LABELLED_CUT))


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_results_view(snap_compare, retriever, size):
    """Ctrl+R then F10: every question with its failure class and where its expected chunk went; the filters in the head."""
    questions = results_questions()
    assert snap_compare(app(retriever, questions=questions), terminal_size=size, run_before=asking(then=("ctrl+r", "f10")))


def test_results_view_filtered_to_the_misses(snap_compare, retriever):
    """`c` once: only the questions that were not right."""
    questions = results_questions()
    assert snap_compare(app(retriever, questions=questions), terminal_size=SIZE, run_before=asking(then=("ctrl+r", "f10", "c")))


KNOB_MOVES = ("alt+left",) * 8 + ("alt+up",)  # vector weight 0.7 -> 0.3, cutoff one step up: some questions change


def knobs_app(retriever, tmp_path) -> GuideApp:
    """The app over every third labelled question (a quick re-score) with its own, empty settings file."""
    from guide_tui.questions import load_questions
    from guide_tui.settings import SettingsFile

    return app(retriever, questions=load_questions().questions[::3], settings=SettingsFile(tmp_path / "settings.json"))


def test_knobs_line_after_a_cutoff_step(snap_compare, retriever, tmp_path):
    """Alt+Up: the cutoff row one step lower in the table's distances, the knobs line with the cutoff starred, and the Δ."""
    assert snap_compare(knobs_app(retriever, tmp_path), terminal_size=SIZE, run_before=tuned("alt+up"))


def test_tuning_panel(snap_compare, retriever, tmp_path):
    """Ctrl+T after the vector weight went to 0.3: the questions that changed, the histogram with the cutoff in force."""
    assert snap_compare(knobs_app(retriever, tmp_path), terminal_size=SIZE, run_before=tuned(*KNOB_MOVES, "ctrl+t"))


def test_knobs_line_at_80x24(snap_compare, retriever, tmp_path):
    """The knobs line and the Δ at 80x24: the knob values and every measure fit, the hint is cut."""
    assert snap_compare(knobs_app(retriever, tmp_path), terminal_size=SMALL, run_before=tuned(*KNOB_MOVES))


def test_tuning_panel_at_80x24(snap_compare, retriever, tmp_path):
    """The tuning panel at 80x24: the changed questions beside the histogram, scrolled to the cutoff line."""
    assert snap_compare(knobs_app(retriever, tmp_path), terminal_size=SMALL, run_before=tuned(*KNOB_MOVES, "ctrl+t"))
