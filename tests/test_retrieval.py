"""Retrieval over the real bundled index: labelled questions land where they should, any text
is a safe question, the table shows exactly the numbers the JSON carries, and the gate refuses
off-topic questions."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from guide_tui.asked import asked_kinds
from guide_tui.cli import main
from guide_tui.inspection import explain
from guide_tui.questions import load_questions
from guide_tui.report import retrieval_table
from guide_tui.retrieval import REGION_LIST_LET_IN, TOP_K, Retriever, best_teacher, place_guides, query_analyzer

LABELLED = load_questions()
BY_ID = {q.id: q for q in LABELLED.questions}


def chunk_ids(retrieval) -> list[str]:
    return [hit.chunk.chunk_id for hit in retrieval.hits]


@pytest.mark.parametrize(
    ("question_id", "expected_rank"),
    [
        ("kestrelford-bakery-sellout", 1),
        ("brightwater-coach-stop", 1),
        ("bus-one-ticket-everywhere", 1),
        ("marchwood-last-train", 1),
        ("corry-vale-farm-shop-closing", 1),  # the asked-value bonus: "what time" -> the section that says 4pm
        ("easiest-town-no-hills", 1),  # the region bonus: no town named -> the accessibility guide
        ("minor-injuries-only", 2),  # behind one copy of the towns' shared Practical notes, not nine
    ],
)
def test_labelled_questions_rank_their_best_chunk(retriever, question_id: str, expected_rank: int) -> None:
    question = BY_ID[question_id]
    ids = chunk_ids(retriever.retrieve(question.text))
    assert question.expected_chunks[0] in ids, ids
    assert ids.index(question.expected_chunks[0]) + 1 == expected_rank, ids


def test_labelled_answerable_questions_meet_the_quality_targets(retriever) -> None:
    answerable = [q for q in LABELLED.questions if q.kind == "answerable"]
    rankings = [chunk_ids(retriever.retrieve(q.text)) for q in answerable]
    rank1 = sum(r[0] in q.expected_chunks for r, q in zip(rankings, answerable)) / len(answerable)
    hit5 = sum(any(c in q.expected_chunks for c in r) for r, q in zip(rankings, answerable)) / len(answerable)
    assert rank1 >= LABELLED.targets["rank1"] and hit5 >= LABELLED.targets["hit_at_5"], (rank1, hit5)


def test_a_text_shared_by_nine_guides_is_shown_once(retriever) -> None:
    retrieval = retriever.retrieve("Is the phone signal good, and where is the nearest full hospital?")
    bodies = [hit.chunk.body for hit in retrieval.hits]
    assert len(retrieval.hits) == TOP_K and len(set(bodies)) == len(bodies)
    assert sum(hit.chunk.section == "Practical notes" for hit in retrieval.hits) == 1


def test_vector_distance_is_the_best_sentence_distance(retriever, bundled_index) -> None:
    """The number in the 'distance (best sentence)' column is 1 - cos to the chunk's closest sentence vector."""
    question = BY_ID["givens-mill-tour-times"].text
    retrieval = retriever.retrieve(question)
    asked = bundled_index.embedder.encode([question])[0]
    for hit in retrieval.hits:
        units = [u for u in bundled_index.units if bundled_index.chunks[u.chunk] is hit.chunk]
        vectors = bundled_index.embedder.encode([u.embedded_text for u in units])
        distances = 1 - vectors @ asked
        assert hit.vector_distance == pytest.approx(distances.min(), abs=1e-4)
        assert hit.matched_sentence == units[int(np.argmin(distances))].text


def test_a_list_question_is_as_near_a_chunk_as_its_heading(retriever, bundled_index) -> None:
    """A list asks for a section: its distance from a chunk is the nearer of the best sentence and the heading in its
    guide ("Brightwater, What to see"), said as such; any other question's is the best sentence's."""
    listed = retriever.retrieve("What are the main sights in Brightwater?")
    top = listed.hits[0]
    assert (top.chunk.chunk_id, top.chunk.section) == ("guide_brightwater.md#3", "What to see") and listed.gate.passed
    heading = bundled_index.embedder.encode([f"{top.chunk.title}, {top.chunk.section}"])[0]
    asked = bundled_index.embedder.encode([listed.question])[0]
    assert top.by_heading and top.vector_distance == pytest.approx(1 - heading @ asked, abs=1e-4)
    assert top.vector_distance < top.sentence_distance  # the static model meets "sights" in the heading, not in a sentence
    assert top.to_json()["distance_of"] == "heading" and top.distance_text().endswith("h")
    assert "h = the distance of the chunk's heading" in render(listed, 120)
    asked_one = retriever.retrieve("How long should I allow for the Brightwater mill museum?")
    assert not any(hit.by_heading for hit in asked_one.hits)


def test_fused_order_and_cutoff_marks_are_consistent(retriever) -> None:
    for question in LABELLED.questions:
        retrieval = retriever.retrieve(question.text)
        fused = [hit.fused_score for hit in retrieval.hits]
        assert fused == sorted(fused, reverse=True)
        assert [hit.rank for hit in retrieval.hits] == list(range(1, len(retrieval.hits) + 1))
        for hit in retrieval.hits:
            assert hit.above_cutoff == (hit.vector_distance > retrieval.gate.cutoff and not hit.let_in)


LET_IN = "Travelling with my elderly dad who uses a wheelchair: can he get onto the trams in Marchwood without steps?"


def test_the_teacher_lets_in_a_chunk_about_the_town_asked_that_the_preamble_pushed_past_the_cutoff(retriever) -> None:
    retrieval = retriever.retrieve(LET_IN)
    cutoff = retrieval.gate.cutoff
    let_in = [hit for hit in retrieval.hits if hit.let_in]
    assert retrieval.gate.passed and let_in
    best = max(hit.teacher_similarity for hit in retrieval.hits)
    margin = retriever.fusion.teacher_let_in
    for hit in retrieval.hits:
        about = retriever.about(hit.chunk, {"Marchwood"})
        close = hit.teacher_similarity >= best - margin
        assert hit.let_in == (hit.vector_distance > cutoff and about and close)
    assert set(let_in) <= set(retrieval.within_cutoff)  # what every answerer may use
    assert any(hit.vector_distance > cutoff and retriever.about(hit.chunk, {"Marchwood"}) and not hit.let_in for hit in retrieval.hits)
    assert not retriever.about(retrieval.hits[0].chunk, {"Marchwood"})  # the Difficult section names no Marchwood

    strict = retriever.tuned(retriever.settings.with_value("teacher_let_in", 0.0)).retrieve(LET_IN)
    assert not any(hit.let_in for hit in strict.hits)
    assert {hit.chunk.chunk_id for hit in let_in} <= {hit.chunk.chunk_id for hit in strict.hits if hit.above_cutoff}
    no_town = retriever.retrieve(LET_IN.replace(" in Marchwood", ""))  # nothing says which chunks are its own
    assert not any(hit.let_in for hit in no_town.hits) and any(hit.above_cutoff for hit in no_town.hits)

    text = render(retrieval, 120)
    assert f"{let_in[0].vector_distance:.4f}t" in text and "t = beyond the cutoff but let in" in text
    assert text.index(let_in[0].chunk.chunk_id) < text.index("── cutoff")
    assert retrieval.to_json()["retrieved"][let_in[0].rank - 1]["let_in_by_teacher"] is True


REGION_LIST = "Which towns can I reach by train?"


def test_a_list_question_naming_no_town_lets_in_rows_within_a_wider_margin(retriever) -> None:
    """"Which towns ...?" names no town to say which chunks are its own, but its items lie in several guides: a row
    beyond the cutoff within REGION_LIST_LET_IN margins of the best teacher cosine is let in, from any guide."""
    retrieval = retriever.retrieve(REGION_LIST)
    cutoff, best = retrieval.gate.cutoff, best_teacher(retrieval.hits)
    margin = retriever.fusion.teacher_let_in * REGION_LIST_LET_IN
    assert retriever.let_in_margin(REGION_LIST, retriever.towns_in(REGION_LIST)) == margin > retriever.fusion.teacher_let_in
    for hit in retrieval.hits:
        assert hit.let_in == (hit.vector_distance > cutoff and hit.teacher_similarity >= best - margin)
    let_in = [hit for hit in retrieval.hits if hit.let_in]
    assert let_in and all(hit.teacher_similarity < best - retriever.fusion.teacher_let_in for hit in let_in)  # only the wider margin reaches them
    assert any(hit.above_cutoff for hit in retrieval.hits)  # and not every row: the margin still holds
    plain = "How do I get around by train?"
    assert retriever.let_in_margin(plain, retriever.towns_in(plain)) is None  # no town and no list: nothing is let in
    lines = explain(retriever, retrieval, let_in[0]).lines()
    assert f"the question asks for a list across the region and its teacher cosine {let_in[0].teacher_similarity:.4f} is within {margin:g}" in lines[-1]


def test_gate_refuses_every_off_topic_question_and_passes_answerable_ones(retriever) -> None:
    assert retriever.cutoff is not None
    off_topic = [q for q in LABELLED.questions if q.kind == "off_topic"]
    answerable = [q for q in LABELLED.questions if q.kind == "answerable"]
    assert off_topic and not any(retriever.retrieve(q.text).gate.passed for q in off_topic)
    refused = [q.id for q in answerable if not retriever.retrieve(q.text).gate.passed]
    assert len(refused) <= LABELLED.targets["answerable_refused_max"] * len(answerable), refused


# ---------------------------------------------------------------- any text is a safe question

HOSTILE = [
    "What's on in Kestrelford?",
    'the "bakery',
    "bakery\"'\"'",
    "time: 11am",
    "title:Kestrelford",
    "text:",
    "chunk_id:guide_kestrelford.md#2",
    "ordinal:[0 TO 99]",
    "(market",
    "market)",
    "[brackets] {braces} <angles>",
    "C++ and C#",
    "IN Kestrelford",
    "AND the market",
    "NOT a bakery",
    "OR",
    "+bakery -pub",
    "bakery~2 market^3 *",
    "/regex.*/",
    "\\",
    "''",
    "🙂🙂🙂",
    "Is the café open? ☕️",
    "Kestrelford\x00bakery\x07\x1b[31m",
    "\u202eylrae woh\u202c",
    "ｋｅｓｔｒｅｌｆｏｒｄ",
    "a" * 300,
    " \t\n ",
    "?",
    "£2",
    "When does the Kestrelford bakery sell out? " * 2500,  # ~100 kB
    "x" * 100_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=[f"hostile{n}" for n in range(len(HOSTILE))])
def test_hostile_text_never_raises(retriever, text: str) -> None:
    retrieval = retriever.retrieve(text)
    assert_well_formed(retrieval)
    json.dumps(retrieval.to_json())
    assert all(ch.isprintable() for ch in retrieval.question)


def test_a_huge_question_still_finds_its_chunk(retriever) -> None:
    retrieval = retriever.retrieve("When does the Kestrelford bakery sell out? " * 2500)
    assert retrieval.hits[0].chunk.chunk_id == "guide_kestrelford.md#2" and retrieval.gate.passed


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_a_safe_question(retriever, text: str) -> None:
    retrieval = retriever.retrieve(text)
    assert_well_formed(retrieval)
    json.dumps(retrieval.to_json())


def assert_well_formed(retrieval) -> None:
    """At most TOP_K distinct chunks, ranked 1, 2, ... by falling fused score; the gate's verdict matches its numbers."""
    hits = retrieval.hits
    assert len(hits) <= TOP_K and len({hit.chunk.chunk_id for hit in hits}) == len(hits)
    assert [hit.rank for hit in hits] == list(range(1, len(hits) + 1))
    assert all(a.fused_score >= b.fused_score for a, b in zip(hits, hits[1:]))
    gate = retrieval.gate
    assert gate.passed == (bool(hits) and (gate.cutoff is None or gate.best_distance <= gate.cutoff))


def test_query_analyser_cuts_words_exactly_as_the_index_en_stem_tokenizer(bundled_index) -> None:
    """Each word of the guides, analysed for a query, is the term tantivy's en_stem field tokenizer made of it."""
    analyzer = query_analyzer()
    words = sorted({w for chunk in bundled_index.chunks for w in re.findall(r"[^\W_]+", chunk.text)})
    assert len(words) > 1000
    for word in words:
        terms = analyzer.analyze(word)
        parsed = repr(bundled_index.keyword.parse_query(word, ["text"]))
        if not terms:
            assert "TermQuery" not in parsed, word
        else:
            assert terms == [re.search(r'type=Str, "([^"]*)"', parsed).group(1)], (word, parsed)


def test_every_query_term_of_a_chunk_finds_that_chunk(retriever, bundled_index) -> None:
    """Terms made by the query analyser exist in the keyword index: a chunk's own text finds the chunk first."""
    for n, chunk in enumerate(bundled_index.chunks):
        scores = retriever.keyword_scores(chunk.text)
        assert scores[n] > 0 and scores[n] == scores.max(), chunk.chunk_id


def test_questions_with_no_known_words_get_no_hits_and_are_refused(retriever) -> None:
    for text in ("", "   ", "\x00\x01", "🙂🙂"):
        retrieval = retriever.retrieve(text)
        assert retrieval.hits == [] and not retrieval.gate.passed and retrieval.gate.best_distance == 1.0


def test_place_guides_and_asked_values(bundled_index) -> None:
    places = place_guides(bundled_index.chunks)
    assert len(places) == 9 and places["guide_corry_vale.md"] == "Corry Vale"
    assert "guide_walking.md" not in places
    assert asked_kinds("What time does the shop shut?") and asked_kinds("How much is it?")
    assert asked_kinds("Tell me about the cathedral") == []


# ---------------------------------------------------------------- the table and the JSON say the same


def render(retrieval, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, highlight=False)
    console.print(retrieval_table(retrieval))
    return console.file.getvalue()


@pytest.mark.parametrize("width", [80, 120])
def test_table_numbers_equal_json_numbers(retriever, width: int) -> None:
    for question_id in ("kestrelford-pub-late-arrival", "walk-closed-in-wind", "off-python-reverse-list"):
        retrieval = retriever.retrieve(BY_ID[question_id].text)
        text = render(retrieval, width)
        assert all(len(line) <= width for line in text.splitlines())
        rows = {}
        for line in text.splitlines():
            match = re.match(r"\s*(\d+)\s+(guide_\S+#\d+)\s.*?(\d+\.\d{4})h?t?(?: ✗|  )?\s+(\d+\.\d{4})\s+(\d+\.\d{4}|-)\s+(\d+\.\d{4})\s*$", line)
            if match:
                teacher = None if match.group(5) == "-" else float(match.group(5))
                rows[match.group(2)] = (int(match.group(1)), float(match.group(3)), float(match.group(4)), teacher, float(match.group(6)))
        retrieved = retrieval.to_json()["retrieved"]
        assert len(rows) == len(retrieved) == TOP_K, text
        for item in retrieved:
            assert rows[item["chunk_id"]] == (
                item["rank"], item["vector_distance"], item["keyword_score"], item["teacher_similarity"], item["fused_score"]
            )


def test_table_draws_the_cutoff_and_marks_chunks_beyond_it(retriever) -> None:
    refused = retriever.retrieve(BY_ID["off-python-reverse-list"].text)
    text = render(refused, 120)
    assert f"cutoff {refused.gate.cutoff:.4f}" in text and "gate refused" in text
    assert text.index("── cutoff") < text.index(refused.hits[0].chunk.chunk_id)
    assert text.count("✗") == TOP_K + 1  # every row, and the caption's legend
    passed = retriever.retrieve(BY_ID["kestrelford-bakery-sellout"].text)
    assert "gate passed" in render(passed, 120)


# ---------------------------------------------------------------- the command


def test_retrieve_json_schema(capsys) -> None:
    questions = [BY_ID["kestrelford-bakery-sellout"].text, BY_ID["off-capital-australia"].text, ""]
    assert main(["retrieve", "--json", *questions]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    objects = [json.loads(line) for line in lines]
    for question, obj in zip(questions, objects):
        assert set(obj) == {"question", "implied_place", "slips", "retrieved", "gate", "within_cutoff"} and obj["question"] == question
        assert set(obj["gate"]) == {"best_distance", "cutoff", "calibrated_cutoff", "passed"}
        assert obj["gate"]["calibrated_cutoff"] == obj["gate"]["cutoff"]  # no knob moved it
        for item in obj["retrieved"]:
            assert set(item) == {
                "rank", "chunk_id", "file", "section", "vector_distance", "distance_of", "sentence_distance", "keyword_score",
                "teacher_similarity", "fused_score", "above_cutoff", "let_in_by_teacher", "parts",
            }
            assert item["distance_of"] == "sentence" and item["sentence_distance"] == item["vector_distance"]  # no list question
            assert item["teacher_similarity"] is None or -1.0 <= item["teacher_similarity"] <= 1.0
            assert isinstance(item["rank"], int) and item["chunk_id"].startswith(item["file"] + "#")
            assert all(isinstance(item[k], float) for k in ("vector_distance", "keyword_score", "fused_score"))
            assert item["above_cutoff"] == (item["vector_distance"] > obj["gate"]["cutoff"] and not item["let_in_by_teacher"])
    answerable, off_topic, empty = objects
    assert answerable["gate"]["passed"] and answerable["retrieved"][0]["chunk_id"] == "guide_kestrelford.md#2"
    assert len(answerable["retrieved"]) == TOP_K
    assert not off_topic["gate"]["passed"] and off_topic["gate"]["best_distance"] > off_topic["gate"]["cutoff"]
    cutoff = answerable["gate"]["cutoff"]
    assert empty["retrieved"] == [] and empty["gate"] == {"best_distance": 1.0, "cutoff": cutoff, "calibrated_cutoff": cutoff, "passed": False}


def test_retrieve_empty_question_says_so_instead_of_a_table(capsys) -> None:
    assert main(["retrieve", ""]) == 0
    out = capsys.readouterr().out
    assert "empty question" in out and "guide_" not in out


def test_retrieve_reads_questions_from_a_file(tmp_path, capsys) -> None:
    source = tmp_path / "questions.txt"
    source.write_text("When does the Kestrelford bakery sell out?\n\nHow do I reverse a list in Python?\n", encoding="utf-8")
    assert main(["retrieve", "--json", "--from", str(source)]) == 0
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["gate"]["passed"] for o in objects] == [True, False]


@pytest.mark.parametrize(
    "question",
    ["What are the opening hours of the musuem in Brightwater?", "Where can I stay on the headland?", "  When does the   bakery sell out? "],
)
def test_prepare_makes_the_vector_retrieve_ranks_with(bundled_index, retriever, question: str, monkeypatch) -> None:
    """The app prepares the question being typed: a slip respelt, a described place read in, spaces cleaned, as
    retrieve reads it, so retrieve after prepare encodes nothing and ranks exactly as without prepare."""
    prepared = Retriever(bundled_index)
    prepared.prepare(question)

    def no_second_encoding(texts):
        raise AssertionError(f"encoded again: {texts}")

    monkeypatch.setattr(prepared, "teacher_encode", no_second_encoding)
    expected = retriever.retrieve(question)
    found = prepared.retrieve(question)
    assert [hit.chunk.chunk_id for hit in found.hits] == [hit.chunk.chunk_id for hit in expected.hits]
    # to float32's last digits: headings are encoded in batches, whose padding depends on the questions asked before
    assert [hit.teacher_similarity for hit in found.hits] == pytest.approx([hit.teacher_similarity for hit in expected.hits], abs=1e-6)
