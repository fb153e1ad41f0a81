"""The town a question speaks of without naming it ("the headland", "the old spa town"), read from the guides' openings.

A traveller who does not remember a name describes the place as its guide does: Elder Ness "is a headland",
Thornby Wells "was a spa town". A phrase "the/that/this ... <place noun>" is matched against each town's
opening paragraph; the town whose opening holds one of the phrase's place nouns and most of its other
words, rarest first, is the one meant. A tie ("the town", "the village": several openings say so) means none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLACE_NOUNS = ("city", "town", "village", "resort", "port", "headland", "valley", "hub")
DEFINITE_PLACE = re.compile(
    rf"\b(?:the|that|this)\s+((?:[a-z][a-z'-]*\s+){{0,3}}(?:{'|'.join(PLACE_NOUNS)}))(?:['’]s)?\b(?!['’-])", re.IGNORECASE
)
SETTING_OUT = re.compile(r"\bfrom\s+$", re.IGNORECASE)
"""Before a place named or described as where the traveller sets out ("a bus out to the watermill village from
Brightwater", "the train from the regional hub out to the seaside resort"): the place asked about is another; a country
said so ("I visit from Spain.") is no subject."""
DESCRIBES_A_PLACE = re.compile(rf"\b(?:{'|'.join(PLACE_NOUNS)})", re.IGNORECASE)
"""A quick test before the phrase search: most questions hold no place noun."""
WORD = re.compile(r"[a-z][a-z'-]*")


@dataclass(frozen=True)
class ImpliedPlace:
    town: str
    phrase: str  # the words that describe it, as the question has them ("the old spa town")
    end: int  # where the phrase ends in the question: the town's name is read in there

    def to_json(self) -> dict:
        return {"town": self.town, "phrase": self.phrase}

    def note(self) -> str:
        """What the app and the CLI say of it: 'read "the headland" as Elder Ness (described, not named)'."""
        return f'read "{self.phrase}" as {self.town} (described, not named)'


def word_forms(text: str) -> set[str]:
    """Lowercased words, a plural's "s" taken off ("villages" -> "village")."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in WORD.findall(text.lower())}


def unclipped(word: str, described: dict[str, set[str]]) -> str:
    """A clipped word ("uni", "vic") as the one opening word it begins, if no opening holds it as it is."""
    if len(word) < 3 or any(word in forms for forms in described.values()):
        return word
    longer = {form for forms in described.values() for form in forms if form.startswith(word)}
    return longer.pop() if len(longer) == 1 else word


def implied_place(question: str, described: dict[str, set[str]]) -> ImpliedPlace | None:
    """The town (of `described`: town -> the word_forms of its guide's opening paragraph) one definite place
    phrase of the question describes, or None when none does or several fit as well; a place described as where the
    traveller sets out (SETTING_OUT) only when no other is described."""
    found = [(match, place) for match in DEFINITE_PLACE.finditer(question) if (place := described_by(match, described))]
    going_to = [place for match, place in found if not SETTING_OUT.search(question[: match.start()])]
    if going_to:
        return going_to[0]
    return found[0][1] if found else None


def described_by(match: re.Match, described: dict[str, set[str]]) -> ImpliedPlace | None:
    """The town one definite place phrase describes, or None when none does or several fit as well."""
    words = {unclipped(w, described) for w in word_forms(match.group(1))}
    nouns = words.intersection(PLACE_NOUNS)
    holding = {town: forms for town, forms in described.items() if nouns & forms}
    if not holding:
        return None
    weight = {w: 1 / sum(w in forms for forms in described.values()) for w in words if any(w in f for f in described.values())}
    scores = sorted(((sum(weight.get(w, 0.0) for w in words & forms), town) for town, forms in holding.items()), reverse=True)
    if len(scores) == 1 or scores[0][0] > scores[1][0]:
        return ImpliedPlace(scores[0][1], re.sub(r"['’]s$", "", match.group(0)), match.end())
    return None
