"""The answerability model's topic feature: how much a question's wording (its teacher vector) reads like the
labelled questions the guides answer rather than those off their subject. Questions in our own words, on the real
bundled index."""

from __future__ import annotations

import json

import numpy as np
import pytest

from guide_tui.answerability import AnswerabilityModel, shipped_model
from guide_tui.answering import answer_question
from guide_tui.answers import REFUSAL

# Off the guides' subject altogether, though each names a town and passes the gate; the model without a topic
# feature answered every one of these from whatever was retrieved about the town.
OFF_THE_SUBJECT = [
    "Can you recommend a good podcast for the drive to Corry Vale?",
    "How do I renew my passport in Marchwood?",
    "What is the crime rate like in Pellew Sands?",
]

# Travellers' wordings of what the guides do say: still answered.
ON_THE_SUBJECT = [
    "where do people eat well in pellew sands without paying seafront prices?",
    "how long does it take to walk across halden bay?",
]


@pytest.mark.parametrize("question", OFF_THE_SUBJECT)
def test_a_question_off_the_guides_subject_is_refused_though_its_town_is_retrieved(retriever, question) -> None:
    answer = answer_question(retriever, question, generator="extractive")
    assert answer.retrieval.gate.passed
    assert answer.refused and answer.text == REFUSAL and answer.refusal_reason == "answerability"
    assert not answer.citations


@pytest.mark.parametrize("question", ON_THE_SUBJECT)
def test_a_traveller_s_wording_of_what_the_guides_say_is_still_answered(retriever, question) -> None:
    answer = answer_question(retriever, question, generator="extractive")
    assert not answer.refused and answer.citations


def test_the_topic_feature_is_shown_with_the_others_and_sides_with_the_guides_subject(retriever) -> None:
    def topic(question: str) -> float:
        (verdict,) = answer_question(retriever, question, generator="extractive").verdicts
        return verdict.features["topic"]

    assert topic(ON_THE_SUBJECT[1]) > 0 > topic("Can you recommend a good podcast for the drive to Corry Vale?")


def test_the_topic_model_ships_with_the_answerability_model_and_reads_teacher_vectors(retriever, tmp_path) -> None:
    model = shipped_model()
    vector = retriever.teacher_encode(["how long does it take to walk across halden bay?"])[0]
    assert len(model.topic_weights) == len(vector)
    assert model.topic(vector) == pytest.approx(model.topic_bias + float(np.dot(model.topic_weights, vector)))
    assert model.topic(None) == 0.0  # an index built without the teacher: no topic, no push either way
    saved = tmp_path / "model.json"
    saved.write_text(json.dumps(model.to_json()), encoding="utf-8")
    again = AnswerabilityModel.load(saved)
    assert again.topic(vector) == pytest.approx(model.topic(vector), abs=1e-4)
