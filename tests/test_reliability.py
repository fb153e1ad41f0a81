"""Bad inputs and faults, end to end: the CLI and the real app stay up and say what happened.

Each odd question goes through `guide-tui retrieve` / `ask` (plain and --json) and
through the Textual app driven by its pilot; each damaged or mismatched index
through the CLI and the app's screen; each Ollama fault through `ask` and the app
against the fake Ollama server. Module-level cases live in test_corpus.py,
test_indexes.py and test_ollama.py; this file checks what the user sees.
"""

from __future__ import annotations

import io
import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from textual import events
from textual.widgets import Input, Static

from guide_tui.answering import REFUSAL
from guide_tui.app import GuideApp, HitsTable, IndexErrorScreen
from guide_tui.cli import main
from guide_tui.indexes import BUNDLED_CORPUS, BUNDLED_INDEX, CHUNKS, FORMAT_VERSION, MANIFEST, VECTORS, load_index, sha256_file
from guide_tui.retrieval import MAX_QUESTION_CHARS, clean_question

SIZE = (120, 40)
BAKERY = "When does the Kestrelford bakery sell out?"
EVIL_LINK = "http://evil.example"

# Everything a user can paste into a question. Each must come back as an answer, a refusal or a
# one-line message: never a traceback, a styled screen, or an escape sequence reaching the terminal.
BAD_QUESTIONS = {
    "empty": "",
    "whitespace only": " \t \u3000 \u00a0 ",
    "100 kB": (BAKERY + " ") * 2326,
    "NUL and control characters": "When\x00 does the\x07 Kestrelford\x08 bakery\x7f sell out?\x0b\x0c\x1c\x85",
    "ANSI escape sequences": (
        f"\x1b[31mWhen\x1b[0m does the \x1b]8;;{EVIL_LINK}\x1b\\bakery\x1b]8;;\x1b\\ in Kestrelford sell out?"
        "\x1b[2J\x1b[H\x1b[?1049h\x9b31m"
    ),
    "Rich markup": f"[bold red]When[/] does the [link={EVIL_LINK}]Kestrelford bakery[/link] sell out? [/] [/bold]",
    "tantivy query syntax": 'bakery AND "sell out" (Kestrelford) text:bakery^3 sel* out~2 field:x NOT -title:+ [a TO z] {',
    "emoji and right-to-left": "🥐🍞👨‍👩‍👧 متى يبيع المخبز كل شيء في Kestrelford؟ \u202ebakery\u202c \u200fשלום",
    "another language": "Wann ist die Bäckerei in Kestrelford ausverkauft?",
}
# The question's own escapes; "\x1b]8" is also what interpreted [link=...] markup would send.
ESCAPES_FROM_INPUT = ("\x1b[31m", "\x1b]8", "\x1b[2J", "\x1b[?1049h", "\x9b", "\x00", "\x07", "\x08")

pytestmark = pytest.mark.anyio  # for the pilot tests; plain tests ignore it


@pytest.fixture
def anyio_backend():
    return "asyncio"  # Textual runs on asyncio


@pytest.fixture(autouse=True)
def plain_environment(ollama_down, monkeypatch):
    """Ollama down (unless a test starts the fake server), and no variable forcing the CLI's colours."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the bundled corpus and index side by side, as in the repo (the model stays bundled)."""
    shutil.copytree(BUNDLED_CORPUS, tmp_path / "corpus")
    shutil.copytree(BUNDLED_INDEX, tmp_path / "index", ignore=shutil.ignore_patterns("model"))
    return tmp_path


# ---------------------------------------------------------------- helpers


def unsafe_characters(text: str) -> list[str]:
    """Characters a terminal would act on or hide: control codes (newline aside), format codes, surrogates."""
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs")]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def shown_question(question: str) -> str:
    """What every output shows of a question: its printable text, bounded (retrieval.clean_question)."""
    return clean_question(question)


def screen_render(app) -> tuple[str, str]:
    """The app's screen as the terminal gets it: (plain text of every cell, the raw bytes with escapes)."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), force_terminal=True, color_system="truecolor", record=True, legacy_windows=False
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False), console.file.getvalue()


def visible(app) -> str:
    """The words on screen in reading order: borders dropped, wrapped lines joined."""
    text, _ = screen_render(app)
    return " ".join("".join(" " if 0x2500 <= ord(ch) <= 0x259F else ch for ch in text).split())


def text_of(app, selector: str) -> str:
    return app.screen.query_one(selector, Static).visual.plain


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def assert_screen_is_safe(app) -> None:
    """Nothing from the input reached the terminal as a control: every row is exactly the screen's width."""
    text, raw = screen_render(app)
    assert unsafe_characters(text) == []
    for escape in ESCAPES_FROM_INPUT:
        assert escape not in raw, f"{escape!r} reached the terminal"
    assert {cell_len(line) for line in text.splitlines()} == {app.size.width}


# ---------------------------------------------------------------- questions through the CLI


@pytest.mark.parametrize("name", BAD_QUESTIONS)
def test_retrieve_prints_a_table_or_one_line_for_any_question(capsys, name):
    question = BAD_QUESTIONS[name]
    code, out, err = run_cli(capsys, "retrieve", "--", question)
    assert code == 0 and err == ""
    assert unsafe_characters(out) == []
    shown = shown_question(question)
    flat = " ".join(out.split())
    if not shown:
        assert out == "empty question: nothing to look up (ask something about the guides)\n"
    elif "no word of it matches anything" in out:
        assert out.count("\n") == 1 or len(shown) > 100  # one line; a long question wraps
    else:
        assert " ".join(shown.split())[:70] in flat and "gate " in flat
    if "[bold red]" in question:
        assert "[bold red]When[/] does the [link=" in flat  # shown literally, not interpreted


@pytest.mark.parametrize("name", BAD_QUESTIONS)
def test_retrieve_json_is_one_parseable_line_with_the_cleaned_question(capsys, name):
    question = BAD_QUESTIONS[name]
    code, out, err = run_cli(capsys, "retrieve", "--json", "--", question)
    assert code == 0 and err == ""
    assert unsafe_characters(out) == [] and "\\u001b" not in out
    (line,) = out.splitlines()
    record = json.loads(line)
    assert record["question"] == shown_question(question)
    assert len(record["question"]) <= MAX_QUESTION_CHARS
    assert len(record["retrieved"]) <= (5 if record["question"] else 0)
    assert record["gate"]["passed"] in (True, False)


def test_questions_from_a_file_with_odd_lines_each_get_a_line(capsys, tmp_path):
    lines = [BAD_QUESTIONS[name] for name in ("NUL and control characters", "Rich markup", "tantivy query syntax", "another language")]
    source = tmp_path / "questions.txt"
    source.write_text("\n".join(lines) + "\n\n   \n", encoding="utf-8")
    code, out, err = run_cli(capsys, "retrieve", "--json", "--from", str(source))
    assert code == 0 and err == ""
    assert [json.loads(line)["question"] for line in out.splitlines()] == [shown_question(q) for q in lines]


def test_a_question_file_that_is_not_text_is_one_line(capsys, tmp_path):
    source = tmp_path / "questions.bin"
    source.write_bytes(b"\xff\xfe\x00 not utf-8")
    with pytest.raises(SystemExit) as caught:
        main(["retrieve", "--from", str(source)])
    assert str(caught.value).startswith(f"guide-tui: cannot read questions from {source}: 'utf-8' codec can't decode")
    with pytest.raises(SystemExit, match="give a question, or --from FILE"):
        main(["ask"])


# ---------------------------------------------------------------- questions through the app


async def paste_and_ask(pilot, text: str) -> None:
    """Paste into the question field (as a terminal does) and press Enter."""
    field = pilot.app.query_one("#question", Input)
    field.value = ""
    field.focus()
    field.post_message(events.Paste(text))
    await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize("name", BAD_QUESTIONS)
async def test_the_app_answers_refuses_or_says_why_for_any_pasted_question(retriever, name):
    question = BAD_QUESTIONS[name]
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await paste_and_ask(pilot, question)
        assert app.is_running and app.screen is app.screen_stack[0]
        field = app.query_one("#question", Input)
        assert unsafe_characters(field.value) == []  # pasted escapes never sit in the field to be drawn
        first_line = question.splitlines()[0] if question else ""  # a terminal paste into one line keeps the first
        assert field.value.split() == "".join(ch if ch.isprintable() else " " for ch in first_line).split()  # nothing lost
        shown = shown_question(question)
        answer = text_of(app, "#answer-text")
        if not shown:
            assert "empty question" in text_of(app, "#message")
            assert app.query_one("#hits", HitsTable).row_count == 0
        else:
            heading = answer.split("\n", 1)[0]
            assert heading == f"Question: {shown}" or (len(shown) > 300 and heading == f"Question: {shown[:300]}…")
            assert ("REFUSED" in answer and REFUSAL in answer and "No sources." in answer) or "Sources" in answer
        assert_screen_is_safe(app)
        if "[bold red]" in question:
            assert "Question: [bold red]When[/] does the [link=" in visible(app)
        await pilot.press(*"still typing")  # the app is still responsive, and the question is still there
        assert field.value.endswith("still typing")


async def test_every_odd_question_in_turn_leaves_the_app_working(retriever):
    """One session through the whole battery, then an ordinary question still gets its answer."""
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        for question in BAD_QUESTIONS.values():
            await paste_and_ask(pilot, question)
            assert_screen_is_safe(app)
        await paste_and_ask(pilot, BAKERY)
        assert "11am" in text_of(app, "#answer-text")
        assert_screen_is_safe(app)
