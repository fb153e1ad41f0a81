"""Values in a sentence, each with its kind and unit, so "7pm" is not "7am" and "fifty" is "50".

A claim's number means something only with what it counts: the same 7 is a morning
time, an evening time, seven trains or seven miles. Each value is read with its unit and
qualifiers and normalised (times to minutes after midnight, durations to minutes, distances
to metres, prices to pounds, days and months to sets), so the claim check compares like with
like and paraphrases ("an hour and a half" for "90 minutes", "19:00" for "7pm", "costs
nothing" for "free") are equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from guide_tui.asked import DENIAL, MONTH_NAMES, SEASONS, WEEKDAY_NAMES
from guide_tui.number_words import HOUR_WORDS, NAMED_TIMES, PHRASES, SCALES, TENS, UNITS, alternatives

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8}
FRACTIONS = {
    "half": 0.5, "a third": 1 / 3, "a quarter": 0.25, "twice": 2.0, "double": 2.0, "two times": 2.0, "three times": 3.0,
    "twofold": 2.0, "two-fold": 2.0, "threefold": 3.0, "three-fold": 3.0,
}  # fmt: skip

WORD_NUMBER = rf"(?:(?:{'|'.join(TENS)})(?:[- ](?:{alternatives(k for k in UNITS if k != 'zero')}))?|{alternatives(UNITS)}|a dozen|dozen)"
SPACED_THOUSANDS = r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d|[,.]\d)"
"""Thousands grouped by a space, as in "40 000"."""
NUMBER = (
    rf"(?:\d+(?:\.\d+)?(?: thousand|k\b)|{SPACED_THOUSANDS}|\d+(?:,\d{{3}})*(?:\.\d+)?|{alternatives(PHRASES)}"
    rf"|(?:(?:{WORD_NUMBER}|a)[- ]hundred(?: and {WORD_NUMBER})?|{WORD_NUMBER})(?:[- ]thousand)?|a thousand)"
)
"""A number in digits or words: 12, 12,000, 12 000, 1.5, 180 thousand, 180k, fifty, thirty-five, two hundred, a hundred and eighty thousand."""
SPOKEN_MINUTES = r"[- ](?:fifteen|thirty|forty-five)"
WORD_TIME = rf"(?:{HOUR_WORDS}|one)(?:{SPOKEN_MINUTES})?"
"""An hour in words, with its minutes: "ten thirty", "nine o'clock"."""
FRACTION_OF = r"(?:half an?|(?:a|one|three) quarters? of an?|(?:a|one|two)[- ]thirds? of an?)"
"""A fraction of one unit: "half a mile", "three quarters of an hour", "two-thirds of an hour"."""
SPOKEN_TIME = rf"(?:half past|(?:a )?quarter (?:past|to)|half) (?:{HOUR_WORDS}|one|\d{{1,2}})\b"
"""A time said with its minutes before the hour: "half past eight", "a quarter to ten", "half eight"."""
SOME = rf"(?:{NUMBER}|an?|one)"  # "an hour", "a day"

# unit word -> (kind, factor to the kind's base unit: minutes for durations, metres for distances)
DURATION_UNITS = {
    "minute": 1, "min": 1, "hour": 60, "hr": 60, "day": 1440, "night": 1440, "week": 10080, "fortnight": 20160, "month": 43800, "year": 525600,
}  # fmt: skip
DISTANCE_UNITS = {
    "mile": 1609.0, "mi": 1609.0, "metre": 1.0, "meter": 1.0, "m": 1.0, "km": 1000.0, "kilometre": 1000.0, "kilometer": 1000.0, "yard": 0.9144,
    "foot": 0.3048, "feet": 0.3048,
}  # fmt: skip
DISTANCE_TOLERANCE = 0.1  # "about 10 km" restates "six miles"
HEDGE = 0.25  # how far "just under" / "nearly" / "just over" may be from the amount it names
HEDGED = re.compile(
    r"(?:just|a little|a bit|slightly) (under|over|less than|more than)\s*$|(nearly|almost)\s*$"
    r"|(about|around|roughly|approximately|some|approx\.?|circa)\s*$|(?<![\w-])(?:under|less than|fewer than|up to)\s*$"
)
"""Words that say an amount is not exact: a little under or over it, about it, or at most it ("under half an hour")."""
BROAD_TIME = 180  # minutes: a part of the day longer than this ("morning", 5am to noon) names no hour
APPROXIMATE = 0.1  # how far "about an hour" may be from the amount it rounds ("55 minutes")
RATIO_ROUNDING = 0.02  # how far a proportion may be from the one it rounds ("33%" for "a third")

WEEKDAYS = [d.lower() for d in WEEKDAY_NAMES]
MONTHS = [m.lower() for m in MONTH_NAMES]
ALL_DAYS = frozenset(range(7))
WEEKEND = frozenset({5, 6})
WEEKEND_NIGHTS = frozenset({4, 5})
"""The nights of a weekend: Friday and Saturday."""
ALL_MONTHS = frozenset(range(1, 13))
PARTS_OF_DAY = {  # minutes after midnight, as (start, end) spans
    "morning": ((300, 720),), "mornings": ((300, 720),), "lunchtime": ((690, 870),), "afternoon": ((720, 1080),),
    "afternoons": ((720, 1080),), "evening": ((1020, 1440),), "evenings": ((1020, 1440),),
}  # fmt: skip
"""Night is left out: "other nights", "two nights", "weeknights" seldom mean a time of day."""
SYMBOLIC_TIMES = {
    "all day": "all day", "all night": "all night", "any hour of the night": "all night", "any time of the night": "all night",
    "any time of night": "all night", "through the night": "all night", "dusk": "dusk", "sunset": "dusk", "nightfall": "dusk",
    "dark": "dusk", "dawn": "dawn", "sunrise": "dawn", "first light": "dawn",
}  # fmt: skip
DIMENSIONS = {  # what a value of each kind measures: "gains 400 m of height" adds nothing to "climbs 400 metres"
    "distance": frozenset("distance length height altitude elevation ascent climb climbing descent".split()),
    "duration": frozenset("duration length time journey".split()),
    "price": frozenset("price cost fare fee charge".split()),
}
TAKEN_OR_FREE = ("seat", "space", "place", "table", "room", "bed")
"""Things that are free for the taking, not of charge: "if it has seats free", "when seats are free", "a free table"."""
FREE = (
    r"(?<![\w-])free(?![\w-])" + "".join(f"(?<!{thing}s free)(?<!{thing}s are free)(?<!{thing} is free)" for thing in TAKEN_OR_FREE) +
    r"(?! of (?:steps|traffic|crowds))(?! (?:" + "|".join(f"{thing}s?" for thing in TAKEN_OR_FREE) + r"|time)\b)"
    r"|costs? nothing|(?:at|for) no (?:cost|charge)|no charge|free of charge"
    r"|for nothing|without charge|(?:doesn't|does not|won't) cost (?:anything|a penny)"
    r"|(?:doesn't|does not|don't|do not|won't|will not|never) charge(?: (?:you|anything|visitors))?"
    r"(?: (?:for|to) (?:entry|entrance|admission|get in|go in|enter))?"
    r"|no (?:entry |entrance |admission )?fee"
)
CHARGED = (
    r"\bmetered\b|\bexpensive\b|\bpricey\b|\bcostly\b|\boverpriced\b|\b(?:an? )?(?:small |modest |nominal |entry |entrance |admission )*fee\b"
    r"|\b(?:an? )?(?:(?:small|modest|nominal) (?:entry |entrance |admission )?|(?:entry|entrance|admission) )charge\b"
    r"|\bcharges? (?:for )?(?:entry|entrance|admission|visitors)\b|\bpay to (?:enter|get in|go in|visit|climb)\b|\bnot free\b"
)
ALL_YEAR = r"all year(?: round)?|year-round|year round|throughout the year|every month|all through the year|any time of (?:the )?year"
EVERY_DAY = (
    r"every day(?: of the week)?|each day|daily|seven days(?: a| of the) week|all seven days(?: of the week)?|all week"
    r"|every (?:night|evening)(?: of the week)?|nightly|any (?:day|night|evening)(?: of the week)?"
)
EXCEPTED = r"\b(?:except|apart from|other than|but not|excluding)(?: on)?\s+"
EXCEPT = rf",?\s*{EXCEPTED}"
EXCEPT_ALL = rf"(?:{EXCEPT}|,?\s*\bbut\s+(?:on\s+)?)"
"""After "every day", a bare "but" excepts too ("every day but Tuesday")."""
MONTH_NAME = rf"(?:(?:early|late|mid)[- ])?(?:{'|'.join(MONTHS)}|{'|'.join(sorted(SEASONS, key=len, reverse=True))})"
DAY_FULL = "|".join(WEEKDAYS)
DAY_SHORT = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6}
SHORT_RANGE = rf"\b(?:{'|'.join(DAY_SHORT)})\.?\s*[-–]\s*(?:{'|'.join(DAY_SHORT)})\b\.?"
"""Abbreviated days only as a range ("Mon–Fri"): alone, "sat" and "sun" are words."""
MONTH_SHORT = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
MONTH_SHORT_RANGE = rf"\b({'|'.join(MONTH_SHORT)})\.?\s*[-–]\s*({'|'.join(MONTH_SHORT)})\b\.?"
"""Abbreviated months, likewise only as a range ("Nov–Feb", "Sept-Oct")."""
DAY_NAME = rf"(?:(?:{DAY_FULL})s?|weekdays?|weekends?|weeknights?)"
LINK = r"\s*(?:\bto\b|-|–|\buntil\b|\btill\b|\bthrough\b)\s*"


@dataclass(frozen=True)
class Value:
    """One value as written ("7pm") and normalised (`readings`: the ways it can be read)."""

    kind: str  # clock, price, duration, distance, day, month, year, count, ordinal, ratio
    text: str
    readings: tuple  # clock: (first, last) minute spans; year: (first, last) years; day/month: one frozenset; others: numbers
    start: int  # offset in the sentence
    is_range: bool = False  # "from May to September": the claim states both ends, not a part
    negative: bool | None = False  # "closed on Mondays", "no buses on Sundays" (set by the caller from polarity); None: either
    loose: bool = False  # a season in a claim: overlapping the evidence is enough
    hedge: str = ""  # "under" / "over" for "just under half an hour", "nearly an hour", "just over a mile"; "about"
    counted: str = ""  # for a count, the word after it: what it counts ("four pubs")
    only: bool = False  # "only in summer", "only on Saturdays": these days or months and no others

    def comparable(self, other: Value) -> bool:
        """Can `other` state this value: the same kind, or for a bare count an amount with a unit ("another
        twenty" after "35 minutes" is the guide's "20 more minutes")."""
        return self.kind == other.kind or (self.kind == "count" and other.kind in ("duration", "distance"))

    def matches(self, other: Value) -> bool:
        """Does `other` (in the evidence) state this value (in the claim)?"""
        if self.kind != other.kind:  # a bare count read against an amount's number ("another twenty": "20 more minutes")
            return self.comparable(other) and any(abs(a - b) < 1e-6 for a in self.readings for b in written_numbers(other.text))
        if self.kind == "clock":  # "starting at 8am" is not stated by "the Saturday morning market"
            return any(overlaps(a, b, parts_of_day=True) and not more_exact(a, b) for a in self.readings for b in other.readings)
        if self.kind == "year":
            return any(overlaps(a, b) for a in self.readings for b in other.readings)
        if self.kind in ("day", "month"):
            mine, theirs = self.readings[0], other.readings[0]
            if None not in (self.negative, other.negative) and self.negative != other.negative:
                every = ALL_DAYS if self.kind == "day" else ALL_MONTHS  # "not a weekend bus" is the guide's "a weekday bus",
                complement = not mine & theirs and mine | theirs == every  # "no bus on Sundays" not "any day but Sunday",
                return complement and (self.negative or self.only)  # but it is "only Monday to Saturday": no others
            if self.is_range:
                return mine == theirs
            if self.kind == "day" and mine == WEEKEND and theirs == WEEKEND_NIGHTS and "weekend" in self.text.lower():
                return True  # "late at weekends" for "until midnight on Fridays and Saturdays"
            if self.only and not theirs <= mine:  # "only in summer" where the guide says "all year round"
                return False
            return bool(mine & theirs) if self.loose else mine <= theirs
        if self.hedge and self.kind in ("duration", "distance", "count"):  # "just under half an hour" is 25 minutes
            low, high = {"under": (1 - HEDGE, 1.0), "over": (1.0, 1 + HEDGE), "about": (1 - APPROXIMATE, 1 + APPROXIMATE)}[self.hedge]
            return any(a * low <= b <= a * high for a in self.readings for b in other.readings)
        if self.kind == "ratio":
            return any(abs(a - b) <= RATIO_ROUNDING for a in self.readings for b in other.readings)
        if self.kind == "distance":
            return any(abs(a - b) <= DISTANCE_TOLERANCE * max(a, b) for a in self.readings for b in other.readings)
        if self.kind == "price" and None in self.readings + other.readings:  # an unstated charge: any price but free
            if None in other.readings and None not in self.readings:  # "£5" is not stated by "expensive"
                return False
            return all((a is None or a > 0) and (b is None or b > 0) for a in self.readings for b in other.readings)
        return any(abs(a - b) < 1e-6 for a in self.readings for b in other.readings)


def written_numbers(text: str) -> list[float]:
    """The numbers as written in a value's text: "20 more minutes" 20, "two to four miles" 2 and 4."""
    return [number(n) for n in re.findall(rf"(?<![\w.]){NUMBER}(?![\w.])", text.lower())]


def more_exact(mine, theirs) -> bool:
    """Is a claim's time of day exact where the guide's is a part of the day longer than BROAD_TIME?"""
    if isinstance(mine, str) or isinstance(theirs, str):
        return False
    return mine[0] == mine[1] and theirs[1] - theirs[0] > BROAD_TIME


def overlaps(a, b, parts_of_day: bool = False) -> bool:
    """Do two readings (spans of minutes or years) share a moment? Two parts of the day that only touch do not
    ("afternoon" and "morning" meet at noon); two spans of years that share a year do."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if parts_of_day and a[0] < a[1] and b[0] < b[1]:
        return a[0] < b[1] and b[0] < a[1]
    return a[0] <= b[1] and b[0] <= a[1]


def number(text: str) -> float:
    """A number written in digits or words ("12,000", "thirty-five", "two hundred", "a dozen")."""
    text = text.lower().strip()
    if re.fullmatch(r"[\d,]+(?:\.\d+)?", text) or re.fullmatch(SPACED_THOUSANDS, text):
        return float(re.sub(r"[,\s]", "", text))
    if re.fullmatch(r"\d+(?:\.\d+)?(?: thousand|k)", text):
        return float(text.removesuffix("k").split()[0]) * 1000
    if text in PHRASES:
        return float(PHRASES[text])
    scale = 1.0
    if re.search(r"(?:^|[- ])thousand$", text):
        scale, text = 1000.0, text.removesuffix("thousand").strip(" -") or "one"
    if "hundred" in text:
        left, _, right = text.partition("hundred")
        return (small_number(left) * 100 + small_number(right.replace(" and ", " "), 0.0)) * scale
    return small_number(text) * scale


def small_number(text: str, empty: float = 1.0) -> float:
    """A number below a hundred in words ("thirty-five", "a"); `empty` for no words at all."""
    words = [w for w in re.split(r"[- ]+", text.strip(" -")) if w]
    if not words:
        return empty
    return float(sum(UNITS.get(word, TENS.get(word, 1 if word in ("a", "an") else 0)) for word in words))


def clock(hour: int, minute: int, meridiem: str | None) -> tuple:
    """The spans a written time can mean: "7pm" one, a bare "7" both 7:00 and 19:00."""
    if meridiem in ("am", "a.m."):
        return (((hour % 12) * 60 + minute,) * 2,)
    if meridiem in ("pm", "p.m."):
        return (((hour % 12 + 12) * 60 + minute,) * 2,)
    if hour > 12 or hour == 0:
        return (((hour % 24) * 60 + minute,) * 2,)
    return tuple(((h * 60 + minute,) * 2) for h in sorted({hour % 12, hour % 12 + 12}))


def day_names(text: str) -> frozenset[int]:
    """Weekdays named in text such as "weekdays", "Thursday to Sunday", "Fridays and Saturdays", "every day"."""
    days: set[int] = set()
    if re.search(EVERY_DAY, text):
        days |= ALL_DAYS
    if re.search(r"\bweekdays?\b|\bweeknights?\b", text):
        days |= set(range(5))
    if re.search(r"\bweekends?\b", text):
        days |= {5, 6}
    for first, last in re.findall(rf"\b({DAY_FULL})s?{LINK}({DAY_FULL})s?\b", text):
        a, b = WEEKDAYS.index(first), WEEKDAYS.index(last)
        days |= {(a + n) % 7 for n in range((b - a) % 7 + 1)}
    days |= {WEEKDAYS.index(name) for name in re.findall(rf"\b({DAY_FULL})s?\b", text)}
    for first, last in re.findall(rf"\b({'|'.join(DAY_SHORT)})\.?\s*[-–]\s*({'|'.join(DAY_SHORT)})\b", text):
        a, b = DAY_SHORT[first], DAY_SHORT[last]
        days |= {(a + n) % 7 for n in range((b - a) % 7 + 1)}
    return frozenset(days)


def day_set(text: str) -> frozenset[int]:
    """day_names, less the days after "except" / "apart from" ("every day except Tuesdays")."""
    parts = re.split(EXCEPT_ALL, text, maxsplit=1) if re.match(EVERY_DAY, text) else re.split(EXCEPT, text, maxsplit=1)
    return day_names(parts[0]) - (day_names(parts[1]) if len(parts) > 1 else frozenset())


def months_of(name: str) -> tuple[frozenset[int], bool]:
    """(the months, whether a season named them) of one month or season name; "late spring" is May."""
    part = re.match(r"(early|late|mid)[- ]", name)
    name = name[part.end() :] if part else name
    if name in SEASONS:
        months = sorted(SEASONS[name], key=lambda m: (m - 3) % 12)  # in season order: December before January
        if part and len(months) == 3 and name not in ("easter", "midsummer", "high summer"):
            return frozenset({months[{"early": 0, "mid": 1, "late": 2}[part.group(1)]]}), False
        return SEASONS[name], True
    return frozenset({MONTHS.index(name) + 1}), False


def month_set(text: str) -> tuple[frozenset[int], bool]:
    """Months named in text ("May to September", "in winter", "all year"), and whether only seasons named them."""
    if re.search(ALL_YEAR, text):
        return ALL_MONTHS, False
    if short := re.fullmatch(MONTH_SHORT_RANGE, text):
        start, end = MONTH_SHORT[short.group(1)], MONTH_SHORT[short.group(2)]
        return frozenset(((start - 1 + n) % 12) + 1 for n in range((end - start) % 12 + 1)), False
    span = re.search(rf"({MONTH_NAME}){LINK}({MONTH_NAME})|between ({MONTH_NAME}) and ({MONTH_NAME})", text)
    if span:
        first, last = [g for g in span.groups() if g]
        start, end = min(months_of(first)[0]), max(months_of(last)[0])
        if start == 12 and end != 12:  # "winter to March": winter's December
            start = 12
        return frozenset(((start - 1 + n) % 12) + 1 for n in range((end - start) % 12 + 1)), False
    found: set[int] = set()
    seasons_only = True
    for name in re.findall(MONTH_NAME, text):
        months, is_season = months_of(name)
        found |= months
        seasons_only = seasons_only and is_season
    return frozenset(found), seasons_only


# ---------------------------------------------------------------- reading values out of a sentence


DOUBLE_VERB = r"double(?=\s*(?:[.,;]|$| (?:the|that|this|those|these|what|its|their|in|at|during|when|over|from|to|on)\b))|doubl(?:es|ed|ing)"
""""double" as a verb or "double the": "double rooms" are no ratio."""
PERCENT = r"\b(\d+(?:\.\d+)?)\s?(?:%|per ?cent\b)"
"""A proportion in hundredths: "50%" is half, "33 per cent" a third (to RATIO_ROUNDING)."""
NOT_A_DURATION = r"(?:tickets?|pass(?:es)?|returns?|trips?|trippers?|visitors?|rovers?)\b"
"""Nouns "a day" describes rather than lasts: "a day ticket", "a day trip"."""
NOT_AFTER_HOUR = (
    r"(?![:.]?\d)(?!\s?(?:am|pm|a\.m|p\.m))"
    r"(?!\s*(?:minutes?|mins?|hours?|miles?|metres?|km|days?|nights?|weeks?|years?|%|times|people|cars|beds|[a-z]+s\b))"
)
HOUR = r"\d{1,2}(?:[:.]\d{2})?"
MERIDIEM = r"\s?(?:am|pm|a\.m\.|p\.m\.)"


CENTURY_WORDS = {word: n for word, n in UNITS.items() if 13 <= n <= 19}
"""The first word of a year said as words ("nineteen sixty-three"): the hundreds, 1300 to 1900."""
DECADE_WORDS = {f"{word[:-1]}ies": n for word, n in TENS.items()}
"""A decade said as a word ("the eighteen nineties"): "nineties" is 90."""
SPOKEN_YEAR = (
    rf"\b(?:{'|'.join(CENTURY_WORDS)})[- ](?:hundreds|(?:{'|'.join(DECADE_WORDS)})"
    rf"|(?:{'|'.join(TENS)})(?:[- ](?:{alternatives(w for w, n in UNITS.items() if 1 <= n <= 9)}))?)\b(?!-)"
)
"""A year, decade or century said as words: "nineteen sixty-three" is 1963, "eighteen nineties" the 1890s, "fourteen
hundreds" the 1400s ("nineteen sixty-seat buses" is no year)."""


def starting_a_word(pattern: str) -> re.Pattern:
    """A pattern each alternative of which starts a word (\\b, then a letter or digit), compiled so: the engine
    then passes over the ends of words at once instead of trying every alternative there."""
    return re.compile(rf"\b(?=\w)(?:{pattern})")


PATTERNS: list[tuple[str, re.Pattern]] = [
    # order matters: an earlier pattern's span is not read again by a later one
    # each alternative starts with \b where it can (before a lookbehind too): the engine then tests it once for all of them
    ("clock", starting_a_word(rf"\b(?:(?:half past|(?:a )?quarter (?:past|to)) (?:{NUMBER}|\d{{1,2}})\b"
        rf"|half (?:{HOUR_WORDS}|one|\d{{1,2}})\b{NOT_AFTER_HOUR}(?! (?:of|or|to|and|more|other|an?)\b))"
        rf"(?:{MERIDIEM}| (?:in the (?:morning|afternoon|evening)|at night))?")),
    ("price", re.compile(rf"£\s?\d+(?:\.\d{{2}})?|\b(?:\d+(?:\.\d{{2}})?|{NUMBER}) (?:pounds?|quid|pence)\b|\b\d+p\b|{FREE}|{CHARGED}")),
    ("year", starting_a_word(
        r"\b(?:1[0-9]|20)\d0s\b|\b(?:1[0-9]|20)\d\d\b(?!\s*(?:pounds|people|residents|cars|metres|miles|beds))"
        r"|\b\d{1,2}(?:st|nd|rd|th)[- ]century\b"
        r"|\b(?:twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth)[- ]century\b"
        rf"|{SPOKEN_YEAR}"
    )),
    ("day", starting_a_word(
        rf"\b(?:{EVERY_DAY})(?:{EXCEPT_ALL}{DAY_NAME}(?:\s*(?:,|and|or)\s*{DAY_NAME})*)?(?:,? (?:{DAY_NAME}) included)?\b"
        rf"|{EXCEPTED}{DAY_NAME}(?:\s*(?:,|and|or)\s*{DAY_NAME})*\b|{SHORT_RANGE}"
        rf"|\b(?:from )?{DAY_NAME}(?:{LINK}{DAY_NAME}|(?:\s*(?:,|and|or)\s*{DAY_NAME})+)?\b"
    )),
    ("duration", starting_a_word(
        rf"\b(?:an? )?(?:hour and an? half|hour and (?:{NUMBER}) minutes?)\b|\b(?:{NUMBER}) and a half hours?\b"
        rf"|\b(?:{NUMBER}|an?) (?:hours?|hrs?),? (?:and )?(?:{NUMBER}) (?:minutes?|mins?)\b"
        rf"|\b(?:three[- ])?quarters? of an hour\b|\b(?:a|one|two)[- ]thirds? of an hour\b"
        rf"|\b(?:an? )?quarter (?:of an hour|hour)\b|\bhalf an hour\b|\bhalf[- ]hour(?:ly)?\b|\bhalf a day\b"
        rf"|\b(?:every|each) (?:(?:{NUMBER}) )?(?:hours?|minutes?)\b|\b(?:two-|three-)?hourly\b|\bon the hour\b|\bonce an hour\b"
        rf"|\b(?:(?:{NUMBER}) times|twice) (?:an|a|per) hour\b"
        rf"|\b(?:{NUMBER})(?:\s*(?:or|to|-|–)\s*(?:{NUMBER}))?(?: more| extra| further)?"
        r"(?:[- ]|(?<=\d))(?:minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|fortnights?|months?|years?)\b'?"
        rf"|\b(?:(?<!s )|(?<=takes |lasts |needs ))(?<!once )(?<!twice )an? (?:minute|hour|day|night|week|fortnight|month|year)\b(?![- ]{NOT_A_DURATION})"
    )),
    ("ratio", starting_a_word(rf"\b(?:a third|a quarter|half|twice|{DOUBLE_VERB}|two times|three times|(?:two|three)-?fold)\b"
        rf"(?![- ](?:an? |of an? )?(?:hour|day|mile|minute|week|year|kilomet|km|metre|meter))(?! (?:a|an|per) )|{PERCENT}")),
    ("distance", starting_a_word(rf"\b(?:{FRACTION_OF}|{SOME})(?: and a half)?(?:\s*(?:or|to|-|–)\s*(?:{NUMBER}))?(?: more| further)?"
        rf"(?:[- ](?:miles?|metres?|meters?|km|kilometres?|kilometers?|yards?|feet|foot)|(?<=\d) ?(?:m|km|mi|miles?))\b")),
    ("month", starting_a_word(rf"{MONTH_SHORT_RANGE}|\b(?:between |from )?{MONTH_NAME}(?:{LINK}|\s+and\s+){MONTH_NAME}\b|\b{MONTH_NAME}\b|\b(?:{ALL_YEAR})\b")),
    ("clock", starting_a_word(
        rf"\b{HOUR}{MERIDIEM}|\b\d{{1,2}}:\d{{2}}\b"
        rf"|\b(?:(?:at|by|until|till|from|before|after) )?(?:{NUMBER}|{HOUR})(?: o'clock)? (?:in the (?:morning|afternoon|evening)|at night)\b"
        rf"|\b(?:{'|'.join(NAMED_TIMES)}|{'|'.join(SYMBOLIC_TIMES)})\b"
        rf"|\b(?:from |between )?(?:{HOUR}(?:{MERIDIEM})?|noon|midday)\s*(?:to|-|–|until|till|and)\s*{HOUR}(?:{MERIDIEM})?\b{NOT_AFTER_HOUR}"
        rf"|\b(?:(?:from|between|opens?) (?:{WORD_TIME}|{HOUR}|noon|midday)|noon|midday)(?:{MERIDIEM})?"
        rf" (?:to|until|till|and) (?:{WORD_TIME}|noon|midday|midnight)"
        rf"(?:{MERIDIEM})?\b{NOT_AFTER_HOUR}(?! (?:of|or|more|other)\b)"
        rf"|\b{WORD_TIME}{MERIDIEM}|\b(?:{HOUR_WORDS}|one|\d{{1,2}}) o'clock\b"
        rf"|\b(?:(?:from|between) (?:{WORD_TIME}|{HOUR})(?= (?:to|until|till|and) {SPOKEN_TIME})|(?:{WORD_TIME}|{HOUR})(?= (?:to|until|till) {SPOKEN_TIME}))"
        # "from six until half past eight", "6 till half eight"
        rf"|\b(?:at|by|until|till|before|after|from)\s+{HOUR}\b{NOT_AFTER_HOUR}"
        rf"|\b(?:at|by|until|till|before|after)\s+(?:{HOUR_WORDS})(?:{SPOKEN_MINUTES})?(?:{MERIDIEM})?\b{NOT_AFTER_HOUR}(?!\s+(?:of|or|to|more|other)\b)"
        rf"(?!\s+and\s+(?:a half|{NUMBER}))"  # "at ten and closes at four", not "at two and a half"
        rf"|\b(?:early |late |mid-?)?(?:{'|'.join(PARTS_OF_DAY)})\b"
    )),
    ("ordinal", starting_a_word(rf"(?<!\ba )\b(?:{'|'.join(o for o in ORDINALS if o != 'first')})\b|\b\d{{1,2}}(?:st|nd|rd|th)\b(?![- ]century)")),
    ("count", starting_a_word(rf"\b(?:{NUMBER}|(?:once|twice)(?= (?:a|an|per|every|each)\b))\b")),
]


PER_DAY = re.compile(rf"(?:\b(?:{NUMBER}) [a-z]+s(?: [a-z]+ing)?|\btimes|\btwice|\bonce)\s+$")
""""daily" or "each day" after a count of things is a rate, as "a day" is ("seven trains daily", "seven trains running each
day"), not every day of the week."""
COUNT_BEFORE = re.compile(rf"\b(?:{NUMBER})\s+$")
THINGS_AFTER = re.compile(r"\s+[a-z]+s\b")
""""daily" between a count and its things is a rate too ("four daily buses")."""

CLOSING_BEFORE = re.compile(r"\b(?:clos\w*|shut\w*)\s+$")
DAY_AFTER = re.compile(rf"\s+(?:on\s+)?(?:a\s+)?{DAY_NAME}\b")


def daily_is_a_rate(lowered: str, start: int, end: int) -> bool:
    """Is "daily" ("each day") a count per day ("seven trains daily", "four daily buses"), not every day of the week?"""
    return bool(
        PER_DAY.search(lowered[max(0, start - 40) : start])
        or (COUNT_BEFORE.search(lowered[max(0, start - 20) : start]) and THINGS_AFTER.match(lowered, end))
    )


def closes_whole_day(lowered: str, start: int, end: int) -> bool:
    """Is "all day" between closing and a day ("closed all day Sunday" is "closed on Sundays"), so no time of day?"""
    return bool(CLOSING_BEFORE.search(lowered[max(0, start - 20) : start]) and DAY_AFTER.match(lowered, end))

SEASON_FALL = re.compile(r"(?:\b(?:in|the|this|last|next|through|until|till|by|and|or|to|from)\s+|(?:early|late|mid)[- ])$")
""""fall" is a season only after these words ("in the fall", "late fall"); "prices fall by half" is a verb."""

HINTS = {
    "price": re.compile(r"£|\dp|free|cost|charg|fee|pric|expens|meter|pay|nothing|penny|pound|quid|pence"),
    "duration": re.compile(r"(?<![a-z])(?:min|hour|hr|day|night|week|fortnight|month|year)"),  # a unit starting a word
    "distance": re.compile(r"mile|met|km|kilomet|yard|feet|foot|\d ?mi?\b"),
    "year": re.compile(r"\d|century|teen"),
    "ratio": re.compile(r"third|quarter|half|twice|double|times|fold|%|per ?cent"),
    "month": re.compile(rf"{'|'.join(m[:3] for m in MONTHS)}|spring|summer|autumn|fall|winter|easter|year|month"),
    "day": re.compile(r"day|daily|week|night|evening|mon|tue|wed|thu|fri|sat|sun"),
    "clock": re.compile(rf"\d|noon|midday|midnight|dusk|dawn|sun|nightfall|dark|morning|afternoon|evening|night|lunch|all day|past|quarter|{HOUR_WORDS}"),
    "ordinal": re.compile(r"second|third|fourth|fifth|sixth|seventh|eighth|\d(?:st|nd|rd|th)"),
    "count": re.compile("|".join([r"\d", *(w for w, n in UNITS.items() if 0 < n < 13), "teen", *TENS, "dozen", *SCALES, "once", "twice", "couple", "pair"])),
}
"""Words every match of a pattern contains: a sentence without them is not searched (the patterns are slow)."""


def values_in(sentence: str) -> list[Value]:
    """Every value in the sentence, in order, each span read once by the first pattern that takes it."""
    lowered = sentence.replace("’", "'").lower()
    taken = [False] * len(lowered)
    found: list[Value] = []
    hinted = {kind for kind, hint in HINTS.items() if hint.search(lowered)}
    for kind, pattern in PATTERNS:
        if kind in HINTS and kind not in hinted:
            continue
        for match in pattern.finditer(lowered):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            if kind == "month" and match.group(0) == "fall" and not SEASON_FALL.search(lowered[max(0, start - 12) : start]):
                continue
            if kind == "day" and match.group(0) in ("daily", "each day") and daily_is_a_rate(lowered, start, end):
                continue
            if kind == "clock" and match.group(0) == "all day" and closes_whole_day(lowered, start, end):
                continue
            if kind == "duration" and match.group(0).startswith("one ") and THE_BEFORE.search(lowered[max(0, start - 8) : start]):
                continue  # "the one day of the week it is closed": the only day, not a day long
            if kind == "duration" and match.group(0).startswith(("a ", "an ")) and COUNT_BEFORE.search(lowered[max(0, start - 12) : start]):
                continue  # "four a day": a rate, as "four buses a day" is, not a day long
            values = read(kind, match.group(0), sentence[start:end].strip(), start)
            if values:
                taken[start:end] = [True] * (end - start)
                found.extend(values)
    read_in_place = [limited(outside(with_counted(hedged(v, lowered), lowered), lowered), lowered) for v in sorted(found, key=lambda v: v.start)]
    return with_exceptions(read_in_place, lowered)


THE_BEFORE = re.compile(r"\bthe\s+$")


OUTSIDE_BEFORE = re.compile(r"\boutside\s+(?:of\s+)?(?:the\s+)?$")
"""What turns the months after it into the rest of the year."""


def outside(value: Value, lowered: str) -> Value:
    """Months read as the rest of the year after "outside" ("outside July and August, prices are low")."""
    before = max(0, value.start - 20)
    said = OUTSIDE_BEFORE.search(lowered[before : value.start]) if value.kind == "month" else None
    if not said:
        return value
    start = before + said.start()
    text = lowered[start : value.start] + value.text
    return replace(value, text=text, start=start, readings=(ALL_MONTHS - value.readings[0],), is_range=False, loose=False)


ONLY_BEFORE = re.compile(r"\bonly\s+(?:[a-z]+\s+)?(?:(?:in|on|at|during|over|from|between)\s+)?(?:the\s+)?$")
"""What limits the days or months after it to themselves, a verb between or not ("only run from Monday to Saturday")."""


def limited(value: Value, lowered: str) -> Value:
    """Days or months marked `only` when "only" comes right before them ("but only in summer")."""
    if value.kind in ("day", "month") and ONLY_BEFORE.search(lowered[max(0, value.start - 30) : value.start]):
        return replace(value, only=True)
    return value


COUNTED = re.compile(rf"\s+(?:of (?:the|its|their|these|those) (?:{NUMBER} )?)?(?:[a-z]+ly\s+)?([^\W\d_][\w'-]*)")
"""The word a count counts: the next one, past an adverb ("four pubs", "four genuinely good places"), or the thing
a part is taken of ("three of the four villages" counts villages)."""


PEOPLE = frozenset({"people", "residents", "inhabitants", "locals"})
"""Words that count a place's people: one thing counted ("300 residents" is "a village of 300 people")."""
HEADCOUNT = re.compile(r"\b(?:village|town|city|port|population) of (?:about |around |roughly |some |nearly |almost )?$")
"""A bare number after these counts people: "a village of 300", "a population of about 40,000"."""


def with_counted(value: Value, lowered: str) -> Value:
    if value.kind != "count":
        return value
    said = COUNTED.match(lowered, value.start + len(value.text))
    if (said and said.group(1) in PEOPLE) or (not said and HEADCOUNT.search(lowered[: value.start])):
        return replace(value, counted="people")
    return replace(value, counted=said.group(1)) if said else value


def hedged(value: Value, lowered: str) -> Value:
    """The value marked "under" or "over" when the words before it say it is not exact."""
    said = HEDGED.search(lowered[max(0, value.start - 20) : value.start])
    if not said or value.kind not in ("duration", "distance", "count"):
        return value
    if said.group(3):
        return replace(value, hedge="about")
    return replace(value, hedge="over" if (said.group(1) or "") in ("over", "more than") else "under")


REST = re.compile(r"\b(?:(?:the )?rest of the (year|week)|other (?:days|nights|evenings))\b")
"""The months or days a sentence has not named: "the rest of the year", "and on other nights"."""


def with_rest(values: list[Value], sentence: str) -> list[Value]:
    """"important from May to September and unnecessary for the rest of the year": the months (or days) the
    sentence has not named before it, as a value of their own (read in the guides' sentences, where it says
    what the claim may name)."""
    lowered, rest = sentence.replace("’", "'").lower(), []
    for said in REST.finditer(lowered):
        kind, every = ("month", ALL_MONTHS) if said.group(1) == "year" else ("day", ALL_DAYS)
        named = [v.readings[0] for v in values if v.kind == kind and v.start < said.start()]
        if named:
            rest.append(Value(kind, said.group(), (every - frozenset().union(*named),), said.start()))
    return sorted(values + rest, key=lambda v: v.start) if rest else values


def with_exceptions(values: list[Value], lowered: str) -> list[Value]:
    """"daily from 10 until 4, except on Tuesdays": the excepted days taken out of the days before them, or,
    with none before, of the days after them ("except on Tuesdays, open daily"), or with neither, out of the
    whole week ("apart from Fridays and Saturdays, kitchens close at 10:30pm") unless the clause denies first
    ("but not on Mondays" names the days it denies, as "closed on Mondays" does)."""
    kept = list(values)
    for value in values:
        if value.kind != "day" or not re.match(EXCEPTED, value.text.lower()):
            continue
        at = kept.index(value)
        before = [v for v in kept[:at] if v.kind == "day" and v.is_range]
        after = [v for v in kept[at + 1 :] if v.kind == "day" and v.is_range]
        target = before[-1] if before else after[0] if after else None
        if target is not None:
            kept[kept.index(target)] = replace(target, readings=(target.readings[0] - day_names(value.text.lower()),))
            kept.remove(value)
        elif not value.text.lower().startswith("but not") and not DENIAL.search(re.split(r"[.;:,]", lowered[: value.start])[-1]):
            kept[at] = replace(value, readings=(ALL_DAYS - day_names(value.text.lower()),), is_range=True)
    return kept


def read(kind: str, lowered: str, written: str, start: int) -> list[Value]:
    """The values one match of kind's pattern holds (two for a range of clock times, none for a stray word)."""
    if kind == "price":
        if re.fullmatch(FREE, lowered):
            return [Value(kind, written, (0.0,), start)]
        amount = re.match(rf"£?\s?(\d+(?:\.\d+)?|{NUMBER})", lowered)
        pounds = None if amount is None else number(amount.group(1)) / (100 if re.search(r"pence|\dp$", lowered) else 1)
        return [Value(kind, written, (pounds,), start)]
    if kind == "ratio" and (percent := re.match(PERCENT, lowered)):
        return [Value(kind, written, (float(percent.group(1)) / 100,), start)]
    if kind == "ratio":
        return [Value(kind, written, (FRACTIONS[re.sub(r"^doubl\w*", "double", lowered)],), start)]
    if kind == "year":
        return [Value(kind, written, (year_span(lowered),), start)]
    if kind in ("duration", "distance"):
        amounts = minutes(lowered) if kind == "duration" else metres(lowered)
        return [Value(kind, written, tuple(amounts), start)]
    if kind == "month":
        months, seasons_only = month_set(lowered)
        is_range = bool(re.search(rf"{LINK}|\bbetween\b", lowered))
        return [Value(kind, written, (months,), start, is_range=is_range, loose=seasons_only and not is_range)] if months else []
    if kind == "day":
        if re.match(EXCEPTED, lowered):  # taken out of an every-day value by with_exceptions
            return [Value(kind, written, (day_names(lowered),), start)]
        days = day_set(lowered)
        is_range = bool(re.search(rf"{LINK}|{EXCEPT}|{EVERY_DAY}|[-–]", lowered))
        return [Value(kind, written, (days,), start, is_range=is_range)] if days else []
    if kind == "clock":
        return clock_values(lowered, written, start)
    if kind == "ordinal":
        digits = re.match(r"\d+", lowered)
        return [Value(kind, written, (float(digits.group()) if digits else float(ORDINALS[lowered]),), start)]
    if lowered in ("one", "a", "an"):  # "one street back", "the only one": too common to be a claim's number
        return []
    return [Value("count", written, ({"once": 1.0, "twice": 2.0}.get(lowered) or number(lowered),), start)]


def year_span(text: str) -> tuple[int, int]:
    """First and last year a year, decade ("1890s"), century ("1400s") or "13th-century" covers."""
    ordinals = "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()
    century = re.match(r"(\d{1,2})(?:st|nd|rd|th)", text)
    named = next((n + 12 for n, word in enumerate(ordinals) if text.startswith(word)), None)
    if century or named:
        n = int(century.group(1)) if century else named
        return (n - 1) * 100, (n - 1) * 100 + 99
    if text[0].isalpha():  # said as words (SPOKEN_YEAR): "nineteen sixty-three", "eighteen nineties"
        first, *rest = re.split(r"[- ]", text)
        year = CENTURY_WORDS[first] * 100 + sum(DECADE_WORDS.get(word) or TENS.get(word) or UNITS.get(word, 0) for word in rest)
        span = 99 if rest[0] == "hundreds" else 9 if rest[0] in DECADE_WORDS else 0
        return year, year + span
    if text.endswith("s"):
        year = int(text[:-1])
        return year, year + (99 if year % 100 == 0 else 9)
    return int(text), int(text)


def amounts(text: str) -> tuple[list[float], str]:
    """The numbers of "two to four miles" / "an hour" / "15-minute", and the unit word (singular)."""
    unit = re.findall(r"[a-z]+", text)[-1]
    head = re.sub(r"\b(?:more|extra|further)\b", " ", text[: text.rfind(unit)])
    numbers = [number(n) for n in re.findall(rf"(?:{NUMBER}|\ban?\b|\bone\b)", re.sub(r" and a half\b", "", head))]
    if numbers and " and a half" in head:  # "six and a half kilometres"
        numbers = [numbers[0] + 0.5, *numbers[1:]]
    return numbers or [1.0], unit.removesuffix("s") if unit not in ("feet",) else unit


def metres(text: str) -> list[float]:
    numbers, unit = amounts(text)
    if re.match(FRACTION_OF, text):
        return [fraction(text) * DISTANCE_UNITS[unit]]
    return [n * DISTANCE_UNITS[unit] for n in numbers]


def fraction(text: str) -> float:
    """The fraction a FRACTION_OF phrase names: "half a mile" 0.5, "three quarters of an hour" 0.75, "two-thirds of a mile"."""
    if "third" in text:
        return 2 / 3 if text.startswith("two") else 1 / 3
    return 0.5 if text.startswith("half") else 0.75 if text.startswith("three") else 0.25


def minutes(text: str) -> list[float]:
    """A duration or interval in minutes ("an hour and a half" 90, "two-hourly" 120, "a day or two" 1440)."""
    if m := re.search(rf"({NUMBER}) and a half hour", text):
        return [(number(m.group(1)) + 0.5) * 60]
    if "quarter" in text or "third" in text:
        return [fraction(text) * 60]
    if re.search(r"half an hour|half[- ]hour", text):
        return [30.0]
    if "half a day" in text:
        return [720.0]
    if re.search(r"hour and an? half", text):
        return [90.0]
    if m := re.search(rf"hour and ({NUMBER}) minute", text):
        return [60.0 + number(m.group(1))]
    if m := re.fullmatch(rf"({NUMBER}|an?) (?:hours?|hrs?),? (?:and )?({NUMBER}) (?:minutes?|mins?)", text):
        return [60.0 * number(m.group(1)) + number(m.group(2))]
    if m := re.search(rf"(?:({NUMBER}) times|twice) (?:an|a|per) hour", text):  # "four times an hour" is every 15 minutes
        return [60.0 / (number(m.group(1)) if m.group(1) else 2.0)]
    if re.search(r"hourly|on the hour|once an hour|(?:every|each) hour\b", text):
        return [60.0 * (2 if "two-" in text else 3 if "three-" in text else 1)]
    numbers, unit = amounts(re.sub(r"^(?:every|each) ", "", text).rstrip("'"))
    return [n * DURATION_UNITS[unit] for n in numbers]


def clock_values(lowered: str, written: str, start: int) -> list[Value]:
    """A time of day as the spans of minutes it can mean; a range "from 12 to 2" as its two ends."""
    if lowered in SYMBOLIC_TIMES:
        return [Value("clock", written, (SYMBOLIC_TIMES[lowered],), start)]
    if lowered in NAMED_TIMES:
        minute = NAMED_TIMES[lowered]
        return [Value("clock", written, ((minute, minute),) + (((1440, 1440),) if minute == 0 else ()), start)]
    part = re.sub(r"^(?:early|late|mid-?)\s*", "", lowered)
    if part in PARTS_OF_DAY:
        return [Value("clock", written, PARTS_OF_DAY[part], start)]
    spoken = re.match(rf"(half past|(?:a )?quarter past|(?:a )?quarter to|half) ({NUMBER}|\d{{1,2}})", lowered)
    if spoken:  # "half ten" is half past ten
        offset = {"half past": 30, "half": 30, "quarter past": 15}.get(spoken.group(1).removeprefix("a "), -15)
        hour = int(number(spoken.group(2)))
        meridiem = re.search(r"am|pm|morning|afternoon|evening|night", lowered[spoken.end() :])
        kind = None if meridiem is None else "am" if meridiem.group() in ("am", "morning") else "pm"
        minutes_after = [(span[0] + offset, span[1] + offset) for span in clock(hour, 0, kind)]
        return [Value("clock", written, tuple(minutes_after), start)]
    said = re.search(r"(?:o'clock )?(?:in the (morning|afternoon|evening)|at night)", lowered)
    if said:
        head = re.sub(r"^(?:at|by|until|till|from|before|after) ", "", lowered[: said.start()].strip())
        digits = re.fullmatch(r"(\d{1,2})(?:[:.](\d{2}))?", head)
        hour, minute = (int(digits.group(1)), int(digits.group(2) or 0)) if digits else (int(number(head)), 0)
        meridiem = "am" if said.group(1) == "morning" or (said.group(1) is None and hour == 12) else "pm"
        return [Value("clock", written, clock(hour, minute, meridiem), start)]
    values = [Value("clock", name, ((NAMED_TIMES[name],) * 2,), start + lowered.find(name)) for name in NAMED_TIMES if name in lowered]
    for time in TIME_OF_DAY.finditer(lowered):
        (hour, minute), meridiem = hour_and_minute(time), time.group("meridiem")
        if meridiem is None and time.group("minute") and time.group("hour").startswith("0"):
            meridiem = "am"  # "09:00" is written on a 24-hour clock
        if hour > 24 or minute > 59:
            return []
        values.append(Value("clock", time.group(0).strip(), clock(hour, minute, meridiem), start + time.start()))
    return sorted(values, key=lambda v: v.start)


TIME_OF_DAY = re.compile(
    rf"(?:\b(?P<hour>\d{{1,2}})(?:[:.](?P<minute>\d{{2}}))?|\b(?P<word>{HOUR_WORDS}|one)(?:[- ](?P<spoken>fifteen|thirty|forty-five))?\b)"
    r"(?: o'clock)?\s?(?P<meridiem>am|pm|a\.m\.|p\.m\.)?"
)
"""One time of a clock match, in digits ("10:30pm") or words ("ten thirty", "by seven")."""


def hour_and_minute(time: re.Match) -> tuple[int, int]:
    if time.group("word"):
        return int(number(time.group("word"))), int(number(time.group("spoken"))) if time.group("spoken") else 0
    return int(time.group("hour")), int(time.group("minute") or 0)
