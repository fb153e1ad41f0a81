"""Check a generated answer against the chunks it was given, sentence by sentence, and say why.

A language model can state things its documents never said, turn a fact round, or cite a
file it was never shown. Each sentence of the answer is checked against its evidence: the
prompt's chunks (those within the cutoff) of the guide it cites, where citing any guide that
holds a shown chunk's text word for word counts (the towns' shared "Practical notes"), or, when
it cites none, of any one guide shown; a sentence citing only guides it was not shown is judged as
if it cited none when one chunk of the cited guide holds it too (held_by_cited), and a sentence its
evidence is merely silent on (not against) is supported when one chunk of its cited guide holds it,
shown or not (a model may know more of the guide than it was shown). Against that
evidence a sentence is supported when all of these hold, else it is flagged with the first that
failed (a Flag says which and why, with the guide sentence it was compared with):
  - name:      every capitalised name it uses is in the evidence;
  - place:     the sentences it leans on are about the town it names (a fact of Halden Bay's
               told of Pellew Sands is not supported by a region-wide guide naming both);
  - value:     each time, price, duration, distance, day, month, year and count it states
               (claim_values: read with its unit, so 7pm is not 7am and "fifty" is 50) is given
               by a sentence about the same thing, ranges end to end, and values the claim ties
               together in a clause are not tied to other values by the guide;
  - polarity:  each clause agrees with the guide clauses it matches best on what is denied and
               on the side of each opposite pair (claim_polarity: step-free/stepped, open/closed...),
               and adds nothing to what the guide limits with "only" ("cash as well as cards");
  - unrelated: it is close in meaning to a sentence of the evidence (or two adjacent ones);
  - added:     no clause brings in several words the evidence never uses, one of them a thing (a café on the pier)
               and, when only two, no everyday word ("another great time to come");
Cited files that were not shown (nor hold a shown text) are "invented citations". An answer
that is the refusal sentence (even with a citation attached) is a refusal with no source.
The thresholds are ClaimSettings, measured with benchmarks/claims.py on the labelled
sentences in tests/data/claim_sentences.jsonl.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from guide_tui.answers import REFUSAL, Citation
from guide_tui.asked import DAY_AND_MONTH_NAMES, PAYMENT_MEANS
from guide_tui.chunking import Chunk, sentences
from guide_tui.claim_polarity import CLAUSE_BREAK, PARTIAL, SIDES, UNIVERSAL, UNORDERED, Polarity, is_negator, normalised, polarity
from guide_tui.claim_values import ALL_DAYS, DIMENSIONS, EXCEPTED, Value, values_in, with_rest
from guide_tui.embedding import Embedder
from guide_tui.extractive import IRREGULAR_PARTICIPLES
from guide_tui.retrieval import Hit, TownNames, place_guides, query_analyzer

CITED_FILE = re.compile(r"[\w.-]+\.md\b")
CITATION = r"\s*[\[(][^\[\]()]*?\.md\b[^\[\]()]*[\])]"  # " [guide_x.md]", " (guide_x.md, Food)"
CITATION_MARK = re.compile(CITATION)
CITATION_AFTER_STOP = re.compile(rf"([.!?])((?:{CITATION})+)")  # "...8:30. [guide_x.md]": moved before the stop
CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")
LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
WORD = re.compile(r"[a-z][a-z'-]*")
CONTRACTED = re.compile(r"'(?:s|re|ve|ll|d|m)$")  # "they're", "we'll": the word before is the word ("it's" is "it")
FILLER = frozenset(
    """
    also really genuinely truly just still usually often generally typically about around roughly approximately
    nearly almost only even there here visitor visitors you your people person anyone someone everyone get gets got
    getting go goes going can could should would will may might must need needs needed worth well so because since
    though although however which that this these those what where when how way thing things lot lots bit part
    make makes made take takes took taking give gives given find found keep keeps kept put say says said yes no
    one ones quite very much many more most less least rather whole entire real actual main mostly mainly
    do does did doing done be is are was were been being has have had having let lets plus
    from into onto through across toward towards within during except per via along around over under upon
    anywhere everywhere somewhere nowhere else anything everything something according guide guides
    plenty several lots altogether entirely completely fully totally fairly pretty
    until till while whilst ago centuries decades ages all every each any both some either apart besides beside
    rates rated describes described calls called lists listed mentions mentioned reckons recommends
    up out down sort sorts kind kinds want wants wanted own bet
    definitely certainly honestly unfortunately fortunately luckily sadly basically simply mind bear note noting
    tip tips advice ideally recommend recommended suggest suggests rest yourself yourselves myself ourselves themselves itself
    """.split()
)
"""Words a claim can add without adding a fact ("usually", "visitors", "you'll find", "the guide rates"), and "up"
of a phrasal verb ("sets up", "walks up"); not "off" or "out", which can turn a thing off or sold out."""


@dataclass(frozen=True)
class ClaimSettings:
    """The claim check's thresholds (benchmarks/claims.py prints what moving them does)."""

    support: float = 0.6  # cosine of a claim and its best sentence (or adjacent pair) of the chunk
    related: float = 0.45  # cosine at which a chunk sentence may lend the claim its values
    align: float = 0.55  # closeness at which a claim clause and a chunk clause are compared for polarity
    value_margin: float = 0.1  # a value must be in a sentence this close to the closest one giving that kind of value
    added_words: int = 2  # words of one clause the chunk never uses that make it an added detail
    telling_word: float = 3.5  # static token-vector length from which an added word can name a new thing ("time" 2.5, "café" 6.2)
    similar_word: float = 0.45  # word-vector cosine at which a word counts as used ("last"~"final" 0.50; "boat"~"water" 0.35)
    moved_clause: float = 0.15  # how much closer a claim clause may be to a sentence about another town than to any about its own
    conclusion: float = 0.5  # cosine below which a conclusion drawn in a claim ("Since X, Y") is not one the guide states
    unshown_chunks: bool = True  # a claim its shown evidence is silent on may be held by one unshown chunk of its cited guide


DEFAULT_SETTINGS = ClaimSettings()


@dataclass(frozen=True)
class Flag:
    """A sentence the check could not support, and why, with the source sentence it was compared with."""

    sentence: str
    kind: str  # name, place, value, polarity, inference, unrelated, added, citation, grounding
    reason: str  # one line for the user
    source: Citation | None = None

    def to_json(self) -> dict:
        return {
            "sentence": self.sentence,
            "kind": self.kind,
            "reason": self.reason,
            "source": self.source.to_json() if self.source else None,
        }


@dataclass(frozen=True)
class Support:
    """A sentence the check supported: as written, without its citations, its source, and the guide text it leaned on."""

    sentence: str
    claim: str
    citation: Citation
    document: str


@dataclass
class ClaimCheck:
    refused: bool
    flags: list[Flag] = field(default_factory=list)  # the sentences not supported, each with why
    invented_citations: list[str] = field(default_factory=list)
    supported: list[Support] = field(default_factory=list)

    @property
    def unsupported(self) -> list[str]:
        return [flag.sentence for flag in self.flags]

    @property
    def citations(self) -> list[Citation]:
        """One citation per chunk that supports a sentence, quoting the first sentence it supports, in answer order."""
        return citations_of(self.supported)


def citations_of(supported: list[Support]) -> list[Citation]:
    return list({s.citation.chunk_id: s.citation for s in supported}.values())


# ---------------------------------------------------------------- splitting the answer


def cited_files(text: str) -> list[str]:
    """File names cited in the text, in order of first mention."""
    return list(dict.fromkeys(CITED_FILE.findall(text)))


def without_citations(text: str) -> str:
    return " ".join(CITATION_MARK.sub("", text).split())


def is_refusal(text: str) -> bool:
    """The answer says only the refusal sentence (a citation attached to it does not count)."""
    plain = without_citations(text).replace("’", "'").strip().strip('"').strip()
    return plain.casefold() == REFUSAL.casefold()


def answer_sentences(text: str) -> list[str]:
    """Sentences of the answer, each keeping the citations written after its full stop."""
    text = CITATION_AFTER_STOP.sub(lambda m: f"{m.group(2)}{m.group(1)}", text)
    found = []
    for line in text.splitlines():  # list items and short lines are separate claims
        for sentence in sentences(LIST_MARKER.sub("", line)):
            if re.search(r"\w", without_citations(sentence)):
                found.append(sentence)
    return found


def capitalised_words(sentence: str) -> tuple[str | None, list[str]]:
    """(the sentence's first word if capitalised, the capitalised words after it)."""
    sentence = sentence.replace("’", "'")
    words = [m for m in CAPITALISED.finditer(sentence)]
    if words and not sentence[: words[0].start()].strip(" \"'(*"):
        return words[0].group(), [m.group() for m in words[1:]]
    return None, [m.group() for m in words]


BARE_THING = re.compile(r"\s*(?:the|a|an)\s+[\w'-]+(?:\s+[\w'-]+)?\s*$", re.IGNORECASE)
"""A piece that is only a thing ("The tearoom"), the first of a subject joined with "and": no clause of its own."""


def clauses_of(sentence: str, values: list[Value]) -> list[tuple[str, int]]:
    """The sentence cut at commas, semicolons, dashes and joining words (never inside one of its
    values, such as "Fridays and Saturdays" or "between 11 and 3", nor between two things joined by a
    bare "and": BARE_THING), each piece with its offset."""
    inside = [(v.start, v.start + len(v.text)) for v in values]
    pieces, position = [], 0
    for cut in CLAUSE_BREAK.finditer(sentence):
        if any(a < cut.start() < b or a < cut.end() < b for a, b in inside):
            continue
        if BARE_THING.match(sentence, position, cut.start()) and not cut.group().strip() and sentence.startswith("and", cut.end()):
            continue  # "The tearoom | and the riverside are both accessible": one subject of two things
        pieces.append((sentence[position : cut.start()], position))
        position = cut.end()
    pieces.append((sentence[position:], position))
    found = []
    for text, start in pieces:
        stripped = text.strip(" .!?\"'")
        if re.search(r"[A-Za-z0-9]", stripped):
            found.append((stripped, start + text.find(stripped)))
    return found


@lru_cache(maxsize=8192)
def town_spans(towns: TownNames, text: str) -> tuple[tuple[int, int, str], ...]:
    """towns.spans(text), kept: a chunk's sentences are read for their places and their words, copy after copy."""
    return tuple(towns.spans(text))


def towns_in(towns: TownNames, text: str) -> frozenset[str]:
    return frozenset(town for _, _, town in town_spans(towns, text))


COMPARED_WITH = re.compile(r"\b(?:like|than|unlike|compared (?:with|to)|as in|as|(?:on a )?par with|the same as|second to|after)\s+$")
"""Words before a town a claim only compares with ("priced like Marchwood", "cheaper than Brightwater", "on a par
with Marchwood's", "the best winter pick after Marchwood")."""


JOURNEY_END = re.compile(
    r"\b(?:from|to|into|towards?|leav(?:e|es|ing)|via)\s+$|\b(?:nearest|closest)\b[\w\s'-]{0,40}?\b(?:in|at|is)\s+$"
)
"""Words before a town a claim only travels from, to or through ("the drive from Brightwater", "buses leave Brightwater
hourly"), or names as where the nearest of something is ("the nearest full hospital is in Brightwater", "the closest
station is Pellew Sands")."""


LINE_NAMED = re.compile(r"\s+line\b")
"""Words after a town that make it the name of a railway line ("on the Marchwood line"), not a place a claim is about."""


def claim_places(towns: TownNames, text: str, journeys: bool = False) -> frozenset[str]:
    """The towns a claim is about: those it names, but not those it only compares with, nor (unless `journeys`) those
    it only travels from or to, nor those that only name a line."""
    about = set()
    for start, end, town in town_spans(towns, text):
        if LINE_NAMED.match(text, end):
            continue
        before = text[max(0, start - 60) : start]
        if not COMPARED_WITH.search(before) and (journeys or not JOURNEY_END.search(before)):
            about.add(town)
    return frozenset(about)


def masked(towns: TownNames, text: str) -> str:
    """The text with town names blanked out, every other character where it was."""
    for start, end, _ in town_spans(towns, text):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def canonical(text: str, values: list[Value]) -> str:
    """The sentence with its values written one way ("costs nothing" -> "free", "an hour and a half" ->
    "90 minutes", "fifty" -> "50"), so a paraphrase that rewrites a value stays close to its source."""
    for value in reversed(values):
        written = canonical_value(value)
        if written:
            text = text[: value.start] + written + text[value.start + len(value.text) :]
    return text


def canonical_value(value: Value) -> str | None:
    first = value.readings[0]
    if value.kind == "price":
        return "free" if first == 0 else None if first is None else f"£{first:g}"
    if value.kind == "duration":
        return f"{first:g} minutes"
    if value.kind == "distance":
        return f"{first:.0f} metres"
    if value.kind in ("count", "ordinal"):
        return f"{first:g}"
    if value.kind == "year":  # "the 14th century" and "the 1300s" written alike
        return f"{first[0]}s" if first[1] > first[0] else str(first[0])
    return None


def without_values(text: str, values: list[Value], start: int = 0) -> str:
    """A clause (the piece of its sentence from `start`) with its values blanked out: what it is about,
    so a wrong "7pm" does not pull a claim's clause towards another sentence that has 7pm (clauses
    decide which sentence a value is looked for in; the values are compared one by one, exactly)."""
    for value in values:
        begin, end = max(value.start - start, 0), min(value.start - start + len(value.text), len(text))
        if begin < end:
            text = text[:begin] + " " * (end - begin) + text[end:]
    return text


# ---------------------------------------------------------------- reading sentences


@lru_cache(maxsize=1)
def analyzer():
    return query_analyzer(drop_stopwords=True)


@lru_cache(maxsize=20000)
def stem(word: str) -> str | None:
    """The word as the keyword index stems it; None for a stop word."""
    stems = analyzer().analyze(word)
    return stems[0] if stems else None


@dataclass(eq=False)
class Clause:
    text: str
    values: list[Value]
    polarity: Polarity
    free_words: list[str]  # content words outside values, opposite-pair words and town names ("added" looks at these)
    denied_words: list[str]  # the content words a negator denies
    vector: np.ndarray
    lead: str = ""  # the sentence before the clause: what "it" or "they" opening the clause stands for


@dataclass(eq=False)
class Said:
    """A sentence (of a chunk, or of the answer) read for the check."""

    text: str
    places: frozenset[str]  # the towns it is about
    clauses: list[Clause]
    vector: np.ndarray
    chunk: Chunk | None = None  # the chunk it comes from (None for the answer's sentences)

    @property
    def values(self) -> list[Value]:
        return [v for clause in self.clauses for v in clause.values]


@dataclass(eq=False)
class Guides:
    """What the check knows of the whole index: its towns, and which guides hold each text."""

    towns: TownNames
    town_of_file: dict[str, str]
    holders: dict[str, list[Chunk]]  # chunk body -> every chunk with that body, in every guide
    names: frozenset[str]  # words the guides capitalise mid-sentence, with days and months
    of_file: dict[str, list[Chunk]]  # guide file -> its chunks, in order (a cited guide read whole: held_by_cited)

    @classmethod
    def of(cls, chunks: list[Chunk]) -> Guides:
        places = place_guides(chunks)
        holders: dict[str, list[Chunk]] = {}
        of_file: dict[str, list[Chunk]] = {}
        names = set(DAY_AND_MONTH_NAMES)
        for chunk in chunks:
            holders.setdefault(chunk.body, []).append(chunk)
            of_file.setdefault(chunk.file, []).append(chunk)
            for sentence in sentences(chunk.text):
                names.update(capitalised_words(sentence)[1])
        return cls(TownNames(places.values()), places, holders, frozenset(names), of_file)

    def copies(self, chunk: Chunk) -> list[Chunk]:
        """The chunk and every chunk of another guide with the same text."""
        return self.holders.get(chunk.body, [chunk])


@lru_cache(maxsize=8)
def guides_of(chunks: tuple[Chunk, ...]) -> Guides:
    return Guides.of(list(chunks))


def read(texts: list[str], places: list[frozenset[str]], embedder: Embedder, towns: TownNames, evidence: bool = False) -> list[Said]:
    """Sentences cut into clauses, each with its values, polarity, words and vector (one encode call;
    a sentence of one clause and no value lends it its vector). Town names are blanked once per
    sentence; a clause is a slice of its blanked sentence. The guides' sentences (`evidence`) also
    give the days their exclusive clauses deny."""
    values = [with_rest(values_in(text), text) if evidence else values_in(text) for text in texts]
    pieces = [clauses_of(text, found) for text, found in zip(texts, values)]
    blanked = [masked(towns, text) for text in texts]
    to_embed = [canonical(blank, found) for blank, found in zip(blanked, values)]
    own = [len(clauses) > 1 or bool(found) for clauses, found in zip(pieces, values)]  # clauses needing their own vector
    for blank, found, clauses, needed in zip(blanked, values, pieces, own):
        if needed:
            to_embed += [without_values(blank[start : start + len(clause)], found, start) for clause, start in clauses]
    vectors = embedder.encode(to_embed)
    sentence_vectors, clause_vectors = vectors[: len(texts)], iter(vectors[len(texts) :])
    read_sentences = []
    for text, blank, where, found, clauses, vector, needed in zip(texts, blanked, places, values, pieces, sentence_vectors, own):
        read_clauses = []
        for n, (clause, start) in enumerate(clauses):
            end = clauses[n + 1][1] if n + 1 < len(clauses) else len(text) + 1
            mine = [v for v in found if start <= v.start < end]
            clause_vector = next(clause_vectors) if needed else vector
            carried = n > 0 and read_clauses[-1].polarity.negative and continues(text, clauses[n - 1], (clause, start))
            read_clauses.append(read_clause(clause, start, mine, clause_vector, blank[start : start + len(clause)], carried, text[:start]))
        with_sentence_denial(read_clauses)
        if evidence:
            for clause in read_clauses:
                with_implied_denials(clause)
        read_sentences.append(Said(text, where, read_clauses, vector))
    return read_sentences


def continues(sentence: str, before: tuple[str, int], clause: tuple[str, int]) -> bool:
    """Does the clause go on with the one before it, after nothing but a comma ("nowhere within four miles,
    in either direction, offers a room"), rather than start a statement of its own ("..., but it is"; "no
    public transport, its villages lie miles apart"; "prices don't swing much, staying moderate")?"""
    gap = sentence[before[1] + len(before[0]) : clause[1]]
    return gap.strip() == "," and not re.match(
        r"(?:and|but|or|so|while|whereas|though|although|because|since|as|which|who|its|their|it|they|there|the|this|these|those"
        r"|(?!including)[a-z]+ing)\b",  # "..., staying moderate all year": a participle says something of its own
        clause[0].lower(),
    )


BACK_THEN = re.compile(r"\b(?:way )?back(?= in (?:the )?(?:\d{4}|\d{2,4}s|\d{1,2}(?:st|nd|rd|th) century)\b)")
"""A year's "back in" ("closed back in 1963"), which adds no fact to the year."""


def read_clause(text: str, start: int, values: list[Value], vector: np.ndarray, blank: str, carried: bool = False, lead: str = "") -> Clause:
    """One clause read; `blank` is the clause with its town names blanked out (their words are no content).
    A clause `carried` on from a denying one, with no negator or side of its own, is denied whole; `lead` is the
    sentence before the clause."""
    said = polarity(text)
    if carried and not said.denials and not said.sides:
        said = replace(said, denials=(0,), negative=True)
    values = [replace(v, negative=denied(v, said)) if v.kind in ("day", "month") else v for v in values]
    skipped = [(v.start - start, v.start - start + len(v.text)) for v in values] + said.spans
    skipped += [m.span() for m in BACK_THEN.finditer(said.text)]  # said.text: the clause normalised, as offsets are
    free_words, denied_words = [], []
    for word in WORD.finditer(normalised(blank)):
        token = CONTRACTED.sub("", word.group()).strip("'-")
        if token in FILLER or is_negator(token) or not stem(token):
            continue
        if said.denials and said.negated(word.start()):
            denied_words.append(token)
        if not any(a <= word.start() < b for a, b in skipped):
            free_words.append(token)
    return Clause(text, values, said, free_words, denied_words, vector, lead)


def denied(value: Value, said: Polarity) -> bool | None:
    """Is a day or month value denied ("closed on Mondays", "on Sundays no buses run")? A day scopes its
    whole clause, wherever the denial stands. An exception turns it round: "no ticket office except on
    weekday mornings" gives weekday mornings; a denial with an exception elsewhere in the clause ("on
    Sundays there is nothing apart from the town routes") leaves the day either way (None)."""
    excepted = re.match(EXCEPTED, value.text.lower()) is not None
    own = len(re.findall(r"\bnot\b", value.text.lower())) if excepted else 0  # "but not on Mondays" excepts once, not twice
    denial = (len(said.denials) - own) % 2 == 1
    if denial and said.exclusive and not excepted:
        return None
    return denial != excepted


def with_sentence_denial(clauses: list[Clause]) -> None:
    """A sentence whose denying clause names no day or month may deny the days of its other clauses
    ("on a Sunday evening eating out is difficult, because most kitchens shut"): those read either way."""
    dated = lambda c: any(v.kind in ("day", "month") for v in c.values)  # noqa: E731
    if not any(len(c.polarity.denials) % 2 == 1 and not dated(c) for c in clauses):
        return
    for clause in clauses:
        if dated(clause) and not clause.polarity.denials:
            clause.values = [replace(v, negative=None) if v.kind in ("day", "month") else v for v in clause.values]


def with_implied_denials(clause: Clause) -> None:
    """An exclusive clause of the guides denies the days it leaves out: "no ticket office except on
    weekday mornings" and "open only at weekends" say what happens on the other days."""
    implied = [
        replace(v, readings=(ALL_DAYS - v.readings[0],), negative=True, is_range=False)
        for v in clause.values
        if v.kind == "day" and v.negative is False and (clause.polarity.exclusive or re.search(EXCEPTED, v.text.lower()))
        and v.readings[0] != ALL_DAYS
    ]
    clause.values = clause.values + implied


def chunk_sentences(chunk: Chunk, town: str | None, towns: TownNames) -> tuple[list[str], list[frozenset[str]]]:
    """The chunk's sentences and the towns each is about: the ones it names, its guide's town, and in a
    region-wide guide, when it names none, the towns of the sentence before it in its paragraph."""
    texts, places = [], []
    for paragraph in re.split(r"\n\s*\n", chunk.text):
        if not paragraph.strip() or paragraph.lstrip().startswith("#"):
            continue
        previous: frozenset[str] = frozenset()
        for sentence in sentences(paragraph):
            named = towns_in(towns, sentence)
            about = named | {town} if town else named or previous
            texts.append(sentence)
            places.append(frozenset(about))
            previous = about
    return texts, places


READ_CHUNKS: dict[tuple[Chunk, Guides, Embedder], list[Said]] = {}
"""Chunks already read, per (chunk, Guides, Embedder): the index's chunks are few and never change."""
MAX_READ_CHUNKS = 2048


def read_chunks(chunks: list[Chunk], guides: Guides, embedder: Embedder) -> dict[Chunk, list[Said]]:
    """Each chunk's sentences read: those not read before in one batch, a text held by several
    guides (the shared "Practical notes") once, each copy with its own guide's town."""
    missing = list(dict.fromkeys(c for c in chunks if (c, guides, embedder) not in READ_CHUNKS))
    if not missing:
        return {chunk: READ_CHUNKS[chunk, guides, embedder] for chunk in chunks}
    if len(READ_CHUNKS) + len(missing) > MAX_READ_CHUNKS:
        READ_CHUNKS.clear()
    firsts = list({chunk.body: chunk for chunk in reversed(missing)}.values())
    sentences_of = {chunk: chunk_sentences(chunk, guides.town_of_file.get(chunk.file), guides.towns) for chunk in missing}
    texts, places, owners = [], [], []
    for chunk in firsts:
        chunk_texts, chunk_places = sentences_of[chunk]
        texts += chunk_texts
        places += chunk_places
        owners += [chunk] * len(chunk_texts)
    by_body: dict[str, list[Said]] = {}
    for said, chunk in zip(read(texts, places, embedder, guides.towns, evidence=True), owners):
        by_body.setdefault(chunk.body, []).append(said)
    for chunk in missing:
        READ_CHUNKS[chunk, guides, embedder] = [
            Said(said.text, where, said.clauses, said.vector, chunk) for said, where in zip(by_body[chunk.body], sentences_of[chunk][1])
        ]
    return {chunk: READ_CHUNKS[chunk, guides, embedder] for chunk in chunks}


@lru_cache(maxsize=256)
def chunk_words(chunk: Chunk) -> frozenset[str]:
    """Every word of the chunk, title, heading and file name included ("the accessibility guide"), and its stem."""
    text = f"{chunk.file.replace('_', ' ')}\n{chunk.text}"
    words = {w.strip("'-") for w in WORD.findall(text.lower().replace("’", "'"))}
    return frozenset(words | {stem(w) for w in words} - {None})


# ---------------------------------------------------------------- checking one sentence against one chunk


@dataclass
class Judgement:
    """One sentence against its evidence: its support, the sentence it leans on, and the first problem."""

    support: float
    source: Said  # the evidence sentence the claim is closest to (the quote of a citation)
    problem: tuple[str, str, Said] | None = None  # (kind, reason, the evidence sentence it was compared with)
    disputed: Value | None = None  # the claim's value a "value" problem is about


def judge(claim: Said, plain: str, chunks: list[Chunk], guides: Guides, embedder: Embedder, settings: ClaimSettings) -> Judgement:
    """The claim against the pooled sentences of some chunks (the shown chunks of the file it cites)."""
    read_already = read_chunks(chunks, guides, embedder)
    said = [s for chunk in chunks for s in read_already[chunk]]
    scores = np.array([claim.vector @ s.vector for s in said])
    best_any = said[int(np.argmax(scores))]
    in_values = {w for v in claim.values for w in CAPITALISED.findall(v.text)}
    missing = [n for n in names_in(plain, guides.names) if n not in in_values and not any(mentions(chunk, n) for chunk in chunks)]
    if missing:
        return Judgement(float(scores.max()), best_any, ("name", f"names {', '.join(missing)}, which {where(chunks)} never mentions", best_any))
    fits = [n for n, s in enumerate(said) if not claim.places or not s.places or claim.places & s.places]
    if not fits:
        return Judgement(float(scores.max()), best_any, ("place", f"{where(chunks)} says nothing about {join(claim.places)}", best_any))
    support = [float(scores[n]) for n in fits]
    for a, b in zip(fits, fits[1:]):
        if b == a + 1 and said[a].chunk is said[b].chunk:
            pair = said[a].vector + said[b].vector
            support.append(float(claim.vector @ pair / (np.linalg.norm(pair) or 1.0)))
    best = said[max(fits, key=lambda n: scores[n])]
    judgement = Judgement(max(support), best)
    elsewhere = [said[n] for n in range(len(said)) if n not in fits]

    related = {n for n in fits if scores[n] >= settings.related}
    for clause in claim.clauses:
        related.update(n for n in fits if max(c.vector @ clause.vector for c in said[n].clauses) >= settings.related)
    related_said = [said[n] for n in sorted(related)]
    evidence = related_said or [best]
    for clause in claim.clauses:
        for value in clause.values:
            if denied_charge(value, clause):
                continue
            if problem := value_problem(value, clause, claim, evidence, elsewhere, settings):
                judgement.problem, judgement.disputed = problem, value
                return judgement
        if problem := pairing_problem(clause, evidence):
            judgement.problem = problem
            return judgement
    for clause in claim.clauses:
        if problem := polarity_problem(clause, claim, [said[n] for n in fits], settings):
            judgement.problem = problem
            return judgement
    if moved := moved_clause(claim, [said[n] for n in fits], elsewhere, settings):
        judgement.problem = ("place", f"the guide says this of {join(moved.places)}, not {join(claim.places)}", moved)
        return judgement
    if judgement.support < settings.support and not values_given(claim, related_said):
        moved = max(elsewhere, key=lambda s: claim.vector @ s.vector, default=None)
        if moved is not None and claim.vector @ moved.vector >= settings.support:
            judgement.problem = ("place", f"the guide says this of {join(moved.places)}, not {join(claim.places)}", moved)
        else:
            judgement.problem = ("unrelated", f"no sentence of {where(chunks)} says this (closest {judgement.support:.2f})", best)
        return judgement
    if problem := conclusion_problem(plain, [said[n] for n in fits], embedder, settings):
        judgement.problem = problem
        return judgement
    leaned_on = {said[n].chunk for n in fits if scores[n] >= settings.related} | {best.chunk}
    leaned_on |= {max(evidence, key=lambda s: closeness(clause, claim.vector, s)).chunk for clause in claim.clauses}
    if added := added_words(claim, leaned_on, said, embedder, settings):
        judgement.problem = ("added", f"adds what the guide does not say ({', '.join(added)})", best)
    return judgement


def denied_charge(value: Value, clause: Clause) -> bool:
    """"Isn't expensive" gives no price: the pair of cheap and dear weighs it (polarity_problem), not the values."""
    return value.kind == "price" and None in value.readings and clause.polarity.negated(clause.polarity.text.find(normalised(value.text)))


def values_given(claim: Said, related: list[Said]) -> bool:
    """One related sentence gives every value of the claim ("at 23:00" where it says "up to 11pm"): the claim is
    about what that sentence is about, however far apart the two are in words."""
    values = [v for clause in claim.clauses for v in clause.values]
    anchored = any(v.kind in EXACT_KINDS for v in values)  # a month or a day is said of too much to tie a claim to a sentence
    return anchored and any(all(any(same_value(v, w) for w in s.values) for v in values) for s in related)


def same_value(mine: Value, theirs: Value) -> bool:
    """The same kind and amount, and for a count the same thing counted ("three inns" is not "three levels")."""
    return mine.kind == theirs.kind and mine.matches(theirs) and (mine.kind != "count" or counts_the_same(mine, theirs))


def counts_the_same(mine: Value, theirs: Value) -> bool:
    """Two counts of the same thing, by stem ("three inns" and "one inn"), or a claim's bare number ("a population of
    a hundred and eighty thousand" for "a city of 180,000 people")."""
    return not mine.counted or stem(mine.counted) == stem(theirs.counted or "")


EXACT_KINDS = frozenset({"clock", "price", "duration", "distance", "count", "year"})


CONCLUDING = [
    re.compile(r"^(?:since|because|as|thanks to|given that|with)\b[^,]{3,},\s*(?P<c>.+)$", re.IGNORECASE),
    re.compile(r"^.{3,}?(?:,\s*|\s+and\s+)so\s+(?P<c>.+)$", re.IGNORECASE),  # not "so busy that": an intensifier
    re.compile(r"^.{3,}?,?\s+(?:which means|meaning|therefore|hence)\s+(?P<c>.+)$", re.IGNORECASE),
    re.compile(r"^(?:so|therefore|that means|this means|which means)\b,?\s*(?P<c>.+)$", re.IGNORECASE),
]


ADVICE = re.compile(
    r"^(?:(?:do(?:n't| not) )?(?:go|book|get|plan|arrive|bring|allow|check|take|try|make|avoid|aim|leave|expect|come|"
    r"head|reserve|pack|wear|call|phone|ring|budget|be|pick|stock|buy|use|skip|keep|consider)\b|it(?:'s| is) (?:wise|best|worth|a good idea|sensible|smart)\b"
    r"|you(?:'d| would| should|'ll| will| might| may| need| want| can)\b|(?:best|better) to\b|worth\b)",
    re.IGNORECASE,
)
"""A conclusion that tells the traveller what to do ("so go early", "so it's wise to book") draws no new fact."""


def conclusion_of(plain: str) -> str | None:
    """The part of a sentence drawn as a conclusion from the rest ("Since X, Y", "X, so Y", "So Y"), if any,
    advice aside."""
    text = plain.strip().rstrip(".!")
    for pattern in CONCLUDING:
        if match := pattern.match(text):
            return None if ADVICE.match(match.group("c")) else match.group("c")
    return None


SUPERLATIVE = re.compile(
    r"(?<!\bat )\b(?:best|worst|cheapest|dearest|busiest|quietest|easiest|hardest|biggest|largest|smallest|finest"
    r"|liveliest|safest|warmest|coldest|wettest|driest)\b"
)
"""A ranking a conclusion may draw that its premise does not ("..., so Halden Bay has the cheapest seafood in the
region"): the guide must use the word itself. Not "at best"; not "most" or "least", which also count ("most places")."""


def conclusion_problem(plain: str, fits: list[Said], embedder: Embedder, settings: ClaimSettings) -> tuple[str, str, Said] | None:
    """A conclusion drawn from what the guide says ("Since X, Y") that no sentence or clause of it states: the whole
    sentence may be close to the guide through its premise while the conclusion is the model's own."""
    conclusion = conclusion_of(plain)
    if conclusion is None or not fits:
        return None
    vector = embedder.encode([conclusion])[0]  # unit length, as Embedder.encode returns every vector
    closest, source = max(((max(float(vector @ v) for v in [s.vector, *(c.vector for c in s.clauses)]), s) for s in fits), key=lambda p: p[0])
    if closest < settings.conclusion:
        return ("inference", f'concludes what the guide does not say: "{conclusion}" (closest {closest:.2f})', source)
    said = set().union(*(stems_in(s.text) for s in fits))
    if ranked := [w for w in SUPERLATIVE.findall(conclusion.lower()) if stem(w) not in said]:
        return ("inference", f'concludes "{ranked[0]}", which the guide does not say: "{conclusion}"', source)
    return None


def moved_clause(claim: Said, fits: list[Said], elsewhere: list[Said], settings: ClaimSettings) -> Said | None:
    """The sentence about another town that a clause of the claim restates, when it is much closer to the clause than
    any sentence about the claim's own town ("Marchwood's covered market ... is the best market in the region", where
    the guide says that of Kestrelford's). Clauses of fewer than two content words say too little to tell."""
    if not elsewhere or not fits:
        return None
    for clause in claim.clauses:
        if len(clause.free_words) < 2:
            continue
        there, moved = max(((closeness(clause, claim.vector, s), s) for s in elsewhere), key=lambda p: p[0])
        if there - max(closeness(clause, claim.vector, s) for s in fits) >= settings.moved_clause:
            return moved
    return None


SAID_WITHIN = {
    "transport": frozenset("bus buses coach coaches train trains tram trams".split()),
    "station": frozenset("train trains railway rail".split()),
    "exhibit": frozenset("display displays".split()),
    "part": frozenset("section sections".split()),
    "impressive": frozenset("striking".split()),
}
"""Words a guide's word already speaks of: "no public transport of any kind" says there is no bus or train, "no
station" that no train stops; and words said of it in other words ("a static display" is its "static exhibit", "the
best section" its "strongest part"), whose static vectors lie too far apart to count as close."""


def added_words(claim: Said, leaned_on: set[Chunk], said: list[Said], embedder: Embedder, settings: ClaimSettings) -> list[str]:
    """The words of a claim clause that bring in something the chunks it leans on never say (none when
    fewer than settings.added_words): not the same word, stem or root, no opposite-pair word of a
    pair the chunks use, nothing the chunks use close in meaning."""
    known = frozenset().union(*(chunk_words(chunk) for chunk in leaned_on))
    known |= frozenset().union(*(words for word, words in SAID_WITHIN.items() if word in known))
    concepts = {concept for s in said for c in s.clauses for concept in c.polarity.sides}
    for clause in claim.clauses:
        if ADVICE.match(clause.text.strip()):  # "wear boots with proper tread": what to do, no fact of the guide's
            continue
        measured = frozenset().union(*(DIMENSIONS.get(v.kind, frozenset()) for v in clause.values))
        added = [w for w in dict.fromkeys(clause.free_words) if stem(w) not in known and w not in known and not shares_root(w, known) and w not in measured]
        added = [w for w in added if not any(SIDES[c][0].search(w) or SIDES[c][1].search(w) for c in concepts)]
        if added:
            added = unlike(added, known, embedder, settings.similar_word)
        if len(added) < settings.added_words:
            continue
        things = [w for w in added if names_a_thing(w, clause.text)]
        if len(added) == settings.added_words:  # two everyday words ("a great time to come") are a way of putting it
            things = [w for w, weight in zip(things, embedder.word_weights(things)) if weight >= settings.telling_word]
        if things:
            return added
    return []


THING_BEFORE = frozenset(
    """
    a an the its their his her our your this that these those some any no every each another other
    of in on at by for with from into near under over behind beside inside outside beyond
    """.split()
)
"""Words after which, one word on at most, a clause names a thing ("has a café", "on the top floor", "by boat"); so do
its first two words ("live music plays") and a word before "is", "are", "has" or "have"."""


ORDER_WORDS = frozenset("first last next only same other own whole usual".split())
"""Adjectives that place or single out a thing the guide names ("the last train") rather than name one."""


def names_a_thing(word: str, clause: str) -> bool:
    """Is the word a thing (a noun, or the adjective before one) rather than a verb or adverb? An added way of
    saying what the guide says ("cross on foot", "drive around") is no added fact; an added café is."""
    if word.endswith(("ing", "ed", "ly")) or word in ORDER_WORDS:
        return False
    words = WORD.findall(normalised(clause))
    return any(
        w.startswith(word) and (n < 2 or THING_BEFORE & set(words[max(0, n - 2) : n]) or words[n + 1 : n + 2] in (["is"], ["are"], ["has"], ["have"]))
        for n, w in enumerate(words)
    )


def shares_root(word: str, known: frozenset[str]) -> bool:
    """Does the chunk use a word of the same root ("serving" and "service" share "servi")?"""
    root = word[:5]
    return len(root) == 5 and any(k.startswith(root) for k in known)


def unlike(words: list[str], known: frozenset[str], embedder: Embedder, similar: float) -> list[str]:
    """The words no word of the chunk is close to in meaning ("fast" is close to "quickly")."""
    vocabulary = sorted(w for w in known if w.isalpha())
    mine, theirs = word_vectors(words, embedder), word_vectors(vocabulary, embedder)
    best = (mine @ theirs.T).max(axis=1) if len(vocabulary) else np.zeros(len(words))
    return [w for w, score in zip(words, best) if score < similar]


WORD_VECTORS: dict[tuple[str, Embedder], np.ndarray] = {}
"""Single words already embedded: a chunk's vocabulary is compared again with every new claim."""


def word_vectors(words: list[str], embedder: Embedder) -> np.ndarray:
    missing = [w for w in dict.fromkeys(words) if (w, embedder) not in WORD_VECTORS]
    if len(WORD_VECTORS) + len(missing) > 50_000:
        WORD_VECTORS.clear()
    for word, vector in zip(missing, embedder.encode(missing)):
        WORD_VECTORS[word, embedder] = vector
    return np.array([WORD_VECTORS[w, embedder] for w in words]).reshape(len(words), embedder.dims)


def where(chunks: list[Chunk]) -> str:
    files = list(dict.fromkeys(chunk.file for chunk in chunks))
    return files[0] if len(files) == 1 else "the guides shown"


def closeness(clause: Clause, claim_vector: np.ndarray, sentence: Said) -> float:
    """How well an evidence sentence matches a claim clause: its best clause, and the two sentences as wholes."""
    best_clause = max(float(c.vector @ clause.vector) for c in sentence.clauses)
    return (best_clause + float(claim_vector @ sentence.vector)) / 2


def value_problem(
    value: Value, clause: Clause, claim: Said, related: list[Said], elsewhere: list[Said], settings: ClaimSettings
) -> tuple[str, str, Said] | None:
    """Why the evidence does not give this value (None when a sentence about the same thing does).

    Of the related sentences giving this kind of value, only those within value_margin of the one
    closest to the clause count: "tours every half hour" is not supported by "the bus takes 30 minutes"."""
    if clause.free_words:
        score = {id(s): closeness(clause, claim.vector, s) for s in related}
    else:  # "and closes at 5": about what the whole sentence is about
        score = {id(s): float(claim.vector @ s.vector) for s in related}
    if problem := whole_of_part(value, clause, related) or count_problem(value, related) or ratio_turned_round(value, claim, related):
        return problem
    margin = settings.value_margin if clause.free_words or clause.polarity.sides else 1.0  # "and not at all on Sundays" says nothing to rank by
    same_kind = lambda v: v.kind == value.kind  # noqa: E731
    for kinds in (same_kind,) if counts_a_thing(value) else (same_kind, value.comparable):  # a bare "15" is first a count, then "15 minutes"
        holders = [s for s in related if any(kinds(v) for v in s.values)]
        top = max((score[id(s)] for s in holders), default=0.0)
        if any(value.matches(v) for s in holders if score[id(s)] >= top - margin for v in s.values):
            return None
    if turned_ratio(value, claim, related) or denied_alike(value, claim, related):
        return None
    best = max(related, key=lambda s: score[id(s)])
    if any(value.matches(v) for v in heading_values(best.chunk.section if best.chunk else "")):
        return None  # "## Summer, June to August" dates every sentence under it
    moved = next((s for s in elsewhere for v in s.values if value.matches(v)), None)
    if moved is not None:
        return ("place", f'gives "{value.text}", which the guide gives for {join(moved.places)}', moved)
    closest = max(holders, key=lambda s: score[id(s)], default=None)
    if closest is None or score[id(closest)] < score[id(best)] - settings.value_margin:  # only far-off sentences give one
        return ("value", f'gives {KIND_NAMES[value.kind]} ("{value.text}") the guide does not', best)
    given = [v for v in closest.values if value.comparable(v)]
    turned = [  # the same days, one side denying them: "open on Mondays" against "closed on Mondays"
        v for v in given if value.kind in ("day", "month") and v.readings[:1] == value.readings[:1] and bool(v.negative) != bool(value.negative)
    ]
    theirs = [f"not {v.text}" if v in turned and v.negative else v.text for v in given]
    mine = f"not {value.text}" if turned and value.negative else value.text
    return ("value", f'says "{mine}" where the guide says "{" / ".join(dict.fromkeys(theirs))}"', closest)


def denied_alike(value: Value, claim: Said, related: list[Said]) -> bool:
    """A day or month the claim denies, denied by a related sentence about something the claim speaks of ("buses ...,
    and no service at all on Sundays" for "No buses run on Sundays"; not the shop's closed day for the pub's), however
    much closer a sentence about the other days is to the clause."""
    if value.kind not in ("day", "month") or not value.negative:
        return False
    mine = set().union(*(spoken_of(c) for c in claim.clauses))
    for sentence in related:
        denying = [v for v in sentence.values if v.negative and value.matches(v)]
        theirs = set().union(*(spoken_of(c) for c in sentence.clauses)) if denying else set()
        if any(mine & (theirs - stems_in(v.text)) for v in denying):
            return True
    return False


@lru_cache(maxsize=1024)
def heading_values(section: str) -> tuple[Value, ...]:
    return tuple(values_in(section))


def swapped_ratios(value: Value, claim: Said, related: list[Said]) -> list[tuple[Value, Said]]:
    """The guide's proportions, with their sentences, that compare the claim's two things the other way round."""
    if value.kind != "ratio":
        return []
    mine = sides_of(claim.text, value)
    return [(theirs, s) for s in related for theirs in s.values if theirs.kind == "ratio" and swapped(mine, sides_of(s.text, theirs))]


def turned_ratio(value: Value, claim: Said, related: list[Said]) -> bool:
    """A proportion said from the other side: "Fell Street charges half what the harbour front does" for the
    guide's "the harbour front is double Fell Street" (the reciprocal, with the two things swapped round it)."""
    return any(abs(a * b - 1) < 0.05 for theirs, _ in swapped_ratios(value, claim, related) for a in value.readings for b in theirs.readings)


def ratio_turned_round(value: Value, claim: Said, related: list[Said]) -> tuple[str, str, Said] | None:
    """The guide's proportion with the two things swapped round it ("Fell Street is double the harbour front"
    where the guide says "the harbour front is double Fell Street")."""
    for theirs, sentence in swapped_ratios(value, claim, related):
        if value.matches(theirs):
            return ("value", f'says "{value.text}" the other way round from the guide\'s "{theirs.text}"', sentence)
    return None


RATIO_OF = re.compile(r"\s+(?:what|those|the|as|of)\b")
"""What follows a proportion that compares two things ("half what", "double those on", "50% of the")."""


def sides_of(text: str, value: Value) -> tuple[set[str], set[str]] | None:
    """The stems before and after a proportion comparing two things, each less those on both sides (None when
    the proportion compares nothing: "the surviving half of the pier")."""
    end = value.start + len(value.text)
    if not RATIO_OF.match(text.lower(), end):
        return None
    return either_side(text[: value.start], text[end:])


def whole_of_part(value: Value, clause: Clause, related: list[Said]) -> tuple[str, str, Said] | None:
    """All of a set where the guide gives a part of it ("all four villages" where it says "three of the four villages")."""
    if value.kind != "count" or not value.counted:
        return None
    counted = rf"{re.escape(value.text)}\s+{re.escape(value.counted)}\b"
    if not re.search(rf"\b(?:all|each of|every one of)\s+(?:the\s+)?{counted}", clause.text, re.IGNORECASE):
        return None
    for sentence in related:
        if part := re.search(rf"\b(?!(?:all|each|every one|both)\s)[\w-]+\s+of\s+(?:the|its|their)\s+{counted}", sentence.text, re.IGNORECASE):
            return ("value", f'says "all {value.text} {value.counted}" where the guide says "{part.group()}"', sentence)
    return None


AMOUNT_AFTER = frozenset({"more", "further", "extra", "or", "to"})
"""Words after a bare number that leave it an amount with a unit said elsewhere ("then twenty more")."""


def counts_a_thing(value: Value) -> bool:
    """A count of a named thing ("three inns") is not the number in an amount with a unit ("two or three nights")."""
    return value.kind == "count" and value.counted not in AMOUNT_AFTER and stem(value.counted or "") is not None


def count_problem(value: Value, related: list[Said]) -> tuple[str, str, Said] | None:
    """A count of something the guide counts differently ("four cafés" where it says "two cafés")."""
    if value.kind != "count" or not value.counted or stem(value.counted) is None:
        return None
    same = [(v, s) for s in related for v in s.values if v.kind == "count" and v.counted and counts_the_same(value, v)]
    uncounted = [v for s in related for v in s.values if v.kind == "count" and not v.counted]  # "and the smallest has 140."
    if not same or any(value.matches(v) for v in [v for v, _ in same] + uncounted):
        return None
    theirs, sentence = same[0]
    return ("value", f'says "{value.text} {value.counted}" where the guide says "{theirs.text} {theirs.counted}"', sentence)


def pairing_problem(clause: Clause, related: list[Said]) -> tuple[str, str, Said] | None:
    """Two values the claim ties together in one clause that the guide ties to other values
    ("every 15 minutes on weekdays" where the guide says "every 15 minutes at weekends"). A value the
    guide's sentence gives in a clause of its own is tied to the whole sentence ("every Tuesday a
    market fills the square from 7am, and the stalls are gone by 1pm": Tuesday and 1pm); so is a value
    in a clause with none of the other's kind ("a pub, in the third village, opens Thursday to Sunday")."""
    for a in clause.values:
        for b in clause.values:
            if a.kind == b.kind:
                continue
            together = [(c, s) for s in related for c in s.clauses if any(a.matches(v) for v in c.values)]
            if any(any(b.matches(v) for v in c.values) for c, _ in together):
                continue
            if any(not any(v.kind == b.kind for v in c.values) and any(b.matches(v) for v in s.values) for c, s in together):
                continue  # a sentence gives both, the clause of one with no value of the other's kind: tied by the sentence
            if any(b.matches(v) for _, s in together for d in untied_clauses(s, a) for v in d.values):
                continue  # one sentence gives both, the other in a clause with none of the first's kind ("four villages ... and climbs 500 metres")
            in_a_holder = any(b.matches(v) for _, s in together for v in s.values)
            for c, sentence in together:
                others = [v.text for v in c.values if v.kind == b.kind]
                if not others and not in_a_holder:  # the clause gives no such value: its sentence's are tied to it
                    others = [v.text for v in sentence.values if v.kind == b.kind]
                if others:
                    return ("value", f'gives "{a.text}" with "{b.text}", where the guide gives it with "{" / ".join(others)}"', sentence)
    return None


def untied_clauses(sentence: Said, value: Value) -> list[Clause]:
    """The clauses of a sentence with no value of the value's kind: what they give is tied to the whole sentence."""
    return [d for d in sentence.clauses if not any(v.kind == value.kind for v in d.values)]


def polarity_problem(clause: Clause, claim: Said, fits: list[Said], settings: ClaimSettings) -> tuple[str, str, Said] | None:
    """A side of an opposite pair, or a denial, that the chunk clauses this clause matches best turn round.

    Closeness counts the clause and the whole claim sentence. A side conflicts when the closest
    related clauses taking a side on that pair (within CLOSEST of each other) all take the other one;
    a denial is weighed by denial_conflict among the clauses within 0.1 of the closest."""
    pairs = [((float(c.vector @ clause.vector) + float(claim.vector @ s.vector)) / 2, c, s) for s in fits for c in s.clauses]
    if not pairs:
        return None
    top = max(score for score, _, _ in pairs)
    close = [(c, s) for score, c, s in pairs if score >= max(top - 0.1, settings.align)]  # none when top < align
    leans_back = PRONOUN_OPENING.match(clause.text) is not None

    def sided_score(score: float, c: Clause, s: Said) -> float:
        """A claim clause that opens with a pronoun ("..., and it's quiet") is about its sentence's subject, and a
        guide clause of nothing but a side ("and is shut") about what its sentence is about: measured so too."""
        if leans_back:
            score = max(score, (float(claim.vector @ c.vector) + float(claim.vector @ s.vector)) / 2)
        if not c.free_words:
            score = max(score, (float(s.vector @ clause.vector) + float(claim.vector @ s.vector)) / 2)
        return score

    sided = [
        (sided_score(score, c, s), case, s)
        for score, c, s in pairs
        if c.polarity.sides
        for case in compared_cases(c)  # a comparison of two cases read as each case
    ]
    for case in compared_cases(clause):  # the claim's own comparison of two cases read as each case, as the guide's is
        for concept, sides in case.polarity.sides.items():
            carriers = sorted(
                ((score, c, s) for score, c, s in sided if concept in c.polarity.sides and score >= settings.related - 0.1 * same_dates(claim, s)),
                key=lambda p: -p[0],
            )
            if not claim.places and any(not s.places for _, _, s in carriers):  # a claim about the region: what the guide says of the region
                carriers = [(score, c, s) for score, c, s in carriers if not s.places]
            carriers = [(score, c, s) for score, c, s in carriers if same_time(claim, s, case)]
            if any(sides & c.polarity.sides[concept] for _, c, _ in carriers):  # the guide takes the claim's side too
                carriers = [(score, c, s) for score, c, s in carriers if not answered_by_another(c, concept, clause, claim)]
            if opposed := closest_all_opposed(carriers, concept, sides, clause):
                match, sentence = opposed
                turned = " of what it is compared with" if taken(match, concept, clause) != match.polarity.sides[concept] else ""
                return ("polarity", f"says \"{case.polarity.said[concept]}\" where the guide says \"{match.polarity.said[concept]}\"{turned}", sentence)
    if conflict := side_under_condition(clause, sided, settings):
        mine, match, sentence = conflict
        return ("polarity", f"says \"{mine}\" where the guide says \"{match}\" of the same case", sentence)
    if widened := widened_claim(clause, claim, pairs, settings):
        word, match, sentence = widened
        return ("polarity", f'says "{word}" where the guide says "{match}"', sentence)
    if beyond := beyond_exclusive(clause, close):
        extra, match, sentence = beyond
        return ("polarity", f'says "{extra}" too where the guide says only "{match.text}"', sentence)
    if first := runner_up_made_first(clause, claim, close):
        ranking, match, sentence = first
        return ("polarity", f'says "{ranking}" where the guide says "{match}"', sentence)
    if preferred := preference_turned(clause, claim, close):
        match, sentence = preferred
        return ("polarity", f'turns round what the guide prefers: "{match.text}"', sentence)
    if other := other_means_of_payment(clause, close):
        means, match, sentence = other
        return ("polarity", f'says "{means}" where the guide says "{match.text}"', sentence)
    if limited := limit_denied(clause, close):
        match, sentence = limited
        return ("polarity", f'says it is not limited where the guide says "{match.text}"', sentence)
    if conflict := denial_conflict(clause, close, claim):
        match, sentence = conflict
        verb = "denies what the guide says" if clause.polarity.negative else "says what the guide denies"
        return ("polarity", f"{verb}: \"{match.text}\"", sentence)
    return None


def side_under_condition(clause: Clause, sided: list[tuple[float, Clause, Said]], settings: ClaimSettings) -> tuple[str, str, Said] | None:
    """A side turned round under the same condition: "best at high tide" where the guide says "at high tide the
    beach is unremarkable, but at low tide excellent" (each side of "good" is in the guide, under opposite tides).
    A comparison in the claim is read as its two cases (compared_cases), as the guide's are. Returns what the claim
    and the guide say of that side, and the guide sentence."""
    for case in compared_cases(clause):
        for concept, sides in case.polarity.sides.items():
            for condition, mine in case.polarity.sides.items():
                if condition == concept or len(mine) > 1:
                    continue
                same_case = sorted(
                    (
                        (score, c, s)
                        for score, c, s in sided
                        if score >= settings.related and concept in c.polarity.sides and condition in c.polarity.sides
                        and taken(c, condition, case) == mine
                    ),
                    key=lambda p: -p[0],
                )
                if opposed := closest_all_opposed(same_case, concept, sides, case):
                    match, sentence = opposed
                    return case.polarity.said[concept], match.polarity.said[concept], sentence
    return None


COMPARATIVE = re.compile(r"(?:er|\bmore|\bless|\bfewer|\bworse)$")
"""The side word of a comparison ("cheaper", "busier", "costs more", "worse")."""
COMPARED_CASE = re.compile(rf"\s*(?:(?:[a-z]+ed|{'|'.join(sorted(IRREGULAR_PARTICIPLES))})\s+)?(?:when|if|on|in|at|during|outside|by|from|[a-z]+ing)\b")
"""What follows "than" in a comparison of two cases ("than when bought on the day", "than buying on the day", "than
bought on the day"), not of a thing or an expectation ("than the hotels", "than a map suggests")."""


def compared_cases(clause: Clause) -> list[Clause]:
    """A comparison read as its two cases: "cheaper when booked the day before than when bought on the day" says
    "on the day" is dearer. What follows "than" takes the other side of each comparative before it (the same side of an
    UNORDERED pair: both cases differ in price), with its own sides. A claim's "rather than buying on the day" is
    read so too: it compares the cases, it does not deny the second."""
    before, than, after = clause.polarity.text.partition(" than ")
    if not than or not COMPARED_CASE.match(after):
        return [clause]
    first, second = polarity(before), polarity(after)
    compared = {k: v for k, v in first.sides.items() if k != "order" and k not in second.sides and COMPARATIVE.search(first.said[k])}
    if not compared or not second.sides:
        return [clause]
    other_side = {**second.sides, **{k: v if k in UNORDERED else frozenset(-side for side in v) for k, v in compared.items()}}
    said = {**second.said, **{k: f"{first.said[k]} ... than {after.strip()}" for k in compared}}
    return [replace(clause, text=before, polarity=first), replace(clause, text=after, polarity=replace(second, sides=other_side, said=said))]


def answered_by_another(guide: Clause, concept: str, clause: Clause, claim: Said) -> bool:
    """The guide clause takes the other side from this clause, and another clause of the claim takes its side and is
    closer to it: when the guide takes both sides, a contrast it draws too, in another order ("excellent at low
    tide, while at high tide it's ordinary")."""
    side = guide.polarity.sides[concept]

    def to_guide(mine: Clause) -> float:  # a clause opening with a pronoun ("it really comes into its own") is its sentence
        close = float(mine.vector @ guide.vector)
        return max(close, float(claim.vector @ guide.vector)) if PRONOUN_OPENING.match(mine.text) else close

    return not side & clause.polarity.sides[concept] and any(
        other is not clause and other.polarity.sides.get(concept) == side and to_guide(other) > to_guide(clause) for other in claim.clauses
    )


CLOSEST = 0.05
"""Guide clauses within this closeness of the closest one are read together when judging a side."""


def closest_all_opposed(ranked: list[tuple[float, Clause, Said]], concept: str, sides: frozenset[int], clause: Clause) -> tuple[Clause, Said] | None:
    """The closest of the ranked (best first) guide clauses taking a side of `concept`, when all those within CLOSEST
    of it take the other side from the claim's `sides`; else None."""
    near = [(c, s) for score, c, s in ranked if score >= ranked[0][0] - CLOSEST] if ranked else []
    if near and all(not sides & taken(c, concept, clause) for c, _ in near):
        return near[0]
    return None


def widened_claim(clause: Clause, claim: Said, pairs: list[tuple[float, Clause, Said]], settings: ClaimSettings) -> tuple[str, str, Said] | None:
    """A claim made of everything that the closest guide clause says of some ("every place takes cards" where the
    guide says "most places take cards"; "never" where it says "rarely"; "every train" where it says "the four
    busiest arrivals"), unless that sentence says "every" too."""
    claimed = UNIVERSAL.search(clause.polarity.text)
    if claimed is None or PARTIAL.search(clause.polarity.text):
        return None
    score, closest, sentence = max(pairs, key=lambda p: p[0])
    carried = [c for c in sentence.clauses if not c.free_words]  # "..., and is often closed": said of the sentence's subject
    partial = next(filter(None, (PARTIAL.search(c.polarity.text) for c in [closest, *carried])), None)
    said = partial.group() if partial else None
    if said is None and not any(v.kind == "count" for v in claim.values):  # unless the claim counts too ("four buses a day, in every season")
        said = next((v.text for v in closest.values if v.kind == "count"), None)  # "the four busiest arrivals" are not every one
    if score < settings.align or said is None or UNIVERSAL.search(normalised(sentence.text)):  # "everything ..., and much of it"
        return None
    return claimed.group(), said, sentence


INCLUSIVE = re.compile(r"\b([a-z]+) (?:as well as|along with|together with|in addition to|plus) ([a-z]+)\b")
"""Two things a clause puts together ("takes cash as well as cards")."""


def beyond_exclusive(clause: Clause, close: list[tuple[Clause, Said]]) -> tuple[str, Clause, Said] | None:
    """A thing the claim adds to what a close guide clause limits with "only" ("cash as well as cards" where
    the guide says "cards only"): of the two things the claim joins, the guide's clause names one and not the other."""
    if clause.polarity.negative:
        return None
    for match in INCLUSIVE.finditer(normalised(clause.text)):
        joined = [w for w in match.groups() if stem(w) and w not in FILLER]
        if len(joined) < 2:
            continue
        for other, sentence in close:
            if not other.polarity.exclusive or other.polarity.negative:
                continue
            theirs = stems_in(other.text)
            named = [w for w in joined if stem(w) in theirs]
            if len(named) == 1:
                return next(w for w in joined if w not in named), other, sentence
    return None


RANKED_FIRST = re.compile(r"\b(?:the|[a-z]+['’]s?) (?:(?:single|very) )?(?:most ([a-z]+)|([a-z]+est))\b", re.IGNORECASE)
"""A ranking: "the most reliable", "the single busiest", "the region's most reliable"."""
RUNNER_UP = re.compile(
    r"\bthe (?:most ([a-z]+)|([a-z]+est))\b(?: [a-z-]+){0,5}? (?:after|behind|second (?:only )?to) ([A-Z][a-z]+(?: [A-Z][a-z]+)?)"
)
"""A ranking the guide gives second place: "the most reliable winter destination in the region after Marchwood"."""
SECOND_PLACE = re.compile(r"\b(?:after|behind|second|runner-up|apart from|except|other than|besides|but for)\b", re.IGNORECASE)
"""Words by which a claim keeps the guide's second place, or names what comes first ("after Marchwood, ...")."""


def runner_up_made_first(clause: Clause, claim: Said, close: list[tuple[Clause, Said]]) -> tuple[str, str, Said] | None:
    """A ranking claimed first that the close guide clause gives second ("Thornby Wells is the most reliable winter
    destination" where the guide says "... the most reliable winter destination ... after Marchwood")."""
    claimed = RANKED_FIRST.search(clause.text)
    if claimed is None or SECOND_PLACE.search(claim.text):
        return None
    ranked = stem(claimed.group(1) or claimed.group(2))
    for other, sentence in close:
        match = RUNNER_UP.search(other.text)
        if match and match.group(3) not in DAY_AND_MONTH_NAMES and match.group(3) not in claim.text and stem(match.group(1) or match.group(2)) == ranked:
            return claimed.group(), match.group(), sentence
    return None


PREFERENCE = re.compile(r"\b(?:rather than|instead of|in place of)\b")
"""A choice of one thing over another: "holiday lets rather than hotels"."""
SUPPOSING = re.compile(r"\s*(?:if|unless|whether|in case|suppose|supposing)\b")
"""A clause that supposes rather than states ("if you'd rather not ...")."""


def preference_of(text: str) -> tuple[str, str] | None:
    """A choice split at its pivot: what it prefers and what it passes over ("nearly all holiday lets | hotels")."""
    text = normalised(text)
    match = PREFERENCE.search(text)
    return (text[: match.start()], text[match.end() :]) if match else None


def content_stems(text: str) -> list[str]:
    """The stems of a text's content words, in order."""
    return [s for w in WORD.findall(text) if (s := stem(w))]


def preference_turned(clause: Clause, claim: Said, close: list[tuple[Clause, Said]]) -> tuple[Clause, Said] | None:
    """The close guide clause whose choice the claim turns round: the two things swapped ("hotels rather than holiday
    lets" where the guide says "holiday lets rather than hotels"), or the thing chosen denied ("prices aren't at
    Marchwood levels" where it says "match Marchwood rather than village levels"; the words next to the pivot)."""
    mine = preference_of(claim.text)
    said = clause.polarity
    asserted = said.negative and not SUPPOSING.match(said.text)  # "if you'd rather not take a holiday let" denies nothing
    denied = {s for w in WORD.finditer(said.text) if said.negated(w.start()) and (s := stem(w.group()))} if asserted else set()
    for other, sentence in close:
        theirs = preference_of(other.text)
        if theirs is None:
            continue
        if mine is not None:
            if swapped(either_side(*mine), either_side(*theirs)):
                return other, sentence
            continue
        chosen, passed_over = content_stems(theirs[0])[-1:], content_stems(theirs[1])[:1]
        if denied & set(chosen) and not denied & set(passed_over):
            return other, sentence
    return None


PAYMENT = re.compile(rf"\b(?:{PAYMENT_MEANS})\b")
LIMIT_DENIED = re.compile(
    r"\b(?:not|never|no longer|\w+n't)\s+(?:\w+\s+)?(?:limited|restricted|confined)(?:\s+to\b|\s*$|(?=\s*[,;]))|\bnot (?:only|just|solely|exclusively)\b"
    r"|\bno (?:restrictions?|limits?) (?:on|to)\b"
)
"""A claim that what the guide limits goes further: "camping isn't limited to particular fields", "isn't restricted",
"no restrictions on where you camp", "not only at lunch"."""

LIMITING_STEMS = frozenset({"limit", "restrict", "confin"})  # the limit itself, no word of what is limited


def limit_denied(clause: Clause, close: list[tuple[Clause, Said]]) -> tuple[Clause, Said] | None:
    """The close guide clause limiting with "only" what the claim says is not limited ("camping isn't limited to
    particular fields" where the guide says "camping is allowed only on two marked fields"): of the same thing, two
    words or more in common, or every word the claim limits by ("camping isn't restricted")."""
    if not LIMIT_DENIED.search(normalised(clause.text)):
        return None
    mine = spoken_of(clause) - LIMITING_STEMS
    for other, sentence in close:
        theirs = spoken_of(other)
        if other.polarity.exclusive and not other.polarity.negative and (of_the_same_thing(mine, theirs) or mine and mine <= theirs):
            return other, sentence
    return None


def other_means_of_payment(clause: Clause, close: list[tuple[Clause, Said]]) -> tuple[str, Clause, Said] | None:
    """A means of payment the claim names where a close guide clause allows only others ("takes cash" where
    the guide says "accepts cards only"), or denies where that clause allows only it ("doesn't take cards"): the
    word said, "not " before it when denied."""
    named = PAYMENT.findall(normalised(clause.text))  # as the claim words them: "cards"
    mine = {m.rstrip("s") for m in named}
    if not mine:
        return None
    denying = clause.polarity.negative
    for other, sentence in close:
        theirs = {m.rstrip("s") for m in PAYMENT.findall(normalised(other.text))}
        if not other.polarity.exclusive or other.polarity.negative or not theirs:
            continue
        if not denying and not mine & theirs:
            return sorted(mine)[0], other, sentence
        if denying and mine <= theirs and of_the_same_thing(spoken_of(clause), spoken_of(other)):
            return "not " + named[0], other, sentence
    return None


def taken(other: Clause, concept: str, clause: Clause) -> frozenset[int]:
    """The side another clause takes, as this clause would say it: "the bus costs more than a taxi" is
    "a taxi costs less than the bus"."""
    sides = other.polarity.sides[concept]
    if concept in UNORDERED or not swapped(compared(with_antecedent(clause)), compared(with_antecedent(other))):
        return sides
    return frozenset(-side for side in sides)


PRONOUN_OPENING = re.compile(r"(?:(?:and|but|so|yet|though)\s+)?(?:it|they|this|that|these|those)\b", re.IGNORECASE)


def with_antecedent(clause: Clause) -> str:
    """The clause, after the rest of its sentence before it when it opens with a pronoun ("if three share a
    taxi, | it works out cheaper than the bus": "it" is the taxi)."""
    return f"{clause.lead} {clause.text}" if PRONOUN_OPENING.match(clause.text) else clause.text


def compared(text: str) -> tuple[set[str], set[str]] | None:
    """The stems on either side of "than" in a comparison, each less those on both sides."""
    before, than, after = normalised(text).partition(" than ")
    return either_side(before, after) if than else None


def either_side(before: str, after: str) -> tuple[set[str], set[str]]:
    """The stems of the text before and after a pivot, each less those on both sides."""
    a, b = (stems_in(part) for part in (before, after))
    return a - b, b - a


def swapped(mine: tuple[set[str], set[str]] | None, theirs: tuple[set[str], set[str]] | None) -> bool:
    """Do two comparisons put the same things on opposite sides of "than"?"""
    return bool(mine and theirs and mine[0] & theirs[1] and mine[1] & theirs[0])


QUALIFIERS = {"day", "month", "clock"}
"""Kinds of value that scope a denial: "no buses run on Sundays" denies nothing about Mondays (the value
check compares the days themselves)."""


def same_occasion(negative: Clause, positive: Clause) -> bool:
    """Could a denial scoped by days, months or times ("no buses run on Sundays") be about what the
    other clause affirms? Not when that clause is silent about them or names others."""
    for kind in {v.kind for v in negative.values} & QUALIFIERS:
        theirs = [v for v in positive.values if v.kind == kind]
        if not any(touches(a, b) for a in negative.values if a.kind == kind for b in theirs):
            return False
    return True


def same_dates(claim: Said, sentence: Said) -> bool:
    """Do a claim and a guide sentence name the same days or months ("uncrowded in July and August" and "in
    July and August the crowds...")? Then a side of the guide's is compared even when worded far apart."""
    return any(a.kind == b.kind and touches(a, b) for a in claim.values if a.kind in ("day", "month") for b in sentence.values)


def same_time(claim: Said, sentence: Said, clause: Clause) -> bool:
    """Could a guide sentence be about the days, months or times a claim names (those of the clause, when it names
    some: "..., so December is not a good time" is about December)? Not when both name some of one kind and none
    meet ("busy from September" is not turned round by "quiet in July")."""
    for kind in QUALIFIERS:
        mine = [v for v in clause.values if v.kind == kind] or [v for v in claim.values if v.kind == kind]
        theirs = [v for v in sentence.values if v.kind == kind]
        if mine and theirs and not any(touches(a, b) for a in mine for b in theirs):
            return False
    return True


def touches(a: Value, b: Value) -> bool:
    """Do two values of a kind share a day, month or moment?"""
    if a.kind in ("day", "month"):
        return bool(a.readings[0] & b.readings[0])
    return a.matches(b) or b.matches(a)


def stems_of(words: list[str]) -> set[str]:
    return {stem(w) for w in words} - {None}


def stems_in(text: str) -> set[str]:
    """The stems of every word of a text."""
    return stems_of(WORD.findall(normalised(text)))


def spoken_of(clause: Clause) -> set[str]:
    """The stems of every content word a clause speaks of, denied or not."""
    return stems_of(clause.free_words + clause.denied_words)


def of_the_same_thing(mine: set[str], theirs: set[str]) -> bool:
    """Whether two clauses, by the stems they speak of (spoken_of), share two or more ("no railway station" / "the old
    railway line" share one: not the same thing)."""
    return len(mine & theirs) >= 2


RELATIVE_OPENING = re.compile(r"(?:which|who|that|where)\b", re.IGNORECASE)
"""A clause opening so speaks of what the clause before it said ("..., which is what confuses visitors"), not in its setting."""


def compared_with(clause: Clause) -> set[str]:
    """The stems a clause names only as what it compares with ("cheaper than buying two single fares" does not say to
    buy two single fares, so "a day ticket instead of two singles" does not deny it). Split as compared_cases splits it."""
    before, than, after = clause.polarity.text.partition(" than ")
    return stems_in(after) - stems_in(before) if than else set()


def denial_conflict(clause: Clause, close: list[tuple[Clause, Said]], claim: Said) -> tuple[Clause, Said] | None:
    """The close chunk clause that turns this clause's denial round, unless another close clause of the same thing agrees.

    The contested words are what the negative one of the pair denies, where the other speaks of
    them ("no operator accepts another's tickets" against "tickets are accepted on every bus"); a
    clause of the same polarity speaking of as many of them outweighs it ("no buses run on
    Sundays" beside "on Sundays it runs six times"; "the local bus covers two routes, each running
    every 30 minutes" together agree with "the local buses run every half hour")."""
    mine = clause.polarity.negative
    if clause.polarity.exclusive:
        return None
    spoken, denied = spoken_of(clause), stems_of(clause.denied_words)
    own = denied if mine else spoken - denied  # "closer to X than to a village" affirms no village
    # "Outside the pubs' hours, | you can still get a meal"; "three operators, and | they all accept each other's tickets"
    if (len(spoken) < 2 or PRONOUN_OPENING.match(clause.text)) and not RELATIVE_OPENING.match(clause.text):
        before = next((claim.clauses[:n] for n, c in enumerate(claim.clauses) if c is clause), [])
        spoken = spoken.union(*(spoken_of(c) for c in before))
    alike = [(c, spoken_of(c)) for c, _ in close if c.polarity.negative == mine]  # close clauses of this polarity
    for other, sentence in close:
        if other.polarity.negative == mine or other.polarity.exclusive:
            continue
        theirs = spoken_of(other)
        if not of_the_same_thing(spoken, theirs):
            continue
        negative, positive = (clause, other) if mine else (other, clause)
        if not same_occasion(negative, positive):  # "no buses on Sundays" against "buses run hourly on weekdays"
            continue
        contested = (own - compared_with(other)) & theirs if mine else stems_of(other.denied_words) & own
        if not contested:
            continue
        # what the clauses of this polarity speaking of the same thing, as much as the other does, deny (or say)
        as_much = [(c, said) for c, said in alike if of_the_same_thing(spoken, said) and len(spoken & said) >= len(spoken & theirs)]
        agreeing = set().union(*(stems_of(c.denied_words) if mine else said for c, said in as_much))
        if len(contested & agreeing) < len(contested):
            return other, sentence
    return None


def mentions(chunk: Chunk, name: str) -> bool:
    """Does the chunk (title included) use this name ("Kestrelford's" counts for "Kestrelford")?"""
    root = re.escape(re.sub(r"'s?$", "", name.replace("’", "'").lower()))
    return re.search(rf"\b{root}", chunk.text.replace("’", "'").lower()) is not None


KIND_NAMES = {
    "clock": "a time", "price": "a price", "duration": "a duration", "distance": "a distance", "day": "days",
    "month": "months", "year": "a date", "count": "a number", "ordinal": "a position", "ratio": "a proportion",
}  # fmt: skip


def join(places) -> str:
    return " and ".join(sorted(places))


def names_in(sentence: str, names: frozenset[str]) -> list[str]:
    """Capitalised words; the first word only when it is a known name (every sentence starts with a capital)."""
    first, rest = capitalised_words(sentence)
    return ([first] if first in names else []) + rest


# ---------------------------------------------------------------- the whole answer


def holders(shown: list[Chunk], guides: Guides) -> dict[str, list[Chunk]]:
    """Per guide file, the shown chunks it holds: its own, or another guide's copy of a shared text."""
    holder: dict[str, list[Chunk]] = {}
    for chunk in shown:
        for copy in guides.copies(chunk):
            if copy not in holder.setdefault(copy.file, []):
                holder[copy.file].append(copy)
    return holder


def gives_disputed(judgement: Judgement, chunks: list[Chunk], guides: Guides, embedder: Embedder) -> bool:
    """Do the chunks give the claim's value that the shown evidence disputes? "three of the four villages" is a fact
    of the circuit's section of the cited guide; the valley's opening, shown, counts four villages."""
    if judgement.disputed is None or not chunks:
        return False
    read_already = read_chunks(chunks, guides, embedder)
    return any(judgement.disputed.matches(v) for c in chunks for s in read_already[c] for v in s.values)


def chunks_of(files: list[str], guides: Guides) -> list[Chunk]:
    """Every chunk of the guides named (none when the index's chunks were not given to the check)."""
    return [chunk for file in files for chunk in guides.of_file.get(file, [])]


def only_silent(judgement: Judgement) -> bool:
    """Is the evidence merely silent on the claim (no such sentence, a name or detail it lacks), not against it (a
    different value, the opposite polarity, another town)? Only then may the rest of the cited guide hold it."""
    kind, reason, _ = judgement.problem
    return kind in ("unrelated", "name", "added", "inference") or reason.endswith("the guide does not")


def held_by_cited(said: Said, plain: str, cited: list[str], guides: Guides, embedder: Embedder, settings: ClaimSettings) -> Judgement | None:
    """The first chunk of the cited guides that, alone, supports the claim: a model may state a fact of the guide it
    cites that it was not shown. One chunk at a time, as a whole guide pooled matches stray values ("7pm" of a bus)."""
    whole = chunks_of(cited, guides)
    if not whole:  # the index's chunks were not given: only the shown ones can be read
        return None
    read_already = read_chunks(whole, guides, embedder)
    pooled = judge(said, plain, whole, guides, embedder, settings)
    if pooled.problem is not None and not only_silent(pooled):
        return None
    for chunk in [c for c in whole if max(said.vector @ s.vector for s in read_already[c]) >= settings.related]:
        judgement = judge(said, plain, [chunk], guides, embedder, settings)
        if judgement.problem is None:
            return judgement
    return None


def read_evidence(
    hits: list[Hit], embedder: Embedder, chunks: list[Chunk] | None = None
) -> tuple[Guides, list[Chunk], dict[str, list[Chunk]]]:
    """Read the chunks an answer is checked against, in one batch (the Ollama answerer calls it while the model
    writes, so the check itself reads only the answer's sentences): the shown chunks and the rest of the guides
    holding them, which a claim citing one of those guides may be held by. Returns the guides, the shown chunks,
    and per guide file the shown chunks it holds (holders)."""
    guides = guides_of(tuple(chunks if chunks is not None else [h.chunk for h in hits]))
    shown = list({hit.chunk.chunk_id: hit.chunk for hit in hits}.values())
    holder = holders(shown, guides)
    read_chunks([copy for pool in holder.values() for copy in pool] + chunks_of(list(holder), guides), guides, embedder)
    return guides, shown, holder


def check_claims(
    answer_text: str,
    hits: list[Hit],
    embedder: Embedder,
    chunks: list[Chunk] | None = None,
    settings: ClaimSettings = DEFAULT_SETTINGS,
) -> ClaimCheck:
    """Which sentences the prompt's chunks support (and why not), which citations are real, what to quote as sources.

    `hits` are the chunks the model was shown; `chunks` every chunk of the index (for the towns and the
    guides holding a shown text word for word), default the shown ones."""
    if is_refusal(answer_text):
        return ClaimCheck(refused=True)
    guides, shown, holder = read_evidence(hits, embedder, chunks)
    invented = [f for f in cited_files(answer_text) if f not in holder]
    claims = answer_sentences(answer_text)
    if not claims:
        text = answer_text.strip()
        return ClaimCheck(False, [Flag(text, "unrelated", "no sentence to check")] if text else [], invented)
    plains = [without_citations(c) for c in claims]
    read_claims = read(plains, [claim_places(guides.towns, p) for p in plains], embedder, guides.towns)

    check = ClaimCheck(False, invented_citations=invented)
    shown_towns = {guides.town_of_file[c.file] for c in shown if c.file in guides.town_of_file}
    shown_town = frozenset(shown_towns) if len(shown_towns) == 1 else frozenset()  # "the town sits on three levels": the one shown
    for claim, plain, said in zip(claims, plains, read_claims):
        named = cited_files(claim)
        cited = [f for f in named if f in holder]
        town_cited = cited or named
        if not said.places and len(town_cited) == 1 and town_cited[0] in guides.town_of_file:  # "The pubs serve food..." [guide_kestrelford.md]
            said.places = frozenset({guides.town_of_file[town_cited[0]]})
        elif not said.places:  # "Buses run to Kestrelford hourly" [guide_regional_transport.md]: about Kestrelford's buses
            said.places = claim_places(guides.towns, plain, journeys=True) or shown_town
        whole = None  # the cited guide's own judgement, read only when needed and then once
        if named and not cited:
            whole = held_by_cited(said, plain, named, guides, embedder, settings) if shown else None
            if whole is None:
                check.flags.append(Flag(claim, "citation", f"cites {', '.join(named)}, which the model was not shown"))
                continue
        pools = [holder[f] for f in cited or dict.fromkeys(chunk.file for chunk in shown)]
        judgements = [judge(said, plain, pool, guides, embedder, settings) for pool in pools]
        passing = [v for v in judgements if v.problem is None]
        if passing:
            judgement = max(passing, key=lambda v: v.support)
            document = "\n\n".join(c.text.strip() for c in pools[judgements.index(judgement)])
            check.supported.append(Support(claim, plain, citation_of(judgement.source), document))
            continue
        judgement = max(judgements, key=lambda v: v.support)
        silent = only_silent(judgement)
        if settings.unshown_chunks and named and (silent or gives_disputed(judgement, chunks_of(named, guides), guides, embedder)):
            whole = whole or held_by_cited(said, plain, named, guides, embedder, settings)
            if whole is not None and (silent or gives_disputed(judgement, [whole.source.chunk], guides, embedder)):
                chunk = whole.source.chunk
                citation = citation_of(whole.source, shown=chunk in holder.get(chunk.file, []))
                check.supported.append(Support(claim, plain, citation, chunk.text.strip()))
                continue
        kind, reason, source = judgement.problem
        check.flags.append(Flag(claim, kind, reason, citation_of(source)))
    return check


def citation_of(source: Said, shown: bool = True) -> Citation:
    """The citation of an evidence sentence: its chunk's place, and the sentence as the quote."""
    chunk = source.chunk
    return Citation(chunk.file, chunk.section, chunk.chunk_id, source.text, shown=shown)
