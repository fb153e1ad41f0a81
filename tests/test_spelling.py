"""A typing slip ("accomodation") read as the guide word one slip away (what the CLI and the app say of it: test_implied_place)."""

from __future__ import annotations

import pytest
from conftest import SLIPPED

from guide_tui.answering import answer_question
from guide_tui.spelling import Slip, one_slip_away, respelt, swapped


@pytest.mark.parametrize(
    ("question", "slips"),
    [
        (SLIPPED, [("accomodation", "accommodation")]),
        ("Whats the best resturant in Halden Bay?", [("resturant", "restaurant")]),  # the guides say only "restaurants"
        ("What are the opening hours of the musuem in Brightwater?", [("musuem", "museum")]),  # a swap: from 5 letters
        ("Accesible toilets on the Pellew Sands seafront?", [("Accesible", "accessible")]),  # first word, capitalised
        ("Is it pricey to eat in Marchwood?", []),  # short, and no swap: slang more often than a slip
        ("Does the Eurostar stop in Marchwood?", []),  # capitalised mid-question: a name
        ("Is there a launderette in Halden Bay?", []),  # no guide word one slip away
        ("Are the cyclists and walkers welcome on the hiking trails?", []),  # English words, inflected
        ("Where do the trams go?", []),
    ],
)
def test_a_slip_is_read_as_the_guide_word_one_slip_away(retriever, question, slips) -> None:
    assert [(slip.typed, slip.read_as) for slip in retriever.slips(question)] == slips


def test_one_slip_is_a_letter_dropped_added_changed_or_swapped() -> None:
    near = one_slip_away("cat")
    assert {"at", "cart", "cut", "act"} <= near and "cat" not in near and "dog" not in near
    assert swapped("museum") >= {"muesum", "musuem"} and "museum" not in swapped("museum")
    assert respelt("the musuem, the musuems", [Slip("musuem", "museum")]) == "the museum, the musuems"  # whole words only


def test_the_slip_is_answered_as_the_word_meant_and_the_question_kept_as_asked(retriever) -> None:
    """Read as typed, no guide sentence holds "accomodation" and the question is refused."""
    retrieval = retriever.retrieve(SLIPPED)
    assert retrieval.question == SLIPPED
    assert retrieval.read_as == SLIPPED.replace("accomodation", "accommodation")
    assert retrieval.reading_notes == ['read "accomodation" as "accommodation" (a typing slip)']
    answer = answer_question(retriever, SLIPPED, generator="extractive")
    assert not answer.refused and "accommodation" in answer.text
    assert {file for file, _ in answer.sources()} == {"guide_givens_mill.md"}
    assert answer.to_json()["slips"] == [{"typed": "accomodation", "read_as": "accommodation"}]
    assert answer_question(retriever, "Are there any accommodation options in Givens Mill?", generator="extractive").text == answer.text
    assert retriever.retrieve("Are there any accommodation options in Givens Mill?").to_json()["slips"] == []
