"""`guide-tui ask` through cli.main: plain answers with sources, --json, --from FILE, --show-prompt."""

from __future__ import annotations

import json

from conftest import CLOSED_OLLAMA

from guide_tui import cli
from guide_tui.answers import REFUSAL

BAKERY = "When does the Kestrelford bakery sell out?"
CINEMA = "Is there a cinema in Kestrelford?"
HOSPITAL = "Where is the nearest full hospital?"


def ask(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["ask", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_plain_answer_then_its_sources(capsys) -> None:
    code, out, _ = ask(capsys, "--generator", "extractive", BAKERY)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Kestrelford's guide says: \"The Kestrelford bakery sells out by 11am.\""
    assert lines[-1].startswith("Sources: guide_kestrelford.md (Eat and drink)")


def test_multi_guide_answer_lists_every_source_on_one_unwrapped_line(capsys) -> None:
    _, out, _ = ask(capsys, "--generator", "extractive", BAKERY)
    quotes, sources = out.splitlines()[:-1], out.splitlines()[-1]
    assert len(quotes) == 2 and max(len(line) for line in quotes) > 80  # no wrapping at the terminal width
    assert sources == "Sources: guide_kestrelford.md (Eat and drink), guide_eating.md (Local specifics)"


def test_refusal_is_the_sentence_alone_with_no_sources(capsys) -> None:
    code, out, _ = ask(capsys, "--generator", "extractive", CINEMA)
    assert code == 0 and out == REFUSAL + "\n"


def test_json_is_the_answer_record_with_retrieval_as_retrieve_prints_it(capsys) -> None:
    _, out, _ = ask(capsys, "--json", "--generator", "extractive", BAKERY)
    record = json.loads(out)
    assert {"question", "refused", "answer", "generator", "citations", "unsupported", "retrieved", "gate", "fallback_reason"} <= set(record)
    assert record["refused"] is False and record["generator"] == "extractive" and record["fallback_reason"] is None
    assert record["citations"][0] == {
        "file": "guide_kestrelford.md",
        "section": "Eat and drink",
        "chunk_id": "guide_kestrelford.md#2",
        "quote": "The Kestrelford bakery sells out by 11am.",
        "shown": True,
    }
    cli.main(["retrieve", "--json", BAKERY])
    retrieved = json.loads(capsys.readouterr().out)
    assert record["retrieved"] == retrieved["retrieved"] and record["gate"] == retrieved["gate"]


def test_json_refusal_has_no_citations(capsys) -> None:
    _, out, _ = ask(capsys, "--json", "--generator", "extractive", CINEMA)
    record = json.loads(out)
    assert record["refused"] is True and record["answer"] == REFUSAL and record["citations"] == []
    assert record["refusal_reason"] == "answerability"


def test_from_file_answers_every_line_in_order_in_one_process(capsys, tmp_path) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text(f"{BAKERY}\n\n{CINEMA}\n{HOSPITAL} [/]\n", encoding="utf-8")  # [/] would be a Rich markup error
    _, out, _ = ask(capsys, "--json", "--generator", "extractive", "--from", str(questions))
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["question"] for r in records] == [BAKERY, CINEMA, f"{HOSPITAL} [/]"]
    assert [r["refused"] for r in records] == [False, True, False]
    _, out, _ = ask(capsys, "--generator", "extractive", "--from", str(questions))
    assert f"Q: {BAKERY}\n" in out and f"Q: {CINEMA}\n{REFUSAL}\n" in out
    assert f"Q: {HOSPITAL} [/]\n" in out  # printed literally, never read as markup


def test_auto_without_ollama_says_so_once_on_stderr(capsys, monkeypatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", CLOSED_OLLAMA)
    _, out, err = ask(capsys, BAKERY, "When do the pubs in Kestrelford serve food?")
    assert err.count("note: ") == 1
    assert f"Ollama not reachable at {CLOSED_OLLAMA}; answered extractively" in err
    assert out.count("Sources: ") == 2


def test_show_prompt_prints_what_ollama_is_sent(capsys) -> None:
    _, out, _ = ask(capsys, "--show-prompt", "--generator", "extractive", BAKERY)
    prompt, answer = out.split("----- answer -----\n")
    assert prompt.startswith("----- system -----\n")
    assert "Document [guide_kestrelford.md]" in prompt and f"Question: {BAKERY}" in prompt
    assert answer.startswith("Kestrelford's guide says:")
    _, out, _ = ask(capsys, "--json", "--show-prompt", "--generator", "extractive", BAKERY)
    assert json.loads(out)["prompt"] == prompt.rstrip("\n")


def test_missing_index_is_a_clear_error(capsys, tmp_path) -> None:
    code, out, err = ask(capsys, "--index", str(tmp_path / "nowhere"), BAKERY)
    assert code == 2 and out == ""
    assert "guide-tui: " in err and "guide-tui index" in err
