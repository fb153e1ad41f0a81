"""Issue 10's contract for every answer: only chunks within the cutoff, quotations that are runs of adjacent
sentences of one chunk, question parts answered or named as uncovered, and the answerability verdict on show."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from guide_tui.answerability import FEATURES, SIGNS, AnswerabilityModel, choose_threshold, fit, shipped_model
from guide_tui.answering import answer_question
from guide_tui.answers import REFUSAL
from guide_tui.asked import WHEN, asks_for_a_list, asks_to_make_something, question_parts
from guide_tui.extractive import (
    FILL_MARGIN,
    FILL_TO,
    LIST_QUOTES_FROM_OTHERS,
    MAX_LIST_QUOTES,
    analysed,
    candidates,
    find_evidence,
    has_word,
    quotes_a_section,
    subject_of,
)
from guide_tui.questions import load_questions
from guide_tui.scoring import first_headings, load_traveller_questions, score, score_table

ROOT = Path(__file__).resolve().parent.parent
SCORE_PY = ROOT.parent / "shared" / "eval" / "score.py"
OWN_QUESTIONS = ROOT / "benchmarks" / "data" / "own_questions.jsonl"


def ask(retriever, text: str, **kwargs):
    return answer_question(retriever, text, generator="extractive", **kwargs)


# ---------------------------------------------------------------- only chunks within the cutoff


def test_a_chunk_beyond_the_cutoff_is_never_quoted(retriever) -> None:
    retrieval = retriever.retrieve("When does the Kestrelford bakery sell out?")
    quoted = {c.chunk_id for c in ask(retriever, retrieval.question, retrieval=retrieval).citations}
    assert quoted, "the bakery question is answered from the bundled guides"
    beyond = [replace(hit, above_cutoff=hit.chunk.chunk_id in quoted) for hit in retrieval.hits]
    answer = ask(retriever, retrieval.question, retrieval=replace(retrieval, hits=beyond))
    assert not {c.chunk_id for c in answer.citations} & quoted
    usable = {hit.chunk.chunk_id for hit in beyond if not hit.above_cutoff}
    assert answer.refused or {c.chunk_id for c in answer.citations} <= usable


def test_nothing_within_the_cutoff_is_a_refusal_with_no_source(retriever) -> None:
    retrieval = retriever.retrieve("When does the Kestrelford bakery sell out?")
    every_row_beyond = replace(retrieval, hits=[replace(hit, above_cutoff=True) for hit in retrieval.hits])
    answer = ask(retriever, retrieval.question, retrieval=every_row_beyond)
    assert answer.refused and answer.text == REFUSAL and answer.sources() == []
    assert answer.verdicts[0].reason == "no retrieved chunk is within the cutoff"


def quoted_runs(text: str) -> list[str]:
    """Every quotation in an extractive answer: each line is 'LEAD says: "run" … "run"'."""
    runs = []
    for line in text.splitlines():
        if ' says: "' in line:
            runs += line.split(' says: "', 1)[1].removesuffix('"').split('" … "')
    return runs


def test_every_quotation_is_adjacent_sentences_of_one_chunk(retriever, bundled_index) -> None:
    sentences_of: dict[int, list[str]] = {}
    for unit in bundled_index.units:
        sentences_of.setdefault(unit.chunk, []).append(" ".join(unit.text.split()))
    runs_of_adjacent = {
        " ".join(chunk[i:j]) for chunk in sentences_of.values() for i in range(len(chunk)) for j in range(i + 1, len(chunk) + 1)
    }
    checked = 0
    for question in load_questions().questions:
        answer = ask(retriever, question.text)
        if answer.refused:
            continue
        for run in quoted_runs(answer.text):
            assert " ".join(run.split()) in runs_of_adjacent, (question.text, run)
            checked += 1
    assert checked >= 100


# ---------------------------------------------------------------- parts, lists, names the guides never use


def test_question_parts_split_on_new_questions_only() -> None:
    assert question_parts("Which day is the Givens Mill tearoom shut, and can I stay overnight in the village?") == [
        "Which day is the Givens Mill tearoom shut", "can I stay overnight in the village?"
    ]
    assert question_parts("What is there to see and do in Corry Vale?") == ["What is there to see and do in Corry Vale?"]
    assert question_parts("do i have to reserve a table in thornby wells, how early?") == [
        "do i have to reserve a table in thornby wells, how early?"
    ]
    assert question_parts("Is the mill open on Tuesdays? How much is the tour?") == ["Is the mill open on Tuesdays?", "How much is the tour?"]
    # a piece that asks nothing is context for the question beside it, not a question of its own
    assert question_parts("Does the pier shut in winter? asking for my parents' trip in March") == [
        "Does the pier shut in winter, asking for my parents' trip in March"
    ]
    assert question_parts("Tell me about the pier; how long is the promenade?") == ["Tell me about the pier", "how long is the promenade?"]
    # opening the whole question, an auxiliary asks, whatever word follows it
    assert question_parts("Is seafront parking at Pellew Sands pricey, and is there a free alternative?") == [
        "Is seafront parking at Pellew Sands pricey", "is there a free alternative?"
    ]
    # an auxiliary opens a question before a subject that is a doing ("and is parking easy?")
    assert question_parts("How far is the pier from the station, and is walking there easy?") == [
        "How far is the pier from the station", "is walking there easy?"
    ]
    # a topic, then a colon or a dash and the questions about it: the topic leads the first of them
    assert question_parts("Kestrelford buses - how often do they run, and do they run on Sundays?") == [
        "Kestrelford buses, how often do they run", "do they run on Sundays?"
    ]
    assert question_parts("The Givens Mill tearoom: which day is it shut, and can I buy bread there?") == [
        "The Givens Mill tearoom, which day is it shut", "can I buy bread there?"
    ]
    assert question_parts("My husband uses a wheelchair - is Marchwood's market step-free?") == [
        "My husband uses a wheelchair - is Marchwood's market step-free?"
    ]
    # a question after its condition: the condition belongs to the question after it, never one of its own
    assert question_parts("How long is the coast road, and if the lots are full how far is the overflow lot?") == [
        "How long is the coast road", "if the lots are full how far is the overflow lot?"
    ]
    assert question_parts("Is the pier open, and if it rains, what can we do?") == ["Is the pier open", "if it rains, what can we do?"]
    # ... or after its condition a question that opens with an auxiliary and its subject
    assert question_parts("How long is the bus to Kestrelford? and if we drive do we have to pay to park") == [
        "How long is the bus to Kestrelford?", "if we drive do we have to pay to park"
    ]
    assert question_parts("Is parking free, if I arrive early?") == ["Is parking free, if I arrive early?"]
    assert question_parts("If you asked someone who lives in Marchwood for a walk, what would they suggest?") == [
        "If you asked someone who lives in Marchwood for a walk, what would they suggest?"  # "who lives": no question of its own
    ]
    assert question_parts("Is parking free? if I arrive early") == ["Is parking free, if I arrive early"]
    # a fallback between "and" and the question it joins; a statement before the first question
    assert question_parts("No car on Sunday. Is there a bus to Kestrelford that day, and failing that can I get the train?") == [
        "No car on Sunday. Is there a bus to Kestrelford that day", "failing that can I get the train?"
    ]
    assert question_parts("Is the tearoom open on Mondays, and if not, when is it open?") == ["Is the tearoom open on Mondays", "if not, when is it open?"]


@pytest.mark.parametrize(
    "question, exists",
    [
        ("Are dogs allowed on the beach at Pellew Sands?", True),
        ("Do the hotels in Thornby Wells have wifi?", True),
        ("Can I bring my bike on the train?", True),
        ("Is there a cinema in Kestrelford?", True),
        ("What options for food are there in Corry Vale?", False),  # a list, not whether food exists
        ("How many bus companies are there around here?", False),  # a count
        ("Do I have to book the mill tour?", False),
        ("Until what time can I get a meal in the pub?", False),  # a time, asked after a preposition
        ("wat time do the pubs do food", False),  # a time, however spelt
        ("Where can I rent a canoe?", True),
        ("Is it allowed to swim off the pier?", False),  # whether one may, which the guides may say in other words
    ],
)
def test_whether_a_question_asks_if_a_thing_exists(retriever, question, exists) -> None:
    assert subject_of(question, analysed(retriever)).asks_existence is exists


def test_a_fallback_part_is_answered_as_well(retriever) -> None:
    """"..., and failing that can I just get the train?" is a part of its own: Kestrelford has no railway station."""
    answer = ask(retriever, "Hoping to get to Kestrelford on a Sunday without a car. Is there a bus that day, and failing that can I just get the train?")
    assert len(answer.verdicts) == 2 and "No buses run to Kestrelford on Sundays" in answer.text and "no railway station" in answer.text


def test_a_part_the_guides_do_not_cover_is_named_and_the_rest_answered(retriever) -> None:
    answer = ask(retriever, "How long is the drive from Brightwater to Thornby Wells, and is there a cinema there?")
    assert not answer.refused
    assert "45 minutes" in answer.text
    assert answer.text.rstrip().endswith("The guides do not say: is there a cinema there?")
    assert [v.answered for v in answer.verdicts] == [True, False]
    assert answer.verdicts[1].reason and "guide" not in answer.verdicts[1].reason.split(".md")[0][-5:]


def test_a_later_part_about_a_thing_no_guide_mentions_is_refused_whatever_it_leans_on(retriever) -> None:
    """A later part leans on the one before ("..., and how long is the ride?"), but none of "the crime" is in any guide."""
    answer = ask(retriever, "How often do the Marchwood trams run? What's the crime like?")
    assert not answer.refused and "every 8 minutes" in answer.text
    assert answer.text.rstrip().endswith("The guides do not say: What's the crime like?")
    assert [v.answered for v in answer.verdicts] == [True, False]
    assert answer.verdicts[1].reason == "the guides never mention crime"


def test_a_list_question_quotes_several_sentences_of_the_section(retriever) -> None:
    assert asks_for_a_list("What is there to see in Halden Bay?")
    answer = ask(retriever, "What is there to see in Halden Bay?")
    sections = [(c.file, c.section) for c in answer.citations]
    assert sections[0] == ("guide_halden_bay.md", "What to see")
    assert sections.count(("guide_halden_bay.md", "What to see")) >= 3
    further = Counter(s for s in sections if s != sections[0])
    assert max(further.values(), default=0) <= LIST_QUOTES_FROM_OTHERS, "besides the top chunk, at most two of each further chunk"
    assert len(sections) <= MAX_LIST_QUOTES


def test_a_list_question_quotes_a_second_item_of_a_further_chunk_as_close_as_the_first(retriever) -> None:
    """Corry Vale's pubs are two sentences of one section, and the village asked after is not the top chunk's."""
    answer = ask(retriever, "Which villages have a pub that serves food?")
    corry = [c.quote for c in answer.citations if c.file == "guide_corry_vale.md"]
    assert len(corry) == 2, answer.text
    assert any("Thursday to Sunday" in quote for quote in corry), answer.text  # the second pub, in the third village


def test_a_list_across_the_towns_quotes_the_region_wide_section_ranked_first(retriever) -> None:
    """The question's food cue names the towns' "Eat and drink" sections, but naming no town it asks the region's."""
    answer = ask(retriever, "Locals say the decent food is always a street away from the tourist strip. Which streets do they mean in each town?")
    assert (answer.citations[0].file, answer.citations[0].section) == ("guide_eating.md", "The pattern worth knowing")
    assert all(street in answer.text for street in ("Corry Lane", "Fell Street", "Marine Terrace")), answer.text


def test_a_sightseeing_question_typed_without_its_apostrophe_quotes_what_to_see(retriever) -> None:
    """"Whats there to see" asks for the sights, as "What's there to see" does, not for the tearoom it names."""
    answer = ask(retriever, "Whats there to see at Givens Mill apart from the tearoom?")
    assert (answer.citations[0].file, answer.citations[0].section) == ("guide_givens_mill.md", "What to see")


def test_a_list_question_quotes_its_section_nearly_whole(retriever) -> None:
    answer = ask(retriever, "Which towns can I reach by train?")
    sections = [(c.file, c.section) for c in answer.citations]
    assert sections.count(("guide_regional_transport.md", "The railway")) > 5  # the railway's items, more than five


def test_a_list_question_quotes_beyond_its_section_only_what_the_teacher_finds_close(retriever) -> None:
    retrieval = retriever.retrieve("Where can I get food in Kestrelford?")
    quotes = find_evidence(retriever, retrieval).quotes
    beyond = [q for q in quotes if q.hit.rank != quotes[0].hit.rank]
    assert len({q.hit.rank for q in quotes}) < len(retrieval.within_cutoff)  # some further chunk had nothing close enough
    assert all(q.teacher >= max(q.teacher for q in quotes) - FILL_MARGIN for q in beyond)


@pytest.mark.parametrize(
    "question, name",
    [("Which pubs in Edinburgh do a good Sunday lunch?", "Edinburgh"), ("Is the Kestrelford bakery better than the ones in Paris?", "Paris")],
)
def test_a_name_the_guides_never_use_is_a_refusal_saying_so(retriever, question, name) -> None:
    answer = ask(retriever, question)
    assert answer.refused and answer.sources() == []
    assert answer.refusal_detail == f"the guides never mention {name}"


@pytest.mark.parametrize(
    "question, verb",
    [
        ("Write me a limerick about the Pellew Sands pier.", "write"),
        ("Could you translate the Kestrelford bakery's hours into French?", "translate"),
        ("Please summarise the Halden Bay guide in one line", "summarise"),
    ],
)
def test_a_request_to_make_something_is_refused_whatever_it_names(retriever, question, verb) -> None:
    """The places are the guides' own, so retrieval finds them: the request itself is what the guides cannot answer."""
    answer = ask(retriever, question)
    assert answer.refused and answer.sources() == [] and answer.text == REFUSAL
    assert answer.refusal_detail == f"it asks me to {verb} something, not what the guides say"


def test_words_that_name_nothing_are_refused_though_they_pass_the_gate(retriever) -> None:
    """"the a of" lands just within the cutoff: only stop words, so no thing, place or kind of answer to look up."""
    answer = ask(retriever, "the a of")
    assert answer.retrieval.gate.passed
    assert answer.refused and answer.sources() == [] and answer.text == REFUSAL
    assert answer.refusal_detail == "it names nothing to look up: no thing, place or kind of answer"


def test_a_question_about_writing_is_still_a_question(retriever) -> None:
    assert asks_to_make_something("Where can I buy postcards to write home in Kestrelford?") is None


def test_the_verb_a_passive_question_ends_on_is_not_what_it_asks_about(retriever) -> None:
    """"held" is in no Brightwater sentence ("a market fills the square"): it must not count against the answer,
    while in "is the pier closed?" the participle is the very thing asked."""
    from guide_tui.extractive import passive_verb

    answer = ask(retriever, "On which day of the week is the Brightwater market held?")
    assert not answer.refused and "Tuesday" in answer.text
    assert passive_verb("Where is the covered market located?") == "located"
    assert passive_verb("Is the pier closed in winter?") is None


def test_where_the_traveller_comes_from_is_no_name_the_guides_must_know(retriever) -> None:
    """Said in a statement before the question, "from Spain" sets the scene; a name the question itself asks about
    is still refused."""
    visitor = ask(retriever, "Hello, I visit from Spain. Until what hour is there still bread at the Kestrelford bakery?")
    assert not visitor.refused and "11am" in visitor.text
    abroad = ask(retriever, "I'm staying in Madrid next week. When does the best bakery there open?")
    assert abroad.refused and abroad.refusal_detail == "the guides never mention Madrid"
    asked = ask(retriever, "We are from Spain and wonder how far Madrid is from Kestrelford?")
    assert asked.refused and "Madrid" in asked.refusal_detail  # one sentence, a question: Madrid is asked about


def test_a_name_that_only_likens_the_thing_asked_about_is_not_asked_about(retriever) -> None:
    """"a National Express-type coach" asks about coaches, which the guides speak of; Paris, asked about, is refused."""
    likened = ask(retriever, "Coming to Brightwater on a National Express-type coach: where does it drop us?")
    assert not likened.refused and "Verrill Street" in likened.text
    from guide_tui.extractive import analysed, unknown_names

    facts = analysed(retriever)
    assert unknown_names("Is there an Uber-style taxi in Marchwood?", facts) == []
    assert unknown_names("Is there an Uber taxi in Marchwood?", facts) == ["Uber"]


def test_a_b_and_b_plural_is_no_unknown_name_nor_word(retriever) -> None:
    """The keyword index cuts "B&Bs" into "b" and "bs": neither is a name the guides never mention, nor a word asked after;
    the plural is asked as the singular is, and Thornby Wells' guesthouses answer it."""
    from guide_tui.extractive import analysed, subject_of, unknown_names

    facts = analysed(retriever)
    assert unknown_names("Any B&Bs in Thornby Wells?", facts) == [] and unknown_names("Are there B&B's near Corry Vale?", facts) == []
    assert "bs" not in subject_of("any b&bs in thornby wells", facts).words
    answer = ask(retriever, "Any B&Bs in Thornby Wells?")
    assert not answer.refused and "guesthouses" in answer.text


def test_a_refusal_names_an_accented_word_as_it_was_asked(retriever) -> None:
    """Words are cut at letters outside a-z ("crêperie" is "cr" and "perie" to the index); the reason spells them whole."""
    answer = ask(retriever, "Does Kestrelford have a crêperie?")
    assert answer.refused and answer.refusal_detail == "the guides never mention crêperie"


def test_i_m_and_sunday_are_not_unknown_names(retriever) -> None:
    answer = ask(retriever, "I'm in Kestrelford on a Sunday: is there a bus to Brightwater?")
    assert "never mention" not in (answer.refusal_detail or "")


# ---------------------------------------------------------------- the answerability model


def test_every_answer_and_refusal_in_ask_json_carries_its_verdicts(tmp_path) -> None:
    questions = ["When does the Kestrelford bakery sell out?", "Is there a cinema in Kestrelford?", "Which pubs in Edinburgh are good?", ""]
    (tmp_path / "q.txt").write_text("\n".join(questions) + "\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "guide_tui", "ask", "--json", "--generator", "extractive", "--from", str(tmp_path / "q.txt")],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(rows) == 3  # the empty line is skipped by --from
    for row in rows:
        verdicts = row["answerability"]
        assert verdicts and all(0.0 <= v["probability"] <= 1.0 for v in verdicts)
        assert row["refused"] == (not any(v["answered"] for v in verdicts))
        decided = [v for v in verdicts if v["features"]]
        assert all(set(v["features"]) == set(FEATURES) for v in decided)
    assert rows[0]["answerability"][0]["probability"] >= shipped_model().threshold
    assert rows[2]["answerability"][0]["reason"] == "the guides never mention Edinburgh"


def test_a_feature_fitted_against_its_direction_is_left_out() -> None:
    """One feature carries the signal plus noise, another only the noise: unconstrained, the second takes a positive
    weight (+0.97) to cancel the noise, and "unknown words" would read as an argument for answering. It is left out."""
    rows = [dict.fromkeys(FEATURES, 0.0) | {"literal_unknown_here": float(n < 20) + (n % 5) / 5, "unknown_anywhere": (n % 5) / 5}
            for n in range(40)]
    labels = [int(n >= 20) for n in range(40)]
    weights, _ = fit(rows, labels)
    assert weights["unknown_anywhere"] == 0.0 and weights["literal_unknown_here"] < -1.0


def test_fit_separates_what_one_feature_separates() -> None:
    rows = [dict.fromkeys(FEATURES, 0.0) | {"kind_missing": float(n % 2)} for n in range(40)]
    labels = [1 - n % 2 for n in range(40)]
    weights, bias = fit(rows, labels)
    model = AnswerabilityModel(weights, bias, 0.5)
    assert weights["kind_missing"] < -1.0
    assert [model.probability(row) >= 0.5 for row in rows] == [bool(y) for y in labels]


def test_the_threshold_sits_inside_the_cheapest_valley_not_on_its_edge() -> None:
    """Cost by cut: 1 (one unanswerable part at 0.605 answered) from 0.1 to 0.605; 0 for a cut just above it; 20 once
    the cut passes the twenty answerable parts at 0.61. The cheapest single cut (0.61) is a step from refusing twenty;
    the chosen one is in the wide valley below it."""
    probabilities = [0.1, 0.605] + [0.61] * 20 + [0.9] * 20
    labels = [0, 0] + [1] * 40
    cut = choose_threshold(probabilities, labels)
    assert 0.15 <= cut <= 0.56
    assert choose_threshold([0.2, 0.8], [0, 1]) == pytest.approx(0.5, abs=0.15)


def test_the_shipped_model_weighs_every_feature_and_says_what_it_was_fitted_on() -> None:
    model = shipped_model()
    assert set(model.weights) == set(FEATURES)
    assert all(SIGNS.get(name, 0) * weight >= 0 for name, weight in model.weights.items())  # each pushes as it is named
    assert 0.0 < model.threshold < 1.0
    assert model.fitted_on["blind_half"] == "odd"


# ---------------------------------------------------------------- scoring agrees with shared/eval/score.py


@pytest.mark.skipif(not SCORE_PY.is_file(), reason="needs ../shared/eval/score.py beside the repo")
def test_scores_agree_with_the_shared_score_script(tmp_path, retriever) -> None:
    questions = load_traveller_questions(OWN_QUESTIONS)[::4]  # every kind, 43 questions
    subset = tmp_path / "questions.jsonl"
    subset.write_text("".join(line for n, line in enumerate(OWN_QUESTIONS.read_text(encoding="utf-8").splitlines(True)) if n % 4 == 0))
    answers = [ask(retriever, q.question).to_json() for q in questions]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    theirs = subprocess.run(
        [sys.executable, str(SCORE_PY), str(tmp_path / "answers.jsonl"), str(subset)], capture_output=True, text=True, timeout=60
    )
    first = first_headings(retriever.index.chunks)
    assert theirs.returncode == 0, theirs.stderr
    assert score_table(score(questions, answers, first)).strip() == theirs.stdout.strip()


# ---------------------------------------------------------------- the structure the guides have


def test_a_list_question_ranks_the_section_its_heading_names_first(retriever) -> None:
    """"Highlights" is never said in the guides: the heading "What to see" is what answers it."""
    hits = retriever.retrieve("Give me the highlights of Halden Bay.").hits
    assert (hits[0].chunk.file, hits[0].chunk.section) == ("guide_halden_bay.md", "What to see")


@pytest.mark.parametrize(
    "question, is_list",
    [
        ("things to do in halden bay", True),
        ("What are the main sights in Brightwater?", True),
        ("What walks are there near Corry Vale?", True),
        ("Until what time are there trains from Marchwood?", False),
        ("What time does the bakery sell out?", False),
        # a list asked for in words no table of the cue names: any plural noun, an imperative, "where can I eat"
        ("Any good walks near Elder Ness?", True),
        ("Which roads should cyclists avoid?", True),
        ("In the touristy towns, which back streets are cheaper to eat in?", True),  # one word before the plural
        ("What do tickets usually cost for a concert?", False),  # an auxiliary before it: a price asked
        ("Top attractions in Brightwater?", True),
        ("main museums in marchwood for a wet day?", True),  # a headline, no question word
        ("Name a few pubs in Halden Bay", True),
        ("Recommend some places to eat in Marchwood", True),
        ("What should I not miss in Kestrelford?", True),
        ("What are the must-sees in Brightwater?", True),
        ("Where do locals go for a drink in Marchwood?", True),
        ("Ideas for a rainy day in Thornby Wells?", True),
        ("What's good to see in Thornby Wells", True),
        ("Where are the best viewpoints around Elder Ness?", True),
        ("What kinds of food is the region known for?", True),
        # sightseeing asked as yes/no, or with no plural: what there is to do is still a list
        ("Is there anything to do in Pellew Sands apart from the beach?", True),
        ("any activities for a wet afternoon in Brightwater", True),
        ("Is there much to see in Givens Mill?", True),
        ("We have a free afternoon in Halden Bay, what could we go and look at?", True),  # sights in other verbs
        ("what should I check out in marchwood", True),
        ("whats there to do in pellew sands", True),  # "what's", its apostrophe not typed
        # words describing the plural, a request put as a question, "options"
        ("any easy, flat walks round here?", True),
        ("Can you recommend a few quiet pubs in Marchwood?", True),
        ("food options in corry vale?", True),
        ("Are any of the trains late on Sundays?", False),  # "any of the": no plural asked for
        ("In Thornby Wells, how far apart are the sights?", False),  # a distance asked, of the sights
        # one value, though the words end in s: a plural of a value, or a verb
        ("What are the opening hours of the Brightwater museum?", False),
        ("During which months does the land train run?", False),
        ("What does a day ticket cost?", False),
        ("What happens to the cliff path in high wind?", False),
        ("Where is the station in Halden Bay?", False),
    ],
)
def test_list_questions_are_told_from_single_answers(question, is_list) -> None:
    assert asks_for_a_list(question) is is_list


def test_a_single_answer_quotes_up_to_four_sentences_the_teacher_finds_nearly_as_close(retriever) -> None:
    """Whether the mill tour is accessible: the tour's stairs, and the fourth sentence says what at Givens Mill is."""
    answer = ask(retriever, "Is the mill tour accessible?")
    assert "machinery floor has no accessible route" in answer.text
    assert "tearoom and the riverside at Givens Mill are both accessible" in answer.text
    assert len(answer.citations) == FILL_TO == 4


def test_a_single_answer_also_quotes_the_sentences_the_teacher_finds_nearly_as_close(retriever) -> None:
    """The best sentence names the pub's four rooms; its neighbour, nearly as close to the question, the
    observatory's beds: both are quoted (closest_to_question), and nothing from below the top FILL_FROM_TOP chunks."""
    from guide_tui.answering import answer_question
    from guide_tui.extractive import FILL_FROM_TOP

    question = "What accommodation is available on Elder Ness?"
    assert not asks_for_a_list(question)
    retrieval = retriever.retrieve(question)
    answer = answer_question(retriever, question, generator="extractive", retrieval=retrieval)
    assert "four rooms" in answer.text and "dormitory beds" in answer.text
    top = {h.chunk.chunk_id for h in retrieval.within_cutoff if h.rank <= FILL_FROM_TOP}
    assert {c.chunk_id for c in answer.citations} <= top


def edited_guides_retriever(tmp_path, bundled_index, guide_name: str, old: str, new: str, with_teacher: bool = True):
    """A retriever over an index of the bundled guides with one sentence of one guide rewritten (old -> new)."""
    from guide_tui.indexes import BUNDLED_CORPUS, build_index, load_index
    from guide_tui.retrieval import Retriever

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for guide in BUNDLED_CORPUS.glob("guide_*.md"):
        text = guide.read_text(encoding="utf-8")
        if guide.name == guide_name:
            assert old in text
            text = text.replace(old, new)
        (corpus / guide.name).write_text(text, encoding="utf-8")
    build_index(corpus, tmp_path / "index", embedder=bundled_index.embedder, with_teacher=with_teacher)
    return Retriever(load_index(tmp_path / "index"))


def test_a_region_wide_sentence_is_about_the_town_its_paragraph_opened_with(tmp_path, bundled_index) -> None:
    from guide_tui.extractive import analysed

    retriever = edited_guides_retriever(
        tmp_path, bundled_index, "guide_accessibility.md",
        "The tearoom and the riverside at Givens Mill are both accessible.", "The tearoom and the riverside are both accessible.",
        with_teacher=False,
    )
    facts = analysed(retriever)
    row = [unit.text for unit in facts.units].index("The tearoom and the riverside are both accessible.")
    assert facts.stored_sentence(row).towns == {"Givens Mill"}
    answer = ask(retriever, "Is the tearoom at Givens Mill accessible?")
    assert "The tearoom and the riverside are both accessible." in answer.text


@pytest.mark.parametrize(
    "question, kind",
    [
        ("What are the opening hours of the pier at Pellew Sands?", ("clock",)),
        ("What are the names of the two riverside hotels in Brightwater?", ("name",)),
        ("Who won the Kestrelford pub quiz last week?", ("name",)),  # a person or a team: a name
        ("Quick one - who's the vicar at Givens Mill?", ("name",)),
        ("What is the population of Marchwood?", ("number",)),  # "a city of 180,000 people"
        ("What's the number for a taxi in Corry Vale?", ("contact",)),  # a phone number, not a count
        ("What's the going rate for a tram day ticket in Marchwood?", ("amount",)),
        ("What times are the weekday buses back from Givens Mill?", ("clock",)),
    ],
)
def test_what_a_question_asks_for_is_read_from_its_usual_phrasings(question, kind) -> None:
    from guide_tui.asked import asked_kinds

    assert kind in asked_kinds(question)


def test_who_asks_for_a_name_only_when_it_opens_a_question(retriever) -> None:
    from guide_tui.asked import asked_kinds

    assert asked_kinds("Is the river path good for people who walk slowly?") == []
    answer = ask(retriever, "Who won the Kestrelford pub quiz last week?")  # the pubs are in the guide; no winner is
    assert answer.refused


def test_a_name_given_of_another_thing_is_no_name_for_what_was_asked(retriever) -> None:
    """"The best district of Marchwood to stay in is Northgate" names a district, not the mayor; asked what the
    district is called, it is the answer."""
    assert ask(retriever, "Who is the current mayor of Marchwood?").refused
    district = ask(retriever, "What is the best district of Marchwood to stay in called?")
    assert not district.refused and "Northgate" in district.text


def test_a_later_part_asking_after_a_thing_the_guides_never_mention_is_refused_with_it(retriever) -> None:
    """"..., and which party are they from?" asks after the mayor: with the mayor unknown, no sentence answers it,
    however close its words. A thing the guides know, asked for a value they lack, leaves the later part to be
    answered ("who runs the harbour restaurants" has no name, "when are they open" has an answer)."""
    answer = ask(retriever, "Who is the current mayor of Thornby Wells, and which party are they from?")
    assert answer.refused
    assert [v.answered for v in answer.verdicts] == [False, False]
    assert "part before" in answer.verdicts[1].reason and "Thornby Wells" in answer.verdicts[1].reason
    restaurants = ask(retriever, "Who runs the Halden Bay harbour restaurants, and when are they open?")
    assert [v.answered for v in restaurants.verdicts] == [False, True] and "9pm" in restaurants.text
    museum = ask(retriever, "Is the Marchwood city museum free, and when is it open?")
    assert [v.answered for v in museum.verdicts] == [True, True]


def test_a_later_part_naming_no_town_and_something_unknown_there_leans_on_an_unknown_part_before(retriever) -> None:
    """"..., and what is showing this week?" after a cinema the guides never mention asks after that cinema,
    though it says no "it": refused with the part before. A later part whose every word the place's guides know
    ("how often do the trams run?") is answered on its own."""
    films = ask(retriever, "Is there a cinema in Pellew Sands, and what is showing this week?")
    assert films.refused and [v.answered for v in films.verdicts] == [False, False]
    assert "part before" in films.verdicts[1].reason and "cinema" in films.verdicts[1].reason
    assert films.verdicts[1].features["unknown_here"] > 0  # its own features are kept, to be inspected
    trams = ask(retriever, "Is there a casino in Marchwood, and how often do the trams run?")
    assert [v.answered for v in trams.verdicts] == [False, True] and not trams.refused


def test_open_ten_to_four_is_a_clock_time() -> None:
    from guide_tui.asked import FOUND

    assert FOUND["clock"].search("The tearoom is open 10 to 4 every day except Tuesdays.")
    assert not FOUND["clock"].search("The villages are 2 to 4 miles apart.")


def test_a_sentence_of_a_few_words_is_not_quoted_away_from_the_one_it_leans_on(tmp_path, bundled_index) -> None:
    """"Any season works." opens Marchwood's "When to go" here: beside the sights it reads as one of them, and
    the teacher finds it close to "what is there to see". Only a sentence that stands alone (stands_alone) is quoted
    from outside the section that answers."""
    from guide_tui.answering import answer_question

    retriever = edited_guides_retriever(
        tmp_path, bundled_index, "guide_marchwood.md",
        "Marchwood is worth visiting at any time of year.", "Any season works. Marchwood is worth visiting at any time of year.",
    )
    for question in ("What is there to see in Marchwood?", "things to do in marchwood", "What can I do in Marchwood?"):
        answer = answer_question(retriever, question, generator="extractive")
        assert not answer.refused and "city museum" in answer.text, question
        assert "Any season works." not in answer.text, question


@pytest.mark.parametrize(
    ("question", "whole_section"),
    [
        ("How do people get about in Brightwater without a car?", True),  # no value asked: what the section says
        ("What happened to the pier at Pellew Sands?", True),
        ("Which guesthouse in Givens Mill should we book?", True),  # a false premise the section corrects
        ("What are the sights in Marchwood?", True),  # a list
        ("What time does the Kestrelford bakery sell out?", False),  # a time: the sentence that gives it
        ("How much is the church tower in Kestrelford?", False),
        ("Is the Marchwood museum free?", False),  # yes or no
    ],
)
def test_a_question_that_asks_no_value_is_answered_by_its_section(retriever, question, whole_section) -> None:
    from guide_tui.extractive import analysed, quotes_a_section, subject_of

    assert quotes_a_section(question, subject_of(question, analysed(retriever))) is whole_section


def test_getting_about_without_a_car_is_answered_with_the_whole_section(retriever) -> None:
    """One sentence of Brightwater's "Getting around" (the taxis) is not how people get about: the walk, the buses and
    the taxis are."""
    answer = ask(retriever, "How do people get about in Brightwater without a car?")
    for fact in ("35 minutes", "two routes", "phoned"):
        assert fact in answer.text, fact


def test_free_of_another_thing_is_no_price_for_what_was_asked(retriever) -> None:
    """"The lower car park in Kestrelford costs nothing" gives an amount, but of the car park: it does not say what
    the bus costs. Of the thing asked about ("the museum is free") it is the answer."""
    assert ask(retriever, "What does the bus from Brightwater to Kestrelford cost?").refused
    museum = ask(retriever, "How much does it cost to get into the Marchwood city museum?")
    assert not museum.refused and "free" in museum.text


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Where in Brightwater can we have dinner without paying riverside prices?", [("place",)]),  # no amount asked
        ("Any parking in Pellew Sands that doesn't cost the earth?", []),
        ("Is there a fee to climb the tower in Kestrelford?", [("amount",)]),
        ("Where can we eat in Brightwater that isn't tourist prices?", [("place",)]),
        ("How many hours does the Corry Vale circuit take?", [("duration",)]),  # a count of hours is how long
        ("How long can I leave the car in Thornby Wells before I have to start paying?", [("duration", "distance")]),  # no price
        ("How many miles is the river walk?", [("distance",)]),
        ("How long will I wait for a bus in Brightwater?", [("duration", "frequency")]),  # a wait: "every half hour" tells it
        ("When was the church in Kestrelford built?", [("year",)]),  # a year: "spring tides" tells no building's age
        ("How many buses a day go to Halden Bay?", [("number",)]),
        ("Name the main sights in Brightwater.", []),  # an opening "name" asks for a list
        ("Can you name the pubs in Kestrelford?", []),
        ("What is the pub in Elder Ness called, and what's its name?", [("name",)]),
    ],
)
def test_the_kind_of_value_asked_reads_the_words_around_the_cue(question, kinds) -> None:
    """A cost the traveller would rather not pay asks no amount; "how many hours" asks how long, not a number."""
    from guide_tui.asked import asked_kinds

    assert asked_kinds(question) == kinds


def test_cheaper_food_is_found_for_a_traveller_avoiding_riverside_prices(retriever) -> None:
    answer = ask(retriever, "Where in Brightwater can we have dinner without paying riverside prices?")
    assert not answer.refused and "Corry Lane" in answer.text


def test_a_value_two_sentences_away_is_taken_only_from_a_sentence_that_brings_a_question_word_of_its_own(
    tmp_path, bundled_index
) -> None:
    """Two sentences after "the pump room is free", "concerts are held in the assembly rooms" gives no price: the pump
    room's price is not the concerts' ("room" is a word the best sentence already has), so the question is refused."""
    retriever = edited_guides_retriever(
        tmp_path, bundled_index, "guide_thornby_wells.md", " The spa water tastes bad, but in an interesting way.", ""
    )
    answer = ask(retriever, "How much are tickets for the concerts at the Thornby Wells assembly rooms?")
    assert answer.refused, answer.text
    # an adjacent sentence still completes the best one: the Tuesday market's hours in Brightwater
    assert not ask(retriever, "What time does the Tuesday market in Brightwater finish?").refused


def test_a_town_named_in_a_sentence_is_the_name_asked_for_only_when_a_town_is_asked_for(retriever) -> None:
    """"Brightwater" in a sentence about buses is no bus company's name; it is the answer when the question asks which
    village is called what."""
    companies = ask(retriever, "What are the three bus companies in the region called?")
    assert companies.refused, companies.text
    village = ask(retriever, "What is the village with the working watermill called?")
    assert not village.refused and "Givens Mill" in village.text


def test_a_population_is_answered_by_the_count_of_people_a_guide_gives(retriever) -> None:
    """No guide says "population": "a city of 180,000 people" is how they give it."""
    answer = ask(retriever, "What is the population of Marchwood?")
    assert not answer.refused and "180,000" in answer.text


def test_words_of_a_statement_before_the_question_do_not_count_as_unknown(retriever) -> None:
    """"I'm a keen twitcher." sets the scene: the guides never say "twitcher", and that says nothing of whether they
    answer "which months are best for birds?". The same word asked about is unknown."""
    scene = ask(retriever, "I'm a keen twitcher. Which months are best for birds at Elder Ness?")
    assert scene.verdicts[0].features["unknown_here"] == 0.0
    assert not scene.refused and "April to May" in scene.text
    asked = ask(retriever, "Which months are best for a keen twitcher at Elder Ness?")
    assert asked.verdicts[0].features["unknown_here"] > 0.0


def test_free_is_no_answer_when_it_is_said_of_another_thing(retriever) -> None:
    """"The free car park behind the station" shares only "free" with a question about the land train's fare: it gives
    no amount for the land train. The museum that is itself free is still the answer."""
    train = ask(retriever, "Is the land train along the Pellew Sands promenade free, or how much is the fare?")
    assert train.refused, train.text
    museum = ask(retriever, "How much does it cost to get into the Marchwood city museum?")
    assert not museum.refused and "city museum is free" in museum.text


@pytest.mark.parametrize("opening", ["Seafood, unsurprisingly, is fresh.", "Seafood: fresh.", "(Seafood) is fresh.", "Seafood is fresh."])
def test_the_word_that_opens_a_sentence_is_no_name_whatever_follows_it(retriever, opening) -> None:
    """A capital at the start of a sentence is no name, with a comma after it or not (it was counted as one, so "the two
    harbour restaurants buy directly" seemed to give the restaurants' names)."""
    from guide_tui.extractive import analysed, names_places, subject_of

    facts = analysed(retriever)
    subject = subject_of("What are the two harbour restaurants in Halden Bay called?", facts)
    assert not names_places(opening, subject, facts)
    assert names_places("Seafood comes from Fell Street.", subject, facts)


@pytest.mark.parametrize(
    "question, kinds",
    [
        ("When are rooms in Brightwater hard to find and expensive?", [WHEN]),  # asks when, not what rooms cost
        ("Where do people eat in Halden Bay if they don't want to pay harbour-front prices?", [("place",)]),
        ("How much is the fare to Elder Ness?", [("amount",)]),  # one amount, from either cue
        ("Is parking at Pellew Sands expensive?", [("price",)]),
        ("Why is paying for the buses here so confusing?", [("reason",)]),  # asks why, not what a fare costs
    ],
)
def test_a_word_of_price_asks_for_a_price_unless_the_question_asks_when_where_or_why(question, kinds) -> None:
    from guide_tui.asked import asked_kinds

    assert asked_kinds(question) == kinds


def test_a_question_taking_for_granted_what_the_place_has_none_of_is_answered_with_the_guide_saying_so_first(retriever) -> None:
    """Thornby Wells "has no local transport": that corrects "where's the nearest tram stop?", first. It does not
    answer how often trains reach the town, and a question naming no town is not corrected with one town's lack."""
    tram = ask(retriever, "Where's the nearest tram stop to Thornby Wells station?")
    assert not tram.refused and tram.text.startswith("Thornby Wells' guide says: \"Thornby Wells has no local transport")
    trains = ask(retriever, "How often are there trains to Thornby Wells?")
    assert "no local transport" not in trains.text
    tickets = ask(retriever, "If I buy a ticket from one bus company, can I use it on a different company's bus?")
    assert "no public transport" not in tickets.text
    station = ask(retriever, "How far is Kestrelford station from the market square?")  # the town is the station's article
    assert station.text.startswith("Kestrelford's guide says: \"Kestrelford has no railway station")
    bus = ask(retriever, "is there a bus or anything in kestrelford to take us from the lower car park up the hill?")
    assert bus.text.startswith("Kestrelford's guide says: \"") and "no local bus service" in bus.text.split("\n")[0]  # whether there is one
    trams = ask(retriever, "Are there trams in Thornby Wells?")  # trams are nowhere in its guide, and it says it has none
    assert not trams.refused and "Thornby Wells has no local transport" in trams.text
    assert trams.verdicts[0].features["absent_thing"] == 0.0


@pytest.mark.parametrize(
    "question, section",
    [
        ("things to do in halden bay", "What to see"),  # "When to go" ranks first: "most things are closed"
        ("Things to actually do in Pellew Sands beyond the pier?", "What to see"),  # an adverb in "things to do"
        ("What can I do on a rainy day in Marchwood?", "What to see"),
        ("What is there to do in Halden Bay apart from eating fish?", "What to see"),  # "Eat and drink" ranks first
        ("What is there to really do in Pellew Sands for a weekend?", "What to see"),  # an adverb: "When to go" ranks first
        ("What is there to actually do in Brightwater in the evening?", "What to see"),  # "Getting there" ranks first
        ("Where can I get food in Kestrelford?", "Eat and drink"),  # one shared word ("get") picks no heading
        ("Where should we base ourselves for a few nights in Marchwood?", "Where to stay"),  # "When to go" ranks first
        ("I'm a keen twitcher. Best months to head out to the headland?", "When to go"),  # "Where to stay" ranks first
        ("Best time of year to visit Kestrelford if I hate crowds?", "When to go"),  # asks a month, not any when
        ("What's Elder Ness like if we go in the autumn?", "When to go"),  # going in a season: "What to see" ranks first
        ("I've got a free afternoon in Marchwood. What would the locals send me to?", "What to see"),  # "Eat and drink" first
        ("What would you send me to in Brightwater?", "What to see"),  # "Getting around" ranks first
    ],
)
def test_a_question_naming_a_section_is_answered_from_that_section_first(retriever, question, section) -> None:
    """A question after sightseeing, a bed or food, however worded, asks for "What to see", "Where to stay" or "Eat and
    drink" (asked.SECTION_CUES); a heading it says word for word ("get around") is the section it asks for; either is
    quoted first whatever else ranks above it."""
    answer = ask(retriever, question)
    assert not answer.refused and answer.citations[0].section == section


def test_a_section_heading_answers_the_words_a_question_names_its_topic_by(retriever) -> None:
    """"the main sights" names "What to see" in words its sentences never use: the heading of the retrieved section
    answers them (extractive.heading_words), so the list is quoted rather than refused as about nothing known."""
    from guide_tui.extractive import analysed, heading_words, subject_of

    question = "Name the main sights in Brightwater."
    assert heading_words(question, subject_of(question, analysed(retriever))) == {"sights"}
    answer = ask(retriever, question)
    assert not answer.refused and answer.citations[0].section == "What to see"
    verdict = answer.verdicts[0]
    assert verdict.features["unknown_here"] == 0.0


def test_a_question_after_when_to_go_is_answered_from_that_section_whatever_else_it_names(retriever) -> None:
    """"When should we come ... for walking?" asks for a season: "When to go" gives it in a sentence that never says
    walking, and a walking sentence of another section gives no month. The section answers it (asked.SECTION_CUES)."""
    answer = ask(retriever, "When should we come to Corry Vale for walking?")
    assert not answer.refused and "May to September" in answer.text and answer.citations[0].section == "When to go"


def test_a_heading_said_in_the_question_is_the_section_it_asks_for(retriever) -> None:
    from guide_tui.extractive import analysed, candidates, section_asked, subject_of

    facts = analysed(retriever)
    retrieval = retriever.retrieve("Without a car, how do people get around Brightwater?")
    hits = retrieval.within_cutoff
    ranked = candidates(subject_of(retrieval.question, facts), hits, facts)
    rank = section_asked(retrieval.question, ranked, facts)
    assert rank is not None and next(h for h in hits if h.rank == rank).chunk.section == "Getting around"
    assert section_asked("Where can I get food in Kestrelford?", ranked, facts) is None


def test_a_later_part_asking_for_an_alternative_asks_for_another_of_the_thing_before(retriever) -> None:
    """"Is there a free option?" after a question about parking asks for free parking: "option" is no thing of its own
    that the guides fail to mention."""
    answer = ask(retriever, "Is it expensive to park on the Pellew Sands seafront, and is there a free option?")
    assert not answer.refused and "free car park behind the station" in answer.text
    assert "do not say" not in answer.text


@pytest.mark.parametrize("question", [
    "Is there anything to do in Pellew Sands apart from the beach?",
    "Is there anything to do in Pellew Sands besides the beach?",
    "Is there anything to see in Pellew Sands aside from the beach?",
])
def test_what_the_traveller_sets_aside_is_no_thing_the_guides_fail_to_mention(retriever, question) -> None:
    """"apart from the beach" shapes the question, as "except" does: no guide says "apart", and that is no sign that
    the place has nothing else to do."""
    answer = ask(retriever, question)
    assert not answer.refused, answer.verdicts[0].reason
    assert "pier" in answer.text.lower()


def test_a_short_word_is_found_as_one_half_of_a_compound(retriever) -> None:
    """"tea shop" is the guide's "tearoom": stemming and same_root (four letters or more) keep "tea" apart from it.
    "ice" is no half of "office": the other half must be a word the guides use, of four letters or more."""
    tea = ask(retriever, "Is there a tea shop at Givens Mill?")
    assert not tea.refused and "tearoom" in tea.text
    sea = ask(retriever, "Where can I get sea food in Halden Bay?")
    assert not sea.refused and "seafood" in sea.text.lower()
    facts = analysed(retriever)
    sentence = next(facts.sentences[row] for row in range(len(facts.sentences)) if "office" in facts.sentences[row].word_set)
    assert not has_word("ice", sentence, facts)


def test_a_wh_ever_word_shapes_the_question_and_is_no_thing_asked_after(retriever) -> None:
    """"whatever", "wherever", "whenever" are closed-class words like "what": no guide uses them, and that says nothing
    of whether the guides answer."""
    answer = ask(retriever, "Is there whatever food I want in Corry Vale?")
    assert not answer.refused and "farm shop" in answer.text


def test_a_where_question_after_a_sections_topic_is_answered_from_that_section(retriever) -> None:
    """"Where would I sleep?" asks what "Where to stay" says, and its first sentence is the guide's correction: there
    are no rooms in the village. A price asked of the same topic still wants its one sentence with the price."""
    answer = ask(retriever, "If I visit Givens Mill, where would I sleep?")
    assert not answer.refused and "no accommodation of its own" in answer.text
    facts = analysed(retriever)
    priced = "How much is a hotel in Marchwood?"
    assert not quotes_a_section(priced, subject_of(priced, facts))


def test_a_sentence_about_the_thing_asked_outranks_one_giving_the_kind_of_value_about_another_thing(retriever) -> None:
    """"How many spaces in the lower car park?": the sentence about the lower car park (no count) comes before "the
    drive takes 55 minutes, the final eight ..." (a count, of minutes of driving), so a near miss is seen for what it
    is: the guides name the thing and not the value (KIND_WEIGHT below COVERAGE_WEIGHT)."""
    question = "How many spaces are there in Kestrelford's lower car park?"
    facts = analysed(retriever)
    hits = [h for h in retriever.retrieve(question).hits if not h.above_cutoff]
    ranked = [c for c in candidates(subject_of(question, facts), hits, facts, None) if c.allowed]
    order = [c.sentence.text for c in ranked]
    car_park = next(n for n, text in enumerate(order) if "lower car park" in text)
    drive = next(n for n, text in enumerate(order) if text.startswith("The drive from Brightwater takes 55 minutes"))
    assert car_park < drive


def test_how_much_prices_rise_is_answered_by_a_relative_amount(retriever) -> None:
    """"How much do prices go up?" asks how far a price moves: "double their prices" answers it with no figure in
    pounds. A price asked outright ("how much does it cost to go up the tower") still wants an amount."""
    from guide_tui.asked import asked_kinds

    answer = ask(retriever, "How much do hotel prices go up in Marchwood in conference weeks?")
    assert not answer.refused and "double their prices" in answer.text
    assert asked_kinds("How much does it cost to go up inside the lighthouse?") == [("amount",)]


@pytest.mark.parametrize(
    ("word", "text", "named"),
    [
        ("saturday", "No bus on Sundays; four a day on weekdays.", False),
        ("saturday", "Every two hours on Saturdays.", True),
        ("saturday", "The car parks fill on summer weekends.", True),
        ("sunday", "Food Thursday to Sunday evenings.", True),
        ("monday", "Food Thursday to Sunday evenings.", False),
        ("tuesday", "Open 10 to 4 daily except Tuesdays.", True),  # named, and the sentence says what holds then
        ("july", "Busiest in summer.", True),
        ("march", "Closed from November to February.", False),
        ("january", "Closed from November to February.", True),
        ("buses", "No bus on Sundays.", None),
    ],
)
def test_a_weekday_or_month_is_named_by_itself_or_a_span_holding_it(word, text, named) -> None:
    from guide_tui.asked import names_the_date

    assert names_the_date(word, text) is named


def test_another_weekday_does_not_cover_the_one_asked_although_their_vectors_are_close(retriever) -> None:
    """Saturday's vector is close to Sunday's; as the day a bus runs they are different answers."""
    from guide_tui.extractive import coverage

    facts = analysed(retriever)
    subject = subject_of("How many buses go to Givens Mill on a Saturday?", facts)
    sunday = next(s for s in (facts.sentences[row] for row in range(len(facts.sentences))) if "Sundays" in s.text and "bus" in s.text)
    assert coverage(subject, sunday, facts)[subject.words.index("saturday")] == 0.0


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("When does the university term start in Brightwater this year?", [("date",)]),
        ("What are the exact dates of the festival?", [("date",)]),
        ("When is graduation week?", [WHEN]),  # a month answers it
        ("What dates does the land train run?", []),  # a season answers it
        ("We go in August this year. Is it busy?", []),  # "this year" in a statement asks nothing
    ],
)
def test_a_date_this_year_asks_for_a_calendar_date(question, kinds) -> None:
    from guide_tui.asked import asked_kinds

    assert asked_kinds(question) == kinds


def test_a_calendar_date_the_guides_never_give_is_refused_saying_so(retriever) -> None:
    """The guides speak of "late September" and "graduation week", never of a day of a month: "this year's" start is a
    near miss, refused with what is missing, not answered with the season."""
    answer = ask(retriever, "When does the university term start in Brightwater this year?")
    assert answer.refused and answer.refusal_detail == "no retrieved sentence gives a calendar date"


def test_a_yes_no_question_answered_by_the_place_saying_it_has_none_is_no_false_premise(retriever) -> None:
    """"Can I rent a room at the Givens Mill pub?": the village's "no accommodation of its own" answers it (no), however
    well another town's "Where to stay" covers "rent a room"; other_place is for a fact moved from another town."""
    answer = ask(retriever, "Can I rent a room at the Givens Mill pub?")
    assert answer.verdicts[0].features["other_place"] == 0.0


def test_a_question_after_a_sections_topic_meets_that_sections_heading(retriever) -> None:
    """"Where's best to base ourselves?" names no "stay", yet asks what "Where to stay" says: the heading's distance
    counts for it as for a list question, so that section can come within the cutoff."""
    question = "Where should we base ourselves in Halden Bay?"
    ranking = retriever.ranking(question)
    stay = next(n for n, c in enumerate(retriever.index.chunks) if c.file == "guide_halden_bay.md" and c.section == "Where to stay")
    assert ranking.distances[stay] < ranking.sentence_distances[stay]


def test_a_refusal_names_no_word_of_the_statement_before_the_question(retriever) -> None:
    """The model counts "grandkids" in "Taking the grandkids to Pellew Sands." as known (setting words); the refusal's
    record says so too, naming only what the question asks after that the guides never say."""
    answer = ask(retriever, "Taking the grandkids to Pellew Sands. Is there a little choo-choo along the front?")
    assert answer.refused and "grandkids" not in answer.refusal_detail and "choo" in answer.refusal_detail


@pytest.mark.parametrize(
    ("question", "fact", "answered"),
    [
        ("Is there a mini train running the length of the promenade in Pellew Sands?", "land train", True),
        ("Is there a covered market in Marchwood worth a wander?", "1863", True),
        ("Is there a cinema in Pellew Sands?", None, False),  # a near miss: nothing in the guides restates it
    ],
)
def test_an_odd_word_in_an_is_there_question_is_a_paraphrase_when_the_teacher_finds_it_restated(retriever, question, fact, answered) -> None:
    """"A mini train" where the guide says "a land train": the word the guides never use does not make the question
    one about an absent thing when the teacher finds the best sentence restating it (extractive.RESTATED)."""
    answer = ask(retriever, question)
    assert answer.refused is not answered
    if fact:
        assert fact in answer.text


@pytest.mark.parametrize(
    ("question", "fact", "answered"),
    [
        ("Is there anywhere to eat after 9pm in Halden Bay?", "closes by 9pm", True),  # "eat": no thing named, "food" said there
        ("Is there anything for kids to do in Pellew Sands?", "aimed at children", True),  # "kids": "children" said there
        ("Is there a cinema in Pellew Sands?", None, False),  # a thing named, and nothing there like it
    ],
)
def test_an_is_there_questions_way_of_asking_is_no_absent_thing_when_its_place_says_something_like_it(retriever, question, fact, answered) -> None:
    """Only a thing the question names ("a cinema") or a word nothing said of the place comes close to makes it a
    question about an absent thing: "anywhere to eat", "anything for kids" ask in their own words about food and children."""
    answer = ask(retriever, question)
    assert answer.refused is not answered
    assert answer.verdicts[0].features["absent_thing"] == float(not answered)
    if fact:
        assert fact in answer.text


@pytest.mark.parametrize(
    ("question", "fact", "answered"),
    [
        ("Can you go whale watching from Halden Bay?", None, False),  # no guide speaks of whales
        ("Can I go walking in Corry Vale?", "walk", True),  # the valley's guide does speak of walking
    ],
)
def test_can_i_go_doing_something_asks_whether_it_can_be_done_there(retriever, question, fact, answered) -> None:
    """"Can we go whale watching?" asks, as "is there" does, whether the thing exists there: a word the place's guides
    never use refuses it, instead of quoting the nearest sentence about the town."""
    answer = ask(retriever, question)
    assert answer.refused is not answered
    assert answer.verdicts[0].features["absent_thing"] == float(not answered)
    if fact:
        assert fact in answer.text.lower()


@pytest.mark.parametrize(
    ("question", "fact", "answered"),
    [
        ("Is there any way of saving money when catching Marchwood trams all day?", "day ticket", True),  # what one does
        ("Is there a trick to paying less on the Marchwood trams?", "day ticket", True),  # a trick, like a way, asks how
        ("Is there somewhere to go swimming in Thornby Wells?", None, False),  # no object: swimming is the thing
    ],
)
def test_what_an_is_there_question_says_one_does_is_no_absent_thing(retriever, question, fact, answered) -> None:
    """"saving money", "catching trams": an "-ing" word with an object says what the traveller does, and the guides need
    not use it (extractive.DOING); "swimming" alone is the thing asked after. "trick" frames the question as "way" does."""
    answer = ask(retriever, question)
    assert answer.refused is not answered
    if fact:
        assert fact in answer.text


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Is there anywhere to sleep in Givens Mill itself?", "no accommodation of its own"),
        ("Is there anywhere to sleep on Elder Ness?", "four rooms"),
    ],
)
def test_a_yes_no_questions_cue_for_a_sections_topic_meets_that_sections_heading(retriever, question, fact) -> None:
    """"Anywhere to sleep" is what "Where to stay" is about, whatever its sentences say ("accommodation", "rooms"): the cue
    counts as known to the guides for a yes/no question as for a list (extractive.heading_words)."""
    answer = ask(retriever, question)
    assert not answer.refused and fact in answer.text
    assert answer.verdicts[0].features["unknown_here"] == 0.0


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Is there an entry charge for the city museum in Marchwood?", "free"),
        ("Is there an admission fee at the Halden Bay museum?", None),  # the guide gives it no price: a near miss
    ],
)
def test_is_there_a_charge_asks_a_price_not_whether_a_thing_exists(retriever, question, fact) -> None:
    """"An entry charge" is answered by the museum being free; the words of a name ending in a price are not things the
    guides must mention (extractive.prices_named): a price, or its absence, decides."""
    answer = ask(retriever, question)
    assert answer.verdicts[0].features["absent_thing"] == 0.0
    if fact:
        assert not answer.refused and fact in answer.text
    else:
        assert answer.refused and answer.verdicts[0].features["kind_missing"] == 1.0
