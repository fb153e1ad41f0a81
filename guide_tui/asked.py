"""What kind of value a question asks for ("when" -> a time, day, month or year; "how much" -> a price)
and what a text holding such a value looks like.

Its own module because two steps must agree on it: retrieval gives a small bonus to chunks holding
the asked-for kind of value, and the extractive answerer prefers, and demands, sentences that give it.
Two tables would drift apart, and a chunk ranked up for one reading of the question would then be
quoted (or refused) for another.
"""

from __future__ import annotations

import re

from guide_tui.number_words import COUNT_WORDS

WEEKDAY_NAMES = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTH_NAMES = "January February March April May June July August September October November December".split()
DAY_AND_MONTH_NAMES = frozenset(WEEKDAY_NAMES + [day + "s" for day in WEEKDAY_NAMES] + MONTH_NAMES)
"""Capitalised mid-sentence without naming a place or a thing (claims.known_names, extractive.NOT_PLACES)."""
PRICE_WORDS = "cost costs charge charges price prices fee fees fare fares pay paying expensive cheap cheaper cheapest"
"""Words that ask for a price, and that a sentence giving a price covers (KIND_WORDS adds "paid")."""

AMOUNT_WORDS = "cost costs price prices fee fees fare fares charge charges"
"""Words that ask how much money: a sentence must give an amount ("£2", "free"), not just talk of prices."""
AMOUNT_WORD = rf"\b(?:{'|'.join(AMOUNT_WORDS.split())})\b"  # any one of them, as a whole word

PAYMENT_MEANS = r"cash|cards?|contactless|credit|debit"
"""Ways to pay, as a question names them and a sentence gives them."""
A_MEANS_OF_PAYMENT = rf"\s+(?:(?:by|with|in)\s+)?(?:{PAYMENT_MEANS}|phone)\b"
MEANS_OF_PAYMENT = rf"(?!{A_MEANS_OF_PAYMENT})"
"""Not followed by a means of payment: "can I pay cash?" asks how to pay, not how much."""
NUMBER_WORD = rf"(?:\d+|{'|'.join(COUNT_WORDS)}|a|an|a few|a couple of|half an?)"
MONTHS = "|".join(month.lower() for month in MONTH_NAMES)
WEEKDAYS = rf"(?:{'|'.join(day.lower().removesuffix('day') for day in WEEKDAY_NAMES)})days?"


SEASONS = {
    "spring": frozenset({3, 4, 5}), "summer": frozenset({6, 7, 8}), "high summer": frozenset({7, 8}),
    "midsummer": frozenset({6, 7}), "autumn": frozenset({9, 10, 11}), "fall": frozenset({9, 10, 11}),
    "winter": frozenset({12, 1, 2}), "easter": frozenset({3, 4}),
}  # fmt: skip
"""The months (1-12) each season name covers, as the guides use them (a "summer" sentence says what holds in July);
the claim check reads them all, a question's date only the four of THE_SEASONS ("fall" is a verb as often)."""
THE_SEASONS = ("spring", "summer", "autumn", "winter")
DENIALS = ("not", "no", "never", "none", "nothing", "nowhere", "without")
"""Words that say a thing is not so or not there (and any word ending in "n't"): the answerer's "says it has none",
the first of the claim check's negators."""
DENIAL = re.compile(rf"\b(?:{'|'.join(DENIALS)})\b|n't\b", re.IGNORECASE)
"""Any of DENIALS as a word, or "n't", in one search."""
DAY_WORDS = {day.lower(): n for n, day in enumerate(WEEKDAY_NAMES)} | {day.lower() + "s": n for n, day in enumerate(WEEKDAY_NAMES)}
MONTH_WORDS = {month.lower(): n for n, month in enumerate(MONTH_NAMES)}
EVERY_DAY = re.compile(r"\bevery day\b|\bdaily\b|\bseven days\b|\ball week\b", re.IGNORECASE)
ALL_YEAR = re.compile(r"\ball year\b|\byear-round\b|\ball through the year\b|\bevery month\b", re.IGNORECASE)
DAY_RANGE = re.compile(rf"\b({WEEKDAYS})\s*(?:to|-|–|until|till|through)\s*({WEEKDAYS})\b", re.IGNORECASE)
MONTH_RANGE = re.compile(rf"\b({MONTHS})\s*(?:to|-|–|until|till|through)\s*({MONTHS})\b", re.IGNORECASE)


def _in_range(n: int, first: int, last: int, size: int) -> bool:
    return (n - first) % size <= (last - first) % size


def names_the_date(word: str, text: str) -> bool | None:
    """Whether a text speaks of the weekday or month the word names: the name itself, a span holding it ("weekends",
    "Thursday to Sunday", "summer", "April to October") or every one ("daily", "all year"). None: no such word.
    Word vectors find Saturday close to Sunday and July to August; as values they are different answers."""
    if word not in DAY_WORDS and word not in MONTH_WORDS:  # most words: checked before any work on the text (a hot path)
        return None
    lower = text.lower()
    if word in DAY_WORDS:
        day = DAY_WORDS[word]
        spans = [(DAY_WORDS[a.lower()], DAY_WORDS[b.lower()]) for a, b in DAY_RANGE.findall(text)]
        part_of_week = r"\bweekends?\b" if day >= 5 else r"\b(?:weekdays?|midweek|weeknights?)\b"
        return (re.search(rf"\b{WEEKDAY_NAMES[day].lower()}s?\b", lower) is not None or re.search(part_of_week, lower) is not None
                or EVERY_DAY.search(text) is not None or any(_in_range(day, a, b, 7) for a, b in spans))
    month = MONTH_WORDS[word]
    seasons = [season for season in THE_SEASONS if month + 1 in SEASONS[season]]
    spans = [(MONTH_WORDS[a.lower()], MONTH_WORDS[b.lower()]) for a, b in MONTH_RANGE.findall(text)]
    return (re.search(rf"\b{word}\b", lower) is not None or any(re.search(rf"\b{s}\b", lower) for s in seasons)
            or ALL_YEAR.search(text) is not None or any(_in_range(month, a, b, 12) for a, b in spans))


def _pattern(text: str) -> re.Pattern:
    return re.compile(text, re.IGNORECASE)


FREE_OF_CHARGE = r"(?<![\w-])free\b|\bcosts? nothing\b|\bno charge\b"
"""An amount of nothing: "free", "costs nothing", "no charge"."""

# What a sentence must contain to give each kind of answer.
FOUND = {
    "clock": _pattern(
        r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\b(?:midnight|noon|midday|dusk|dawn|lunchtime)\b"
        r"|\b(?:from|open|opens) \d{1,2} to \d{1,2}\b|\bbetween \d{1,2} and \d{1,2}\b|\bon the hour\b"
    ),
    "day": _pattern(rf"\b{WEEKDAYS}\b|\bweekdays?\b|\bweekends?\b|\bevery day\b|\bdays a week\b|\bdays of the week\b"),
    "month": _pattern(rf"\b(?:{MONTHS}|spring|summer|autumn|winter|easter|midsummer|year-round|all year)\b"),
    "year": _pattern(r"\b1\d{3}s?\b|\b20\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)[ -]century\b"),
    "number": _pattern(rf"\d|\b(?:{'|'.join(COUNT_WORDS)}|thousand|dozen|half|double|twice|third|halv(?:e|es|ed|ing)|doubl(?:es|ed|ing))\b"),
    "price": _pattern(
        rf"£\s?\d|{FREE_OF_CHARGE}|\bcosts?\b|\bcheap\w*|\bexpensive\b|\bprices?\b|\bcharges?\b|\bfares?\b"
        r"|\boverpriced\b"
    ),
    "amount": _pattern(rf"£\s?\d|\b\d+p\b|{FREE_OF_CHARGE}|\bpounds?\b|\bhalf price\b"),
    "measure": _pattern(
        r"\b\d+(?:\.\d+)?\s?(?:m|ft|metres?|meters?|feet|foot|storeys?|stories|floors?|steps)\b"
        rf"|\b(?:{'|'.join(COUNT_WORDS)})[ -](?:metres?|meters?|feet|foot|storeys?|stories|floors?|steps)\b"
    ),
    "duration": _pattern(
        rf"(?<!every )\b{NUMBER_WORD}[ -](?:minutes?|hours?|days?|nights?|weeks?|months?|years?)\b"
        r"|\bhalf a day\b|(?<!every )\ban? (?:hour|afternoon|day)\b"
    ),
    "distance": _pattern(rf"\b{NUMBER_WORD}[ -](?:miles?|metres?|meters?|km|kilometres?|yards?|feet)\b"),
    "frequency": _pattern(r"\bevery\b|\b(?:two-)?hourly\b|\bonce\b|\btwice\b|\btimes a (?:day|week|year)\b|\ba day\b"),
    "payment": _pattern(rf"\b(?:{PAYMENT_MEANS}|cheques?|coins?|notes)\b"),
    "date": _pattern(rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:{MONTHS})\b|\b(?:{MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}/\d{{1,2}}\b"),
    "contact": _pattern(r"\b\d{3,5}[\s-]?\d{3,}\b|\b[\w.-]+@[\w-]+\.\w+|\bwww\.|https?://"),
    "identifier": _pattern(
        r"\b(?:platforms?|gates?|stands?|stops?|routes?|lines?|numbers?|no\.)\s?\d+[a-z]?\b|\b\d+[a-z]?\s(?:bus|tram|service)\b"
    ),
    "reason": _pattern(r"\bbecause\b|\bsince\b|\bso\b|\bdue to\b|\bthanks to\b|\bmeans\b|\bmakes?\b|\bwhich\b"),
}
WHEN = ("clock", "day", "month", "year")
KIND_NAMES = {
    "clock": "a time of day", "day": "a day", "month": "a month or season", "year": "a year", "number": "a number",
    "price": "a price", "amount": "an amount of money", "measure": "a height or size", "name": "a name",
    "duration": "how long", "distance": "how far", "frequency": "how often", "contact": "a phone number, website or email",
    "identifier": "a platform, line or route number", "payment": "how to pay", "place": "a place", "reason": "a reason",
    "date": "a calendar date",
}
"""How a refusal names a kind of value no retrieved sentence gives ("no retrieved sentence gives a time of day")."""
SOFT_KINDS = {"place", "reason"}  # said in too many ways to demand ("why": because, so, a detail that...)
DETAIL_KINDS = {"payment", "contact", "identifier", "date"}
"""Details only a sentence holding them answers (cash or cards, a phone number, a platform); no retrieval bonus
(retrieval.VALUE_KINDS: the bonus's columns are stored with the index)."""

AMOUNT_WORD_CUE = _pattern(AMOUNT_WORD)
PRICE_WORD_CUE = _pattern(rf"\b(?:{'|'.join(PRICE_WORDS.split())})\b{MEANS_OF_PAYMENT}")
"""A word of price alone: the amount or price asked for, unless the question asks when or where (asked_kinds)."""

# Question cues, tried in order; a cue that matches is blanked out so a later, vaguer cue
# ("how long") does not fire on what an earlier one ("how long has") already read.
# Each matching cue adds one group of acceptable kinds: a sentence answers a group when
# it shows any of the group's kinds. The main reading comes first (retrieval's bonus uses only it).
ASKED: list[tuple[re.Pattern, tuple[str, ...]]] = [
    (
        _pattern(
            r"\b(?:phone|telephone|mobile|contact) (?:number|no\b|details)|\bnumber (?:to (?:call|ring|text|dial)|for (?:a|an|the)\b)"
            r"|\bwhat(?:['’]?s| is) (?:their|its|his|her|the [\w-]+(?:'s|’s)) number\b"
            r"|\bwhat number (?:do|should|can|would) (?:i|we|you) (?:call|ring|dial|text)\b"
            r"|\bweb ?site\b|\be-?mail\b|\bpost ?codes?\b|\bzip ?codes?\b"
        ),
        ("contact",),
    ),
    (
        _pattern(
            r"\b(?:which|what) (?:\w+ )?(?:platform|gate|stop number|route number|bus number)\b|\b(?:which|what) (?:tram|bus|train) (?:line|route|number)\b"
            r"|\bwhat number (?:bus|tram|train|platform|route)\b"
        ),
        ("identifier",),
    ),
    (_pattern(rf"\bpay(?:ing)?\b(?={A_MEANS_OF_PAYMENT})|\b(?:take|accept)s? (?:cash|cards?)\b"), ("payment",)),  # how to pay
    (  # a day of a month ("12 June"), not a season ("what dates does it run?"): the guides give no calendar dates
        _pattern(
            r"\b(?:exact|precise|specific)\s+(?:\w+\s+)?dates?\b|\b(?:what|which) date\b|\bdate\s+(?:of|for|does|do|is|will)\b"
            r"|\b(?:what|which|when)\b[^?.!]*\b(?:this|next) year\b"
        ),
        ("date",),
    ),
    (
        _pattern(
            r"\bwhat year\b|\bhow old\b|\bwhen did\b|\bhow long has\b|\bsince when\b|\bwhat century\b"
            r"|\bwhen (?:was|were) (?:[\w'-]+ ){0,4}?(?:built|founded|constructed|established|erected)\b"  # a year, not a season
        ),
        ("year",),
    ),
    (_pattern(r"\b(?:which|what)(?: \w+)? (?:months?|seasons?)\b|\btime of (?:the )?year\b"), ("month",)),
    (_pattern(r"\b(?:which|what)(?: \w+)? days?\b"), ("day",)),
    (_pattern(r"\bhow early\b"), ("clock", "duration")),  # a time of day, or how far ahead ("how early should I book?")
    (_pattern(r"\bwhat times?\b|\bhow late\b|\b(?:until|till|by) what\b|\bwhat hours?\b|\bopening (?:hours|times)\b|\b(?:exact|precise) times?\b"), ("clock",)),
    (_pattern(r"(?:^|[.?!,;:\u2013\u2014-]\s*)when\b|\b(?:until|since|till) when\b"), WHEN),  # not "shut when it's windy"
    (_pattern(r"\bhow long\b(?=[^?.!]{0,40}?\bwait)|\bhow long between\b"), ("duration", "frequency")),  # a wait: "every 15 minutes"
    (  # "journey time", "driving time": how long it takes ("bus times" and "train times" are a timetable)
        _pattern(r"\bhow much time\b|\bhow long (?:does|do|did|will|would|should)\b|\b(?:journey|travel|travelling|drive|driving|walking|cycling) times?\b"),
        ("duration",),
    ),
    (_pattern(r"\bhow long\b"), ("duration", "distance")),  # "how long is the river walk": 4 miles or 2 hours
    (_pattern(r"\bhow far\b"), ("distance", "duration")),
    (_pattern(r"\bhow often\b|\bhow frequent"), ("frequency",)),
    (  # how much a price moves: "double" or "half" answers it; the rest of the question is read with it ("prices")
        _pattern(
            r"\bhow much (?:\w+ ){0,4}?(?:prices?|costs?|rates?|fares?|rents?|rentals?) (?:(?!to\b)\w+ )?"
            r"(?:go(?:es)? (?:up|down)|rise|increase|jump|drop|fall)\b.*"
        ),
        ("amount", "number"),
    ),
    (  # "how much, roughly, is a night there?": the same question with an adverb in it
        _pattern(r"\bhow much,? (?:(?:exactly|roughly|approximately|precisely|actually|really|about),? )?(?:does|do|is|are|will|would|did)\b|\bgoing rate\b"),
        ("amount",),
    ),
    (  # a rate of money: "how much per hour", "the hourly rate"
        _pattern(r"\bhow much (?:\w+ )?(?:per|an|a|each) (?:hour|day|night|person)\b|\bhourly (?:rate|charge|price|cost|fee)s?\b"),
        ("amount",),
    ),
    (AMOUNT_WORD_CUE, ("amount",)),
    (PRICE_WORD_CUE, ("price",)),  # "is it expensive?": "priced for tourists" will do
    (_pattern(r"\bhow (?:tall|high|deep|wide|heavy|steep)\b|\b(?:height|depth|width)\b"), ("measure",)),
    (
        _pattern(
            r"\bcalled\b|\bnamed?\b|\bnames of\b|\bwhat(?:['’]?s| is) (?:the|its) name\b"
            r"|\bwhich (?:\w+ )?(?:company|companies|operators?|firms?)\b|\bwho (?:runs|operates|owns)\b"
            r"|(?:^|[.?!,;:\u2013\u2014-]\s*)who(?:['’]?s)?\b"  # "who won ...?", "who's the MP?": not "people who walk"
        ),
        ("name",),
    ),
    (_pattern(r"\bhow many (?:minutes|hours|days|nights|weeks)\b"), ("duration",)),  # a count of a unit of time is how long
    (_pattern(r"\bhow many (?:miles|km|kilometres|kilometers|metres|meters|yards)\b"), ("distance",)),
    (_pattern(r"\bhow many\b|\bpopulation\b"), ("number",)),
    (_pattern(r"\bhow much\b"), ("amount", "number")),  # "how much to climb the tower": a price, or how much of something
    (
        _pattern(
            r"\bwhere\b|\b(?:which|what)(?: \w+)? (?:towns?|places?|parts?|districts?|areas?|streets?|villages?|walks?|roads?)\b"
        ),
        ("place",),
    ),
    (_pattern(r"\bwhy\b|\bhow come\b"), ("reason",)),
]

# Words about a kind of answer: a sentence giving that kind covers them ("cost" is covered by "£2",
# "evening" by "6 to 8:30", "winter" by "from November to February").
KIND_WORDS = {
    "price": f"{PRICE_WORDS} paid",  # "paid" is covered by a price but asks for none ("is the car park paid?")
    "clock": "late later latest early earlier earliest hour hours open opens opening evening evenings morning mornings "
    "night nights afternoon lunchtime last first",
    "day": "day days week weekday weekdays weekend weekends weeknight weeknights",
    "month": "month months season seasons year spring summer autumn winter",
    "year": "year years old age century",
    "duration": "minutes hours",
    "distance": "distance miles metres",
    "number": "number population inhabitants residents",  # "a town of 6,000" gives a population
    "frequency": "frequent frequently",
    "contact": "phone telephone mobile contact number website email",
    "identifier": "platform gate line route number",
    "payment": "pay paying cash card cards contactless",
}
KINDS_OF_WORD: dict[str, list[str]] = {}
for _kind, _words in KIND_WORDS.items():
    for _word in _words.split():
        KINDS_OF_WORD.setdefault(_word, []).append(_kind)


def sentences_of(question: str) -> list[str]:
    """The question cut after each ".", "!" or "?" ("We arrive late. Is the pub open?": two)."""
    return re.split(r"(?<=[.!?])\s+", question.strip())


SPARED = re.compile(rf"\b(?:avoid(?:ing)?|without|doesn'?t|don'?t|isn'?t|aren'?t|won'?t|not)\b(?:\s+[\w'-]+){{0,3}}?\s+{AMOUNT_WORD}")
"""A cost the traveller would rather not pay ("without paying tourist prices", "doesn't cost a fortune", "that isn't
rip-off prices"): no amount asked."""


PRICES_MOVE = re.compile(
    rf"^\s*(?:do|does|did|will|would|are|is|have|has)\b.*?{AMOUNT_WORD}(?:\s+[\w'-]+){{0,3}}?\s+"
    r"(?:go(?:es)? (?:up|down)|shoot(?:s)? up|rise|rises|increase|increases|jump|jumps|drop|drops|fall|falls|soar|soars|double|doubles"
    r"|higher|lower|dearer|cheaper|change|changes|vary|varies)\b"
)
"""Whether prices move ("Do hotel prices shoot up in summer?", "Are fares higher at weekends?"): asked yes or no, and
answered by "double", "halve" or "stable year-round" as surely as by an amount."""


CHEAPER_AMOUNT = re.compile(rf"\b(?:cheaper|lower|reduced|discounted)(?:\s+[\w'-]+){{0,2}}?\s+{AMOUNT_WORD}")
"""A lower price sought ("any trick for cheaper fares?"): how to pay less, answered by "cheaper a week ahead" as surely as
by an amount."""


ASKED_TO_NAME = re.compile(r"(?:^|(?<=[.!?;:]\s))\s*(?:please\s+)?(?:(?:can|could|would) you\s+)?name\b")
"""An opening "name ..." asks to list things ("Name the main sights"), not for what something is called."""


def asked_kinds(question: str) -> list[tuple[str, ...]]:
    """The kinds of answer the question asks for, one group per cue ("when" -> a time, day, month or year), read from
    its questions, not from a statement before them ("Harbour prices are mad. Where else can I eat?" asks no price)."""
    sentences = sentences_of(question)
    if any(sentence.endswith("?") for sentence in sentences):
        question = " ".join(sentence for sentence in sentences if not sentence.endswith((".", "!")))
    remaining = ASKED_TO_NAME.sub(" ", SPARED.sub(" ", question.lower()))
    if PRICES_MOVE.search(remaining) or CHEAPER_AMOUNT.search(remaining):
        remaining = AMOUNT_WORD_CUE.sub(" ", remaining)
    groups, by_price_word = [], []
    for cue, kinds in ASKED:
        if cue.search(remaining):
            if kinds not in groups:  # "how much is the fare": one amount
                groups.append(kinds)
                by_price_word.append(cue in (AMOUNT_WORD_CUE, PRICE_WORD_CUE))
            remaining = cue.sub(" ", remaining)
    if WHEN in groups or ("place",) in groups or ("reason",) in groups or any("duration" in kinds for kinds in groups):
        # "when do rooms cost a fortune?" asks when; "where to eat without harbour prices?" where; "how long before I
        # start paying?" how long; "why is paying for buses so confusing?" why
        groups = [kinds for kinds, by_word in zip(groups, by_price_word) if not by_word]
    return groups


# ---------------------------------------------------------------- questions in several parts

# A new part starts after "?" or ";", or at ", and"/" and"/", "/":"/" - " followed by a word that opens a question
# ("..., and can I stay overnight?", "how far is it and is there parking?", "Train tickets: when is the office open, ...").
# An auxiliary opens a question only with a subject after it ("and is there", "and is parking", not "see and do in").
WH_WORDS = "how what when where which who whose why"
AUXILIARIES = "is are was were do does did can could will would should shall has have"
SUBJECTS = "i we you there it they he she the a an any this that these those my our your its one people visitors"
ANY_WH, ANY_AUXILIARY, ANY_SUBJECT = (words.replace(" ", "|") for words in (WH_WORDS, AUXILIARIES, SUBJECTS))  # regex alternations
QUESTION_OPENER = rf"(?:{ANY_WH})\b|(?:{ANY_AUXILIARY})\s+(?:{ANY_SUBJECT}|[a-z]+ing)\b"
CONDITIONAL_QUESTION = (
    rf"if\s[^?,]{{0,60}}?,?\s*\b(?:(?:{ANY_WH})\s+(?:{ANY_AUXILIARY}|far|long|much|many|often|early|late|time)"
    rf"|(?:{ANY_AUXILIARY})\s+(?:{ANY_SUBJECT}))\b"
)
"""A question after its condition: "if the car parks are full, how far is the overflow lot?", "if we drive do we have to
pay?" (not "if you asked someone who lives there": a question's "who" or "how" comes before its verb)."""
FALLBACK = r"(?:failing that|if not|otherwise|if so|alternatively)\s*,?\s+"
"""What may stand between "and" and the question it joins: "is there a bus, and failing that can I get the train?"."""
PART_BREAK = re.compile(
    rf"(?<=[?;])\s+|\s*(?:,\s*(?:and|but|also|plus)?|\b(?:and|but|also|plus)|:|\s[-\u2013\u2014])\s+(?=(?:{FALLBACK})?(?:{QUESTION_OPENER}))"
    rf"|\s*,?\s*\b(?:and|but)\s+(?={CONDITIONAL_QUESTION})",
    re.IGNORECASE,
)
WORD_IN_PART = re.compile(r"[A-Za-z0-9£]+")
SHORTEST_PART = 3  # words, for a piece that opens like a question: "how early?" belongs to the part before it
OPENS_A_QUESTION = re.compile(f"{QUESTION_OPENER}|{CONDITIONAL_QUESTION}", re.IGNORECASE)
CONDITION = re.compile(r"if\b", re.IGNORECASE)
"""Opens a piece that only sets a condition ("if it rains"): it joins the question after it, or else the one before."""
AUXILIARY = re.compile(rf"(?:{ANY_AUXILIARY})\b", re.IGNORECASE)
REQUEST = re.compile(r"(?:please\s+)?(?:tell|name|list|give|recommend|suggest|show|explain|describe)\b", re.IGNORECASE)
"""Opens a request that stands as a part; any other piece that asks nothing ("trying to budget") is context for its neighbour."""


def question_parts(question: str) -> list[str]:
    """The question's parts, each a question of its own ("Which day is the tearoom shut, and can I stay
    overnight?" -> two); a fragment too short to stand alone, or one that asks nothing ("...? trying to budget"),
    joins the part before it (or, first, after it)."""
    parts: list[str] = []
    lead = ""
    pieces = [piece.strip(" ,;") for piece in PART_BREAK.split(question.strip())]
    for number, piece in enumerate(pieces):
        if not piece:
            continue
        # opening the whole question, an auxiliary asks whatever follows it: "Is seafront parking ..."; so it does after a
        # statement ("No car. Is there a bus that day"), or after a fallback ("failing that can I ...")
        opening = re.sub(rf"^{FALLBACK}", "", sentences_of(piece)[-1], flags=re.IGNORECASE)
        asks = OPENS_A_QUESTION.match(opening) or REQUEST.match(opening) or (number == 0 and AUXILIARY.match(opening))
        if (asks or piece.endswith("?")) and len(WORD_IN_PART.findall(piece)) >= SHORTEST_PART + (not asks):
            parts.append(f"{lead}, {piece}" if lead else piece)
            lead = ""
        elif parts and not CONDITION.match(piece):  # a condition belongs to the question after it
            parts[-1] = f"{parts[-1].rstrip('?')}, {piece}"
        else:
            lead = f"{lead}, {piece}" if lead else piece
    if lead and parts:  # a condition last of all ("...? if I arrive early") is the last question's
        parts[-1] = f"{parts[-1].rstrip('?')}, {lead}"
    elif lead:
        parts.append(lead)
    return parts or [question]


# A question asking for several things of one kind: "what is there to see", "which towns...", "any good walks".
VALUE_PLURALS = "hours|times|prices|fares|costs|fees|charges|rates|days|months|minutes|miles|years|names|does|goes|has|was|happens|means"
"""Words ending in s that ask for one value ("what are the opening hours") or are a verb ("what does")."""
PLURAL = rf"(?!(?:{VALUE_PLURALS})\b)[a-z][a-z-]{{2,}}(?<!ss)(?<!us)(?<!is)s\b"
"""A plural noun, any: "walks", "sights", "must-sees" (a list asked for by a noun no table names is still a list)."""
MODIFIER = rf"(?!(?:{ANY_AUXILIARY}|{ANY_SUBJECT})\b)[a-z-]+\s+"
"""One word before the plural, no auxiliary or pronoun: "which back streets", not "what do tickets cost"."""
DESCRIBING = r"(?:(?!of\b|the\b|my\b|our\b|your\b|their\b|his\b|her\b)[a-z-]+,?\s+){0,2}"
"""Up to two words describing a plural, no article or possessive: "any easy, flat walks", not "any of the trains"."""
LIST_CUE = _pattern(
    rf"\b(?:what|which)\s+(?:(?:are|were)\s+(?:the\s+|some\s+|any\s+)?(?:\w+\s+)?|(?:of\s+the\s+)?|{MODIFIER}){PLURAL}"
    rf"|\b(?:any|some|a few|several|top|best|main|must-see)\s+{DESCRIBING}{PLURAL}|\bmust-sees?\b"
    r"|\bwhat(?:['’]?s| is| else is)? there to\b|\bworth (?:seeing|doing|visiting|a visit)\b|\bhighlights?\b|\bnot (?:to )?miss\b"
    r"|\bwhat (?:can|could|should) (?:i|we|you|one) (?:do|see|visit)\b|\blist\b|\b(?:things|places|ideas) (?:to|for)\b"
    r"|\bwhat(?:['’]?s| is)? (?:\w+\s+)?to (?:do|see|visit)\b|\bwhat .{0,40}s\s+are there\b|\bwhat (?:kinds?|sorts?|types?) of\b|\bon offer\b"
    r"|^(?:please\s+)?(?:name|suggest|recommend|tell me (?:about\s+)?(?:the|some|what)|give me)\b"
    r"|\b(?:can|could|would) you (?:please )?(?:suggest|recommend|name)\b|\boptions\b"
    r"|\bwhere (?:can|could|should|do|does|to|might) (?:\w+\s+){0,2}(?:eat|drink|stay|sleep|shop|get (?:food|a meal|a drink)|go for)\b"
)


# A question after sightseeing, however worded: what a guide's "What to see" section is for.
SIGHTSEEING = _pattern(
    r"\b(?:things|anything|something|stuff|much|what) (?:else |more )?to (?:\w+ly )?(?:do|see|visit)\b|\bwhat(?:['’]?s| is)? there to (?:\w+ly )?(?:do|see)\b"
    r"|\bworth (?:doing|seeing|visiting|a visit)\b"
    r"|\bsights?(?:eeing)?\b|\battractions?\b|\bhighlights?\b|\bactivities\b|\bmust-sees?\b"
    r"|\bwhat (?:can|could|should|shall) (?:i|we|you|one) (?:go (?:and|to) )?(?:do|see|visit|look at|check out)\b"
    r"|\bwhat (?:would|do|does|might) (?:\w+ ){1,3}(?:send|point|take) (?:me|us|you|them)\b"
)


SECTION_CUES = {
    "see": SIGHTSEEING,
    "stay": _pattern(r"\bbase (?:ourselves|myself|yourself|themselves)\b|\baccommodation\b|\bsleep\b|\bhotels?\b|\bguesthouses?\b|\bb&bs?\b"),
    "eat": _pattern(r"\bfood\b|\brestaurants?\b|\bmeals?\b|\bdinner\b|\blunch\b|\bcaf[eé]s?\b"),
    "go": _pattern(
        r"\bbest (?:time|months?|season|weeks?)\b|\bwhen (?:should|shall|would|to) (?:(?:i|we|you|one) )?(?:go|visit|come)\b"
        rf"|\b(?:go|visit|come|going|visiting|coming) (?:in|during|over|at|out of) (?:the )?(?:{MONTHS}|{'|'.join(SEASONS)})\b"  # "go in the fall"
    ),
}
"""The topic word of the guides' headings ("What to see", "Where to stay", "Eat and drink", "When to go") a question asks after in other words."""
SECTION_GIVES = {"go": WHEN}
"""The kind of value a section is about: asked after "when", "When to go" gives it (a season, months), not one sentence."""


def sections_asked(question: str) -> set[str]:
    """The heading topic words (SECTION_CUES) the question asks after: "where to base ourselves" -> {"stay"}."""
    return {word for word, cue in SECTION_CUES.items() if cue.search(question)}


# A request to make something (a poem, a translation, code) rather than to be told what the guides say.
MAKING = _pattern(
    r"^\s*(?:(?:please|can you|could you|would you)\s+)?"
    r"(?:write|compose|draft|translate|generate|create|draw|sing|code|program|summari[sz]e|rewrite|paraphrase|rhyme)\b"
)


def asks_to_make_something(question: str) -> str | None:
    """The verb of a request to make something ("write me a limerick about the pier"): the guides answer
    questions about the region, so such a request is refused whatever it names; None for a question."""
    match = MAKING.search(question)
    return match.group().split()[-1].lower() if match else None


def asks_for_a_list(question: str) -> bool:
    """The question wants several items ("what's worth seeing", "which towns are hard in a wheelchair", "is there
    anything to do?"); sights in a question asking for a value ("how far apart are the sights?") are no list asked for."""
    return bool(LIST_CUE.search(question) or (SIGHTSEEING.search(question) and not asked_kinds(question)))
