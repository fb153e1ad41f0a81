"""One list of number words: what a question asks for (asked.py) and what a claim says (claim_values.py) agree."""

import pytest

from guide_tui.asked import FOUND
from guide_tui.claim_values import values_in
from guide_tui.number_words import COUNT_WORDS, TENS, UNITS


@pytest.mark.parametrize("word", [word for word in COUNT_WORDS if word in UNITS or word in TENS])
def test_every_count_word_is_a_duration_to_both_readers(word):
    sentence = f"The walk takes {word} minutes."
    assert FOUND["duration"].search(sentence.lower()), "asked.py does not see a duration"
    durations = [value for value in values_in(sentence) if value.kind == "duration"]
    assert [value.readings for value in durations] == [(float(UNITS.get(word, TENS.get(word))),)]
