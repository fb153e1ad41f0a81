"""A question word that neither the guides nor the embedding model's vocabulary holds, read as the guides' word one typing
slip away ("resturants" -> "restaurants"): a slip otherwise matches no keyword, and the answerer finds the section it
asks about nowhere."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

SLIP_MIN_LETTERS = 7
"""Shorter unknown words are more often slang or names than slips: at 4-6 letters, "pricey", "doable" and "pint" were
each one slip from a guide word ("prices", "double", "point") on the fitted questions (session 32)."""
SWAP_MIN_LETTERS = 5
"""Two neighbouring letters swapped ("musuem", "bakrey") reads as a slip from this length: it rarely makes another word."""
LETTERS = "abcdefghijklmnopqrstuvwxyz"
TYPED_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Slip:
    typed: str
    read_as: str

    def to_json(self) -> dict:
        return {"typed": self.typed, "read_as": self.read_as}


def swapped(word: str) -> set[str]:
    """Every word two neighbouring letters of this one swapped."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)} - {word}


def one_slip_away(word: str) -> set[str]:
    """Every word one letter dropped, added, changed or two neighbours swapped away."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {left + right[1:] for left, right in splits if right}
        | swapped(word)
        | {left + c + right[1:] for left, right in splits if right for c in LETTERS}
        | {left + c + right for left, right in splits for c in LETTERS}
    ) - {word}


ENDINGS = (
    ("s", ""), ("es", ""), ("ies", "y"), ("ed", ""), ("d", ""), ("ied", "y"), ("ing", ""), ("ing", "e"), ("er", ""), ("ers", ""),
    ("est", ""), ("ly", ""), ("ily", "y"),
)  # fmt: skip
"""Endings an inflected word adds to the one a vocabulary holds (to be dropped, and what replaces them): a vocabulary of
whole words has "walk" but not always "walkers"."""


def is_a_word(word: str, vocabulary: Collection[str]) -> bool:
    """The word, or it with an ending taken off (ENDINGS; a doubled last letter undone), is one the vocabulary holds."""
    if word in vocabulary:
        return True
    for ending, instead in ENDINGS:
        if word.endswith(ending) and len(word) > len(ending) + 2:
            base = word[: -len(ending)]
            if base + instead in vocabulary or (len(base) > 2 and base[-1] == base[-2] and base[:-1] in vocabulary):
                return True
    return False


def find_slips(question: str, guide_words: Collection[str], english: Collection[str], frequency: Callable[[str], int]) -> list[Slip]:
    """The question's slips: lowercase words (a capitalised one mid-question is a name) that neither vocabulary holds,
    each with the guide word (or its singular) one slip away that the most chunks use; the first letter is kept, and
    SLIP_MIN_LETTERS / SWAP_MIN_LETTERS say how long a word must be (guide_words: the index's known words; english: the
    embedding model's whole words; frequency: chunks using a guide word, 0 for one no sentence uses)."""
    slips = []
    for match in TYPED_WORD.finditer(question):
        typed = match.group()
        word = typed.lower()
        if len(word) < SWAP_MIN_LETTERS or (typed != word and match.start() > 0):
            continue
        if is_a_word(word, guide_words) or is_a_word(word, english):
            continue
        tried = one_slip_away(word) if len(word) >= SLIP_MIN_LETTERS else swapped(word)
        near = [c for c in tried if c[0] == word[0] and (c in guide_words or c + "s" in guide_words)]
        if near:
            slips.append(Slip(typed, max(sorted(near), key=lambda guide_word: frequency(guide_word) or frequency(guide_word + "s"))))
    return list(dict.fromkeys(slips))


def respelt(question: str, slips: list[Slip]) -> str:
    """The question with each slip read as its guide word."""
    for slip in slips:
        question = re.sub(rf"\b{re.escape(slip.typed)}\b", slip.read_as, question)
    return question


def slips_note(slips: list[Slip]) -> str:
    """What the app and the CLI say of them: 'read "resturants" as "restaurants" (a typing slip)'."""
    return ", ".join(f'read "{slip.typed}" as "{slip.read_as}"' for slip in slips) + " (a typing slip)"
