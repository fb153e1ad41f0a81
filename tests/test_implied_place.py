"""A town described, not named ("the headland", "the old Victorian resort"), read from the guides' openings; and how the
CLI and the app say a question was read (a described town, a typing slip)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import SLIPPED, settle, text_of

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
        # a place described as where the trip starts is not the one asked about when another is described
        ("How long is the train from the regional hub out to the old Victorian seaside resort?", "Pellew Sands"),
        ("How long is the train from the regional hub?", "Marchwood"),  # the only one described
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


READINGS = [  # a question not read word for word, what the CLI and the app say of it, and a word of the answer
    (LITTLE_TRAIN, 'read "the old Victorian resort" as Pellew Sands (described, not named)', "land train"),
    (SLIPPED, 'read "accomodation" as "accommodation" (a typing slip)', "guide_givens_mill.md"),  # spelling.py
]


@pytest.mark.parametrize(("question", "note", "said"), READINGS)
def test_ask_says_how_it_read_the_question(bundled_index, question, note, said) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "guide_tui", "ask", "--generator", "extractive", question], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0
    assert f"note: {note}" in run.stderr
    assert said in run.stdout


def test_ask_json_names_the_described_town(bundled_index) -> None:
    assert ask_json("Where can I stay on the headland?")["implied_place"]["town"] == "Elder Ness"
    plain = ask_json("Where can I stay in Halden Bay?")
    assert plain["implied_place"] is None


@pytest.mark.anyio
@pytest.mark.parametrize(("question", "note", "said"), READINGS)
async def test_the_answer_panel_says_how_the_question_was_read(retriever, question, note, said) -> None:
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*question, "enter")
        await settle(pilot)
        answer = text_of(app, "#answer-text")
        assert note.split(" (")[0] in answer and said.removesuffix(".md").split("_")[-1] in answer.lower()
