"""Shared fixtures: the real bundled index and a retriever over it (loaded once per session)."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from guide_tui.answers import Answer, Answerer, Asked, Citation, OnText
from guide_tui.calibration import calibrate_index
from guide_tui.indexes import BUNDLED_INDEX, build_index, load_index
from guide_tui.questions import Question, load_questions
from guide_tui.retrieval import Retriever

ROOT = Path(__file__).resolve().parent.parent
ORIGINALS = ROOT.parent / "shared" / "corpora" / "city_guides"


USER_FOLDERS = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")  # where platformdirs puts guide-tui's per-user files


SLIPPED = "Are there any accomodation options in Givens Mill?"  # a typing slip, read as "accommodation" (spelling.py)


@pytest.fixture(scope="session", autouse=True)
def own_user_folders(tmp_path_factory):
    """Tests never read or write the developer's own guide-tui index, settings or reports (subprocesses inherit this)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in USER_FOLDERS:
            patch.setenv(name, str(tmp_path_factory.mktemp(name.lower())))
        yield


@pytest.fixture
def anyio_backend():
    """The pilot tests (pytest.mark.anyio) run on asyncio, as Textual does."""
    return "asyncio"


@pytest.fixture(scope="session")
def bundled_index():
    return load_index(BUNDLED_INDEX)


@pytest.fixture(scope="session")
def retriever(bundled_index) -> Retriever:
    return Retriever(bundled_index)


@pytest.fixture(scope="session")
def originals_retriever(bundled_index, tmp_path_factory) -> Retriever:
    """A calibrated index of the original guides (the blind question sets' source), as `guide-tui index` builds it."""
    if not ORIGINALS.is_dir():
        pytest.skip("original guides not beside the repo")
    folder = tmp_path_factory.mktemp("originals") / "index"
    build_index(ORIGINALS, folder, embedder=bundled_index.embedder)
    calibrate_index(folder)
    return Retriever(load_index(folder))


@pytest.fixture
def make_immutable():
    """make_immutable(folder): chattr +i, so that nothing, not even root, can add or remove files there (as root,
    chmod shows nothing); undone after the test. Skips where the file system or the container does not allow it."""
    done: list[Path] = []

    def immutable(folder: Path) -> None:
        result = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True)
        if result.returncode != 0:
            pytest.skip(f"chattr +i is not available here: {result.stderr.strip()}")
        done.append(folder)

    yield immutable
    for folder in reversed(done):
        subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.fixture
def fake_ollama(monkeypatch):
    """A real HTTP server speaking Ollama's protocol; set `.scenario` (tests/fake_ollama.py ANSWERS or FAULTS).

    OLLAMA_HOST points at it and GUIDE_TUI_OLLAMA_MODEL is cleared, so code under test finds it
    the way it finds a real Ollama.
    """
    from fake_ollama import FakeOllama

    with FakeOllama() as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        monkeypatch.delenv("GUIDE_TUI_OLLAMA_MODEL", raising=False)
        yield server


class FakeAnswerer(Answerer):
    """An answerer that cites the first chunk within the cutoff and says so in two pieces; remembers what it was asked."""

    def __init__(self) -> None:
        self.asked: list[Asked] = []

    def stream(self, asked: Asked, on_text: OnText) -> Answer:
        self.asked.append(asked)
        hit = asked.retrieval.within_cutoff[0]
        pieces = ["The fake answerer ", f"cites {hit.chunk.file}."]
        for piece in pieces:
            on_text(piece)
        citation = Citation(hit.chunk.file, hit.chunk.section, hit.chunk.chunk_id, hit.chunk.body.split("\n")[0])
        return Answer(asked.question, False, "".join(pieces), "fake", asked.retrieval, [citation], verdicts=asked.evidence.verdicts)


@pytest.fixture
def fake_answerer(monkeypatch) -> FakeAnswerer:
    """A FakeAnswerer registered as --generator "fake" for this test."""
    from guide_tui.answerers import ANSWERERS

    answerer = FakeAnswerer()
    monkeypatch.setitem(ANSWERERS, "fake", lambda model, host: answerer)
    return answerer


CLOSED_OLLAMA = "http://127.0.0.1:9"  # nothing listens on the discard port: "not reachable", at once


@pytest.fixture
def ollama_down(monkeypatch):
    """Ollama is not running (a test may still start `fake_ollama`, which points OLLAMA_HOST at itself)."""
    monkeypatch.setenv("OLLAMA_HOST", CLOSED_OLLAMA)
    monkeypatch.delenv("GUIDE_TUI_OLLAMA_MODEL", raising=False)


# ---------------------------------------------------------------- helpers for the app's pilot tests


async def settle(pilot) -> None:
    """Wait until the app's workers (index load, Ollama probe, answer) are done and the screen has caught up. The
    answer worker starts after the next refresh (`call_after_refresh`): two pauses first let that refresh and its
    callbacks run, so a worker just asked for is waited for rather than missed."""
    await pilot.pause()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def from_the_palette(pilot, entry: str, listed: float = 0.3) -> None:
    """Run the palette entry that best matches `entry` (Ctrl+P, type it, Enter), and wait for what it started;
    listed: seconds for the palette to list its matches (more when it searches many entries)."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*entry)
    await pilot.pause(listed)
    await pilot.press("enter")
    await settle(pilot)


def text_of(app, selector: str) -> str:
    """The plain text a Static on the current screen shows."""
    from textual.widgets import Static

    return app.screen.query_one(selector, Static).visual.plain


async def submit_and_go_on(pilot, question: str):
    """Ask in the question field as Enter does, without waiting for the answer (pilot.press would wait out a
    whole stream); returns the field."""
    from textual.widgets import Input

    await settle(pilot)
    field = pilot.app.query_one("#question", Input)
    field.value = question
    await field.action_submit()
    return field


async def wait_for(pilot, condition, what: str, seconds: float = 10.0) -> None:
    """Poll the screen without pilot.pause (which waits for a stream, or a run over all questions, to go idle)."""
    import asyncio

    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    pytest.fail(f"never saw {what}; status: {text_of(pilot.app, '#status')}")


LABELLED_NEAR_MISS = "bakery-labelled-near-miss"
LABELLED_CUT = "wheelchair-labelled-mixed"


def labelled_near_miss() -> Question:
    """The bakery question, which the guides answer, labelled as one they do not: an "unanswerable answered" miss
    that stays one whatever the answerer learns (the bundled near misses are refused one by one as it improves)."""
    bakery = next(q for q in load_questions().questions if q.id == "kestrelford-bakery-sellout")
    return replace(bakery, id=LABELLED_NEAR_MISS, kind="near_miss", expected_chunks=(), expected_phrase="", need=LABELLED_NEAR_MISS)


def labelled_cut_by_gate() -> Question:
    """Which towns are hard going in a wheelchair, labelled with the accessibility guide's "Mixed" section (Givens Mill's
    machinery floor), which ranks 4th beyond the cutoff: a "cut by the gate" miss of the bundled index. (The labelled
    one of questions.toml, minor-injuries-only, came back right once region-wide lists let rows in, session 28.)"""
    minor = next(q for q in load_questions().questions if q.id == "minor-injuries-only")
    return replace(minor, id=LABELLED_CUT, text="Which towns are hard going in a wheelchair?",
                   expected_chunks=("guide_accessibility.md#1",), expected_phrase="machinery floor", need=LABELLED_CUT)
