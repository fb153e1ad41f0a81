"""Which retrieved sentences answer a question, and whether any does: the extractive answerer.

It quotes, never writes: the answer is one or a few sentences of the retrieved chunks
(chunking.sentences, so verbatim modulo whitespace), chosen by
  - what the question is about: its content words once question words, filler and place
    names are set aside, each covered by the same stem or root, by a close word vector,
    or (for "cost", "evening"...) by a sentence giving that kind of value;
  - what it asks for: "when" wants a time, day, month or year, "how much" a price...;
  - where: a question naming a town is answered from that town's guide, or from a
    region-wide sentence naming it;
  - similarity of question and sentence, town names masked in both.
`why_unanswerable` is the answerability check every generator goes through: the gate
alone lets near misses through ("Is there a cinema in Kestrelford?" sits close because
the town matches), and a false premise ("the bakery in Marchwood") must not be answered
with another town's fact.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from guide_tui.analysis import WORD
from guide_tui.answerability import Verdict, shipped_model
from guide_tui.asked import (
    AMOUNT_WORDS,
    ASKED_TO_NAME,
    DAY_AND_MONTH_NAMES,
    DENIAL,
    FOUND,
    FREE_OF_CHARGE,
    KIND_NAMES,
    KINDS_OF_WORD,
    MONTH_WORDS,
    SECTION_CUES,
    SECTION_GIVES,
    SOFT_KINDS,
    THE_SEASONS,
    asked_kinds,
    asks_for_a_list,
    asks_to_make_something,
    names_the_date,
    question_parts,
    sections_asked,
    sentences_of,
)
from guide_tui.chunking import paragraphs
from guide_tui.claim_polarity import polarity, stance
from guide_tui.embedding import english_words
from guide_tui.implied_place import SETTING_OUT
from guide_tui.number_words import TENS, UNITS
from guide_tui.retrieval import Hit, Retrieval, Retriever, query_analyzer

# ---------------------------------------------------------------- what the question asks for

# Words that shape a question rather than say what it is about: closed-class English (with the
# pieces contractions leave: "don't" -> "don", "t"), question words, and travel-question filler
# (moving, looking, judging, vague amounts and parts). Tantivy's stop words are dropped too.
QUESTION_WORDS = frozenset(
    """
    a about above across after again against ahead all along also am among an and another any anyone anything
    anywhere apart are aren around as aside at away back be been before behind being below beside besides between beyond both but by
    can cannot could couldn d did didn do does doesn doing don done down during each either else even ever every
    except few for from further get gets getting go goes going gone got had has hasn have haven having he her here
    him his how i if in inside into is isn it its itself just least less like ll m may me might more most much must
    my near need needs neither no nor not of off on once one ones only onto or other our out outside over own past
    please re really round s same shall she should since so some someone something somewhere still such t than that
    the their them then there these they this those though through till to too toward towards under until up upon
    us ve very via want wants was wasn we were weren what when where whether which while who whom whose why will
    with within without won would wouldn you your whatever whenever wherever whichever whoever however
    many long far often time times
    arrive arriving reach head heading come coming leave leaving visit visiting visitor visitors stay staying spend
    see seeing look looking looks watch find use using try make take taking catch catching bring like know tell say think plan
    planning recommend manage expect able worth worthwhile best good better great nice proper decent right well
    actually generally usually normally typically sometimes pretty quite especially exactly roughly main little
    lot lots bit kind sort part start end side way thing things place places area areas region town towns trip
    journey ride everyone everybody anybody everywhere people person different involved
    alternative alternatives option options choice choices instead trick tricks hack hacks
    """.split()
)

# ---------------------------------------------------------------- the index's sentences, analysed once

CAPITALISED = re.compile(r"[A-Z][a-z]+")
NOT_PLACES = DAY_AND_MONTH_NAMES | {"I", "Easter", "Victorian", "Saxon"}
ROOT_LETTERS = 4  # shorter starts and ends ("bus", "ing") are not a shared root
SIMILAR_WORD = 0.6  # word-vector cosine at which two words count as the same subject ("bike" ~ "cycling")
KIND_COVERS = SIMILAR_WORD  # "evening" is covered by "6 to 8:30", but less surely than by "evening" itself
SINGULAR = re.compile(r"(?:(?<=[sxz])|(?<=[cs]h))es\b|(?<![su])s\b")
"""A plural's ending: "buses" -> "bus", "beaches" -> "beach", "walks" -> "walk" ("pass", "bus" keep theirs)."""
HEADING_COVERS = SIMILAR_WORD  # "bus" is covered by a sentence under "Buses" that says "operators", less surely than by "bus"


@dataclass
class Sentence:
    text: str
    chunk: int  # ordinal in the index's chunks (-1 for everything said about a place)
    words: list[str]  # lowercased content words (stop words dropped), each once
    stems: set[str]
    vectors: np.ndarray  # the words' vectors, one row each
    towns: set[str]  # the towns it names or, in a region-wide guide, its paragraph named before it
    guide_town: str | None  # the town its guide is about (None: a region-wide guide)
    shared: bool  # its chunk is repeated word for word in other guides ("Practical notes")
    word_set: frozenset[str]
    affixes: frozenset[str]  # every start and end of ROOT_LETTERS+ letters of its words, for same_root
    kinds: frozenset[str] | None = None  # the kinds of value (asked.FOUND) its text holds, when known without the text

    def holds(self, kind: str) -> bool:
        """Its text holds a value of this kind (asked.FOUND)."""
        return kind in self.kinds if self.kinds is not None else FOUND[kind].search(self.text) is not None


def affixes(word: str) -> set[str]:
    """The word's starts and ends of ROOT_LETTERS letters or more ("walkers": walk, walke, ..., kers, ers...)."""
    return {word[:n] for n in range(ROOT_LETTERS, len(word) + 1)} | {word[-n:] for n in range(ROOT_LETTERS, len(word) + 1)}


class Analysed:
    """Every sentence of an index with its stems, word vectors and town names: stored by the build
    (analysis.SentenceAnalysis), each Sentence made at its first use.

    Its sentences are the index's units (chunking.sentences of each chunk, in order), so quotes
    are verbatim modulo whitespace.
    """

    def __init__(self, retriever: Retriever) -> None:
        """Reads what the build stored per chunk and per word, never every sentence."""
        index = retriever.index
        stored = index.analysis
        self.stored = stored
        self.units = index.units
        self.chunks = index.chunks
        self.embedder = index.embedder
        self.analyzer = query_analyzer(drop_stopwords=True)  # the index's stemming, stop words dropped
        self.towns = retriever.towns  # TownNames: holds no reference to the index
        self.town_words = {word for town in self.towns.names for word in town.split()}
        self.stem_cache: dict[str, str | None] = dict(stored.stem_of)  # a copy: stem() adds the question's words
        self.chunk_town = np.asarray(stored.chunk_town)  # ids into stored.towns, -1: a region-wide guide
        copies = np.bincount(retriever.same_as, minlength=len(retriever.same_as))  # chunks per distinct body
        self.chunk_shared = copies[retriever.same_as] > 1
        self.places: dict[frozenset[str], Sentence] = {}
        self.headings: dict[int, frozenset[str]] = {}
        self.inherited_towns: dict[int, dict[int, set[str]]] = {}
        """Per region-wide chunk, paragraph_towns: its paragraphs split once, not once per sentence."""
        self.known_words = stored.known
        """Every word the guides use, titles and headings too: a name outside them is a place they never cover."""
        self.word_vector = dict(zip(stored.vocabulary, np.asarray(stored.word_vectors)))
        self.unit_chunk = retriever.unit_chunk
        self.rows_of = stored.rows_of
        """The rows of self.sentences of a chunk."""
        self.sentences = Sentences(self)
        self.chunk_frequency = stored.chunk_frequency
        self.sentence_vectors = stored.sentence_vectors  # with their section heading and town names masked,
        # so similarity measures what a sentence is about, not where

    def stored_sentence(self, row: int) -> Sentence:
        """Sentence `row` of the index, from the stored analysis."""
        chunk = int(self.unit_chunk[row])
        towns = self.stored.sentence_towns(row)
        if not towns and self.chunk_town[chunk] < 0:
            if chunk not in self.inherited_towns:
                self.inherited_towns[chunk] = self.paragraph_towns(chunk)
            towns = self.inherited_towns[chunk].get(row, set())
        return self.sentence(self.units[row].text, chunk, self.stored.words(row), towns)

    def paragraph_towns(self, chunk: int) -> dict[int, set[str]]:
        """For a region-wide chunk's rows that name no town: the towns the nearest earlier sentence of
        the same paragraph names ("**Givens Mill** is one flat street ... the tearoom and riverside are")."""
        text = self.chunks[chunk].text
        opening, _, body = text.partition(f"\n## {self.chunks[chunk].section}\n")
        sizes = [len(p) for part in (opening, body) for p in paragraphs(part)]
        rows = self.rows_of(chunk)
        if sum(sizes) != len(rows):  # not the chunking the index was built with: inherit nothing
            return {}
        found, at = {}, rows.start
        for size in sizes:
            named: set[str] = set()
            for row in range(at, at + size):
                named = self.stored.sentence_towns(row) or named
                found[row] = named
            at += size
        return found

    def rows_about(self, towns: set[str]) -> np.ndarray:
        """The rows of the sentences the place rule (about) allows for these towns (none for no town), in order."""
        wanted = np.array([town in towns for town in self.stored.towns] + [False], dtype=bool)  # [-1]: region-wide
        in_guide = wanted[self.chunk_town][self.unit_chunk]
        naming_rows = np.repeat(np.arange(len(self.units)), np.diff(self.stored.town_offsets))[wanted[self.stored.town_ids]]
        naming = np.zeros(len(self.units), dtype=bool)
        naming[naming_rows] = True
        region_wide = (self.chunk_town < 0)[self.unit_chunk]
        return np.flatnonzero(in_guide | (region_wide & naming))

    def heading_stems(self, chunk: int) -> frozenset[str]:
        """The stems of the chunk's section heading, its frame words left out ("Getting around": get, around)."""
        if chunk not in self.headings:
            section = self.chunks[chunk].section
            singular = SINGULAR.sub("", section.lower())  # "Buses": the stemmer keeps "buse"
            self.headings[chunk] = frozenset(stem_run(section, self, HEADING_FRAME) + stem_run(singular, self, HEADING_FRAME))
        return self.headings[chunk]

    def stem(self, word: str) -> str | None:
        """The word as the keyword index stems it; None for a stop word."""
        if word not in self.stem_cache:
            stems = self.analyzer.analyze(word)
            self.stem_cache[word] = stems[0] if stems else None
        return self.stem_cache[word]

    def place_evidence(self, towns: set[str]) -> Sentence:
        """Everything the guides say about the towns (their guides, and region-wide sentences naming
        them) or, for no town, about the region: as one pseudo-sentence for coverage()."""
        key = frozenset(towns)
        if key in self.places:
            return self.places[key]
        if not towns:  # every sentence: the whole vocabulary in the order of first use, the kinds the build found
            words = [self.stored.vocabulary[i] for i in self.stored.first_use]
            named = {self.stored.towns[i] for i in np.unique(self.stored.town_ids)}
            self.places[key] = self.sentence("", -1, words, named, frozenset(self.stored.region_kinds))
            return self.places[key]
        rows = self.rows_about(towns)
        chosen = np.zeros(len(self.units), dtype=bool)
        chosen[rows] = True
        ids = self.stored.word_ids[np.repeat(chosen, np.diff(self.stored.word_offsets))]
        _, first = np.unique(ids, return_index=True)
        words = [self.stored.vocabulary[i] for i in ids[np.sort(first)]]
        town_ids = np.unique(self.stored.town_ids[np.repeat(chosen, np.diff(self.stored.town_offsets))])
        named = {self.stored.towns[i] for i in town_ids}
        self.places[key] = self.sentence(" ".join(self.units[r].text for r in rows), -1, words, named)
        return self.places[key]

    def sentence(self, text: str, chunk: int, words: list[str], towns: set[str], kinds: frozenset[str] | None = None) -> Sentence:
        vectors = np.array([self.word_vector[w] for w in words]).reshape(len(words), self.embedder.dims)
        return Sentence(
            text,
            chunk,
            words,
            {self.stem(w) for w in words},
            vectors,
            towns,
            self.guide_town(chunk),
            chunk >= 0 and self.chunk_shared[chunk],
            frozenset(words),
            frozenset(a for w in words for a in affixes(w)),
            kinds,
        )

    def guide_town(self, chunk: int) -> str | None:
        """The town a chunk's guide is about; None for a region-wide guide."""
        town = int(self.chunk_town[chunk]) if chunk >= 0 else -1
        return self.stored.towns[town] if town >= 0 else None

    def about(self, towns: set[str], sentence: Sentence) -> bool:
        """The place rule: for a question naming towns, a sentence of their guides or a region-wide
        sentence naming one of them (never another town's guide); anything for no town."""
        if not towns:
            return True
        town = sentence.guide_town
        return town in towns if town else bool(sentence.towns & towns)

    def rarity(self, word: str) -> float:
        """Inverse chunk frequency of the word's stem (words the guides never use count most)."""
        count = self.chunk_frequency.get(self.stem(word) or "", 0)
        return float(np.log((self.stored.chunk_count + 1) / (count + 1)) + 1)


class Sentences:
    """Analysed.sentences: each Sentence made from the stored analysis at its first use, then kept."""

    def __init__(self, facts: Analysed) -> None:
        self.facts = facts
        self.made: dict[int, Sentence] = {}

    def __len__(self) -> int:
        return len(self.facts.units)

    def __getitem__(self, row: int) -> Sentence:
        if row not in self.made:
            self.made[row] = self.facts.stored_sentence(row)
        return self.made[row]


_ANALYSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # LoadedIndex -> Analysed, dropped with the index


def analysed(retriever: Retriever) -> Analysed:
    """The analysed sentences of the retriever's index (cached while the index lives)."""
    if retriever.index not in _ANALYSED:
        _ANALYSED[retriever.index] = Analysed(retriever)
    return _ANALYSED[retriever.index]


# ---------------------------------------------------------------- choosing the sentences that answer

FILLER_IN_NAMES = frozenset("best good proper main little".split())  # "the best base": still inside the name
EXISTENCE = re.compile(
    r"\b(?:is|are) there\b|\bis it possible to (?:hire|rent|buy|get)\b|\b(?:can|could) (?:i|we|you|one) (?:hire|rent|buy|get)\b"
    r"|\bwhere (?:can|could|do) (?:i|we|you|one) (?:hire|rent|buy|get)\b|\bdo(?:es)? (?!(?:i|we|you)\b)(?:\w+ ){1,5}(?:have|do|serve|sell|offer)\b(?! to)"
    r"|\b(?:are|is) (?!it\b)(?:\w+ ){1,3}(?:allowed|permitted|welcome)\b|\b(?:can|could|may) (?:i|we|you) (?:bring|take) (?:my|our|a)\b"
    r"|\b(?:can|could) (?:i|we|you|one) go (?:\w+ ){0,2}?\w+ing\b",
    re.IGNORECASE,
)
WHERE_QUESTION = re.compile(r"\s*where\b", re.IGNORECASE)  # "where can I hire a bike?": whether one can, and where
YES_NO = re.compile(r"^(?:is|are|does|do|did|can|could|will|would|should|has|have|was|were)\b", re.IGNORECASE)
SOFT_KIND_SHARE = 0.5
YES_NO_UNKNOWN = 1 / 3  # share of a yes/no question's subject unknown to the place at which it is refused
PARAPHRASE = 0.56  # question/sentence cosine (town names masked) at which a sentence restates the question
RESTATED = 0.7  # teacher cosine at which the best sentence restates an "is there" question: its odd word is a paraphrase


@dataclass(frozen=True)
class Subject:
    """What the question is about and what it wants back."""

    words: list[str]  # content words, question words and place names set aside
    weights: np.ndarray  # per word: how rare it is in the guides (a rare word says more about the subject)
    kinds: list[tuple[str, ...]]
    towns: set[str]
    yes_no: bool  # "Is there a cinema...?": only the subject itself can answer it
    asks_existence: bool  # "is there", "are there any", "can I hire/buy/rent/get", "can we go X-ing": whether a thing exists there
    named: set[str]  # words of the things the question names after an article ("a cinema", "the entry fee")
    vector: np.ndarray  # the question's sentence vector, town names masked
    word_vectors: np.ndarray
    follows: bool = False  # a later part of a question ("..., and how long is the ride?"): its words lean on the part before
    qualifiers: frozenset[str] = frozenset()  # words of a name that qualify its last ("train" in "a train station")
    alternatives: tuple[frozenset[str], ...] = ()  # the words of each side of an "or" ("are there hotels | or is it all self-catering?")
    setting: frozenset[str] = frozenset()  # words only of a statement before the question ("I'm a keen twitcher. Best months...?")
    headed: frozenset[str] = frozenset()  # words a retrieved section's heading answers ("sights": "What to see")
    determined: set[str] = field(default_factory=set)  # named things, with a town as their article too ("Kestrelford railway station")
    priced: frozenset[str] = frozenset()  # words of a name ending in a price ("an entry charge")
    doing: frozenset[str] = frozenset()  # "-ing" words taking an object ("buying a ticket"): what one does, not a thing there
    spelled: dict[str, str] = field(default_factory=dict)  # a word cut at a letter WORD does not keep, to the word as asked ("cr": "crêperie")

    def listed(self, words: list[str]) -> str:
        """The words for a refusal's reason, as the question spelt them ("crêperie", not "cr, perie")."""
        return ", ".join(dict.fromkeys(self.spelled.get(word, word) for word in words))

    def share(self, coverage: np.ndarray) -> float:
        """Rarity-weighted share of the subject words covered (1 when there are none)."""
        return self.weight_of(coverage >= SIMILAR_WORD)

    def weight_of(self, words: np.ndarray) -> float:
        """Rarity-weighted share of the subject words marked True (1 when there are none)."""
        return float(self.weights @ words / self.weights.sum()) if self.words else 1.0

    @property
    def known_anyway(self) -> np.ndarray:
        """Per word: whether only a statement before the question uses it, or a retrieved section's heading answers it
        (counted as known to the guides, whatever their sentences say)."""
        return np.array([w in self.setting or w in self.headed for w in self.words], dtype=bool)

    @property
    def hard_kinds(self) -> list[tuple[str, ...]]:
        """The asked-for kind groups an answer must give: all but those of SOFT_KINDS only ("where", "why")."""
        return [group for group in self.kinds if not SOFT_KINDS.issuperset(group)]


@dataclass(frozen=True)
class Candidate:
    hit: Hit
    sentence: Sentence
    row: int  # in Analysed.sentences
    allowed: bool  # by the place rule
    share: float  # Subject.share of its coverage(): rarity-weighted share of the subject words it covers
    kinds_found: float  # share of the asked-for kind groups the sentence gives
    similarity: float  # cosine of the question and sentence vectors, town names masked in both
    score: float
    teacher: float = 0.0  # the teacher model's cosine of question and sentence (0 without the teacher)


AMPERSAND_ABBREVIATION = re.compile(r"\b[a-z]\s?&\s?[a-z]['’]?s?\b", re.IGNORECASE)
""""B&B", "B&Bs": letters the keyword index cannot read as a word (it cuts "b&bs" into "b" and "bs"); the question's
other words (and asked.SECTION_CUES, which reads a B&B as somewhere to stay) say what it asks."""

NOTABLE = re.compile(
    r"(?:(?<=\banything )|(?<=\bsomething ))(?:[a-z]+ly )?(?:special|interesting|notable|remarkable|unusual|unique|noteworthy|of note)(?= about\b)",
    re.IGNORECASE,
)
"""The frame of "anything (historically) special about the church?": it asks what the guides say of the church."""


def subject_of(question: str, facts: Analysed, towns_asked: set[str] | None = None, follows: bool = False) -> Subject:
    """towns_asked: the whole question's towns, for a part that names none ("..., and can I stay there?"), or
    that points back to them with "there" ("..., and how long is the drive there from Brightwater?")."""
    spans = facts.towns.spans(question)  # read once: the towns named, the question without them, and with them as articles
    towns = {town for _, _, town in spans} or set(towns_asked or ())
    if follows and towns_asked and THERE_BEFORE.search(question):
        towns |= set(towns_asked)
    kinds = asked_kinds(question)
    asked = {kind for group in kinds for kind in group}
    without_towns = facts.towns.masked(question, spans)
    verb = passive_verb(without_towns)
    words = []
    lowered = NOTABLE.sub(" ", AMPERSAND_ABBREVIATION.sub(" ", ASKED_TO_NAME.sub(" ", without_towns.lower())))  # "Name the sights": the frame
    for word in WORD.findall(lowered):
        if word.isdigit() or word in QUESTION_WORDS or word == verb or not facts.stem(word):
            continue
        if asked.intersection(KINDS_OF_WORD.get(word, ())):  # "months" in "what months...": the frame, not the subject
            continue
        if word not in words:
            words.append(word)
    vectors = facts.embedder.encode([without_towns] + words)
    weights = np.array([facts.rarity(word) for word in words])
    last_sentence = sentences_of(question)[-1]
    named = named_things(without_towns)
    # whether a thing exists is asked by a yes/no question ("is there a cinema?") or "where can I hire";
    # "what options are there" asks for a list, "until what time can I get dinner" for a time
    yes_no = bool(YES_NO.match(last_sentence))
    exists = bool(EXISTENCE.search(question)) and (yes_no or bool(WHERE_QUESTION.match(last_sentence)))
    sides = tuple(frozenset(WORD.findall(side.lower())) & set(words) for side in re.split(r"\bor\b", without_towns))
    return Subject(
        words, weights, kinds, towns, yes_no, exists, named, vectors[0], vectors[1:], follows, qualifiers(without_towns), sides,
        setting_words(without_towns, words), determined=named_things(facts.towns.masked(question, spans, by=" the ")),
        priced=prices_named(without_towns), doing=frozenset(m.lower() for m in DOING.findall(without_towns)),
        spelled=spelled_as_asked(without_towns),
    )


def spelled_as_asked(question: str) -> dict[str, str]:
    """The pieces WORD cuts a word with other letters into ("café": "caf"), each to the whole word as asked."""
    return {piece: word for word in re.findall(r"\w+", question.lower()) for piece in WORD.findall(word) if piece != word}


def setting_words(question: str, words: list[str]) -> frozenset[str]:
    """The words only a statement before the question uses: what the traveller says of themselves ("I'm a keen
    twitcher.") sets the scene; whether the guides know those words says nothing of whether they answer."""
    sentences = sentences_of(question)
    asked = [sentence for sentence in sentences if sentence.endswith("?")]
    if not asked or len(asked) == len(sentences):
        return frozenset()
    in_questions = set(WORD.findall(" ".join(asked).lower()))
    said = set(WORD.findall(" ".join(sentence for sentence in sentences if not sentence.endswith("?")).lower()))
    return frozenset(word for word in words if word in said and word not in in_questions)


POINTS_BACK = re.compile(r"\b(?:they|them|their|it|its)\b", re.IGNORECASE)
"""A later part that asks after the thing the part before asked about ("..., and which party are they from?")."""

THERE_BEFORE = re.compile(r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )\bthere\b(?!\s+(?:is|are|was|were|any)\b)", re.IGNORECASE)
"""A "there" that points back to a place named before it ("get there", "the drive there"), not "is there"."""


ARTICLES = frozenset("a an the any some my your its their this that these those one another which".split())
"""Words before what a question names: "which travel insurance" names the insurance, as "the" would."""
DOING = re.compile(
    r"\b([a-z]+ing)\s+(?!(?:in|at|on|for|to|with|around|round|near|from|by|about|along|up|down|off|out|over|there|here|or|and)\b)[a-z]",
    re.IGNORECASE,
)
"""An "-ing" word followed by its object ("buying a ticket", "spotting puffins"), not by a place ("swimming in Thornby Wells?"):
what the traveller does, whose object is the thing asked after; "swimming" alone is the thing."""
IRREGULAR_PARTICIPLES = frozenset("held sold bought built kept run found made seen shown given taken done put set paid".split())
PASSIVE_END = re.compile(r"\b(?:is|are|was|were|be|been|being|get|gets|got)\b[^?.!,;]*?\b([a-z]+)\W*$", re.IGNORECASE)


def passive_verb(question: str) -> str | None:
    """The verb a passive wh-question ends on ("when is the market held?", "where is the museum located?"): it says
    what happens to the subject, and the guides state the fact without it ("a market fills the square on Tuesdays")."""
    if YES_NO.match(question.strip()):  # "is the pier closed?": there the participle is what is asked
        return None
    match = PASSIVE_END.search(question)
    word = match.group(1).lower() if match else ""
    return word if word in IRREGULAR_PARTICIPLES or (word.endswith("ed") and len(word) > 4) else None


def article_runs(question: str) -> list[list[str]]:
    """The runs of words that follow an article up to the next small word: "the entry fee for the fishing
    museum" -> [entry, fee], [fishing, museum]."""
    runs: list[list[str]] = []
    run: list[str] | None = None  # the run being read
    for word in WORD.findall(question.lower()):
        if word in ARTICLES:
            run = []
            runs.append(run)
        elif word in QUESTION_WORDS and word not in FILLER_IN_NAMES:
            run = None
        elif run is not None:
            run.append(word)
    return runs


PRICES = frozenset(AMOUNT_WORDS.split())


def qualifiers(question: str) -> frozenset[str]:
    """The words of a name after an article but its last: "train" in "a train station", "entry" in "the entry
    fee". Whether the thing exists is asked of the last word, not of these."""
    return frozenset(word for run in article_runs(question) for word in run[:-1])


def prices_named(question: str) -> frozenset[str]:
    """The words of a name that ends in a price ("an entry charge", "the parking fee"): it asks how much something
    costs, which a price or "free" answers, not whether a thing exists."""
    return frozenset(word for run in article_runs(question) if run and run[-1] in PRICES for word in run)


FRIENDLY_TO = re.compile(r"\b([a-z]+)[- ]friendly\b")
"""What a place must welcome is a thing the question names: "dog" in "dog-friendly hotels", "is the inn dog friendly?"."""


def named_things(question: str) -> set[str]:
    """Names, and words in the runs that follow an article up to the next small word: "the entry
    fee for the fishing museum" -> entry, fee, fishing, museum; "Tesla's share price" -> tesla; "dog" of "dog-friendly".
    These name what the question is about, where a verb or adjective ("looks grim", "goes dead")
    only says something about it."""
    named = {word.lower() for word in CAPITALISED.findall(question)[1:] if word != "I"}
    return named.union(*article_runs(question), FRIENDLY_TO.findall(question.lower()))


def place_match(subject: Subject, sentence: Sentence) -> float:
    """Share of the question's towns the sentence is about (by naming them or by its guide);
    for a question naming no town, REGION_SHARE for a region-wide guide ("which town is easiest...")."""
    town = sentence.guide_town
    if not subject.towns:
        return 0.0 if town else REGION_SHARE
    return len((sentence.towns | {town}) & subject.towns) / len(subject.towns)


STREET = re.compile(r"\b[A-Z][a-z]+ (?:Lane|Street|Road|Terrace|Square|Row|Quay|Way|Avenue|Parade|Place)\b")
NOT_COUNTS = ("amount", "clock", "year")  # kinds of value whose numbers count nothing: "£2", "11am", "13th-century"
STREET_WORDS = frozenset("street streets road roads lane lanes terrace square avenue address".split())


TOWN_NOUNS = frozenset("town towns village villages city place places resort resorts".split())
"""Words for what a town is: "what is the village with the watermill called?" asks for a town's name."""


def names_places(text: str, subject: Subject, facts: Analysed, towns_count: bool = True) -> bool:
    """A place name the question did not give: a town (unless not `towns_count`), or a capitalised word
    after the first (not a month or day), e.g. "Verrill Street", "Marchwood is where..."; not a word of the
    question ("the restaurants on Pump Street" names no restaurant)."""
    plain = text.replace("*", "")
    names = CAPITALISED.findall(plain)
    first = plain.split(" ", 1)[0].strip("\"'(),;:—–-")  # "Seafood," opens a sentence as "Seafood" does
    return any(
        (name != first or name in facts.town_words) and name not in NOT_PLACES and not any(name in t for t in subject.towns)
        and name.lower() not in subject.words
        and (towns_count or name not in facts.town_words)
        for name in names
    )


NOT_THE_THING = frozenset(KINDS_OF_WORD) | {"free"} | frozenset(UNITS) | frozenset(TENS)
"""Words a sentence may share with the question without being about the thing asked: kinds of value, "free" ("is the
land train free?" is not answered by "the free lot behind the station") and numbers ("for a family of four" is not
about "a four-minute walk")."""


SENTENCE_HALVES = re.compile(r";|\s[\u2013\u2014]\s|\s-\s")
"""Where a sentence turns to another thing: "Seafront parking is metered and expensive; the free lot ..."."""
NAMES_THE_THING = 2  # question words a half of a sentence must share to be what the question asks the amount of


def amount_of_another_thing(subject: Subject, sentence: Sentence, facts: Analysed) -> bool:
    """The sentence's amount is of another thing than the one asked: the question names its thing by two words or
    more of a half that gives no amount, and no word of a half that gives one ("the hourly rate for seafront parking":
    "Seafront parking is metered and expensive; the free lot behind the station ..."; "how much is parking?" names
    too little to tell, and the free lot answers it)."""
    asked = {facts.stem(word) for word in subject.words if word not in NOT_THE_THING} - {None}
    priced, unpriced = set(), set()
    for half in SENTENCE_HALVES.split(sentence.text):
        shared = asked & {facts.stem(word) for word in WORD.findall(half.lower())}
        (priced if FOUND["amount"].search(half) else unpriced).add(len(shared))
    return bool(priced) and max(priced) == 0 and max(unpriced, default=0) >= NAMES_THE_THING


def gives(kind: str, sentence: Sentence, subject: Subject, facts: Analysed) -> bool:
    """The sentence gives this kind of answer; a place may also be the town its guide is about, which
    the answer's lead names ("Halden Bay's guide says: ...stepped lanes... hard work with a pushchair")."""
    if kind == "name":  # a street named near the thing is not its name ("the hotels ... on Corry Lane"), unless asked
        if not shares_a_word(subject, sentence, facts, leaving_out=KINDS_OF_WORD):
            return False
        text = sentence.text if STREET_WORDS.intersection(subject.words) else STREET.sub("", sentence.text)
        # a thing in a town is not called after another, and a town is the name asked for only when a town is asked for
        return names_places(text, subject, facts, towns_count=not subject.towns and bool(TOWN_NOUNS.intersection(subject.words)))
    if kind == "number":  # how many: a number left once prices, times and years are set aside
        if not sentence.holds(kind):
            return False
        rest = sentence.text
        for other in NOT_COUNTS:
            rest = FOUND[other].sub(" ", rest)
        return FOUND[kind].search(rest) is not None
    if kind == "amount" and sentence.holds(kind):
        if amount_of_another_thing(subject, sentence, facts):
            return False
        if not shares_a_word(subject, sentence, facts, leaving_out=NOT_THE_THING):
            # "free" of another thing ("the car park costs nothing") is no amount for what was asked ("what does the bus cost?")
            return FOUND[kind].search(re.sub(FREE_OF_CHARGE, " ", sentence.text, flags=re.IGNORECASE)) is not None
    if kind != "place":
        return sentence.holds(kind)
    by_guide = sentence.guide_town not in (None, *subject.towns) and not sentence.shared
    return by_guide or names_places(sentence.text, subject, facts)


def kind_weight(group: tuple[str, ...]) -> float:
    """SOFT_KIND_SHARE for a group of SOFT_KINDS only ("because" is a weak sign of a reason), else 1."""
    return SOFT_KIND_SHARE if SOFT_KINDS.issuperset(group) else 1.0


def kinds_found(subject: Subject, said: list[Sentence], facts: Analysed) -> float:
    """Weighted share (kind_weight) of the asked-for kind groups the sentences give."""
    weights = [(kind_weight(group), group) for group in subject.kinds]
    if not weights:
        return 1.0
    given = sum(weight for weight, group in weights if gives_any(group, said, subject, facts))
    return given / sum(weight for weight, _ in weights)


def kinds_missing(subject: Subject, said: list[Sentence], facts: Analysed) -> list[tuple[str, ...]]:
    """The asked-for kind groups, soft ones aside, that none of the sentences gives ("how much": no price)."""
    return [group for group in subject.hard_kinds if not gives_any(group, said, subject, facts)]


def gives_any(group: tuple[str, ...], said: list[Sentence], subject: Subject, facts: Analysed) -> bool:
    """One of the sentences gives one of the group's kinds ("when": a time, a day, a month or a year)."""
    return any(gives(kind, sentence, subject, facts) for kind in group for sentence in said)


def coverage(subject: Subject, sentence: Sentence, facts: Analysed) -> np.ndarray:
    """Per subject word: 1 when the sentence has the word's stem or root, KIND_COVERS when it gives the
    kind of answer the word is about; else the best word-vector cosine with the sentence's words."""
    if not subject.words:
        return np.ones(0)
    if len(sentence.words):
        result = (subject.word_vectors @ sentence.vectors.T).max(axis=1)
    else:
        result = np.zeros(len(subject.words))
    for n, word in enumerate(subject.words):
        dated = names_the_date(word, sentence.text) if sentence.text else None  # no text: the whole region's words
        if dated is not None:  # a weekday or month: the same one, or a span holding it; a neighbour is another answer
            result[n] = float(dated)
        elif has_word(word, sentence, facts):
            result[n] = 1.0
        elif any(sentence.holds(kind) for kind in KINDS_OF_WORD.get(word, ())):
            result[n] = max(result[n], KIND_COVERS)
        elif sentence.chunk >= 0 and facts.stem(word) in facts.heading_stems(sentence.chunk):
            result[n] = max(result[n], HEADING_COVERS)
    return result


def covers(subject: Subject, sentence: Sentence, facts: Analysed) -> np.ndarray:
    """Per subject word: whether the sentence covers it (coverage() of at least SIMILAR_WORD)."""
    return coverage(subject, sentence, facts) >= SIMILAR_WORD


def shares_a_word(subject: Subject, sentence: Sentence, facts: Analysed, leaving_out=frozenset()) -> bool:
    """The sentence has one of the subject words not in `leaving_out` (has_word: word vectors and kinds of value aside)."""
    return any(has_word(word, sentence, facts) for word in subject.words if word not in leaving_out)


def has_word(word: str, sentence: Sentence, facts: Analysed) -> bool:
    """The sentence has the word itself, by stem or root, or as one half of a compound."""
    return facts.stem(word) in sentence.stems or same_root(word, sentence) or compound_of(word, sentence, facts)


COMPOUND_SHORT_HALF = 3  # letters of the short word: "tea" in "tea" + "room" -> "tearoom"


def compound_of(word: str, sentence: Sentence, facts: Analysed) -> bool:
    """A word of the sentence is this short word joined to another word the guides use ("tea shop" / "tearoom",
    "sea front" / "seafront"): too short for same_root, which a part of any word would satisfy. The other half needs
    ROOT_LETTERS letters or more: "off" + "ice" is no compound of "ice"."""
    if len(word) != COMPOUND_SHORT_HALF:
        return False
    known = facts.known_words
    return any(
        len(other) >= COMPOUND_SHORT_HALF + ROOT_LETTERS
        and ((other.startswith(word) and other[len(word) :] in known) or (other.endswith(word) and other[: -len(word)] in known))
        for other in sentence.word_set
    )


def same_root(word: str, sentence: Sentence) -> bool:
    """A word of the sentence begins or ends with this one, or this one with it ("walk"/"walkers",
    "mill"/"watermill"): stemming keeps these apart. Both need ROOT_LETTERS letters or more."""
    if len(word) < ROOT_LETTERS:
        return False
    return word in sentence.affixes or any(part in sentence.word_set and not another_head(word, part) for part in affixes(word))


def another_head(word: str, start: str) -> bool:
    """The word is a compound beginning with `start` whose second half, an English word of ROOT_LETTERS letters or
    more, names what it is: a "nightclub" is a club, not a night ("watermill", ending in "mill", is a mill)."""
    rest = word[len(start) :]
    return word.startswith(start) and len(rest) >= ROOT_LETTERS and rest in english_words()


# How a sentence is ranked as the answer (measured on the "tune" questions).
COVERAGE_WEIGHT = 1.0  # share of the subject words it covers
KIND_WEIGHT = 0.75  # share of the asked-for kinds of answer it gives (chosen on the fitted halves, results/sentence-weights-session17.txt)
SIMILARITY_WEIGHT = 1.0  # its similarity to the question
RANK_WEIGHT = 0.1  # over the rank of its chunk in retrieval
PLACE_WEIGHT = 0.6  # share of the question's towns it is about
REGION_SHARE = 1.0  # the share a region-wide sentence gets when the question names no town
TEACHER_SENTENCE_WEIGHT = 2.0  # the teacher's cosine of question and sentence


def candidates(subject: Subject, hits: list[Hit], facts: Analysed, teacher: dict[int, float] | None = None) -> list[Candidate]:
    """Every sentence of the given chunks, best first (the same text once, at its best chunk).
    teacher: the teacher model's cosine of the question with each of those sentences, by row (None without it)."""
    found: dict[str, Candidate] = {}
    # a "why" answerable only by "because" is a weak sign: soft kinds count less in the ranking
    kind_strength = np.mean([kind_weight(group) for group in subject.kinds] or [1.0])
    for hit in hits:
        for row in facts.rows_of(hit.ordinal):
            sentence = facts.sentences[row]
            if sentence.text in found:
                continue
            covered = coverage(subject, sentence, facts)
            counted = np.where(covered >= SIMILAR_WORD, covered, 0.0)  # a far-off word is not partly covered
            covered_share = float(subject.weights @ counted / subject.weights.sum()) if len(covered) else 0.0
            kinds = kinds_found(subject, [sentence], facts)
            similarity = float(facts.sentence_vectors[row] @ subject.vector)
            teacher_similarity = 0.0 if teacher is None else float(teacher[row])
            score = (
                TEACHER_SENTENCE_WEIGHT * teacher_similarity
                + COVERAGE_WEIGHT * covered_share
                + KIND_WEIGHT * kinds * kind_strength
                + SIMILARITY_WEIGHT * similarity
                + RANK_WEIGHT / hit.rank
                + PLACE_WEIGHT * place_match(subject, sentence)
            )
            allowed = facts.about(subject.towns, sentence)
            found[sentence.text] = Candidate(
                hit, sentence, row, allowed, subject.share(covered), kinds, similarity, score, teacher_similarity
            )
    return sorted(found.values(), key=lambda c: (-c.score, c.hit.rank))


MAX_QUOTES = 3
TEACHER_COMPANION_MARGIN = 0.1  # another sentence is quoted too when the teacher finds it this close to the question as the best
COMPANION_MARGIN = 0.35  # another sentence is quoted too when it scores this close to the best, covering as
# much and restating the question, or when it is from another guide and covers the whole subject
# (the guides may disagree: quote both)
COMPLETION_REACH = 2  # how many sentences away a missing kind of answer is looked for in the best one's chunk


FILL_TO = 4  # an answer that is not a list quotes up to this many sentences the teacher finds close to the question (3 until session 20),
FILL_FROM_TOP = 3  # from this many top chunks (three sentences from the top three chunks: the route issue #10 measured)
FILL_MARGIN = 0.15  # within this teacher cosine of the best: 0.1 gained less, wider gained nothing but length (own + odd dev, results/)
MAX_LIST_QUOTES = 10  # a list question quotes up to this many sentences
LIST_QUOTES_FROM_TOP = 8  # of them, at most this many from its top chunk: nearly every section whole (results/, README)
LIST_QUOTES_FROM_OTHERS = 2  # and at most this many from each further chunk: a town's section may hold two items (README)


@dataclass(frozen=True)
class Evidence:
    quotes: list[Candidate]  # what the extractive answer quotes, in order
    problem: str | None = None  # why the question cannot be answered from them (names no source)
    uncovered: list[str] = field(default_factory=list)  # parts of the question the quotes do not answer
    verdicts: list[Verdict] = field(default_factory=list)  # the answerability model's word on each part

    @property
    def answerable(self) -> bool:
        return bool(self.quotes) and self.problem is None


def find_evidence(retriever: Retriever, retrieval: Retrieval) -> Evidence:
    """The sentences that answer each part of the question, or why none does."""
    facts = analysed(retriever)
    hits = retrieval.within_cutoff
    strangers = unknown_names(retrieval.question, facts)
    making = asks_to_make_something(retrieval.question)
    if strangers or making or not hits:
        if making:
            reason = f"it asks me to {making} something, not what the guides say"
        elif strangers:
            reason = f"the guides never mention {', '.join(strangers)}"
        else:
            reason = "no retrieved chunk is within the cutoff"
        return Evidence([], reason, verdicts=[Verdict(retrieval.question, 0.0, False, {}, reason)])
    towns: set[str] = set()  # the towns named so far: "..., and what does parking cost once I'm there?"
    before: Subject | None = None  # the part before's subject
    quotes: list[Candidate] = []
    verdicts, uncovered = [], []
    parts = question_parts(retrieval.read_as)
    teacher = retriever.teacher if retrieval.teacher_query is not None else None
    part_vectors = [retrieval.teacher_query] if len(parts) == 1 or teacher is None else list(retriever.teacher_encode(parts))
    rows = [row for hit in hits for row in facts.rows_of(hit.ordinal)]  # the only ones scored
    for number, (part, part_vector) in enumerate(zip(parts, part_vectors)):
        similarities = None if part_vector is None else dict(zip(rows, (retriever.index.teacher_vectors[rows] @ part_vector).tolist()))
        refused_before = number > 0 and not verdicts[-1].answered
        subject = subject_of(with_thing_before(part, before) if refused_before else part, facts, towns, follows=number > 0)
        if len(parts) == 1 and not (subject.words or subject.towns or subject.kinds):  # "the a of"
            reason = "it names nothing to look up: no thing, place or kind of answer"
            return Evidence([], reason, verdicts=[Verdict(part, 0.0, False, {}, reason)])
        towns, before = subject.towns, subject
        after_unknown = number > 0 and unknown_thing(verdicts[-1])
        if after_unknown and POINTS_BACK.search(part):
            verdicts.append(Verdict(part, 0.0, False, {}, follows_an_unknown(parts[number - 1])))
            uncovered.append(part)
            continue
        found = part_evidence(part, subject, hits, facts, similarities, part_vector)
        if after_unknown and found.verdicts[0].answered and leans_on_the_part_before(part, found.verdicts[0], facts):
            reason = follows_an_unknown(parts[number - 1])
            found = Evidence([], reason, verdicts=[replace(found.verdicts[0], answered=False, reason=reason)])
        verdicts += found.verdicts
        if found.problem:
            uncovered.append(part)
            continue
        quoted = {q.sentence.text for q in quotes}
        quotes += [q for q in found.quotes if q.sentence.text not in quoted]
    if not quotes:
        return Evidence([], next(v.reason for v in verdicts if v.reason), verdicts=verdicts)
    return Evidence(quotes, None, uncovered, verdicts)


NAME = re.compile(r"(?<![\w'’])[A-Z][\w'’-]*[a-z][\w'’-]*")
LIKENED_TO = re.compile(r"(?<![\w'’])(?:[A-Z][\w'’]*\s+){0,2}[A-Z][\w'’]*-(?:type|style|like|esque|ish)\b")
"""A name that only says what kind of thing is meant ("a National Express-type coach", "an Uber-style taxi"): the
thing asked about is the coach or the taxi, which the guides may well speak of."""
SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"(]\s*)$")


def with_thing_before(part: str, before: Subject | None) -> str:
    """A part pointing back at the thing of a part the guides could not answer, read with that thing for its pronoun
    ("What number bus goes into Corry Vale, | and how often does it run?": how often the bus runs, not the train)."""
    thing = [word for word in (before.words if before else []) if word not in KINDS_OF_WORD]
    return POINTS_BACK.sub(" ".join(thing), part, count=1) if thing else part


def follows_an_unknown(before: str) -> str:
    return f"it asks after what the part before asked about ({before!r}), which the guides do not mention"


def leans_on_the_part_before(part: str, verdict: Verdict, facts: Analysed) -> bool:
    """A later part that names no town and asks after something the place's guides do not mention ("..., and what's
    showing this week?" after "Is there a cinema in Pellew Sands"): about the part before's thing ("how long is the
    beach?" is not: every word of it is known there)."""
    return not facts.towns.found_in(part) and verdict.features.get("unknown_here", 0.0) > 0


def unknown_thing(verdict: Verdict) -> bool:
    """The part was refused, and nothing it asks about is known for its place ("the mayor"); a thing the guides
    know of but without the value asked ("who runs the harbour restaurants?") does not count."""
    return not verdict.answered and verdict.features.get("unknown_here", 0.0) >= 1.0


STATEMENT_THEN_QUESTION = re.compile(r"[^?.!]*[.!]\s.*\?")  # the rest of a statement, then a question


def unknown_names(question: str, facts: Analysed) -> list[str]:
    """Capitalised words, not opening a sentence, that no guide uses in any form: "London", "Edinburgh". Where the
    traveller comes from, said before the question, is no subject ("Hello, I visit from Spain. Until what hour...?")."""
    found = []
    question = AMPERSAND_ABBREVIATION.sub(lambda m: " " * len(m.group()), question)  # "B&Bs" names no place "Bs"
    likened = [m.span() for m in LIKENED_TO.finditer(question)]
    for match in NAME.finditer(question):
        word = match.group().rstrip("'’").removesuffix("'s").removesuffix("’s")
        if SENTENCE_START.search(question[: match.start()]) or word in NOT_PLACES or re.match(r"I['’]", word):
            continue
        if any(start <= match.start() < end for start, end in likened):
            continue
        if SETTING_OUT.search(question[: match.start()]) and STATEMENT_THEN_QUESTION.match(question[match.end() :]):
            continue
        if not all(part in facts.known_words for part in WORD.findall(word.lower())):
            found.append(word)
    return list(dict.fromkeys(found))


def part_evidence(
    part: str, subject: Subject, hits: list[Hit], facts: Analysed, teacher: dict[int, float] | None,
    part_vector: np.ndarray | None = None,
) -> Evidence:
    """The sentence (or few) that answer one question, or why none does, with the model's verdict.
    part_vector: the part's teacher vector, which the topic feature reads (None without the teacher)."""
    everything = candidates(subject, hits, facts, teacher)
    ranked = [c for c in everything if c.allowed]
    if not ranked:
        reason = f"nothing retrieved is from the guides for {' or '.join(sorted(subject.towns)) or 'the region'}"
        return Evidence([], reason, verdicts=[Verdict(part, 0.0, False, {}, reason)])
    whole_section = quotes_a_section(part, subject)
    named_section = section_asked(part, ranked, facts)
    if named_section is not None:
        subject = replace(subject, headed=heading_words(part, subject))
    sides = heading_sides(part, ranked)
    if whole_section:
        quotes = list_quotes(named_section, sides, ranked, subject, facts)
        best = quotes[0]
    else:
        best = ranked[0]
        if not subject.yes_no and sides[best.hit.rank] < 0:  # "the toughest walk" is not under "Easy" (a yes/no's answer may be)
            best = next((c for c in ranked if sides[c.hit.rank] >= 0), best)
        quotes = [best] + completion(subject, best, facts, teacher)
    primary = list(quotes)  # what answers; the companions below only add to it
    usable = ranked if subject.yes_no else on_the_lead_side(ranked, sides, best.hit.rank)  # "the toughest walk": nothing from "Easy"
    for other in usable[1:]:
        if len(quotes) >= MAX_QUOTES:
            break
        as_good = other.share >= best.share and other.share > 0 and other.kinds_found >= best.kinds_found
        close = other.score >= best.score - COMPANION_MARGIN
        another_guide = other.share == 1.0 and other.hit.chunk.file not in {q.hit.chunk.file for q in quotes}
        near = other.teacher >= best.teacher - TEACHER_COMPANION_MARGIN and other.kinds_found >= best.kinds_found
        fresh = other.sentence.text not in {q.sentence.text for q in quotes}
        if ((as_good and (close or another_guide)) or near) and fresh and stands_alone(other, subject, facts):
            quotes.append(other)
    if not whole_section:
        quotes += closest_to_question(usable, quotes, subject, facts)
    quotes = denials(ranked, quotes, subject) + quotes
    model = shipped_model()
    features = answerability_features(subject, primary, everything, facts) | {"topic": model.topic(part_vector)}
    if subject.yes_no and subject.asks_existence and says_it_has_none(subject, quotes):
        features["absent_thing"] = 0.0  # the place's guide says it has none: that answers whether there is one
    probability = model.probability(features)
    passed = passed_over(sides, best, ranked) if whole_section or not subject.yes_no else None  # where the sides chose
    # a later part leans on the part before (follow_up), but not when no guide knows any of its words ("what's the crime like?")
    unknown_everywhere = subject.follows and bool(subject.words) and features["unknown_anywhere"] >= 1.0
    if probability >= model.threshold and not unknown_everywhere:
        return Evidence(quotes, verdicts=[Verdict(part, probability, True, features, passed_over=passed)])
    reason = why_unanswerable(subject, quotes, everything, facts) or "the retrieved sentences do not answer it"
    return Evidence(quotes, reason, verdicts=[Verdict(part, probability, False, features, reason, passed_over=passed)])


TRANSPORT_MODES = frozenset("tram trams streetcar streetcars bus buses shuttle shuttles".split())
"""Public transport within a place: a guide saying it has "no local transport" denies each of them there (not the
trains that reach it, nor its taxi)."""
DENIED_HEAD = r"(?=\s*(?:[,.;:!?\u2013\u2014-]|$)|\s+(?:and|or|but|of|in|on|at|to|for|within|into|beyond|anywhere|services?)\b)"
"""What may follow a denied word for it to be the thing denied: "no local transport and ...", not "no ticket office"."""


def denial_of(subject: Subject) -> re.Pattern | None:
    """What a sentence says to have none of the thing asked after ("no local transport" for the trams); None: nothing
    to deny (no thing named, no town)."""
    things = [word for word in subject.words if word in subject.named | subject.determined or word in TRANSPORT_MODES]
    if not things or not subject.towns:
        return None
    words = "|".join(sorted({re.escape(w) for w in things} | ({"transport"} if TRANSPORT_MODES.intersection(things) else set())))
    return re.compile(rf"\b(?:no|none of|without)\b(?:\s+[\w-]+){{0,2}}?\s+(?:{words})(?:e?s)?\b{DENIED_HEAD}", re.IGNORECASE)


def says_it_has_none(subject: Subject, quotes: list[Candidate]) -> bool:
    """A quote denies the place the thing asked after, not another of its kind: "no local transport" for trams, "no ticket
    office" for the station ticket office; "no railway station" is no answer to whether there is a petrol station (the
    question qualifies its thing, and the denial with a word the question does not use)."""
    denial = denial_of(subject)
    asked = set(subject.words) | subject.qualifiers | {"no", "none", "of", "without"}
    return denial is not None and any(
        not subject.qualifiers or set(WORD.findall(match.group().lower())) <= asked
        for q in quotes for match in denial.finditer(q.sentence.text)
    )


def denials(ranked: list[Candidate], quotes: list[Candidate], subject: Subject) -> list[Candidate]:
    """The sentence about the place asked after that says it has none of the thing a which/where/when question takes
    for granted ("No local transport and none needed." for "where is the tram stop in Thornby Wells?"), when no quote
    says it already: the correction of a false premise comes first. A yes/no question asks it outright, and is answered
    so only when it asks whether the thing is there ("is there a bus up the hill?": "no local bus service")."""
    denial = denial_of(subject)
    if denial is None or (subject.yes_no and not subject.asks_existence):
        return []
    quoted = {q.sentence.text for q in quotes}
    if any(denial.search(text) for text in quoted):
        return []
    return next(([c] for c in ranked if c.sentence.text not in quoted and denial.search(c.sentence.text)), [])


def heading_words(part: str, subject: Subject) -> frozenset[str]:
    """The subject words of the question's cue for a section's topic ("the main sights": "What to see"), which a
    retrieved chunk under that heading answers although its sentences never use them (section_asked)."""
    cued = {word for cue in SECTION_CUES.values() for match in cue.finditer(part) for word in WORD.findall(match.group().lower())}
    return frozenset(word for word in subject.words if word in cued)


def quotes_a_section(part: str, subject: Subject) -> bool:
    """A list question, one that asks for no kind of value and is no yes/no question ("How do people get about
    town?", "What happened to the pier?"), or one that asks after a section's topic in other words and at most where,
    why or the value that section is about ("where would I sleep?": "Where to stay"; "when should we come for
    walking?": "When to go", whose season sentence never says "walking"): the section answers it, not its one best sentence,
    and the section's other sentences correct a false premise ("Which hotel is closest to the mill?": there is none)."""
    if asks_for_a_list(part):
        return True
    if subject.yes_no:
        return False
    cued = sections_asked(part)
    given = {kind for word in cued for kind in SECTION_GIVES.get(word, ())}
    if any(not given.issuperset(group) for group in subject.hard_kinds):
        return False  # "how much is a hotel?": a price is one sentence's, whatever section it is in
    return not subject.kinds or bool(cued)


FRAGMENT_WORDS = 3  # a sentence this short ("Any time.", "On foot.") leans on the one before it


def stands_alone(candidate: Candidate, subject: Subject, facts: Analysed) -> bool:
    """The sentence means something quoted on its own beside another: more than FRAGMENT_WORDS words, or a word
    of the question ("Allow 90 minutes." for how long to allow). "Any time." from "When to go" is no sight."""
    return len(candidate.sentence.text.split()) > FRAGMENT_WORDS or shares_a_word(subject, candidate.sentence, facts)


def closest_to_question(ranked: list[Candidate], quotes: list[Candidate], subject: Subject, facts: Analysed) -> list[Candidate]:
    """Sentences the teacher finds nearly as close to the question as the best (FILL_MARGIN), from the top FILL_FROM_TOP
    chunks, until the answer quotes FILL_TO: a traveller's wording often matches a neighbour of the sentence holding the fact."""
    quoted = {q.sentence.text for q in quotes}
    floor = quotes[0].teacher - FILL_MARGIN
    closest = sorted(
        (c for c in ranked if c.hit.rank <= FILL_FROM_TOP and c.sentence.text not in quoted and c.teacher >= floor and stands_alone(c, subject, facts)),
        key=lambda c: -c.teacher,
    )
    return closest[: max(0, FILL_TO - len(quotes))]


HEADING_FRAME = frozenset("what when where which how".split())  # the frame of a heading ("What to see"), not its topic


def stem_run(text: str, facts: Analysed, leave_out: frozenset[str] = frozenset()) -> list[str]:
    """The text's words as the keyword index stems them, in order, stop words dropped: "Getting around" -> [get, around]."""
    return [stem for word in WORD.findall(text.lower()) if word not in leave_out and (stem := facts.stem(word))]


def section_asked(part: str, ranked: list[Candidate], facts: Analysed) -> int | None:
    """The rank of the chunk whose heading the question asks for: one holding a topic word the question asks after in
    other words ("things to do" -> "What to see", asked.SECTION_CUES), or a heading of two or more words the question
    says in that order ("how do people get around" -> "Getting around"); the highest-ranked such chunk, None for none.
    One shared word is too weak a sign: "get food" is no "Getting there"."""
    asked = " ".join(stem_run(facts.towns.masked(part), facts))
    cued = {facts.stem(word) for word in sections_asked(part)}
    dates = region_dates(part, facts)
    sections = {c.hit.rank: c.hit.chunk.section for c in ranked}
    for rank in sorted(sections):
        heading = stem_run(sections[rank], facts, HEADING_FRAME)
        if cued.intersection(heading) or (len(heading) > 1 and f" {' '.join(heading)} " in f" {asked} ") or spans_a_date(sections[rank], dates):
            return rank
    return None


def region_dates(part: str, facts: Analysed) -> list[str]:
    """The seasons and months a question naming no town names: "which places are packed in summer?" or "quiet in
    January?" asks the region's "Summer, June to August" or "Winter, December to February" (spans_a_date)."""
    if facts.towns.found_in(part):
        return []
    return [word for word in WORD.findall(part.lower()) if word in THE_SEASONS or word in MONTH_WORDS]


def spans_a_date(heading: str, dates: list[str]) -> bool:
    """The heading names one of the seasons, or spans one of the months ("Winter, December to February" holds January)."""
    return any(names_the_date(word, heading) if word in MONTH_WORDS else re.search(rf"\b{word}\b", heading.lower()) for word in dates)


def heading_sides(part: str, ranked: list[Candidate]) -> dict[int, int]:
    """Per retrieved chunk's rank, best first: +1 when its heading takes the side of an opposite pair the question takes
    ("Straightforward" for "the easiest towns", claim_polarity.OPPOSITES), -1 when it takes the other ("Difficult"), else 0."""
    asked = stance(part)
    sides = {}
    for rank, section in sorted({(c.hit.rank, c.hit.chunk.section) for c in ranked}):
        heading = polarity(section).sides if asked else {}
        agrees = any(heading.get(concept) == taken for concept, taken in asked.items())
        sides[rank] = 1 if agrees else -1 if any(heading.get(concept) == {-side for side in taken} for concept, taken in asked.items()) else 0
    return sides


def section_on_the_side_asked(sides: dict[int, int]) -> int | None:
    """The rank of the chunk to quote in place of the top one when the top one's heading does not take the side the
    question takes (sides: heading_sides): the highest-ranked whose heading takes it ("Easy" for gentle walks, over
    "Moderate, with hills"), else, when the top one's heading takes the opposite side, the highest-ranked that takes
    none against it; None when the top one's heading takes the question's side, or no other chunk's does better."""
    top = sides[min(sides)]
    if top > 0:
        return None
    agreeing = next((rank for rank, side in sides.items() if side > 0), None)
    return agreeing if top == 0 else agreeing or next((rank for rank, side in sides.items() if side == 0), None)


def passed_over(sides: dict[int, int], best: Candidate, ranked: list[Candidate]) -> str | None:
    """What the answer says of the top row when it leads with another because of the rows' headings (heading_sides): the
    top row's says the opposite of the question, or takes no side where the leading row's takes the question's; for the
    reader tuning retrieval to see why the top row went unquoted; None otherwise."""
    top = min(sides)
    if best.hit.rank == top or sides[top] > 0 or (sides[top] == 0 and sides[best.hit.rank] <= 0):
        return None
    section = next(c.hit.chunk.section for c in ranked if c.hit.rank == top)
    why = "says the opposite of the question" if sides[top] < 0 else "takes no side of the question"
    return f"row {top} “{section}” passed over: its heading {why}; led by row {best.hit.rank} “{best.hit.chunk.section}”"


def on_the_lead_side(ranked: list[Candidate], sides: dict[int, int], lead: int) -> list[Candidate]:
    """What further quotes may come from once the answer leads with the chunk at rank `lead` (sides: heading_sides): when
    that chunk's heading does not say the opposite of the question, nothing from under a heading that does."""
    return ranked if sides[lead] < 0 else [c for c in ranked if sides[c.hit.rank] >= 0]


def list_quotes(
    named_section: int | None, sides: dict[int, int], ranked: list[Candidate], subject: Subject, facts: Analysed
) -> list[Candidate]:
    """For a question a section answers (quotes_a_section): the best sentences of the chunk whose heading the question
    names (named_section, the rank section_asked found; not one town's when the question names none and a region-wide
    chunk ranks first), else of the highest-ranked chunk whose heading does not say the opposite of the question
    (section_on_the_side_asked; a list is usually one section, "What to see"), then the best sentence of each further
    chunk (the items of "which towns..." are spread over the towns' guides), none under a heading that says the opposite,
    that the teacher finds nearly as close to the question (FILL_MARGIN) as the best quoted one, and its second best if
    that is as close too."""
    top = min(ranked, key=lambda c: c.hit.rank)
    named = next((c for c in ranked if c.hit.rank == named_section), None)
    if named is not None and not subject.towns and facts.guide_town(top.hit.ordinal) is None and facts.guide_town(named.hit.ordinal):
        named_section = None  # "which streets ... in each town?" ("food" names each town's "Eat and drink")
    chosen = named_section or section_on_the_side_asked(sides) or top.hit.rank
    quotes = [c for c in ranked if c.hit.rank == chosen][:LIST_QUOTES_FROM_TOP]
    floor = max(c.teacher for c in quotes) - FILL_MARGIN
    taken: Counter[int] = Counter()  # sentences quoted so far from each further chunk
    others = []  # best first (ranked is)
    for c in on_the_lead_side(ranked, sides, chosen):  # the easiest towns are not listed beside sentences under "Difficult"
        if c.hit.rank != chosen and taken[c.hit.rank] < LIST_QUOTES_FROM_OTHERS and c.teacher >= floor and stands_alone(c, subject, facts):
            taken[c.hit.rank] += 1
            others.append(c)
    return quotes + others[: MAX_LIST_QUOTES - len(quotes)]


def completion(subject: Subject, best: Candidate, facts: Analysed, teacher: dict[int, float] | None) -> list[Candidate]:
    """A nearby sentence of the same chunk giving the kind of answer the best one lacks ("the coastal
    path is closed in high wind" needs the sentence before it to say which coastal path), and about what
    is asked: it shares a word with the question, or the teacher finds it nearly as close (FILL_MARGIN).
    A neighbour about something else ("the harbour at 6am", beside the museum asked about) gives a value
    of the kind, not the answer; so does one two sentences away whose only question word the best one
    already has ("the pump room is free", two after "the assembly rooms host concerts", asked their price)."""
    if best.kinds_found == 1.0:
        return []
    rows = facts.rows_of(best.sentence.chunk)
    at = rows.index(best.row)
    in_best = frozenset(w for w in subject.words if has_word(w, best.sentence, facts))
    for distance in range(1, COMPLETION_REACH + 1):
        not_counted = in_best if distance > 1 else frozenset()
        for n in (at - distance, at + distance):
            if 0 <= n < len(rows):
                sentence = facts.sentences[rows[n]]
                if (kinds_found(subject, [sentence, best.sentence], facts) > best.kinds_found and facts.about(subject.towns, sentence)
                        and (shares_a_word(subject, sentence, facts, leaving_out=not_counted)
                             or teacher is None or teacher[rows[n]] >= best.teacher - FILL_MARGIN)):
                    covered = coverage(subject, sentence, facts)
                    similarity = float(facts.sentence_vectors[rows[n]] @ subject.vector)
                    return [Candidate(best.hit, sentence, rows[n], True, subject.share(covered),
                                      kinds_found(subject, [sentence], facts), similarity, best.score,
                                      0.0 if teacher is None else float(teacher[rows[n]]))]
    return []


def answerability_features(subject: Subject, quotes: list[Candidate], everything: list[Candidate], facts: Analysed) -> dict[str, float]:
    """What the answerability model weighs (answerability.FEATURES), measured on the chosen quotes; all but `topic`,
    which reads the question alone (part_evidence adds it)."""
    best = quotes[0]
    place = facts.place_evidence(subject.towns)
    setting = subject.known_anyway  # counted as known
    known_here = covers(subject, place, facts) | setting
    known_anywhere = covers(subject, facts.place_evidence(set()), facts) | setting
    named = np.array([w in subject.named for w in subject.words], dtype=bool)
    literal_here = np.array([has_word(w, place, facts) for w in subject.words], dtype=bool) | setting
    # "a train station" where the guides speak of trains elsewhere asks whether there is a station; "a petrol station", never
    qualifying = np.array([w in subject.qualifiers for w in subject.words], dtype=bool)
    priced = np.array([w in subject.priced for w in subject.words], dtype=bool)  # "an entry charge" asks a price: "free" answers it
    doing = np.array([w in subject.doing for w in subject.words], dtype=bool)
    unknown_here = subject.weight_of(~known_here) if subject.words else 0.0
    said = [q.sentence for q in quotes]
    hard_kinds = len(subject.hard_kinds)
    return {
        "unknown_anywhere": subject.weight_of(~known_anywhere) if subject.words else 0.0,
        "unknown_here": unknown_here,
        "literal_unknown_here": subject.weight_of(~literal_here) if subject.words else 0.0,
        "named_unknown_here": subject.weight_of(~known_here & named) if subject.words else 0.0,
        "coverage": best.share if subject.words else 0.0,
        "similarity": best.similarity,
        "teacher": best.teacher,
        "kind_missing": len(kinds_missing(subject, said, facts)) / hard_kinds if hard_kinds else 0.0,
        # a sentence saying the place has none answers a yes/no question about the place itself ("can we book a room in
        # the village?" -> "Nothing in the village itself."), however well another town's sentence covers the words
        "other_place": float(said_of_another_place(subject, best, everything, facts) and not (subject.yes_no and DENIAL.search(best.sentence.text))),
        "yes_no_unknown": unknown_here if subject.yes_no else 0.0,
        "no_subject": float(not subject.words),
        # a word not said of the place, that names a thing ("a cinema") or that nothing said there comes close to
        # ("anything for kids": children are; "anywhere to eat": food is)
        "absent_thing": float(
            subject.asks_existence and best.teacher < RESTATED
            and absent_on_every_side(subject, ~literal_here & (named | (~known_here & ~doing)) & ~(qualifying & known_anywhere) & ~priced)
        ),
        "follow_up": float(subject.follows),
    }


def absent_on_every_side(subject: Subject, absent: np.ndarray) -> bool:
    """Some word the place's guides never use is asked about on every side of an "or": "are there hotels or is it
    all self-catering?" asks whether either is so, and the guides speak of accommodation."""
    missing = {word for word, gone in zip(subject.words, absent) if gone}
    sides = [side for side in subject.alternatives if side] or [frozenset(subject.words)]
    return all(side & missing for side in sides)


def said_of_another_place(subject: Subject, best: Candidate, everything: list[Candidate], facts: Analysed) -> bool:
    """A sentence about another town covers the subject better than the best one, covers a word the best one covers
    (when it covers any: else it speaks of something else, as "wheelchair" beside "trams" does), and the teacher finds
    it as close to the question as a companion quote would be (a shared word alone is no rival): a false premise."""
    held = covers(subject, best.sentence, facts)
    return any(
        not c.allowed and not c.sentence.towns & subject.towns and c.kinds_found >= best.kinds_found and c.share > best.share
        and c.teacher >= best.teacher - TEACHER_COMPANION_MARGIN
        and (not held.any() or covers(subject, c.sentence, facts)[held].any())
        for c in everything
    )


def why_unanswerable(subject: Subject, quotes: list[Candidate], everything: list[Candidate], facts: Analysed) -> str | None:
    """None when the quotes answer the question; else what is missing, for the refusal's record.

    A subject word is "unknown" when nothing the guides say about the place (its guide, and
    region-wide sentences naming it) covers it. Word vectors miss many paraphrases ("walk from
    one end to the other" / "cross from end to end"), so an unknown word is forgiven when the
    best sentence restates the question (PARAPHRASE), or when it only says something about
    the thing asked after ("looks grim") while the best sentence covers part of the subject.
    """
    best = quotes[0]
    restates = best.similarity >= PARAPHRASE
    place = " or ".join(sorted(subject.towns)) or "the region"
    known_to_place = covers(subject, facts.place_evidence(subject.towns), facts) | subject.known_anyway
    unknown = [w for w, known in zip(subject.words, known_to_place) if not known]
    named_unknown = [w for w in unknown if w in subject.named]
    if subject.words and not covers(subject, facts.place_evidence(set()), facts).any():
        return f"the guides never mention {subject.listed(subject.words)}"  # off-topic, whatever the gate said
    if subject.yes_no and subject.weight_of(~known_to_place) >= YES_NO_UNKNOWN:
        return f"the guides for {place} do not mention {subject.listed(unknown)}"  # "Is there a cinema...?"
    if (named_unknown or (unknown and best.share == 0.0)) and not restates:
        return f"the guides for {place} do not mention {subject.listed(named_unknown or unknown)}"  # "the ferry", "a film"
    missing = kinds_missing(subject, [q.sentence for q in quotes], facts)
    if missing:
        return "no retrieved sentence gives " + "; nor ".join(" or ".join(KIND_NAMES[kind] for kind in group) for group in missing)
    if best.share == 0.0 and not (place_match(subject, best.sentence) == 1.0 and (restates or subject.kinds)):
        return f"no retrieved sentence is about {subject.listed(subject.words)}"
    if said_of_another_place(subject, best, everything, facts) and not restates:
        return f"what is asked about is said of another place, not {place}"
    return None
