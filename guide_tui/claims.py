"""Check a generated answer against the chunks it was given, sentence by sentence.

A language model can state things its documents never said, or cite a file it
was never shown. Each sentence of the answer must be supported by a chunk it
cites (or, when it cites nothing, by any chunk in the prompt):
  - every capitalised name in the sentence appears in that chunk, and every
    number and time in one of the chunk's sentences related to it (cosine >=
    RELATED_COSINE: a claim may merge two sentences, but "6" from the pubs'
    hours does not support "the bakery is open until 6pm"), and
  - the sentence is close in meaning to one of the chunk's sentences
    (cosine of their vectors >= SUPPORT_COSINE).
Cited files that were not in the prompt are "invented citations". An answer that
is the refusal sentence (even with a citation attached) is a refusal with no source.

SUPPORT_COSINE and RELATED_COSINE were set by hand on paraphrases and invented
sentences about the bundled guides (tests/test_claims.py keeps them): faithful
paraphrases scored 0.61-1.0 against their best source sentence, invented ones
0.29-0.59; a number's source sentence scored 0.48-1.0 against a faithful claim
that merged two sentences, 0.38 against a claim that moved the number to
another fact. The check cannot see a flipped
meaning that keeps the same words, numbers and names ("buses run on Sundays"
against "no buses run on Sundays"); the prompt forbids that kind of inference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from guide_tui.answering import REFUSAL, Citation
from guide_tui.asked import DAY_AND_MONTH_NAMES
from guide_tui.chunking import Chunk, sentences
from guide_tui.embedding import Embedder
from guide_tui.retrieval import Hit

SUPPORT_COSINE = 0.6
RELATED_COSINE = 0.45  # a claim's numbers must come from source sentences at least this close to it
CITED_FILE = re.compile(r"[\w.-]+\.md\b")
CITATION = r"\s*[\[(][^\[\]()]*?\.md\b[^\[\]()]*[\])]"  # " [guide_x.md]", " (guide_x.md, Food)"
CITATION_MARK = re.compile(CITATION)
CITATION_AFTER_STOP = re.compile(rf"([.!?])((?:{CITATION})+)")  # "...8:30. [guide_x.md]": moved before the stop
NUMBER = re.compile(r"\d+(?:[:.,]\d+)*")
CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")
LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100", "noon": "12", "midday": "12"}


@dataclass
class ClaimCheck:
    refused: bool
    citations: list[Citation] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    invented_citations: list[str] = field(default_factory=list)


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


def numbers_in(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return {n.replace(",", "") for n in NUMBER.findall(text)} | {NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS}


def capitalised_words(sentence: str) -> tuple[str | None, list[str]]:
    """(the sentence's first word if capitalised, the capitalised words after it)."""
    sentence = sentence.replace("’", "'")
    words = [m for m in CAPITALISED.finditer(sentence)]
    if words and not sentence[: words[0].start()].strip(" \"'(*"):
        return words[0].group(), [m.group() for m in words[1:]]
    return None, [m.group() for m in words]


def known_names(source_sentences: list[str]) -> set[str]:
    """Words the guides capitalise mid-sentence (names), plus days and months."""
    names = set(DAY_AND_MONTH_NAMES)
    for sentence in source_sentences:
        names.update(capitalised_words(sentence)[1])
    return names


def names_in(sentence: str, names: set[str]) -> list[str]:
    """Capitalised words; the first word only when it is a known name (every sentence starts with a capital)."""
    first, rest = capitalised_words(sentence)
    return ([first] if first in names else []) + rest


def facts_missing(numbers: set[str], names: list[str], chunk: Chunk, related: list[str]) -> list[str]:
    """Of a claim's numbers (numbers_in) and names (names_in), those the related source sentences
    do not state and those the chunk does not mention."""
    missing = sorted(numbers - numbers_in(" ".join(related)))
    lowered = chunk.text.replace("’", "'").lower()
    for name in names:
        stem = re.sub(r"'s?$", "", name.lower())
        if not re.search(rf"\b{re.escape(stem)}", lowered):
            missing.append(name)
    return missing


def check_claims(answer_text: str, hits: list[Hit], embedder: Embedder) -> ClaimCheck:
    """Which sentences the prompt's chunks support, which citations are real, what to quote as sources."""
    shown_files = {hit.chunk.file for hit in hits}
    if is_refusal(answer_text):
        return ClaimCheck(refused=True)
    invented = [f for f in cited_files(answer_text) if f not in shown_files]
    claims = answer_sentences(answer_text)
    if not claims:
        return ClaimCheck(refused=False, unsupported=[answer_text.strip()] if answer_text.strip() else [],
                          invented_citations=invented)
    chunks = list({hit.chunk.chunk_id: hit.chunk for hit in hits}.values())
    source_sentences = [sentences(chunk.text) for chunk in chunks]
    flat = [s for group in source_sentences for s in group]
    names = known_names(flat)
    plain_claims = [without_citations(c) for c in claims]
    vectors = embedder.encode(plain_claims + flat)
    claim_vectors, source_vectors = vectors[: len(claims)], vectors[len(claims):]
    offsets = np.cumsum([0] + [len(group) for group in source_sentences])

    citations: dict[str, Citation] = {}
    unsupported = []
    for claim, plain, vector in zip(claims, plain_claims, claim_vectors):
        cited = cited_files(claim)
        candidates = [i for i, c in enumerate(chunks) if not cited or c.file in cited]
        claim_numbers, claim_names = numbers_in(plain), names_in(plain, names)
        best: tuple[float, int, int] | None = None  # (cosine, chunk, sentence index)
        for i in candidates:
            scores = source_vectors[offsets[i] : offsets[i + 1]] @ vector
            related = [s for s, score in zip(source_sentences[i], scores) if score >= RELATED_COSINE]
            if not len(scores) or facts_missing(claim_numbers, claim_names, chunks[i], related):
                continue
            j = int(np.argmax(scores))
            if best is None or scores[j] > best[0]:
                best = (float(scores[j]), i, j)
        if best is None or best[0] < SUPPORT_COSINE:
            unsupported.append(claim)
            continue
        chunk = chunks[best[1]]
        citations.setdefault(chunk.chunk_id, Citation(chunk.file, chunk.section, chunk.chunk_id,
                                                      source_sentences[best[1]][best[2]]))
    return ClaimCheck(False, list(citations.values()), unsupported, invented)
