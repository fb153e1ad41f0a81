"""The tuning workbench's numbers on the real bundled index: why each row ranks (the fused score's parts),
the cutoff line, where an expected chunk went, failure classes in `eval`, and the Markdown exports."""

from __future__ import annotations

import json
import re

import pytest

from guide_tui.answering import answer_question
from guide_tui.cli import main
from guide_tui.evaluation import FAILURE_CLASSES
from guide_tui.inspection import LOOK_PAST, explain, locate_expected, word_stems
from guide_tui.questions import load_questions
from guide_tui.retrieval import FUSED_PARTS, rounded_values, sum_parts

BAKERY = "When does the Kestrelford bakery sell out?"
COACH = "Where do long-distance coaches stop in Brightwater?"  # the fused order puts a chunk beyond the cutoff at rank 4
NOT_SAID = "no guide says this phrase"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- why this rank


def test_the_fused_score_is_exactly_the_sum_of_its_weighted_parts(retriever):
    """For every labelled question and every hit of its top 20: the parts add up to the fused score to the
    last bit, the shown (rounded) parts add up to the shown fused score, and the order is the parts' sum."""
    fusion = retriever.fusion
    weights = {
        "vector": fusion.vector_weight, "keyword": 1 - fusion.vector_weight, "region_bonus": fusion.region_bonus,
        "asked_value_bonus": fusion.asked_value_bonus, "teacher": fusion.teacher_weight,
    }  # fmt: skip
    bonuses_seen = {"region_bonus": 0, "asked_value_bonus": 0, "teacher": 0}
    for question in load_questions().questions:
        hits = retriever.retrieve(question.text, k=LOOK_PAST).hits
        for hit in hits:
            parts = {part.name: part for part in hit.parts}
            assert tuple(parts) == FUSED_PARTS
            assert {name: part.weight for name, part in parts.items()} == weights
            assert all(0.0 <= part.scaled <= 1.0 for part in hit.parts)
            assert sum_parts(lambda name: parts[name].value) == hit.fused_score
            shown = rounded_values(hit.parts)
            assert round(sum(shown) * 10_000) == round(round(hit.fused_score, 4) * 10_000)
            assert all(abs(s - part.value) <= 0.0001 + 1e-12 for s, part in zip(shown, hit.parts))
            assert (parts["teacher"].scaled > 0) <= (hit.teacher_similarity is not None)  # only pooled chunks get a teacher part
            for name in bonuses_seen:
                bonuses_seen[name] += parts[name].value > 0
        pooled = [hit.fused_score for hit in hits[: fusion.teacher_pool]]
        assert pooled == sorted(pooled, reverse=True)
    assert all(bonuses_seen.values()), bonuses_seen  # every part is exercised by the labelled questions


def test_retrieve_json_carries_the_parts_and_the_chunks_within_the_cutoff(capsys):
    code, out, _ = run_cli(capsys, "retrieve", "--json", "--k", "20", COACH)
    record = json.loads(out)
    assert code == 0 and len(record["retrieved"]) == 20
    for hit in record["retrieved"]:
        assert list(hit["parts"]) == list(FUSED_PARTS)
        assert round(sum(part["value"] for part in hit["parts"].values()), 4) == hit["fused_score"]
        assert all(part["value"] == pytest.approx(part["weight"] * part["scaled"], abs=2e-4) for part in hit["parts"].values())
    top_5 = [hit["chunk_id"] for hit in record["retrieved"][:5] if not hit["above_cutoff"]]
    assert record["within_cutoff"] == top_5  # an answer is given the top 5 only, however far the table looks
    assert any(not hit["above_cutoff"] for hit in record["retrieved"][5:]), "some chunk past the top 5 is within the cutoff"
    assert "matched_terms" not in record["retrieved"][0]  # only with --why


def test_retrieve_why_prints_each_rows_parts_terms_and_best_sentence(capsys, retriever):
    code, out, _ = run_cli(capsys, "retrieve", "--why", BAKERY)
    assert code == 0
    top = retriever.retrieve(BAKERY).hits[0]
    block = out.split(f"#1 {top.chunk.chunk_id}\n", 1)[1].split("\n#2 ", 1)[0]
    sum_line, terms_line, sentence_line = block.splitlines()[:3]
    fused, rest = re.fullmatch(r"\s+fused (\d+\.\d{4}) = (.*)", sum_line).groups()
    shown = [float(value) for value in re.findall(r"= (\d+\.\d{4})", rest)]
    assert fused == f"{top.fused_score:.4f}" and len(shown) == len(FUSED_PARTS)
    assert f"{sum(shown):.4f}" == fused
    assert "vector 0.7 ×" in rest and "teacher 1.5 ×" in rest
    assert terms_line.strip().startswith("terms matched: ") and "bakeri" in terms_line
    assert sentence_line.strip() == f"best sentence (distance {top.vector_distance:.4f}): {top.matched_sentence}"
    code, out, _ = run_cli(capsys, "retrieve", "--json", "--why", BAKERY)
    first = json.loads(out)["retrieved"][0]
    assert "bakeri" in first["matched_terms"] and first["best_sentence"] == top.matched_sentence


def test_retrieve_why_says_when_a_rows_distance_is_its_headings(capsys, retriever):
    sights = "What are the main sights in Brightwater?"
    code, out, _ = run_cli(capsys, "retrieve", "--why", sights)
    top = retriever.retrieve(sights).hits[0]
    block = out.split(f"#1 {top.chunk.chunk_id}\n", 1)[1].split("\n#2 ", 1)[0]
    heading_line, sentence_line = block.splitlines()[2:4]
    assert code == 0 and top.by_heading
    why = "nearer than its best sentence; a list question or a section's topic"
    assert heading_line.strip() == f"heading (distance {top.vector_distance:.4f}, {why}): Brightwater, What to see"
    assert sentence_line.strip() == f"best sentence (distance {top.sentence_distance:.4f}): {top.matched_sentence}"


def test_matched_words_are_the_chunk_words_whose_stems_the_question_holds(retriever):
    retrieval = retriever.retrieve(BAKERY)
    hit = retrieval.hits[0]
    why = explain(retriever, retrieval, hit)
    assert set(why.matched_terms) <= set(retriever.query_terms(BAKERY))
    words = {hit.chunk.text[start:end].lower() for start, end in why.matched_words}
    assert {"kestrelford", "bakery", "sells"} <= words
    assert "11am" not in words  # in the chunk, not in the question
    stems = {stem for _, _, stem in word_stems(retriever, hit.chunk.text)}
    assert set(why.matched_terms) == stems & set(retriever.query_terms(BAKERY))


def test_an_answers_quotes_are_marked_on_their_rows(retriever):
    retrieval = retriever.retrieve(BAKERY)
    answer = answer_question(retriever, BAKERY, generator="extractive", retrieval=retrieval)
    cited = {c.chunk_id for c in answer.citations}
    for hit in retrieval.hits:
        quoted = explain(retriever, retrieval, hit, answer).quoted
        assert bool(quoted) == (hit.chunk.chunk_id in cited)
        assert all(quote in " ".join(hit.chunk.text.split()) for quote in quoted)


# ---------------------------------------------------------------- the cutoff line


@pytest.mark.parametrize("k", ["5", "20"])
def test_rows_above_the_cutoff_line_are_exactly_the_chunks_the_answer_may_use(capsys, retriever, k):
    """Text, Markdown and JSON agree: above the line the top 5's chunks within the cutoff, then every other row
    (past the top 5 too, within the cutoff or not: the answer is given the top 5 only)."""
    retrieval = retriever.retrieve(COACH)
    ranks = [hit.above_cutoff for hit in retrieval.hits]
    assert True in ranks and ranks.index(True) < len(ranks) - 1 - ranks[::-1].index(False)  # a ✗ row ranks above a usable one
    within = [hit.chunk.chunk_id for hit in retrieval.within_cutoff]
    beyond = [hit.chunk.chunk_id for hit in retriever.retrieve(COACH, k=int(k)).hits if hit.chunk.chunk_id not in within]
    _, out, _ = run_cli(capsys, "retrieve", "--json", "--k", k, COACH)
    assert json.loads(out)["within_cutoff"] == within
    for flag in ("", "--markdown"):
        _, out, _ = run_cli(capsys, "retrieve", "--k", k, *([flag] if flag else []), COACH)
        lines = out.splitlines()
        line = next(n for n, text in enumerate(lines) if "cutoff 0." in text and "──" in text or "**cutoff" in text)
        row_of = {chunk_id: next(n for n, text in enumerate(lines) if chunk_id in text) for chunk_id in within + beyond}
        assert [c for c in within + beyond if row_of[c] < line] == within, flag
        assert [c for c in within + beyond if row_of[c] > line] == beyond, flag
        assert sorted(row_of.values()) == [row_of[c] for c in within + beyond]  # each side in rank order


# ---------------------------------------------------------------- looking past the top 5


def test_retrieve_k_widens_the_table_and_keeps_the_top_5(capsys, retriever):
    wide = retriever.retrieve(BAKERY, k=LOOK_PAST)
    assert [h.chunk.chunk_id for h in wide.hits[:5]] == [h.chunk.chunk_id for h in retriever.retrieve(BAKERY).hits]
    _, out, _ = run_cli(capsys, "retrieve", "--k", "20", BAKERY)
    assert all(hit.chunk.chunk_id in out for hit in wide.hits) and len(wide.hits) == 20
    assert run_cli(capsys, "retrieve", "--k", "0", BAKERY) == (2, "", "guide-tui: --k must be at least 1\n")
    with pytest.raises(SystemExit) as caught:
        main(["retrieve", "--json", "--markdown", BAKERY])
    assert caught.value.code == 2


def test_an_expected_chunk_below_the_top_5_is_located(retriever):
    wide = retriever.retrieve(BAKERY, k=LOOK_PAST).hits
    eighth = wide[7]
    place = locate_expected(retriever, BAKERY, [eighth.chunk.chunk_id], shown=retriever.retrieve(BAKERY))
    assert (place.rank, place.distance) == (8, eighth.vector_distance)
    assert place.line() == f"expected {eighth.chunk.chunk_id} -> rank 8, distance {eighth.vector_distance:.4f}"
    ranked = {h.chunk.chunk_id for h in wide}
    far = next(c.chunk_id for c in retriever.index.chunks if c.chunk_id not in ranked)
    assert locate_expected(retriever, BAKERY, [far]).line() == f"expected {far} -> not in the top 20"
    both = locate_expected(retriever, BAKERY, [far, eighth.chunk.chunk_id])
    assert both.chunk_id == eighth.chunk.chunk_id  # the best-ranked of the expected chunks
    assert locate_expected(retriever, BAKERY, []) is None


# ---------------------------------------------------------------- failure classes


def toml_question(qid: str, text: str, kind: str, chunks: list[str] = (), phrase: str = "") -> str:
    lines = [f'[[question]]\nid = "{qid}"\ntext = {json.dumps(text)}\nkind = "{kind}"\nneed = "{qid}"']
    if chunks:
        lines.append("expected_chunks = [" + ", ".join(json.dumps(c) for c in chunks) + "]")
    if phrase:
        lines.append(f"expected_phrase = {json.dumps(phrase)}")
    return "\n".join(lines) + "\n\n"


@pytest.fixture(scope="module")
def near_misses(retriever):
    """A bundled near-miss question the answerer refuses on answerability, gate passed. (One it answers: the bakery
    question labelled a near miss; the bundled ones are refused one by one as the answerer improves.)"""
    found = {}
    for q in load_questions().questions:
        if q.kind == "near_miss":
            answer = answer_question(retriever, q.text, generator="extractive")
            key = "refused" if answer.refused and answer.refusal_reason == "answerability" else None
            if key and key not in found:
                found[key] = (q.text, answer.retrieval.within_cutoff[0].chunk.chunk_id if answer.retrieval.within_cutoff else None)
    return found


def test_eval_names_each_questions_failure_class(tmp_path, capsys, retriever, near_misses):
    wide = retriever.retrieve(BAKERY, k=LOOK_PAST).hits
    ranked = {h.chunk.chunk_id for h in wide}
    far = next(c.chunk_id for c in retriever.index.chunks if c.chunk_id not in ranked)
    beyond = next(h for h in retriever.retrieve(COACH).hits if h.above_cutoff)
    refused_text, refused_top = near_misses["refused"]
    questions = tmp_path / "classes.toml"
    questions.write_text(
        toml_question("right", BAKERY, "answerable", ["guide_kestrelford.md#2"], "11am")
        + toml_question("miss", BAKERY, "answerable", [far], NOT_SAID)
        + toml_question("low", BAKERY, "answerable", [wide[7].chunk.chunk_id], NOT_SAID)
        + toml_question("cut", COACH, "answerable", [beyond.chunk.chunk_id], NOT_SAID)
        + toml_question("quote", BAKERY, "answerable", ["guide_kestrelford.md#2"], NOT_SAID)
        + toml_question("refused", refused_text, "answerable", [refused_top], NOT_SAID)
        + toml_question("answered", BAKERY, "near_miss"),
        encoding="utf-8",
    )
    main(["eval", "--questions", str(questions), "--out", str(tmp_path / "results")])
    out = capsys.readouterr().out
    sidecar = json.loads(next((tmp_path / "results").glob("*.json")).read_text(encoding="utf-8"))
    classes = {q["id"]: q["failure_class"] for q in sidecar["questions"]}
    assert classes == {
        "right": "right", "miss": "retrieval_miss", "low": "ranked_low", "cut": "cut_by_gate",
        "quote": "wrong_quote", "refused": "wrongly_refused", "answered": "unanswerable_answered",
    }  # fmt: skip
    low = next(q for q in sidecar["questions"] if q["id"] == "low")
    assert low["expected"] == {"chunk_id": wide[7].chunk.chunk_id, "rank": 8,
        "distance": round(wide[7].vector_distance, 4), "within_cutoff": not wide[7].above_cutoff, "searched": 20}
    assert f"  low [answerable]: ranked low; expected {wide[7].chunk.chunk_id} -> rank 8, distance {wide[7].vector_distance:.4f}" in out
    assert f"  miss [answerable]: retrieval miss; expected {far} -> not in the top 20" in out
    assert "  right [" not in out
    counts = next(line for line in out.splitlines() if line.startswith("answerable "))
    assert counts.split() == ["answerable", "1", "1", "1", "1", "1", "1", "0"]  # one of each class an answerable question can fall into
    report = next((tmp_path / "results").glob("*.md")).read_text(encoding="utf-8")
    section = report.split("## Failure classes", 1)[1].split("\n## ", 1)[0]
    assert f"| `low` | answerable | ranked low | expected {wide[7].chunk.chunk_id} -> rank 8" in section
    assert "| `answered` | near_miss | unanswerable answered |" in section


def test_traveller_questions_get_failure_classes_too(tmp_path, capsys, near_misses):
    rows = [
        {"id": "t-001", "question": BAKERY, "answerable": True, "kind": "direct",
         "expects": ["11am"], "source_sections": ["guide_kestrelford.md :: Eat and drink"]},
        {"id": "t-002", "question": BAKERY, "answerable": True, "kind": "direct",
         "expects": [NOT_SAID], "source_sections": ["guide_kestrelford.md :: Eat and drink"]},
        {"id": "t-003", "question": BAKERY, "answerable": False, "kind": "near_miss"},
    ]
    questions = tmp_path / "travellers.jsonl"
    questions.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    main(["eval", "--questions", str(questions), "--out", str(tmp_path / "results")])
    out = capsys.readouterr().out
    sidecar = json.loads(next((tmp_path / "results").glob("*.json")).read_text(encoding="utf-8"))
    assert {q["id"]: q["failure_class"] for q in sidecar["questions"]} == {"t-001": "right", "t-002": "wrong_quote", "t-003": "unanswerable_answered"}
    assert "  t-002 [direct]: wrong quote; expected guide_kestrelford.md#2 -> rank 1, distance " in out
    assert "  t-003 [near_miss]: unanswerable answered" in out
    assert "## Failure classes" in next((tmp_path / "results").glob("*.md")).read_text(encoding="utf-8")
    assert set(FAILURE_CLASSES) >= {q["failure_class"] for q in sidecar["questions"]}


# ---------------------------------------------------------------- Markdown exports


def test_ask_markdown_gives_the_table_and_the_answer_with_its_quoted_rows(capsys, retriever):
    code, out, _ = run_cli(capsys, "ask", "--markdown", "--generator", "extractive", BAKERY)
    answer = answer_question(retriever, BAKERY, generator="extractive")
    assert code == 0 and out.startswith(f"## {BAKERY}\n")
    rows = [line for line in out.splitlines() if line.startswith("| ") and "`guide_" in line]
    assert len(rows) == 5
    cited = {c.chunk_id for c in answer.citations}
    for row in rows:
        chunk_id = re.search(r"`([^`]+)`", row).group(1)
        assert row.endswith("| ✓ |") == (chunk_id in cited)
    assert "\n".join(f"> {line}" for line in answer.text.splitlines()) in out
    assert "Sources: guide_kestrelford.md (Eat and drink)" in out
    assert re.search(r"^- answerability p=[\d.]+ \(answers at ≥ [\d.]+\); most weight: ", out, re.MULTILINE)  # as the app says it
    _, refused, _ = run_cli(capsys, "ask", "--markdown", "--generator", "extractive", "How do I reverse a list in Python?")
    assert "**Refused (gate):**" in refused and "Sources:" not in refused and "answerability" not in refused  # nothing weighed
