"""A town described, not named ("the headland", "the old Victorian resort"), read from the guides' openings."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import settle, text_of

from guide_tui.answering import answer_question
from guide_tui.implied_place import implied_place
from guide_tui.tui.app import GuideApp

LITTLE_TRAIN = "Is there a little train along the front at the old Victorian resort?"


@pytest.mark.parametrize(
    ("question", "town"),
    [
        ("Where can I stay on the headland?", "Elder Ness"),
        (LITTLE_TRAIN, "Pellew Sands"),
        ("We love fresh fish. Where should we eat in the port town?", "Halden Bay"),  # "port" is Halden Bay's alone
        ("How often do the trams run in the big city?", "Marchwood"),
        ("can we camp anywhere in that valley with the four villages?", "Corry Vale"),
        ("Sunday lunch in the old spa town?", "Thornby Wells"),  # "old" is in another opening; "spa" decides
        ("Is the headland's lighthouse open?", "Elder Ness"),
        ("How long should we allow for the museum in the uni town?", "Brightwater"),  # "uni": the one opening word it begins
        ("Is there parking in the town centre?", None),  # several openings say "town": none is meant
        ("Which pub in the village does food?", None),
        ("What are the best ski resorts in the Alps?", None),  # several resorts are no one town
        ("How far is the harbour from the station?", None),  # no place noun
    ],
)
def test_a_described_town_is_the_one_whose_opening_describes_it_so(retriever, question, town) -> None:
    found = implied_place(question, retriever.openings)
    assert (found.town if found else None) == town


def test_a_question_naming_a_town_is_read_as_written(retriever) -> None:
    assert retriever.implied_place("Where can I stay on the headland at Halden Bay?") is None
    retrieval = retriever.retrieve("Where can I stay on the headland at Halden Bay?")
    assert retrieval.read_as == retrieval.question


def test_a_town_named_as_where_the_trip_starts_leaves_the_described_one_to_be_read(retriever) -> None:
    """"from Brightwater" says where the traveller sets out; the question is about the village it describes."""
    question = "Can I get a bus out to the watermill village from Brightwater?"
    assert retriever.implied_place(question).town == "Givens Mill"
    answer = answer_question(retriever, question, generator="extractive")
    assert not answer.refused and "guide_givens_mill.md" in {file for file, _ in answer.sources()}
    assert retriever.implied_place("Can I get a bus out to the watermill village at Brightwater?") is None  # named as the place


def test_the_described_town_is_retrieved_and_answered_and_said(retriever) -> None:
    """Without the read-in, the little train question ranks the walking guide and Kestrelford's sights first."""
    retrieval = retriever.retrieve(LITTLE_TRAIN)
    assert retrieval.question == LITTLE_TRAIN  # what was asked stays as asked
    assert retrieval.read_as == LITTLE_TRAIN.replace("resort?", "resort (Pellew Sands)?")
    assert retrieval.hits[0].chunk.file == "guide_pellew_sands.md"
    answer = answer_question(retriever, LITTLE_TRAIN, generator="extractive")
    assert not answer.refused and "land train" in answer.text
    assert {file for file, _ in answer.sources()} == {"guide_pellew_sands.md"}
    assert answer.to_json()["implied_place"] == {"town": "Pellew Sands", "phrase": "the old Victorian resort", "read_as": retrieval.read_as}


def ask_json(question: str) -> dict:
    run = subprocess.run(
        [sys.executable, "-m", "guide_tui", "ask", "--json", "--generator", "extractive", question], capture_output=True, text=True, timeout=120
    )
    return json.loads(run.stdout)


def test_ask_says_how_it_read_the_question(bundled_index) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "guide_tui", "ask", "--generator", "extractive", LITTLE_TRAIN], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0
    assert 'note: read "the old Victorian resort" as Pellew Sands (described, not named)' in run.stderr
    assert "land train" in run.stdout
    assert ask_json("Where can I stay on the headland?")["implied_place"]["town"] == "Elder Ness"
    plain = ask_json("Where can I stay in Halden Bay?")
    assert plain["implied_place"] is None


@pytest.mark.anyio
async def test_the_answer_panel_says_how_the_question_was_read(retriever) -> None:
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*LITTLE_TRAIN, "enter")
        await settle(pilot)
        answer = text_of(app, "#answer-text")
        assert 'read "the old Victorian resort" as Pellew Sands' in answer and "land train" in answer
