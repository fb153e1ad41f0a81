"""Which way a clause points: what it denies, and which side of an opposite pair it takes.

"Buses run on Sundays" and "no buses run on Sundays" share every word and almost every
vector dimension; so do "step-free" and "stepped". The static embedding model puts
antonyms close together (open/closed 0.61, weak/strong 0.71), so the claim check reads
polarity from the words: a negator ("not", "no", "never", "without"...) denies what follows
it in its clause, and OPPOSITES lists the pairs the guides use, each side a short pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from guide_tui.asked import DENIALS, MEANS_OF_PAYMENT
from guide_tui.embedding import english_words
from guide_tui.number_words import HOUR_WORDS, NAMED_TIMES

NEGATORS = frozenset(DENIALS) | frozenset(
    "nobody neither nor cannot rarely seldom hardly barely absence lack lacks stopped ceased skip skips skipped bypass"
    " bypasses bypassed".split()
)
"""Words that deny what follows them in their clause; so does any word ending in "n't"."""
RARE_DENYING = r" (?:for|that)\b"
"""After "rare", what makes it deny what follows ("it's rare for ...") rather than take the infrequent side."""
NEGATING_PHRASES = re.compile(rf"\brather than\b|\bfar from\b|\binstead of\b|\bthan to\b|\brare{RARE_DENYING}")
"""Phrases that deny what follows: "match Marchwood rather than village levels", "footpaths instead of pavements",
"it's rare for tickets to sell out" (as "tickets rarely sell out"; "a rare arrangement" denies nothing), the far side of
"closer to Marchwood than to a village"."""
NOT_NEGATING = re.compile(
    r"\b(?:no|not|nowhere|nothing|none)\b(?=(?:\s+[a-z'-]+){0,6}?\s+(?:more|further|longer|later|less) than\b)|\bnot (?:only|just)\b|\bno,"
    r"|\bnothing else\b|\bnot much\b|\bno other\b|\bnot (?:all|every\w*)\b|^\s*skip(?= the\b)"
)
"""Negators that deny nothing the clause goes on to say: a bound ("no more than ten minutes", "nowhere is
more than ten minutes" are "within ten"), "not only", an answering "No,", "not every" (some are, some not: a
quantifier, see PARTIAL), a bidding "Skip the ..." (advice to go without the thing, not a denial of what it is: "skip the
expensive parking")."""
DENYING_SIDES = ("open", "allowed")
"""Opposite pairs whose second side denies what follows it too: "closed on Mondays", "banned on the headland"."""
UNIVERSAL = re.compile(
    r"\b(?:all|every|everything|everywhere|everyone|always|never|without exception|anywhere|whole|entire|throughout)\b"
    r"(?! (?:day|days|week|weeks|weekend|weekends|year|years|night|nights|hour|hours|minutes?|morning|evening|other|half|quarter|\d))"
)
"""Words that say a thing holds with no exception ("every place", "always", "never", "the whole of the winter"; not "every
30 minutes", "all year")."""
PARTIAL = re.compile(
    r"\b(?:most|mostly|many|several|usually|often|frequently|generally|largely|mainly|partly|sometimes|occasionally|rarely|seldom"
    r"|var(?:y|ies|ied)|much of|a few|(?:almost|nearly|virtually|practically|not) (?:all|every\w*|always|never|any\w*))\b"
)
"""Words that say a thing holds for some, or some of the time ("most places", "usually", "varies wildly", "almost
everywhere", "not always")."""
ONLY = re.compile(
    r"\b(?:only|solely|exclusively)\b(?:\s+[a-z-]+){0,2}?\s+(?:in|on|at|from|between|during|for|to|until|till|by|when|if|after|before|outside)\b"
    r"|\b(?:except|apart from|other than|but for|save for)\b|\b[a-z]+ only[.!?]?$"
    r"|\bonly\b(?:\s+[a-z-]+){0,2}?\s+(?:its|their|your|his|her) own\b"
)
"""An exclusive clause says yes and no at once: "only allowed on two fields" is "banned everywhere else", "takes
cards only" is "takes no cash", "only accepts its own tickets" is "accepts no other's",
"nothing apart from the town routes" is "the town routes" (but "only advisory", limited to nothing, is
"merely advisory")."""

LESSENED = re.compile(r"\bless $|(?<!\bat )\bleast $")
"""A side said less of leans the other way: "a less reliable signal" is the guide's "unreliable", "less often" "rarely",
"the least demanding town" "the easiest"."""

SPANS_OF_TIME = r"(?:hours|times|seasons?|months|term|mealtimes|holidays?)"
"""What "outside" can be outside of in time ("outside the pubs' serving times", "outside school holidays"): no place."""
OUTSIDE_TIMES = re.compile(rf"\boutside (?:of )?(?:[a-z'’-]+ ){{0,3}}?{SPANS_OF_TIME}\b")
"""Where a denial ends: "nowhere to get a meal | outside the pubs' serving times" denies the meal, not the serving times."""

CLOSING_TIME = rf"(?:\d|(?:{'|'.join(NAMED_TIMES)}|dusk|dawn|sunset|lunchtime|one|{HOUR_WORDS})\b)"
NOT_AT_A_CLOSING_TIME = rf"(?! (?:at|by) {CLOSING_TIME})"
"""Not "closes at" or "closing by" a time of day: a closing time says when it is open, not that it is shut ("closing by
November" does)."""

OPPOSITES: dict[str, tuple[str, str]] = {
    # concept: (pattern of one side, pattern of the other); a clause takes a side, a negator flips it
    "open": (
        r"\bopen(?:s|ed)?\b(?!-air)|\breopens?\b|\bunlocked\b|\bkeeps? going\b|\bstays? open\b|\bcarries on\b|\baround the clock\b"
        r"|\b24 hours\b|\ball hours\b|\bin full swing\b|\bgoing strong\b",
        rf"\bclosed\b|\bclos(?:es|ing)\b{NOT_AT_A_CLOSING_TIME}"
        rf"|\bclose(?: (?:altogether|entirely|completely|fully|early|down))?(?= (?:on|at|by|for|in|from|until|till)\b){NOT_AT_A_CLOSING_TIME}"
        r"|\bclose (?:early|down|completely|altogether|entirely)\b|\bshut(?:s|ting)?\b|\blocked\b"
        r"|\bshuts? down\b|\blimited (?:hours|times|opening hours)\b",
    ),
    "allowed": (
        r"\ballowed\b|\bpermitted\b|\bwelcom(?:e|es|ing)\b|\b(?:wherever|anywhere) you (?:like|want|please)\b"
        r"|\b(?:go|goes|going|head|get|step|climb) (?:up )?inside\b",  # "you can head inside the lighthouse"
        r"\bbanned\b|\bforbidden\b|\bprohibited\b|\bban\b|\bclosed to (?:the public|visitors)\b",
    ),
    "price": (
        r"\bcheap(?:er|est)?\b|\bcosts? (?:\w+ ){0,3}less\b|\bless expensive\b|\bleast expensive\b"
        r"|\b(?:good|better|great|decent|fair|reasonable|excellent) value\b|\binexpensive\b|\baffordable\b|\bbargain\b"
        r"|\blow(?:er)?\b(?= (?:prices?|fares?|rates?))|\bprices? (?:\w+ ){0,2}(?:low|drop|fall|halve|go(?:es)? down|went down|come down)\b",
        r"\bexpensive\b|\bdear(?:er|est)?\b|\bpric(?:ey|ier|iest)\b|\bcostly\b|\boverpriced\b|\bcosts? (?:\w+ ){0,3}more\b"
        r"|\bmore expensive\b|\bhigh(?:er)? prices?\b|\bprices? (?:\w+ ){0,2}(?:high|rise|double|go(?:es)? up|went up|climb)\b"
        r"|\b(?:doubl|rais|push)(?:e|es|ed|ing)? (?:up )?(?:the |their |its )?prices?\b",  # "double their prices"
    ),
    "same price": (r"\bcosts? (?:\w+ ){0,2}the same\b|\bsame price\b|\bno cheaper\b", r"\bcheaper\b|\bdearer\b|\bcosts? (?:\w+ ){0,3}(?:more|less)\b"),
    "slope": (
        r"\bflat(?:ter|test)?\b|\blevel\b(?! (?:up|higher|down|lower|above|below))|\bstep-free\b|\beasy gradient\b|\bgentl(?:e|er|est)\b|\bdownhill\b",
        r"\bsteep(?:er|est)?\b|\bhilly\b|\bstepped\b|\bsteps\b|\bstairs\b|\buphill\b|\bclimbs?\b|\bslopes?\b",
    ),
    "ease": (
        r"\beas(?:y|ier|iest)\b|\bstraightforward\b|\bmanageable\b|\bsimpl(?:e|er|est)\b|\beffortless\b"
        r"|\bnot (?:a|really a) problem\b|\bhassle-free\b",
        r"\bhard(?:er|est)?\b|\bdifficult\b|\btricky\b|\bawkward\b|\bserious\b|\btough(?:er|est)?\b"
        r"|\bchallenging\b|\bstrenuous\b|\bdemanding\b|\bhard work\b|\ba struggle\b|\bhassle\b(?!-free)",
    ),
    "busy": (
        r"\bbus(?:y|ier|iest)\b|\bcrowd(?:s|ed)\b|\bpacked\b|\bbustling\b|\bhectic\b|\bheaving\b|\bovercrowded\b"
        r"|\blivel(?:y|ier|iest)\b|\bnois(?:y|ier|iest)\b|\bloud(?:er|est)?\b|\bfills?\b|\bfully booked\b"
        # "full by 10am", not "a full hospital"
        r"|\bfull\b(?=\s*(?:[.,;:!?]|$|(?:by|up|to|of|at|on|in|from|during|until|till|throughout|and|or|but|so|with|before|after|for)\b))",
        r"\bquiet(?:er|est|ly)?\b|\bempty\b|\bdeserted\b|\bcalm\b|\bpeaceful\b|\btranquil\b|\bsleepy\b|\buncrowded\b"
        r"|\b(?:has|have|with) (?:plenty of )?(?:space|spaces|room to spare)\b",
    ),
    "supply": (r"\bplentiful\b|\babundant\b|\beasy to find\b|\bplenty of (?:rooms|beds|space)\b", r"\bscarce\b|\bhard to find\b|\bin short supply\b"),
    "safe": (r"\bsafe(?:ly)?\b", r"\bdangerous\b|\bunsafe\b|\bhazardous\b|\brisky\b"),
    "good": (  # "best to" is advice ("it's best to check the dates"), not the best of something
        r"\bgood\b|\bbest\b(?! to\b)|\bfinest\b|\bexcellent\b|\bpleasant\b|\bnice\b|\bgreat\b|\bstrong\b|\breliable\b|\bdelicious\b"
        r"|\bdecent\b|\bsuperb\b|\blovely\b"
        r"|\bbetter\b(?= (?:than|value|food|choice|option|bet)\b)",
        r"\bbad\b|\bpoor(?:ly)?\b|\bweak\b|\bpatchy\b|\bunreliable\b|\bunpleasant\b|\bunremarkable\b|\bawful\b|\bdispiriting\b"
        r"|\bworse\b|\bworst\b|\bdisappointing\b|\bmediocre\b|\bdull\b|\boverrated\b|\bunderwhelming\b|\bmissable\b",
    ),
    "enforced": (r"\benforced\b|\bstrict(?:ly)?\b", r"\badvisory\b|\boptional\b"),
    "condition": (
        r"\bmoderni[sz]ed\b|\brenovated\b|\brestored\b|\brefurbished\b|\bwell[- ]kept\b|\bimmaculate\b"
        r"|\bwell[- ]maintained\b|\bcarefully kept\b",
        r"\bfaded\b|\bshabby\b|\brun-down\b|\bneglected\b|\bdilapidated\b|\btired\b",
    ),
    "icy": (r"\bices? over\b|\bicy\b|\biced\b|\bfreezes?\b|\bfrozen over\b", r"\bclear of ice\b|\bice-free\b|\bfree of ice\b|\bthawed\b"),
    "continuous": (r"\bcontinuous(?:ly)?\b|\bnon-?stop\b|\bunbroken\b|\buninterrupted\b", r"\bbreaks?\b|\binterrupted\b|\bpaused?\b"),
    "steady": (r"\bsteady\b|\bstable\b|\bconstant\b|\bunchanged\b", r"\bchanges?\b|\bvar(?:y|ies)\b|\bfluctuates?\b"),
    "size": (r"\blarg(?:e|er|est)\b|\bbig(?:ger|gest)?\b", r"\bsmall(?:er|est)?\b|\blittle\b|\bshr(?:inks?|ank|unk)\b"),  # "the market shrinks"
    "early": (r"\bearl(?:y|ier|iest)\b", r"\blate(?:r|st)?\b"),
    "distance": (
        r"\bnear(?:by|er)?\b(?! enough)|\bclose by\b"
        r"|\bclose to\b(?! (?:\d|a |an |one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|half|the public))"
        r"|\bwithin (?:easy )?walking distance\b|\bnext door\b|\ba short (?:walk|stroll|hop)\b|\badjacent\b|\bnext to each other\b|\bside by side\b"
        r"|\bclose together\b",
        r"\bfar\b(?<!\bas far)(?<!\bso far)(?<!\bby far)(?! (?:more|less|better|worse|too|from|[a-z]+er)\b)|\bfarther\b|\bfurther away\b"
        r"|\ba long way\b|\bdistant\b|\bremote\b|\b(?:miles|spread|far|well) apart\b",
    ),
    "charge": (
        r"\bfree\b(?<!-free)(?<!\bfeel free)(?!-| of\b)|\bfree of charge\b|\bno (?:charge|fee)\b|\b(?:costs?|pay|pays|paying) nothing\b|\bwithout charge\b",
        rf"\bpaid\b|\bpay(?:s|ing)?\b(?! attention| nothing){MEANS_OF_PAYMENT}|\bcharges?\b(?<!free of charge)"
        r"|\bcharged\b|\b(?:entry|admission|entrance) fee\b|\bfee\b|\bticketed\b|\bpay-and-display\b|\bmetered\b",
    ),
    "indoors": (
        r"\bindoors?\b|\binside\b|\bunder cover\b|\bundercover\b|\bcovered (?:market|walkway|area|seating|terrace|arcade|hall)s?\b",
        r"\boutdoors?\b|\bopen-air\b|\bin the open\b|\boutside\b(?! (?:of )?(?:that|the|this|those|these|july|august|june|september|may|april|october|easter"
        rf"|summer|winter|spring|autumn|term|peak|high|school|season|[a-z]+ {SPANS_OF_TIME})\b)",
    ),
    "order": (r"\bbefore\b(?!hand)", r"\bafter\b(?!wards| all\b)(?<!look after)(?<!named after)(?<!looks after)"),
    "amount": (
        # not "more than" / "less than", bounds the values say ("nowhere is more than ten minutes away")
        r"\bmore\b(?! or less| than\b)|\bincreas(?:e|es|ed|ing)\b|\bris(?:e|es|ing)\b|\bgrows?\b",
        r"\bless\b(?! than\b)|\bfewer\b(?! than\b)|\bdecreas(?:e|es|ed|ing)\b|\bshrinks?\b",
    ),
    "frequency": (
        r"\bfrequent(?:ly)?\b|\boften\b|\bregular(?:ly)?\b(?! (?:bus|buses|service|services|route|routes)\b)|\bcommon(?:ly)?\b",
        rf"\binfrequent(?:ly)?\b|\boccasional(?:ly)?\b|\brare\b(?!{RARE_DENYING})|\buncommon\b|\bsporadic(?:ally)?\b",
    ),
    "season": (r"\bpeak (?:season|time|times|months|weeks)\b|\bhigh season\b", r"\boff-peak\b|\blow season\b|\boff-season\b|\bout of season\b"),
    "temperature": (r"\bwarm(?:er|est)?\b|\bhot(?:ter|test)?\b|\bmild(?:er)?\b", r"\bcold(?:er|est)?\b|\bchilly\b|\bfreezing\b|\bbitter\b|\bharsh\b"),
    "ground": (
        r"\bdry\b|\bfirm\b|\bhard(?= (?:sand|ground|surface|track|path))|\bcompact(?:ed)?\b",
        r"\bwet\b|\bboggy\b|\bmuddy\b|\bwaterlogged\b|\bsodden\b|\bsoft\b|\bloose\b",
    ),
    "running": (
        r"\brunning\b(?= (?:machinery|machines?|wheel|mill)\b|[.,;]|$)|\bswitched on\b|\bturned on\b|\bin (?:operation|motion)\b",
        r"\bswitched off\b|\bturned off\b|\bidle\b|\bout of action\b|\bstatic\b|\bstands? still\b",
    ),
    "shelter": (r"\bsheltered\b|\bprotected\b", r"\bexposed\b|\bwindswept\b"),
    "length": (r"\blong(?:est)?\b(?<!\bas long)(?!-| as\b)|\blonger\b(?<!\bno longer)(?<!\bany longer)", r"\bshort(?:er|est)?\b(?!-)|\bbrief\b"),
    "speed": (r"\bfast(?:er|est)?\b|\bquick(?:er|est|ly)?\b|\brapid(?:ly)?\b", r"\bslow(?:er|est|ly)?\b|\bleisurely\b"),
    "booking": (
        r"\bahead\b(?<!\bstraight ahead)(?<!\bgo ahead)(?! of\b)|\bin advance\b|\bbeforehand\b|\bpre-?book(?:ed|ing)?\b",
        r"\bon the day\b|\bon arrival\b|\b(?:at the )?last minute\b|\bturn(?:s|ing)? up\b|\bwalk-ins?\b",
    ),
    "direction": (r"\bnorth(?:ern|wards?)?\b|\bupstream\b", r"\bsouth(?:ern|wards?)?\b|\bdownstream\b"),
    "east": (r"\beast(?:ern|wards?)?\b", r"\bwest(?:ern|wards?)?\b"),
    "tide": (
        r"\blow (?:tide|water)\b|\btide(?: is|'s|'s gone| has gone) out\b|\btide(?: is|'s)? low\b|\btide goes out\b",
        r"\bhigh (?:tide|water)\b|\btide(?: is|'s) in\b|\btide(?: is|'s)? high\b|\btide comes in\b",
    ),
}
UNORDERED = frozenset({"same price"})
"""Pairs whose side does not turn round when a comparison's two things swap places ("X costs more than Y")."""
SIDES = {concept: (re.compile(yes), re.compile(no)) for concept, (yes, no) in OPPOSITES.items()}
PAIRS = list(OPPOSITES)
EITHER_SIDE = {concept: re.compile(f"{yes}|{no}") for concept, (yes, no) in OPPOSITES.items()}
"""Each pair's two sides in one pattern: whether a side of it begins at an offset."""
ALL_SIDES = "|".join(side for pair in OPPOSITES.values() for side in pair)
"""Every side of every pair as one flat alternation (each alternative starts with \\b, so the engine tests that once)."""
ANY_SIDE = re.compile(ALL_SIDES)
SIDE_STARTS = re.compile(rf"\b(?=\w)(?=(?:{ALL_SIDES}))")
"""Every offset where some side begins, overlapping ones too, in one scan (each side starts a word: \\b, then a letter)."""
FIRST_PAIR = re.compile("|".join(f"(?P<pair{n}>{yes}|{no})" for n, (yes, no) in enumerate(OPPOSITES.values())))
"""The first pair, in OPPOSITES order, with a side at an offset: the pairs before it have none there."""
WORD = re.compile(r"[a-z0-9£][a-z0-9'-]*")


def normalised(text: str) -> str:
    """Lowercase with straight apostrophes: the text every offset here refers to (same length as the clause)."""
    return text.lower().replace("’", "'")


def is_negator(word: str) -> bool:
    return word in NEGATORS or word.endswith("n't")


ANY_NEGATOR = re.compile(
    rf"(?<![a-z0-9£'-])(?:{'|'.join(sorted(NEGATORS, key=len, reverse=True))})(?![a-z0-9'-])|[a-z]+n't(?![a-z])|{NEGATING_PHRASES.pattern}"
)
"""Every negator in one search (most clauses have none): the words of NEGATORS as whole words, "n't", the phrases."""

DETERMINERS = re.compile(r"\b(?:no|without)\b")
"""Negators that deny a thing ("no step-free route") rather than a statement ("is not step-free")."""
LACK_AS_SUBJECT = re.compile(r"\bthe (lack|absence) of\b[^,;]*?(?=\s(?:is|are|was|were|isn't|aren't|wasn't|weren't)\b)")
"""A denied thing that is the subject of its clause: what is said of it is not denied."""
QUALIFIER = re.compile(r"\s(?:on|in|at|within|near|to|from|for|by|during|after|before|across|along|between|of|inside|outside|around|beyond)\b")
"""What ends a thing a determiner denies: "no lifeguard on the beach" denies the lifeguard, not the beach."""
PREFIXES = (("non-", ""), ("non", ""), ("un", ""), ("in", "ible able ent ant ate ive ect ete"), ("im", "ible able ent ant ate ive ect ete"))
"""Prefixes that deny their word ("unnecessary" is "not necessary"), each with the endings its root must have: after
"in" and "im" only adjectives ("inaccessible", "impassable"; not "inland", "income", "information")."""
NOT_PREFIXED = frozenset(
    "unless unlike unions unrest incredible incorporate indifferent unfortunately unluckily unsurprisingly unquestionably"
    " unusually unbelievably uncommonly".split()
)
"""Words that read as a prefix and a word but deny nothing: "unfortunately there's no bus" says there is none, as
"sadly" would (a speaker's comment on the clause, not a denial of it); "an unusually generous arrangement" is a very
generous one."""
PREFIXED = re.compile(r"(?<![a-z'-])(?:non-?|un|i[nm])[a-z]{4,}(?![a-z'-])")


def denies_itself(word: str) -> bool:
    """Is this a word its prefix turns round ("unnecessary", "incompatible", "non-existent")?"""
    if word in NOT_PREFIXED:
        return False
    for prefix, endings in PREFIXES:
        root = word[len(prefix) :]
        if word.startswith(prefix) and len(root) >= 4 and (not endings or root.endswith(tuple(endings.split()))):
            stem = re.sub(r"(?:able|ible)$", "", root)  # "passable": "pass" + "able"
            return root in english_words() or (stem != root and len(stem) >= 3 and {stem, stem + "e"} & english_words() != set())
    return False


def pairs_taken(text: str) -> list[str]:
    """The pairs with a side somewhere in the text, in OPPOSITES order: one scan for where sides begin, then at each
    such offset the first pair there and the later pairs that also match."""
    found: set[int] = set()
    for side in SIDE_STARTS.finditer(text):
        at = side.start()
        first = int(FIRST_PAIR.match(text, at).lastgroup.removeprefix("pair"))
        found.add(first)
        found.update(n for n in range(first + 1, len(PAIRS)) if n not in found and EITHER_SIDE[PAIRS[n]].match(text, at))
    return [PAIRS[n] for n in sorted(found)]


EXCEPTION_AHEAD = r"(?!\s*(?:apart from|except|other than|but for|save for)\b)"
"""No cut before an exception: "no public transport, apart from a school bus" is one exclusive clause, not a denial."""
CLAUSE_BREAK = re.compile(
    rf"\s*[,;:()]{EXCEPTION_AHEAD}\s*|\s+[—–]\s+|\s+(?=\b(?:and|but|while|whereas|though|although|so|because|since)\b)"
)


@dataclass(frozen=True)
class Polarity:
    """A clause read for what it denies and which side of each opposite pair it takes."""

    text: str  # normalised(clause)
    denials: tuple[int, ...]  # offsets just after each negator or denying side; a denial runs to the clause end
    scope_ends: dict[int, int]  # where the denial starting at an offset ends, when before the clause end ("no lifeguard | on the beach")
    sides: dict[str, frozenset[int]]  # concept -> sides taken (+1 / -1; a denied side counts as the other)
    said: dict[str, str]  # concept -> the words that took the side, as read ("not open", "stepped")
    spans: list[tuple[int, int]]  # where the words that took sides are
    negative: bool  # an odd number of negators deny something other than a side word ("no buses run")
    exclusive: bool  # "only on weekdays", "none except the town routes": affirms and denies at once

    def negated(self, offset: int) -> bool:
        """Is the word at this offset denied (after an odd number of negators or denying sides)?"""
        return sum(1 for start in self.denials if start <= offset < self.scope_ends.get(start, len(self.text))) % 2 == 1


THE_THING = re.compile(r"\bthe $")
SIDE_NOUNS = frozenset("climb climbs slope slopes steps stairs".split())
"""Side words that, right after "the", name a thing ("the climb", "the steps") and say less than a word said of it
(not "the hard sand", where the side word describes the thing)."""


def qualifies(text: str, side: re.Match, scope_end: int | None) -> bool:
    """Is the side word the bare preposition of the qualifier ending a determiner's denial ("no bus service | inside
    the town")? Then the determiner denies the thing, not the preposition ("no village is within walking distance" it does)."""
    qualifier = QUALIFIER.match(text, scope_end) if scope_end is not None else None
    return qualifier is not None and side.span() == (qualifier.start() + 1, qualifier.end())


def polarity(clause: str) -> Polarity:
    text = normalised(clause)
    kept = NOT_NEGATING.sub(lambda m: " " * len(m.group()), text) if ANY_NEGATOR.search(text) else text
    negators = [m.end() for m in ANY_NEGATOR.finditer(kept)]
    prefixed = [m.start() for m in PREFIXED.finditer(kept) if denies_itself(m.group())]
    if prefixed:  # "unsafe", "unlocked" take a side instead
        side_spans = [m.span() for m in ANY_SIDE.finditer(text)]
        negators += [start for start in prefixed if not any(a <= start < b for a, b in side_spans)]
    negators.sort()
    scope_ends = {}  # a thing a determiner denies ends at its qualifier
    for m in DETERMINERS.finditer(kept):
        qualifier = QUALIFIER.search(kept, m.end() + 1)
        if qualifier and WORD.search(kept[m.end() : qualifier.start()]):
            scope_ends[m.end()] = qualifier.start()
    subjects = {m.end(1): m.end() for m in LACK_AS_SUBJECT.finditer(kept)}  # "the lack of beds | is not really a problem"
    scope_ends.update(subjects)
    for n in negators:  # a denial ends at the first "outside the ... hours" after it, unless it ended earlier
        if outside := OUTSIDE_TIMES.search(kept, n):
            scope_ends[n] = min(scope_ends.get(n, outside.start()), outside.start())
    sides: dict[str, set[int]] = {}
    said: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    described: dict[str, set[int]] = {}  # the sides taken by words other than a thing's name after "the"
    flipping: set[int] = set()  # negators that turned a side word round ("isn't open" is "closed")
    denying: list[int] = []
    for concept in pairs_taken(text):
        for pattern, side in zip(SIDES[concept], (1, -1)):
            for match in pattern.finditer(text):
                before = [
                    n for n in negators
                    if n <= match.start() and not qualifies(text, match, scope_ends.get(n)) and subjects.get(n, len(text)) > match.start()
                ]
                lessened = LESSENED.search(text, 0, match.start())
                denied = (len(before) + bool(lessened)) % 2 == 1
                if before:
                    flipping.add(before[-1])
                sides.setdefault(concept, set()).add(-side if denied else side)
                if not (match.group() in SIDE_NOUNS and THE_THING.search(text, 0, match.start())):
                    described.setdefault(concept, set()).add(-side if denied else side)
                wording = ("not " if len(before) % 2 else "") + (lessened.group() if lessened else "") + match.group()
                if len(wording) > len(said.get(concept, "")):  # the fullest wording: "around the clock", not "open"
                    said[concept] = wording
                spans.append(match.span())
                if concept in DENYING_SIDES and side == -1:
                    denying.append(match.end())
    for concept, taken in sides.items():  # "the climb ... is gentler": the thing's name yields to what is said of it
        if len(taken) > 1 and len(described.get(concept, ())) == 1:
            sides[concept] = described[concept]
    exclusive = ONLY.search(text) is not None
    if exclusive:
        sides = {concept: {1, -1} for concept in sides}
    in_spans = lambda offset: any(a <= offset < b for a, b in spans)  # noqa: E731
    # "no step-free route": a determiner turns the side round and denies the thing after it too
    denies_more = {
        m.end() for m in DETERMINERS.finditer(kept) for a, b in spans if a >= m.end() and not text[m.end() : a].strip() and re.match(r" [a-z]", text[b : b + 2])
    }
    words = [(m.group(), m.start()) for m in WORD.finditer(kept)] if negators else []
    content_after = {n for n in negators if any(start >= n and not is_negator(w) and not in_spans(start) and len(w) > 2 for w, start in words)}
    worded = {n for n in negators for a, b in spans if a < n <= b}  # the side's own wording: "pay nothing", "no charge"
    negative = len([n for n in negators if (n not in flipping or n in denies_more) and n in content_after and n not in worded]) % 2 == 1
    sides_taken = {k: frozenset(v) for k, v in sides.items()}
    return Polarity(text, tuple(sorted(negators + denying)), scope_ends, sides_taken, said, spans, negative, exclusive)


SENTENCE_OR_DASH = re.compile(r"(?<=[.!?])\s+|\s+-\s+")  # "...these days. Which walks...", "can't manage steps - which towns..."
LEAST = re.compile(r"(?<!\bat )\bleast\b(?= \w)|\b(?:less|fewer)\b(?= \w)|(?<!\ba )\blittle\b(?= \w)", re.IGNORECASE)
"""The least, less or little of one side asks for the other: "the least hassle", "as little hassle as possible" ("a little" is some)."""


def stance(text: str) -> dict[str, frozenset[int]]:
    """The side of each opposite pair a text takes, read clause by clause, so that a negator denies only its own clause
    ("My knees aren't great. Which walks are gentle?" asks for gentle), "least", "less" or "little" as "not" (LEAST); a
    pair taken both ways is left out."""
    sides: dict[str, set[int]] = {}
    for sentence in SENTENCE_OR_DASH.split(text):
        for clause in CLAUSE_BREAK.split(LEAST.sub("not", sentence)):
            for concept, taken in polarity(clause).sides.items():
                sides.setdefault(concept, set()).update(taken)
    return {concept: frozenset(taken) for concept, taken in sides.items() if len(taken) == 1}
