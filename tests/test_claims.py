"""The claim check on real retrievals from the bundled index: what it supports, what it flags."""

from __future__ import annotations

import pytest

from guide_tui.answering import REFUSAL
from guide_tui.chunking import sentences
from guide_tui.claims import answer_sentences, check_claims, cited_files, is_refusal
from guide_tui.ollama_answerer import prompt_hits

PUBS = "When do the pubs in Kestrelford serve food?"
BUS = "How do I get to Kestrelford by bus?"
SIGHTS = "What is there to see in Kestrelford?"

# Paraphrases a model might write, each with a fact of the guides; none should be flagged.
SUPPORTED = [
    (PUBS, "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 [guide_kestrelford.md]."),
    (PUBS, "Kestrelford's pubs serve lunch from noon until 2pm and dinner from 6pm to 8:30pm."),
    (PUBS, "Outside those hours there is nowhere in Kestrelford to get a meal [guide_kestrelford.md]."),
    (PUBS, "The bakery sells out by 11am, so go early."),
    (BUS, "There is no train station in Kestrelford, since the line closed in 1963 [guide_kestrelford.md]."),
    (BUS, "Buses leave Brightwater roughly hourly on weekdays and every two hours on Saturdays [guide_kestrelford.md]."),
    (BUS, "You cannot get a bus to Kestrelford on a Sunday."),
    (BUS, "Driving from Brightwater takes 55 minutes."),
    (BUS, "The last stretch is single-track road with passing places."),
    (SIGHTS, "You can climb the church tower for a small fee."),
    (SIGHTS, "The walk along the old railway line is six miles long."),
    (SIGHTS, "The market on the square is the main attraction and has run continuously for centuries."),
    # two source sentences merged into one claim
    (BUS, "Buses run hourly on weekdays, every two hours on Saturdays and not at all on Sundays, and the drive takes 55 minutes."),
    (BUS, "The railway closed in 1963 and the drive from Brightwater takes 55 minutes."),
]

# Claims the guides do not make: a wrong number, a name or day they never mention, or nothing like any sentence.
INVENTED = [
    (PUBS, "The pubs also serve a Sunday roast until 4pm [guide_kestrelford.md]."),
    (PUBS, "The bakery sells out by 10am."),
    (PUBS, "The bakery is open until 6pm."),  # 6 is in the chunk, but only in the pubs' hours
    (PUBS, "Vegetarian dishes are available at every pub."),
    (PUBS, "Live music plays in the pubs on Friday nights."),
    (PUBS, "Food is served all day at the cafés."),
    (BUS, "Buses run every 30 minutes from Brightwater."),
    (BUS, "A bus runs from Marchwood twice a day."),
    (SIGHTS, "The bakery is famous for its sourdough."),
    (SIGHTS, "The church tower offers great views over the countryside."),
    (SIGHTS, "The trackbed walk is flat and suitable for wheelchairs."),
    (SIGHTS, "Guided tours of the town run in summer."),
]


@pytest.fixture(scope="module")
def hits_for(retriever):
    cache: dict[str, list] = {}

    def hits(question: str):
        if question not in cache:
            cache[question] = prompt_hits(retriever.retrieve(question))
        return cache[question]

    return hits


@pytest.mark.parametrize(("question", "claim"), SUPPORTED)
def test_faithful_paraphrase_is_supported_and_quoted(hits_for, bundled_index, question, claim):
    check = check_claims(claim, hits_for(question), bundled_index.embedder)
    assert check.unsupported == []
    (citation,) = check.citations
    chunk = next(h.chunk for h in hits_for(question) if h.chunk.chunk_id == citation.chunk_id)
    assert citation.quote in sentences(chunk.text)
    assert (citation.file, citation.section) == (chunk.file, chunk.section)


@pytest.mark.parametrize(("question", "claim"), INVENTED)
def test_invented_claim_is_unsupported(hits_for, bundled_index, question, claim):
    check = check_claims(claim, hits_for(question), bundled_index.embedder)
    assert check.unsupported == [claim]
    assert check.citations == []


def test_only_the_invented_sentence_is_flagged(hits_for, bundled_index):
    answer = (
        "Kestrelford has a bakery, two cafés and four pubs [guide_kestrelford.md]. "
        "The bakery is open until 6pm [guide_kestrelford.md]. "
        "Outside the pub serving times there is nowhere in Kestrelford to get a meal [guide_kestrelford.md]."
    )
    check = check_claims(answer, hits_for(PUBS), bundled_index.embedder)
    assert check.unsupported == ["The bakery is open until 6pm [guide_kestrelford.md]."]
    assert [c.chunk_id for c in check.citations] == ["guide_kestrelford.md#2"]


def test_a_citation_limits_support_to_the_cited_file(hits_for, bundled_index):
    files = {h.chunk.file for h in hits_for(PUBS)}
    assert {"guide_kestrelford.md", "guide_eating.md"} <= files
    fact = "Kestrelford has a bakery, two cafés and four pubs"  # only guide_kestrelford.md says so
    assert check_claims(f"{fact} [guide_kestrelford.md].", hits_for(PUBS), bundled_index.embedder).unsupported == []
    wrong = f"{fact} [guide_eating.md]."
    assert check_claims(wrong, hits_for(PUBS), bundled_index.embedder).unsupported == [wrong]


def test_citations_of_files_not_retrieved_are_invented(hits_for, bundled_index):
    answer = (
        "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 "
        "[guide_kestrelford.md, guide_halden_bay.md]. The bakery sells out by 11am [guide_pellew_sands.md]."
    )
    check = check_claims(answer, hits_for(PUBS), bundled_index.embedder)
    assert check.invented_citations == ["guide_halden_bay.md", "guide_pellew_sands.md"]
    assert check.unsupported == ["The bakery sells out by 11am [guide_pellew_sands.md]."]  # its only citation is invented
    assert [c.chunk_id for c in check.citations] == ["guide_kestrelford.md#2"]


@pytest.mark.parametrize(
    "answer",
    [
        REFUSAL,
        f"{REFUSAL} [guide_kestrelford.md]",
        f"{REFUSAL}\n\n[guide_kestrelford.md, Eat and drink]",
        "I don’t have enough information about that.",
        f' "{REFUSAL}" ',
    ],
)
def test_refusal_even_with_a_citation_has_no_source(hits_for, bundled_index, answer):
    assert is_refusal(answer)
    check = check_claims(answer, hits_for(PUBS), bundled_index.embedder)
    assert check.refused and check.citations == [] and check.unsupported == [] and check.invented_citations == []


def test_refusal_sentence_followed_by_claims_is_not_a_refusal(hits_for, bundled_index):
    answer = f"{REFUSAL} However, the pubs serve food from 12 to 2 [guide_kestrelford.md]."
    assert not is_refusal(answer)
    assert not check_claims(answer, hits_for(PUBS), bundled_index.embedder).refused


def test_citation_after_the_full_stop_stays_with_its_sentence():
    text = "Buses leave Brightwater hourly. [guide_kestrelford.md] No buses run on Sundays. [guide_regional_transport.md]"
    assert answer_sentences(text) == [
        "Buses leave Brightwater hourly [guide_kestrelford.md].",
        "No buses run on Sundays [guide_regional_transport.md].",
    ]


def test_list_items_are_separate_claims():
    text = "Here is what the guides say:\n- The pubs serve food from 12 to 2.\n* The bakery sells out by 11am.\n1. No buses run on Sundays."
    assert answer_sentences(text) == [
        "Here is what the guides say:",
        "The pubs serve food from 12 to 2.",
        "The bakery sells out by 11am.",
        "No buses run on Sundays.",
    ]


def test_cited_files_in_order_of_first_mention():
    text = "A [guide_b.md]. B (guide_a.md; guide_b.md). C [guide_kestrelford.md, Eat and drink]."
    assert cited_files(text) == ["guide_b.md", "guide_a.md", "guide_kestrelford.md"]


def test_uncited_supported_sentence_still_gets_its_source(hits_for, bundled_index):
    check = check_claims("No buses run to Kestrelford on Sundays.", hits_for(BUS), bundled_index.embedder)
    assert check.unsupported == []
    assert [c.file for c in check.citations] == ["guide_kestrelford.md"]
    assert check.citations[0].quote == "No buses run to Kestrelford on Sundays."
