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
from conftest import CLOSED_OLLAMA, settle, submit_and_go_on, text_of
from rich.cells import cell_len
from rich.console import Console
from textual import events
from textual.widgets import Input

from guide_tui.answering import answer_question
from guide_tui.answers import REFUSAL
from guide_tui.cli import main
from guide_tui.indexes import BUNDLED_CORPUS, BUNDLED_INDEX, CHUNKS, FORMAT_VERSION, MANIFEST, VECTORS, load_index, sha256_file
from guide_tui.retrieval import MAX_QUESTION_CHARS, clean_question
from guide_tui.tui.app import GuideApp
from guide_tui.tui.screens import IndexErrorScreen
from guide_tui.tui.widgets import HitsTable
from guide_tui.tui.widgets.answer_panel import QUESTION_SHOWN_CHARS

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
    "only an emoji": "🍞",  # no word the guides know, not even a vector: nothing to rank
    "undecodable terminal bytes": "When does the Kestrelford bakery\udcff\udcfe sell out?",  # argv from a non-UTF-8 terminal
}
SHORTENED_NOTE = f"note: Question shortened to its first {MAX_QUESTION_CHARS} characters for retrieval.\n"
# The question's own escapes; "\x1b]8" is also what interpreted [link=...] markup would send.
ESCAPES_FROM_INPUT = ("\x1b[31m", "\x1b]8", "\x1b[2J", "\x1b[?1049h", "\x9b", "\x00", "\x07", "\x08")

pytestmark = pytest.mark.anyio  # for the pilot tests; plain tests ignore it


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


def assert_screen_is_safe(app) -> None:
    """Nothing from the input reached the terminal as a control: every row is exactly the screen's width."""
    text, raw = screen_render(app)
    assert unsafe_characters(text) == []
    for escape in ESCAPES_FROM_INPUT:
        assert escape not in raw, f"{escape!r} reached the terminal"
    assert {cell_len(line) for line in text.splitlines()} == {app.size.width}


# ---------------------------------------------------------------- questions through the CLI


def test_a_huge_question_matching_nothing_is_echoed_cut_short(capsys):
    """A pasted 2500-letter word would fill the screen if the message echoed it whole."""
    code, out, err = run_cli(capsys, "retrieve", "--", "q" * 2500)
    assert code == 0 and err == SHORTENED_NOTE
    assert out.replace("\n", "") == f"{'q' * 79 + '…'!r}: no word of it matches anything in the guides; refused"  # wrapped at 80


@pytest.mark.parametrize("name", BAD_QUESTIONS)
def test_retrieve_prints_a_table_or_one_line_for_any_question(capsys, name):
    question = BAD_QUESTIONS[name]
    code, out, err = run_cli(capsys, "retrieve", "--", question)
    assert code == 0 and err == (SHORTENED_NOTE if name == "100 kB" else "")
    assert unsafe_characters(out) == []
    shown = shown_question(question)
    flat = " ".join(out.split())
    if not shown:
        assert out == "empty question: nothing to look up (ask something about the guides)\n"
    elif name == "only an emoji":
        assert out == f"{shown!r}: no word of it matches anything in the guides; refused\n"
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
    gate = record["gate"]
    assert gate["passed"] == bool(record["retrieved"] and gate["best_distance"] <= gate["cutoff"])


@pytest.mark.parametrize("name", BAD_QUESTIONS)
def test_ask_prints_an_answer_with_sources_or_the_refusal_for_any_question(capsys, name):
    question = BAD_QUESTIONS[name]
    code, out, err = run_cli(capsys, "ask", "--generator", "extractive", "--", question)
    assert code == 0 and (err == "" or (err.startswith("note: ") and err.count("\n") == 1))  # why nothing was looked up
    assert unsafe_characters(out) == []
    if out != REFUSAL + "\n":
        *answer, sources = out.splitlines()
        assert answer and sources.startswith("Sources: guide_")


@pytest.mark.parametrize("name", BAD_QUESTIONS)
def test_ask_json_is_one_record_with_a_refusal_or_citations(capsys, name):
    question = BAD_QUESTIONS[name]
    code, out, err = run_cli(capsys, "ask", "--json", "--generator", "extractive", "--", question)
    assert code == 0 and err == ""
    assert unsafe_characters(out) == [] and "\\u001b" not in out
    (line,) = out.splitlines()
    record = json.loads(line)
    assert record["question"] == shown_question(question)
    if record["refused"]:
        assert record["answer"] == REFUSAL and record["citations"] == []
    else:
        assert record["citations"] and all(c["quote"] in record["answer"] for c in record["citations"])


def test_the_prompt_shows_an_odd_question_cleaned_and_literal(capsys):
    question = BAD_QUESTIONS["ANSI escape sequences"] + " " + BAD_QUESTIONS["Rich markup"]
    code, out, _ = run_cli(capsys, "ask", "--show-prompt", "--generator", "extractive", "--", question)
    assert code == 0 and unsafe_characters(out) == []
    assert f"Question: {shown_question(question)}\n" in out
    assert "[bold red]When[/] does the [link=" in out


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
    code, out, err = run_cli(capsys, "retrieve", "--from", str(source))
    assert (code, out) == (2, "")
    assert err.startswith(f"guide-tui: cannot read questions from {source}: 'utf-8' codec can't decode")
    assert run_cli(capsys, "ask") == (2, "", "guide-tui: give a question, or --from FILE with one question a line\n")


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


@pytest.mark.parametrize(
    "pasted, expected",
    [
        ("When does the Kestrelford\nbakery sell out?", "When does the Kestrelford bakery sell out?"),
        ("When does the Kestrelford \x1b[31mbakery\x1b[0m sell out?", "When does the Kestrelford bakery sell out?"),
        ("When does the\r\nKestrelford bakery\x1b]0;title\x07 sell out?", "When does the Kestrelford bakery sell out?"),
    ],
)
async def test_a_paste_keeps_every_line_and_drops_escapes_in_place(retriever, pasted, expected):
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        field = pilot.app.query_one("#question", Input)
        field.value = "Q: "
        field.cursor_position = len(field.value)
        field.focus()
        field.post_message(events.Paste(pasted))
        await pilot.pause()
        assert field.value == "Q: " + expected
        await pilot.press("enter")
        await settle(pilot)
        assert "Kestrelford's guide says:" in text_of(pilot.app, "#answer-text")


@pytest.mark.parametrize("name", BAD_QUESTIONS)
async def test_the_app_answers_refuses_or_says_why_for_any_pasted_question(retriever, name):
    question = BAD_QUESTIONS[name]
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await paste_and_ask(pilot, question)
        assert app.is_running and app.screen is app.screen_stack[0]
        field = app.query_one("#question", Input)
        assert unsafe_characters(field.value) == []  # pasted escapes never sit in the field to be drawn
        # every line kept (as spaces); escape sequences dropped where they stood (the lone 8-bit CSI is a space)
        kept = "When does the bakery in Kestrelford sell out? 31m" if name == "ANSI escape sequences" else question
        assert field.value.split() == "".join(ch if ch.isprintable() else " " for ch in kept).split()  # nothing lost
        shown = shown_question(kept)
        answer = text_of(app, "#answer-text")
        if not shown:
            assert "empty question" in text_of(app, "#message")
            assert app.query_one("#hits", HitsTable).row_count == 0
        else:
            heading = answer.split("\n", 1)[0]
            assert heading == f"Question: {shown}" or (len(shown) > QUESTION_SHOWN_CHARS and heading == f"Question: {shown[: QUESTION_SHOWN_CHARS - 1]}…")
            assert len(heading) <= len("Question: ") + QUESTION_SHOWN_CHARS
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


# ---------------------------------------------------------------- the index: damage, mismatch, read-only


def edit_manifest(folder: Path, **changes) -> None:
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest.update(changes)
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


def garbage_chunks(folder: Path) -> None:
    """chunks.jsonl replaced by junk whose checksum and size the manifest agrees with: only reading it can tell."""
    (folder / CHUNKS).write_text('{"chunk_id": "x"}\nnot json\n', encoding="utf-8")
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    size = (folder / CHUNKS).stat().st_size
    edit_manifest(folder, checksums=manifest["checksums"] | {CHUNKS: sha256_file(folder / CHUNKS)}, sizes=manifest["sizes"] | {CHUNKS: size})


def unreadable_corpus(workspace: Path) -> None:
    """Every guide edited into something that is not a guide: stale, and nothing to rebuild from."""
    for guide in (workspace / "corpus").glob("guide_*.md"):
        guide.write_bytes(b"\xff\xfe not text")


# (what is done to the workspace, what the message says, what it says to run)
DAMAGES = {
    "missing folder": (lambda ws: shutil.rmtree(ws / "index"), "no index at", "guide-tui index --corpus"),
    "truncated vectors": (
        lambda ws: (ws / "index" / VECTORS).write_bytes((ws / "index" / VECTORS).read_bytes()[:4096]),
        "vectors.usearch does not match the manifest",
        "guide-tui index --corpus",
    ),
    "corrupt chunks": (lambda ws: garbage_chunks(ws / "index"), "chunks.jsonl is corrupt", "guide-tui index --corpus"),
    "other format version": (
        lambda ws: edit_manifest(ws / "index", format_version=FORMAT_VERSION + 1),
        f"built in index format {FORMAT_VERSION + 1}",
        "guide-tui index --corpus",
    ),
    "other model": (
        lambda ws: edit_manifest(ws / "index", model={"name": "another", "sha256": "0" * 64, "dims": 256}),
        "different embedding model",
        "guide-tui index --corpus",
    ),
    "stale and unreadable corpus": (unreadable_corpus, "the corpus cannot be read", "restore the guides"),
    "never calibrated": (
        lambda ws: edit_manifest(ws / "index", cutoff=None),
        "has no relevance cutoff (it was never calibrated), so the gate would pass every question",
        "guide-tui calibrate --index",
    ),
}


@pytest.mark.parametrize("command", ["retrieve", "ask"])
@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_index_is_one_line_with_the_fix(workspace, capsys, damage, command):
    spoil, message, fix = DAMAGES[damage]
    spoil(workspace)
    code, out, err = run_cli(capsys, command, "--index", str(workspace / "index"), BAKERY)
    assert code == 2 and out == ""
    assert err.startswith("guide-tui: ") and err.count("\n") == 1 and "Traceback" not in err
    assert message in err and fix in err


@pytest.mark.parametrize("damage", DAMAGES)
async def test_the_app_shows_a_damaged_index_and_its_fix_on_screen(workspace, damage):
    spoil, message, fix = DAMAGES[damage]
    spoil(workspace)
    app = GuideApp(index_dir=workspace / "index", generator="extractive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, IndexErrorScreen)
        problem, fix_shown = text_of(app, "#error-text").split("How to fix it")
        assert message in " ".join(problem.split())
        assert fix in " ".join(fix_shown.split())
        on_screen = visible(app)
        assert "The index cannot be opened" in on_screen and "How to fix it" in on_screen and fix in on_screen
        assert_screen_is_safe(app)
        await pilot.press("q")
    assert app.return_code == 0


@pytest.mark.parametrize("command", ["retrieve", "ask"])
def test_no_gate_opens_an_index_never_calibrated(workspace, capsys, command):
    edit_manifest(workspace / "index", cutoff=None)
    code, out, err = run_cli(capsys, command, "--no-gate", "--json", "--index", str(workspace / "index"), BAKERY)
    assert code == 0 and "cutoff" not in err
    answer = json.loads(out)
    assert answer["gate"]["cutoff"] is None and answer["gate"]["passed"]


async def test_the_app_with_no_gate_opens_an_index_never_calibrated(workspace):
    edit_manifest(workspace / "index", cutoff=None)
    app = GuideApp(index_dir=workspace / "index", generator="extractive", gate=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.retriever is not None and "cutoff not calibrated (no gate)" in visible(app)
        await paste_and_ask(pilot, BAKERY)
        assert "11am" in text_of(app, "#answer-text")


HAND_EDITS = {  # manifest.json still valid JSON, a field edited into something the loader cannot use
    "cutoff as a bare number": {"cutoff": 0.5},
    "cutoff value not a number": {"cutoff": {"value": "0.5"}},
    "model as a string": {"model": "all-MiniLM-L6-v2"},
    "checksums as a string": {"checksums": "ok"},
    "corpus as a number": {"corpus": 5},
    "files as a list": {"files": ["guide_kestrelford.md"]},
}


@pytest.mark.parametrize("edit", HAND_EDITS)
def test_a_hand_edited_manifest_is_one_line_naming_the_field(workspace, capsys, edit):
    edit_manifest(workspace / "index", **HAND_EDITS[edit])
    field = next(iter(HAND_EDITS[edit]))
    code, out, err = run_cli(capsys, "ask", "--index", str(workspace / "index"), BAKERY)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"guide-tui: {workspace / 'index' / MANIFEST}: the {field!r} field") and "guide-tui index --corpus" in err


async def test_the_app_shows_a_hand_edited_manifest_and_its_fix(workspace):
    edit_manifest(workspace / "index", cutoff=0.5)
    app = GuideApp(index_dir=workspace / "index", generator="extractive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, IndexErrorScreen)
        problem, fix = (" ".join(part.split()) for part in text_of(app, "#error-text").split("How to fix it"))
        assert "the 'cutoff' field" in problem and fix.startswith("rebuild it with: guide-tui index --corpus")


def broken_model(tmp_path: Path, how: str) -> Path:
    """A model folder with its weights missing, or cut short."""
    folder = tmp_path / "model"
    shutil.copytree(BUNDLED_INDEX / "model", folder)
    weights = folder / "model.safetensors"
    if how == "missing":
        weights.unlink()
    else:
        weights.write_bytes(weights.read_bytes()[:4096])
    return folder


@pytest.mark.parametrize("how", ["missing", "truncated"])
def test_a_broken_model_is_one_line_with_the_fix(capsys, monkeypatch, tmp_path, how):
    folder = broken_model(tmp_path, how)
    monkeypatch.setenv("GUIDE_TUI_MODEL", str(folder))
    code, out, err = run_cli(capsys, "retrieve", BAKERY)
    assert code == 2 and out == ""
    assert err.startswith(f"guide-tui: embedding model {'missing from' if how == 'missing' else 'in'} {folder}")
    assert err.count("\n") == 1 and err.rstrip().endswith("restore index/model from git or rebuild it with `python -m guide_tui.distill`")


@pytest.mark.parametrize("how", ["missing", "truncated"])
async def test_the_app_shows_a_broken_model_and_its_fix(monkeypatch, tmp_path, how):
    monkeypatch.setenv("GUIDE_TUI_MODEL", str(broken_model(tmp_path, how)))
    app = GuideApp(generator="extractive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, IndexErrorScreen)
        fix = " ".join(text_of(app, "#error-text").split("How to fix it")[1].split())
        assert fix.startswith("restore index/model from git or rebuild it with `python -m guide_tui.distill`")


def tree_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder below `folder` (hidden ones too) with its size and modification time."""
    return {str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns) for path in folder.rglob("*")}


def without_hidden_files(folder: Path) -> None:
    """The index as a copy that leaves out hidden files (`cp dir/*`, packaging globs) has it: no lock files."""
    for path in folder.rglob(".*"):
        path.unlink()


@pytest.mark.parametrize("stale", [False, True], ids=["current", "stale"])
def test_loading_and_answering_never_write_into_the_index_folder(workspace, capsys, stale):
    """A read-only index folder (an install, a mounted volume, another user's files) must work: nothing
    the loader does may write there. As root, chmod cannot show it, so watch the folder instead."""
    index = workspace / "index"
    without_hidden_files(index)
    if stale:
        guide = workspace / "corpus" / "guide_kestrelford.md"
        guide.write_text(guide.read_text(encoding="utf-8") + "\nThe bakery also sells pies.\n", encoding="utf-8")
    before = tree_state(index)
    loaded = load_index(index)
    assert loaded.stale == stale and len(loaded.chunks) == 84
    for argv in (["retrieve", BAKERY], ["ask", BAKERY], ["ask", "--json", BAKERY], ["calibrate", "--dry-run"]):
        code, out, _ = run_cli(capsys, argv[0], "--index", str(index), *argv[1:])
        assert code == 0 and out
    assert tree_state(index) == before


async def test_starting_the_app_never_writes_into_the_index_folder(workspace):
    index = workspace / "index"
    without_hidden_files(index)
    before = tree_state(index)
    app = GuideApp(index_dir=index, generator="extractive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.retriever is not None
        await paste_and_ask(pilot, BAKERY)
        assert "11am" in text_of(app, "#answer-text")
    assert tree_state(index) == before


def test_an_index_no_one_can_write_to_opens_and_answers(workspace, capsys, make_immutable):
    """chattr +i: not even root can create a file there, so opening tantivy in place (its lock file) would fail."""
    index = workspace / "index"
    without_hidden_files(index)
    for folder in (index / "keyword", index, workspace):
        make_immutable(folder)
    before = tree_state(index)
    for argv in (["retrieve", BAKERY], ["ask", BAKERY], ["calibrate", "--dry-run"]):
        code, out, _ = run_cli(capsys, argv[0], "--index", str(index), *argv[1:])
        assert code == 0 and out
    assert tree_state(index) == before


def test_calibrate_that_cannot_write_says_so_and_keeps_the_manifest(workspace, capsys, make_immutable):
    index = workspace / "index"
    before = (index / MANIFEST).read_bytes()
    make_immutable(workspace)  # the calibrated index is written beside this one, and there is no room for it
    code, out, err = run_cli(capsys, "calibrate", "--index", str(index))
    assert code == 2
    assert err.startswith(f"guide-tui: cannot write {index / MANIFEST}: ") and err.count("\n") == 1
    assert err.rstrip().endswith("`guide-tui calibrate --dry-run` shows the cutoff without writing it")
    assert (index / MANIFEST).read_bytes() == before


@pytest.mark.parametrize("where", ["under a regular file", "a regular file"])
def test_index_into_an_unwritable_place_says_so_and_keeps_what_was_there(tmp_path, capsys, where):
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be", encoding="utf-8")
    out_dir = blocker / "index" if where == "under a regular file" else blocker
    code, out, err = run_cli(capsys, "index", "--corpus", str(BUNDLED_CORPUS), "--out", str(out_dir))
    assert code == 2
    assert err.startswith(f"guide-tui: cannot write the index to {out_dir}") and "choose another --out" in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert blocker.read_text(encoding="utf-8") == "a file where a folder should be"
    assert [p.name for p in tmp_path.iterdir()] == ["file"]  # no half-built staging folder left behind


# ---------------------------------------------------------------- the corpus: edited, broken, moved, another one


def break_guides(workspace: Path) -> None:
    """Stale in two ways at once: one guide edited into something that is not UTF-8, one bad guide added."""
    (workspace / "corpus" / "guide_kestrelford.md").write_bytes(b"# Kestrelford\n\n## Eat\n\nCaf\xe9 hours.\n")
    (workspace / "corpus" / "guide_broken.md").write_text("No title line here.\n\n## Section\n\nText.\n", encoding="utf-8")


PROBLEMS = (
    "guide_kestrelford.md: not UTF-8 text (bad byte at offset 26) (skipped)",
    "guide_broken.md: no '# Title' line (H1) at the top (skipped)",
)


def test_a_stale_rebuild_reports_each_bad_guide_on_the_cli(workspace, capsys):
    break_guides(workspace)
    code, out, err = run_cli(capsys, "retrieve", "--json", "--index", str(workspace / "index"), BAKERY)
    assert code == 0 and json.loads(out)["retrieved"]
    flat = " ".join(err.split())
    assert "stale: the corpus changed since the build (changed: guide_kestrelford.md; added: guide_broken.md)" in flat
    assert "rebuilt in memory" in flat and "guide-tui index --corpus" in flat
    for problem in PROBLEMS:
        assert problem in flat


async def test_a_stale_rebuild_shows_each_bad_guide_and_the_fix_on_screen(workspace):
    break_guides(workspace)
    app = GuideApp(index_dir=workspace / "index", generator="extractive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        on_screen = visible(app)
        assert "STALE, rebuilt in memory" in on_screen
        assert "rebuilt in memory for this session (rebuild it with: guide-tui index --corpus" in on_screen
        for problem in PROBLEMS:
            assert problem in on_screen
        await paste_and_ask(pilot, "When do the pubs in Kestrelford serve food?")
        files = {hit.chunk.file for hit in app.query_one("#hits", HitsTable).hits.values()}
        assert files and "guide_kestrelford.md" not in files  # the skipped guide is out of this session's index
        assert "guide_kestrelford.md" not in text_of(app, "#answer-text")
        assert_screen_is_safe(app)


def test_a_guide_skipped_at_build_time_does_not_make_the_index_stale(workspace, capsys, bundled_index):
    from guide_tui.indexes import build_index

    (workspace / "corpus" / "guide_draft.md").write_text("notes to self, no title yet\n", encoding="utf-8")
    build_index(workspace / "corpus", workspace / "index", embedder=bundled_index.embedder)
    assert load_index(workspace / "index", embedder=bundled_index.embedder).notes == []
    (workspace / "corpus" / "guide_draft.md").write_text("# Draft\n\n## Now a guide\n\nIt has a section.\n", encoding="utf-8")
    assert load_index(workspace / "index", embedder=bundled_index.embedder).stale


def test_a_moved_corpus_is_a_note_and_the_index_still_answers(workspace, capsys):
    (workspace / "corpus").rename(workspace / "guides")
    code, out, err = run_cli(capsys, "retrieve", "--json", "--index", str(workspace / "index"), BAKERY)
    assert code == 0 and json.loads(out)["retrieved"]
    assert "note: corpus folder" in err and "not found; cannot tell whether the index is current" in " ".join(err.split())


def test_escapes_typed_into_a_guide_never_reach_the_terminal(workspace, capsys, bundled_index):
    """A guide edited with an escape sequence, a bell and a C1 CSI in a sentence and a heading."""

    guide = workspace / "corpus" / "guide_kestrelford.md"
    text = guide.read_text(encoding="utf-8")
    text = text.replace("The Kestrelford bakery sells out by 11am.", "The Kestrelford bakery\x1b[31m sells out\x07 by 11am\x9b2J.")
    guide.write_text(text.replace("## Eat and drink", "## Eat and drink\x1b]8;;http://evil.example\x1b\\"), encoding="utf-8")
    code, out, err = run_cli(capsys, "index", "--corpus", str(workspace / "corpus"), "--out", str(workspace / "index"))
    assert code == 0
    assert "warning: guide_kestrelford.md: 5 control characters (terminal escapes) replaced by spaces (indexed anyway)" in err
    for argv in (["ask", BAKERY], ["ask", "--json", BAKERY], ["retrieve", BAKERY], ["retrieve", "--json", BAKERY]):
        code, out, err = run_cli(capsys, argv[0], "--index", str(workspace / "index"), *argv[1:])
        assert code == 0 and unsafe_characters(out + err) == [] and "\\u001b" not in out
    code, out, _ = run_cli(capsys, "ask", "--index", str(workspace / "index"), BAKERY)
    assert "The Kestrelford bakery [31m sells out by 11am 2J." in out  # the rest of the sentence is kept


def test_escapes_in_a_model_answer_never_reach_the_terminal(fake_ollama, monkeypatch, capsys):
    import fake_ollama as server
    from fake_ollama import FAITHFUL, QUESTION

    monkeypatch.setitem(server.ANSWERS, "escapes", FAITHFUL.replace("serve food", "serve\x1b[2J food\x07\x9b"))
    fake_ollama.scenario = "escapes"
    for argv in (["ask", "--generator", "auto", QUESTION], ["ask", "--json", "--generator", "auto", QUESTION]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 0 and unsafe_characters(out + err) == [] and "\\u001b" not in out
        assert "serve [2J food" in out


def another_corpus(workspace: Path) -> Path:
    """A second folder of guides: the same files with one of them edited."""
    other = workspace / "other"
    shutil.copytree(workspace / "corpus", other)
    guide = other / "guide_marchwood.md"
    guide.write_text(guide.read_text(encoding="utf-8").replace("Marchwood", "Marchwood Vale", 3), encoding="utf-8")
    return other


@pytest.mark.parametrize("command", ["retrieve", "ask"])
def test_corpus_option_refuses_an_index_built_from_other_guides(workspace, capsys, command):
    other = another_corpus(workspace)
    index = workspace / "index"
    code, out, err = run_cli(capsys, command, "--index", str(index), "--corpus", str(other), BAKERY)
    assert code == 2 and out == ""
    assert err == (
        f"guide-tui: index {index} was built from a different corpus than {other} (changed: guide_marchwood.md); "
        f"rebuild it with: guide-tui index --corpus {other} --out {index}\n"
    )


def test_corpus_option_accepts_the_same_guides_anywhere_and_its_own_folder_edited(workspace, capsys):
    index = workspace / "index"
    copy = workspace / "copy"
    shutil.copytree(workspace / "corpus", copy)
    code, out, err = run_cli(capsys, "retrieve", "--json", "--index", str(index), "--corpus", str(copy), BAKERY)
    assert code == 0 and err == "" and json.loads(out)["retrieved"]
    guide = workspace / "corpus" / "guide_kestrelford.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\nThe bakery also sells pies.\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "retrieve", "--json", "--index", str(index), "--corpus", str(workspace / "corpus"), BAKERY)
    assert code == 0 and "stale: the corpus changed since the build (changed: guide_kestrelford.md)" in " ".join(err.split())
    code, out, err = run_cli(capsys, "retrieve", "--index", str(index), "--corpus", str(workspace / "nowhere"), BAKERY)
    assert code == 2 and err.startswith(f"guide-tui: corpus folder {workspace / 'nowhere'} does not exist")


async def test_the_app_shows_an_index_built_from_other_guides_and_the_fix(workspace):
    other = another_corpus(workspace)
    app = GuideApp(index_dir=workspace / "index", corpus_dir=other, generator="extractive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, IndexErrorScreen)
        problem, fix = (" ".join(part.split()) for part in text_of(app, "#error-text").split("How to fix it"))
        assert f"was built from a different corpus than {other} (changed: guide_marchwood.md)" in problem
        assert f"rebuild it with: guide-tui index --corpus {other} --out {workspace / 'index'}" in fix
        assert "was built from a different corpus than" in visible(app)


# ---------------------------------------------------------------- Ollama faults, end to end


def ollama_fault(fake_ollama, monkeypatch, fault: str, timeout: int = 1) -> str:
    """Set up one Ollama fault with its timeouts in seconds; returns the reason the answer must give for not using Ollama."""
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_TIMEOUT", str(timeout))  # "accepting but never answering" must not take a minute
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_FIRST_TOKEN_TIMEOUT", str(timeout))
    if fault == "not running":
        monkeypatch.setenv("OLLAMA_HOST", CLOSED_OLLAMA)
        return f"Ollama not reachable at {CLOSED_OLLAMA}"
    if fault == "unknown model":
        monkeypatch.setenv("GUIDE_TUI_OLLAMA_MODEL", "nosuch")
        return "Ollama has no model 'nosuch' (ollama pull nosuch)"
    fake_ollama.scenario = fault
    return {
        "hang": f"Ollama sent no first token within {timeout} s (the model may still be loading)",
        "stall": f"Ollama timed out after {timeout} s",
        "disconnect": "Ollama stopped mid-answer",
        "garbage": "Ollama sent a reply that is not its protocol",
        "server_error": "Ollama error 500: llama runner process has terminated: signal: killed",
        "wrong_citation": "ollama:llama3.2's answer cited a guide that does not say it (another guide it was shown does)",
    }[fault]


OLLAMA_FAULTS = ["not running", "unknown model", "hang", "stall", "disconnect", "garbage", "server_error", "wrong_citation"]


@pytest.mark.parametrize("fault", ["not running", "hang", "stall", "server_error"])  # the others: test_ollama.py
def test_ask_with_ollama_failing_quotes_the_guides_and_says_why(fake_ollama, monkeypatch, capsys, fault):
    from fake_ollama import FAITHFUL, QUESTION

    reason = ollama_fault(fake_ollama, monkeypatch, fault)
    code, out, err = run_cli(capsys, "ask", "--generator", "auto", QUESTION)
    assert code == 0
    assert err == f"note: {reason}; answered extractively\n"
    assert out == run_cli(capsys, "ask", "--generator", "extractive", QUESTION)[1]  # the quotes, no partial model text
    assert out.splitlines()[-1].startswith("Sources: guide_")
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.url)  # Ollama is back: the same command gets the model's answer
    fake_ollama.scenario = "faithful"
    code, out, err = run_cli(capsys, "ask", "--generator", "auto", QUESTION)
    assert (code, err) == (0, "") and out.startswith(FAITHFUL + "\n")


def test_ask_keeps_going_after_ollama_fails_and_says_the_reason_once(fake_ollama, monkeypatch, capsys, tmp_path):
    from fake_ollama import QUESTION

    reason = ollama_fault(fake_ollama, monkeypatch, "hang")
    source = tmp_path / "questions.txt"
    source.write_text(f"{QUESTION}\n{BAKERY}\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "ask", "--json", "--generator", "auto", "--from", str(source))
    assert code == 0 and err == f"note: {reason}; answered extractively\n"
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["generator"] for r in records] == ["extractive", "extractive"]
    assert all(r["fallback_reason"] == f"{reason}; answered extractively" and r["citations"] for r in records)


def test_ask_shows_a_model_refusal_that_cites_as_a_plain_refusal(fake_ollama, capsys):
    from fake_ollama import QUESTION

    fake_ollama.scenario = "refusal_with_citation"
    code, out, err = run_cli(capsys, "ask", "--generator", "auto", QUESTION)
    assert (code, out, err) == (0, REFUSAL + "\n", "")
    code, out, _ = run_cli(capsys, "ask", "--json", "--generator", "auto", QUESTION)
    record = json.loads(out)
    assert record["refused"] and record["answer"] == REFUSAL and record["citations"] == []
    assert record["refusal_reason"] == "model" and record["generator"] == "ollama:llama3.2"


@pytest.mark.parametrize("fault", OLLAMA_FAULTS)
async def test_the_app_falls_back_on_any_ollama_fault_and_the_question_can_be_rerun(retriever, fake_ollama, monkeypatch, fault):
    from fake_ollama import FAITHFUL, QUESTION

    reason = ollama_fault(fake_ollama, monkeypatch, fault)
    app = GuideApp(generator="auto", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await paste_and_ask(pilot, QUESTION)
        answer = text_of(app, "#answer-text")
        quoted = answer_question(retriever, QUESTION, generator="extractive").text
        assert answer.startswith(f"Question: {QUESTION}\n\n{quoted}\n")  # the quotes; no partial model text
        assert "answered by extractive" in answer and "Sources" in answer
        assert f"fallback: {reason}; answered extractively" in answer
        assert f"fell back because {reason}" in visible(app)  # the status line says why, however long the answer
        assert_screen_is_safe(app)

        monkeypatch.setenv("OLLAMA_HOST", fake_ollama.url)  # Ollama is back (started, model pulled, fixed)
        monkeypatch.delenv("GUIDE_TUI_OLLAMA_MODEL", raising=False)
        for timeout in ("GUIDE_TUI_OLLAMA_TIMEOUT", "GUIDE_TUI_OLLAMA_FIRST_TOKEN_TIMEOUT"):  # the 1 s was for the fault
            monkeypatch.delenv(timeout)  # a busy test machine may take longer than that for a healthy first token
        fake_ollama.scenario = "faithful"
        await pilot.press("f5")  # re-run the question still in the field
        await settle(pilot)
        answer = text_of(app, "#answer-text")
        assert answer.startswith(f"Question: {QUESTION}\n\n{FAITHFUL}"), answer
        assert "answered by ollama:llama3.2" in answer and "fallback" not in answer


async def test_the_app_stays_responsive_while_ollama_is_silent(retriever, fake_ollama, monkeypatch):
    """Ollama streams a few words then goes quiet: the words show, typing still works, then the fallback."""
    from fake_ollama import QUESTION

    reason = ollama_fault(fake_ollama, monkeypatch, "stall", timeout=3)  # the keys below must come before it on a loaded machine
    app = GuideApp(generator="auto", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        field = await submit_and_go_on(pilot, QUESTION)
        for _ in range(200):  # the first words stream in
            if "The pubs in Kestrelford" in text_of(app, "#answer-text"):
                break
            await pilot.pause(0.05)
        assert "The pubs in Kestrelford" in text_of(app, "#answer-text"), "the model's first words never showed"
        assert app.query_one("#hits", HitsTable).row_count >= 5
        await pilot.press("end", *" again")  # the answer is still coming: the field takes keys meanwhile
        assert field.value == QUESTION + " again"
        assert "fallback" not in text_of(app, "#answer-text")
        await settle(pilot)
        answer = text_of(app, "#answer-text")
        assert f"fallback: {reason}; answered extractively" in answer and "answered by extractive" in answer


async def test_the_app_shows_a_model_refusal_that_cites_as_a_plain_refusal(retriever, fake_ollama):
    from fake_ollama import QUESTION

    fake_ollama.scenario = "refusal_with_citation"
    app = GuideApp(generator="auto", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await paste_and_ask(pilot, QUESTION)
        answer = text_of(app, "#answer-text")
        assert "REFUSED" in answer and "model refused" in answer and REFUSAL in answer and "No sources." in answer
        assert "guide_kestrelford.md" not in answer  # the citation the model streamed is not left on screen
