"""The Ollama answerer against a real HTTP server speaking Ollama's protocol (tests/fake_ollama.py)."""

from __future__ import annotations

import dataclasses
import json
import socket

import pytest
from fake_ollama import FAITHFUL, INVENTED_SENTENCE, QUESTION, WRONG_CITATION_SENTENCE

from guide_tui.answers import REFUSAL
from guide_tui.chunking import sentences
from guide_tui.errors import OllamaUnavailable
from guide_tui.ollama_answerer import (
    DEFAULT_MODEL,
    Timeouts,
    build_prompt,
    format_prompt,
    generate,
    probe,
)

QUICK = Timeouts(connect=1.0, read=1.0, first_token=1.0)


@pytest.fixture(scope="module")
def pubs_retrieval(retriever):
    return retriever.retrieve(QUESTION)


def ask(retrieval, bundled_index, **kwargs):
    """generate() with quick timeouts, returning (answer or error, streamed pieces)."""
    pieces: list[str] = []
    kwargs.setdefault("timeouts", QUICK)
    try:
        return generate(retrieval, QUESTION, bundled_index.embedder, on_text=pieces.append, **kwargs), pieces
    except OllamaUnavailable as err:
        return err, pieces


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_faithful_answer_streams_in_pieces_and_has_no_flags(fake_ollama, pubs_retrieval, bundled_index):
    answer, pieces = ask(pubs_retrieval, bundled_index)
    assert len(pieces) > 10
    assert "".join(pieces).strip() == answer.text == FAITHFUL
    assert not answer.refused
    assert answer.unsupported == [] and answer.invented_citations == []
    assert [c.chunk_id for c in answer.citations] == ["guide_kestrelford.md#2"]
    kestrelford_eat = next(h.chunk for h in pubs_retrieval.hits if h.chunk.chunk_id == "guide_kestrelford.md#2")
    assert all(c.quote in sentences(kestrelford_eat.text) for c in answer.citations)
    assert answer.model == DEFAULT_MODEL


def test_the_request_is_the_prompt_streamed_at_temperature_zero(fake_ollama, pubs_retrieval, bundled_index):
    ask(pubs_retrieval, bundled_index)
    (request,) = fake_ollama.requests
    assert request["model"] == DEFAULT_MODEL and request["stream"] is True
    assert request["options"]["temperature"] == 0
    assert request["messages"] == build_prompt(pubs_retrieval, QUESTION)
    assert format_prompt(request["messages"]) == format_prompt(build_prompt(pubs_retrieval, QUESTION))


def test_invented_claim_is_the_only_unsupported_sentence(fake_ollama, pubs_retrieval, bundled_index):
    fake_ollama.scenario = "invented_claim"
    answer, _ = ask(pubs_retrieval, bundled_index)
    assert answer.unsupported == [INVENTED_SENTENCE]
    assert answer.invented_citations == []
    assert [c.chunk_id for c in answer.citations] == ["guide_kestrelford.md#2"]


def test_citing_a_file_that_was_not_retrieved_is_flagged(fake_ollama, pubs_retrieval, bundled_index):
    assert "guide_marchwood.md" not in {h.chunk.file for h in pubs_retrieval.within_cutoff}
    fake_ollama.scenario = "wrong_citation"
    answer, _ = ask(pubs_retrieval, bundled_index)
    assert answer.invented_citations == ["guide_marchwood.md"]
    assert answer.unsupported == [WRONG_CITATION_SENTENCE]
    assert answer.citations == []


def test_refusal_with_a_citation_is_a_refusal_with_no_source(fake_ollama, pubs_retrieval, bundled_index):
    fake_ollama.scenario = "refusal_with_citation"
    answer, pieces = ask(pubs_retrieval, bundled_index)
    assert "guide_kestrelford.md" in "".join(pieces)
    assert answer.refused and answer.text == REFUSAL
    assert answer.citations == [] and answer.unsupported == [] and answer.invented_citations == []


@pytest.mark.parametrize(
    ("scenario", "reason", "partial"),
    [
        ("disconnect", "Ollama stopped mid-answer", True),
        ("stall", "Ollama timed out after 1 s", True),
        ("hang", "Ollama sent no first token within 1 s (the model may still be loading)", False),
        ("garbage", "Ollama sent a reply that is not its protocol", True),
        ("server_error", "Ollama error 500: llama runner process has terminated: signal: killed", False),
    ],
)
def test_broken_server_raises_unavailable_with_a_clear_reason(fake_ollama, pubs_retrieval, bundled_index, scenario, reason, partial):
    fake_ollama.scenario = scenario
    error, pieces = ask(pubs_retrieval, bundled_index)
    assert isinstance(error, OllamaUnavailable)
    assert error.reason == str(error) == reason
    assert bool(pieces) is partial  # partial text was streamed, and still no answer came back


def test_unknown_model_names_the_pull_command(fake_ollama, pubs_retrieval, bundled_index):
    error, _ = ask(pubs_retrieval, bundled_index, model="qwen2.5:0.5b")
    assert isinstance(error, OllamaUnavailable)
    assert error.reason == "Ollama has no model 'qwen2.5:0.5b' (ollama pull qwen2.5:0.5b)"


def test_model_comes_from_the_environment_unless_given(fake_ollama, pubs_retrieval, bundled_index, monkeypatch):
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_MODEL", "mistral")
    error, _ = ask(pubs_retrieval, bundled_index)
    assert error.reason == "Ollama has no model 'mistral' (ollama pull mistral)"
    answer, _ = ask(pubs_retrieval, bundled_index, model="llama3.2")
    assert answer.text == FAITHFUL


def test_nothing_listening_is_not_reachable(pubs_retrieval, bundled_index, monkeypatch):
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("OLLAMA_HOST", url)
    error, pieces = ask(pubs_retrieval, bundled_index)
    assert isinstance(error, OllamaUnavailable)
    assert error.reason == f"Ollama not reachable at {url}"
    assert pieces == []


def test_unusable_ollama_host_is_a_clear_reason(pubs_retrieval, bundled_index, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://[::1")
    error, _ = ask(pubs_retrieval, bundled_index)
    assert isinstance(error, OllamaUnavailable)
    assert error.reason.startswith("Ollama address 'http://[::1' is not usable")


def test_read_timeout_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_TIMEOUT", "1.5")
    assert Timeouts.from_env().read == 1.5
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_TIMEOUT", "soon")
    assert Timeouts.from_env() == Timeouts()
    monkeypatch.delenv("GUIDE_TUI_OLLAMA_TIMEOUT")
    assert Timeouts.from_env().read == Timeouts().read


def test_hang_through_the_environment_timeout(fake_ollama, pubs_retrieval, bundled_index, monkeypatch):
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_FIRST_TOKEN_TIMEOUT", "1")
    fake_ollama.scenario = "hang"
    error, _ = ask(pubs_retrieval, bundled_index, timeouts=None)
    assert error.reason == "Ollama sent no first token within 1 s (the model may still be loading)"


def test_probe_reports_server_and_model(fake_ollama):
    status = probe()
    assert status.reachable and status.model_available
    assert status.detail == f"Ollama 0.9.0 at {fake_ollama.url}, model llama3.2"
    missing = probe(model="mistral")
    assert missing.reachable and not missing.model_available
    assert missing.detail == "Ollama has no model 'mistral' (ollama pull mistral)"


def test_probe_never_raises_when_ollama_is_absent():
    url = f"http://127.0.0.1:{free_port()}"
    status = probe(host=url)
    assert not status.reachable and not status.model_available
    assert status.detail == f"Ollama not reachable at {url}"
    assert not probe(host="http://[::1").reachable


def test_prompt_labels_every_chunk_and_states_the_rules(pubs_retrieval):
    messages = build_prompt(pubs_retrieval, QUESTION)
    shown = format_prompt(messages)
    for hit in pubs_retrieval.within_cutoff:
        assert f'[{hit.chunk.file}], section "{hit.chunk.section}"' in shown
        assert hit.chunk.text.strip() in shown
    assert f"reply exactly with: {REFUSAL}" in shown
    assert "like [guide_kestrelford.md]" in shown
    assert '"serves food seven days a week" does not mean a meal is available on a Sunday evening' in shown
    assert messages[-1]["content"].endswith(f"Question: {QUESTION}")


def test_chunks_beyond_the_cutoff_stay_out_of_the_prompt(pubs_retrieval, bundled_index):
    far = pubs_retrieval.hits[-1]
    cut = dataclasses.replace(
        pubs_retrieval, hits=[dataclasses.replace(h, above_cutoff=h is far) for h in pubs_retrieval.hits]
    )
    assert far not in cut.within_cutoff
    assert f"section \"{far.chunk.section}\" ===\n{far.chunk.text.strip()}" not in format_prompt(build_prompt(cut, QUESTION))
    nothing = dataclasses.replace(pubs_retrieval, hits=[dataclasses.replace(h, above_cutoff=True) for h in pubs_retrieval.hits])
    with pytest.raises(ValueError):
        generate(nothing, QUESTION, bundled_index.embedder)


def test_question_control_characters_never_reach_the_prompt(pubs_retrieval):
    messages = build_prompt(pubs_retrieval, "When do the pubs\x1b[31m serve\x00 food?")
    assert messages[-1]["content"].endswith("Question: When do the pubs [31m serve food?")


def run_ask(capsys, *argv: str) -> tuple[int, str, str]:
    from guide_tui import cli

    code = cli.main(["ask", "--generator", "auto", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_ask_prints_the_model_answer_with_its_flagged_sentence(fake_ollama, capsys):
    fake_ollama.scenario = "invented_claim"
    code, out, err = run_ask(capsys, QUESTION)
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"{FAITHFUL} {INVENTED_SENTENCE}",
        f"Not supported by the guides: {INVENTED_SENTENCE}",
        '  why: gives days ("Sunday") the guide does not; the guide: "The pubs in Kestrelford serve food from 12 to 2 '
        'and again from 6 to 8:30." (guide_kestrelford.md, Eat and drink)',
        "Sources: guide_kestrelford.md (Eat and drink)",
    ]


def test_cli_ask_json_names_the_model_and_its_checks(fake_ollama, capsys):
    fake_ollama.scenario = "wrong_citation"
    _, out, err = run_ask(capsys, "--json", "--model", "llama3.2", QUESTION)
    record = json.loads(out)
    assert record["generator"] == "extractive"  # an answer with no supported sentence is not used
    assert record["fallback_reason"] == (
        "ollama:llama3.2's answer cited a guide that does not say it (another guide it was shown does); answered extractively"
    )
    fake_ollama.scenario = "faithful"
    _, out, _ = run_ask(capsys, "--json", QUESTION)
    record = json.loads(out)
    assert record["generator"] == "ollama:llama3.2" and record["answer"] == FAITHFUL
    assert record["unsupported"] == [] and record["invented_citations"] == []
    assert [c["chunk_id"] for c in record["citations"]] == ["guide_kestrelford.md#2"]


def test_cli_show_prompt_is_exactly_what_the_server_received(fake_ollama, capsys):
    _, out, _ = run_ask(capsys, "--show-prompt", QUESTION)
    (request,) = fake_ollama.requests
    shown = format_prompt(request["messages"])
    assert out.startswith(shown + "\n----- answer -----\n" + FAITHFUL + "\n")


@pytest.mark.parametrize(
    ("scenario", "model", "note"),
    [
        ("disconnect", None, "Ollama stopped mid-answer"),
        ("garbage", None, "Ollama sent a reply that is not its protocol"),
        ("faithful", "nosuch", "Ollama has no model 'nosuch' (ollama pull nosuch)"),
    ],
)
def test_cli_falls_back_to_quotes_and_says_why_on_stderr(fake_ollama, capsys, scenario, model, note):
    fake_ollama.scenario = scenario
    from guide_tui import cli

    code, out, err = run_ask(capsys, QUESTION, *(["--model", model] if model else []))
    assert code == 0
    assert err == f"note: {note}; answered extractively\n"
    cli.main(["ask", "--generator", "extractive", QUESTION])
    assert out == capsys.readouterr().out  # the quoted answer, with no partial model text in it


def test_an_answer_with_nothing_the_guides_say_is_said_to_have_no_support(fake_ollama, capsys, monkeypatch):
    import fake_ollama as fake

    monkeypatch.setitem(fake.ANSWERS, "invented_only", INVENTED_SENTENCE)
    fake_ollama.scenario = "invented_only"
    _, out, _ = run_ask(capsys, "--json", QUESTION)
    assert json.loads(out)["fallback_reason"] == "ollama:llama3.2's answer had no support in the retrieved guides; answered extractively"


def test_the_first_token_and_the_tokens_after_it_have_their_own_timeouts(monkeypatch):
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_TIMEOUT", "7")
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_FIRST_TOKEN_TIMEOUT", "600")
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_KEEP_ALIVE", "30m")
    assert Timeouts.from_env() == Timeouts(read=7.0, first_token=600.0, keep_alive="30m")
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_FIRST_TOKEN_TIMEOUT", "-1")
    assert Timeouts.from_env().first_token == Timeouts().first_token


def test_a_slow_first_token_is_waited_for_and_a_stall_after_it_is_not(fake_ollama, pubs_retrieval, bundled_index):
    """The first token may come late (a model loading); silence after it gets the shorter timeout."""
    fake_ollama.scenario = "faithful"
    fake_ollama.token_delay = 0.6  # longer than the between-tokens timeout below, shorter than the first-token one
    error, _ = ask(pubs_retrieval, bundled_index, timeouts=Timeouts(connect=1.0, read=0.3, first_token=2.0))
    assert isinstance(error, OllamaUnavailable) and error.reason == "Ollama timed out after 0.3 s"
    fake_ollama.scenario = "stall"
    fake_ollama.token_delay = 0.0
    error, pieces = ask(pubs_retrieval, bundled_index, timeouts=Timeouts(connect=1.0, read=0.5, first_token=5.0))
    assert error.reason == "Ollama timed out after 0.5 s" and pieces  # the tokens came, then the silence


@pytest.mark.parametrize("scenario", ["stall", "hang"])
def test_the_stop_event_closes_a_silent_stream_at_once(fake_ollama, pubs_retrieval, bundled_index, scenario):
    """Esc in the app sets it: the connection closes though no token comes to notice it (a real Ollama then
    stops generating, which would otherwise hold up the next question for the whole read timeout)."""
    import threading
    import time

    from guide_tui.errors import GenerationStopped

    fake_ollama.scenario = scenario
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    started = time.monotonic()
    with pytest.raises(GenerationStopped):
        generate(pubs_retrieval, QUESTION, bundled_index.embedder, timeouts=Timeouts(read=20.0, first_token=20.0), stop=stop)
    assert time.monotonic() - started < 3.0
    for _ in range(100):
        if fake_ollama.closed_early:
            break
        time.sleep(0.02)
    assert fake_ollama.closed_early


def test_every_request_asks_for_a_reproducible_answer_and_the_keep_alive(fake_ollama, pubs_retrieval, bundled_index):
    ask(pubs_retrieval, bundled_index, timeouts=Timeouts(keep_alive="10m"))
    (request,) = fake_ollama.requests
    assert request["options"] == {"temperature": 0, "seed": 42} and request["keep_alive"] == "10m"


# ---------------------------------------------------------------- why a sentence is flagged, end to end


@pytest.mark.parametrize(
    ("scenario", "kind", "words", "source"),
    [
        ("flipped_time", "value", ['"11pm"', '"11am"'], "The Kestrelford bakery sells out by 11am."),
        ("flipped_denial", "polarity", ["says what the guide denies"], "Outside those pub serving times there is nowhere in Kestrelford to get a meal."),
        ("moved_fact", "place", ["Kestrelford"], None),
    ],
)
def test_ask_json_gives_the_reason_and_source_of_each_flagged_sentence(fake_ollama, capsys, scenario, kind, words, source):
    from fake_ollama import FIRST_FACT, FLIPPED

    fake_ollama.scenario = scenario
    code, out, err = run_ask(capsys, "--json", QUESTION)
    record = json.loads(out)
    assert code == 0 and err == "" and record["generator"] == "ollama:llama3.2"
    assert record["unsupported"] == [FLIPPED[scenario]]
    (why,) = record["unsupported_reasons"]
    assert why["sentence"] == FLIPPED[scenario] and why["kind"] == kind
    assert all(word in why["reason"] for word in words), why["reason"]
    if source:
        assert why["source"]["quote"] == source
    assert set(why["source"]) == {"file", "section", "chunk_id", "quote", "shown"}
    assert [c["quote"] for c in record["citations"]] == ["The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30."]
    assert FIRST_FACT not in record["unsupported"] and record["check_note"] is None


def test_a_faithful_paraphrase_streams_through_unflagged(fake_ollama, capsys):
    from fake_ollama import PARAPHRASED

    fake_ollama.scenario = "paraphrased"
    _, out, _ = run_ask(capsys, "--json", QUESTION)
    record = json.loads(out)
    assert record["generator"] == "ollama:llama3.2" and record["answer"] == PARAPHRASED
    assert record["unsupported"] == [] and record["unsupported_reasons"] == []
    assert {c["chunk_id"] for c in record["citations"]} == {"guide_kestrelford.md#2"}


def test_ask_prints_why_under_each_flagged_sentence(fake_ollama, capsys):
    from fake_ollama import FLIPPED

    fake_ollama.scenario = "flipped_time"
    _, out, _ = run_ask(capsys, QUESTION)
    lines = out.splitlines()
    at = lines.index(f"Not supported by the guides: {FLIPPED['flipped_time']}")
    assert lines[at + 1] == (
        '  why: says "11pm" where the guide says "11am"; the guide: "The Kestrelford bakery sells out by 11am." '
        "(guide_kestrelford.md, Eat and drink)"
    )


# ---------------------------------------------------------------- the optional grounding model


@pytest.fixture
def grounding(fake_ollama, monkeypatch):
    """The fake server also serves bespoke-minicheck, and GUIDE_TUI_GROUNDING_MODEL turns the check on."""
    from fake_ollama import GROUNDING_MODEL

    fake_ollama.models.append(f"{GROUNDING_MODEL}:latest")
    monkeypatch.setenv("GUIDE_TUI_GROUNDING_MODEL", GROUNDING_MODEL)
    return fake_ollama


def test_the_grounding_model_is_off_by_default(fake_ollama, capsys):
    fake_ollama.models.append("bespoke-minicheck:latest")  # present, but not asked for
    _, out, _ = run_ask(capsys, "--json", QUESTION)
    record = json.loads(out)
    assert fake_ollama.grounding_requests == [] and record["check_note"] is None


def test_the_grounding_model_checks_each_supported_sentence_and_can_flag_one(grounding, capsys, pubs_retrieval):
    from fake_ollama import FAITHFUL

    second = FAITHFUL.split("]. ")[1]
    grounding.verdicts["Outside those hours there is nowhere in Kestrelford to get a meal."] = "No"
    _, out, _ = run_ask(capsys, "--json", QUESTION)
    record = json.loads(out)
    assert record["generator"] == "ollama:llama3.2"
    assert record["check_note"] == "also checked by bespoke-minicheck: 2 sentences, 1 not supported"
    (why,) = record["unsupported_reasons"]
    assert why["sentence"] == second and why["kind"] == "grounding"
    assert why["reason"] == "bespoke-minicheck finds no support for it in guide_kestrelford.md § Eat and drink"
    assert [c["chunk_id"] for c in record["citations"]] == ["guide_kestrelford.md#2"]
    shown = "\n\n".join(h.chunk.text.strip() for h in pubs_retrieval.within_cutoff if h.chunk.file == "guide_kestrelford.md")
    first, other = grounding.grounding_requests  # the document: what the model was shown of the guide it cited
    assert first["model"] == "bespoke-minicheck" and first["stream"] is False and first["options"]["temperature"] == 0
    assert first["messages"] == [{"role": "user", "content": f"Document: {shown}\nClaim: {FAITHFUL.split(' [')[0]}."}]
    assert other["messages"][0]["content"].endswith("\nClaim: Outside those hours there is nowhere in Kestrelford to get a meal.")


def test_the_grounding_note_is_printed_by_ask(grounding, capsys):
    _, out, _ = run_ask(capsys, QUESTION)
    assert out.splitlines()[-1] == "Claim check: also checked by bespoke-minicheck: 2 sentences, all supported"


def test_a_slow_grounding_model_times_out_and_the_built_in_verdicts_stand(grounding, capsys, monkeypatch):
    import time

    monkeypatch.setenv("GUIDE_TUI_GROUNDING_TIMEOUT", "1")
    grounding.grounding_stall = True
    grounding.scenario = "invented_claim"
    started = time.monotonic()
    _, out, _ = run_ask(capsys, "--json", QUESTION)
    record = json.loads(out)
    assert time.monotonic() - started < 10
    assert record["generator"] == "ollama:llama3.2"
    assert record["check_note"] == "grounding model bespoke-minicheck: timed out after 1 s; built-in check only"
    assert [w["kind"] for w in record["unsupported_reasons"]] == ["value"]  # the built-in check's flag is kept
    assert len(grounding.grounding_requests) == 1  # no second wait after the first timeout


def test_a_missing_grounding_model_is_a_note_not_a_failure(fake_ollama, capsys, monkeypatch):
    monkeypatch.setenv("GUIDE_TUI_GROUNDING_MODEL", "bespoke-minicheck")
    _, out, _ = run_ask(capsys, "--json", QUESTION)
    record = json.loads(out)
    assert record["generator"] == "ollama:llama3.2" and record["unsupported"] == []
    assert record["check_note"] == (
        "grounding model bespoke-minicheck: Ollama has no model 'bespoke-minicheck' (ollama pull bespoke-minicheck); built-in check only"
    )


def test_grounding_settings_come_from_the_environment(monkeypatch):
    from guide_tui.grounding import Grounding

    monkeypatch.delenv("GUIDE_TUI_GROUNDING_MODEL", raising=False)
    assert Grounding.from_env().model is None
    monkeypatch.setenv("GUIDE_TUI_GROUNDING_MODEL", " bespoke-minicheck ")
    monkeypatch.setenv("GUIDE_TUI_GROUNDING_TIMEOUT", "5")
    assert Grounding.from_env() == Grounding("bespoke-minicheck", 5.0)
    monkeypatch.setenv("GUIDE_TUI_GROUNDING_TIMEOUT", "soon")
    assert Grounding.from_env() == Grounding("bespoke-minicheck")
