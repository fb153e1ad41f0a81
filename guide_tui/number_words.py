"""Numbers, and hours and times of day, written as words: one list for the readers that must agree on them (what a
question asks for in asked.py, what a claim says in claim_values.py and claim_polarity.py). Imports nothing of the
package, and compiles nothing, so that reading a question's stance does not load the claim check's value patterns."""

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
SCALES = {"hundred": 100, "thousand": 1000}
PHRASES = {"half a dozen": 6, "a dozen": 12, "dozen": 12, "a couple of": 2, "a couple": 2, "a pair of": 2}
"""Numbers said as phrases: "a couple of cafés" is two cafés."""

COUNT_WORDS = tuple(word for word in (*UNITS, *TENS, "hundred") if word != "zero")
"""The words a count, duration or distance is written with ("ninety minutes", "a hundred metres")."""

HOUR_WORDS = "|".join(sorted((w for w, n in UNITS.items() if 2 <= n <= 12), key=len, reverse=True))
"""Hours written as words after "by", "at", "until" ("cleared by seven"); "one" is too often "one end"."""
NAMED_TIMES = {"noon": 720, "midday": 720, "midnight": 0}
"""Times of day said by name, in minutes after midnight."""


def alternatives(words) -> str:
    """A regex alternation of the words, longest first: unanchored, "four|fourteen" reads "fourteen" as four."""
    return "|".join(sorted(words, key=len, reverse=True))
