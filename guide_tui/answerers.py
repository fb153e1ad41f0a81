"""The answerers (extractive quoting, Ollama) behind one protocol, and the one registry that picks them by name."""

from __future__ import annotations

from typing import Callable

from guide_tui.answers import REFUSAL, Answer, Answerer, Asked, Citation, Generator, OnText, RefusalReason
from guide_tui.errors import OllamaUnavailable
from guide_tui.extractive import Candidate
from guide_tui.ollama_address import nothing_listens, written_out
from guide_tui.retrieval import Retrieval, Retriever
from guide_tui.settings import environment


def guide_says(quote: Candidate) -> str:
    """The short lead before a quote: "Kestrelford's guide says:" or '"Walking in the region" says:'."""
    town = quote.sentence.guide_town
    if town:
        return f"{town}' guide says:" if town.endswith("s") else f"{town}'s guide says:"
    return f'"{quote.hit.chunk.title}" says:'


def reading_order(quotes: list[Candidate]) -> list[list[Candidate]]:
    """Quotes grouped by chunk (chunks in the order first quoted), each group in the chunk's own order:
    the order the answer reads in, and so the order its citations are listed in."""
    groups: dict[str, list[Candidate]] = {}
    for quote in quotes:
        groups.setdefault(quote.hit.chunk.chunk_id, []).append(quote)
    return [sorted(group, key=lambda q: q.row) for group in groups.values()]


def extractive_text(quotes: list[Candidate], uncovered: list[str] = ()) -> list[str]:
    """The answer in pieces, one per quoted sentence (what on_text streams). Each chunk quoted gets a
    line: a lead, then its sentences verbatim, a run of adjacent sentences in one pair of quotation
    marks; then a line naming the parts of the question the guides do not answer."""
    pieces = []
    for ordered in reading_order(quotes):
        for n, quote in enumerate(ordered):
            if n == 0:
                opening = ("\n" if pieces else "") + f'{guide_says(quote)} "'
            else:
                opening = " " if quote.row == ordered[n - 1].row + 1 else '" … "'
            pieces.append(opening + quote.sentence.text + ('"' if n == len(ordered) - 1 else ""))
    if uncovered:
        pieces.append("\nThe guides do not say: " + "; ".join(part.rstrip("?") + "?" for part in uncovered))
    return pieces


def citations_of(quotes: list[Candidate]) -> list[Citation]:
    return [
        Citation(q.hit.chunk.file, q.hit.chunk.section, q.hit.chunk.chunk_id, q.sentence.text)
        for group in reading_order(quotes)
        for q in group
    ]


class ExtractiveAnswerer(Answerer):
    """Quotes the sentences answerability found, verbatim; never fails."""

    def stream(self, asked: Asked, on_text: OnText) -> Answer:
        evidence = asked.evidence
        pieces = extractive_text(evidence.quotes, evidence.uncovered)
        for piece in pieces:
            on_text(piece)
        return Answer(
            asked.question, False, "".join(pieces), Generator.EXTRACTIVE.value, asked.retrieval, citations_of(evidence.quotes),
            verdicts=evidence.verdicts,
        )


class OllamaAnswerer(Answerer):
    """Ollama's answer, checked claim by claim (guide_tui.ollama_answerer); raises OllamaUnavailable to fall back."""

    def __init__(self, model: str | None = None, host: str | None = None) -> None:
        self.model = model
        self.host = host  # None: OLLAMA_HOST or http://127.0.0.1:11434

    def stream(self, asked: Asked, on_text: OnText) -> Answer:
        url = written_out(self.host or environment().ollama_host)
        if url and nothing_listens(url):  # said without importing the client: no Ollama is the common case
            raise OllamaUnavailable(f"Ollama not reachable at {url}")
        try:
            from guide_tui import ollama_answerer
        except ImportError as err:  # a trimmed install: answer extractively, say why
            raise OllamaUnavailable(f"Ollama support is not available ({err})") from err
        retriever, retrieval, verdicts = asked.retriever, asked.retrieval, asked.evidence.verdicts
        if not retrieval.within_cutoff:
            raise OllamaUnavailable("no retrieved chunk is within the cutoff to show Ollama")
        generated = ollama_answerer.generate(
            retrieval, retrieval.read_as, retriever.index.embedder, model=self.model, on_text=on_text, host=self.host,
            chunks=retriever.index.chunks, stop=asked.stop,
        )
        label = f"ollama:{generated.model}"
        if generated.refused:
            return Answer(retrieval.question, True, REFUSAL, label, retrieval, refusal_reason=RefusalReason.MODEL, verdicts=verdicts)
        if not generated.citations:  # nothing it said is in the guides: not an answer this app gives
            raise OllamaUnavailable(no_support_reason(label, generated.text, retrieval, retriever))
        return Answer(
            retrieval.question,
            False,
            generated.text,
            label,
            retrieval,
            list(generated.citations),
            list(generated.unsupported),
            invented_citations=list(generated.invented_citations),
            verdicts=verdicts,
            flags=list(generated.flags),
            check_note=generated.check_note,
        )


def no_support_reason(label: str, text: str, retrieval: Retrieval, retriever: Retriever) -> str:
    """Why a generated answer with no supported sentence is not used: "cited the wrong guide" when
    its sentences are supported once their citations are ignored, else "had no support"."""
    from guide_tui.claims import CITATION_MARK, check_claims

    uncited = CITATION_MARK.sub("", text)
    if uncited != text and check_claims(uncited, retrieval.within_cutoff, retriever.index.embedder).citations:
        return f"{label}'s answer cited a guide that does not say it (another guide it was shown does)"
    return f"{label}'s answer had no support in the retrieved guides"


MakeAnswerer = Callable[[str | None, str | None], Answerer]  # (model, host) -> an answerer

ANSWERERS: dict[str, MakeAnswerer] = {
    Generator.EXTRACTIVE: lambda model, host: ExtractiveAnswerer(),
    Generator.OLLAMA: lambda model, host: OllamaAnswerer(model, host),
}
"""Every answerer by the name --generator gives it (the tests register a fake here)."""

AUTO_ORDER = (Generator.OLLAMA, Generator.EXTRACTIVE)  # "auto": Ollama when it answers, else quote the guides


def answerer_names(generator: str) -> tuple[str, ...]:
    """The answerers tried in turn for --generator: one asked for by name has no quiet substitute."""
    if generator == Generator.AUTO:
        return AUTO_ORDER
    if generator in ANSWERERS:
        return (generator,)
    raise ValueError(f"generator must be one of {', '.join([Generator.AUTO, *ANSWERERS])}, not {generator!r}")


def first_answer(names: tuple[str, ...], asked: Asked, on_text: OnText, model: str | None, host: str | None) -> Answer:
    """The answer of the first answerer in `names` that gives one; the last one's OllamaUnavailable is raised.
    A later answer's fallback_reason says why the earlier ones were passed over."""
    fallback = None
    for n, name in enumerate(names):
        try:
            answer = ANSWERERS[name](model, host).stream(asked, on_text)
        except OllamaUnavailable as err:
            if n == len(names) - 1:
                raise
            fallback = f"{err}; answered extractively"  # the fallback is the extractive answerer (AUTO_ORDER)
            continue
        if fallback:
            answer.fallback_reason = fallback
        return answer
    raise ValueError("no answerer named")
