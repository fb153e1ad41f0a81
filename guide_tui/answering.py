"""Answers grounded in the guides: the contract shared by the extractive answerer and Ollama.

Every answer either quotes/cites retrieved chunks or is exactly REFUSAL with no
source. `answer_question` is the one entry point the CLI, the app and the eval use.
Its steps, each of which can refuse:
  1. an empty question, or the relevance gate (retrieval) failing: reason "empty question" / "gate";
  2. answerability (extractive.why_unanswerable), for every generator: what the question
     is about must be said by the retrieved sentences, in the guide of the place it names
     (the gate alone lets near misses and false premises through): reason "answerability";
  3. the answerer: Ollama when asked for and reachable (the model may refuse: "model"),
     else the extractive answerer, which quotes the chosen sentences verbatim.
"""

from __future__ import annotations

from guide_tui.answerability import Verdict
from guide_tui.answers import GENERATORS, REFUSAL, Answer, Citation, Generator, OnText, RefusalReason
from guide_tui.errors import OllamaUnavailable
from guide_tui.extractive import Candidate, find_evidence
from guide_tui.retrieval import Retrieval, Retriever


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


# ---------------------------------------------------------------- the entry point

def answer_question(
    retriever: Retriever,
    question: str,
    generator: str = "auto",
    model: str | None = None,
    on_text: OnText | None = None,
    ollama: str | None = None,
    retrieval: Retrieval | None = None,
) -> Answer:
    """Retrieve, gate, check answerability, then answer with Ollama or by quoting.

    generator: "extractive", "ollama", or "auto" (Ollama when it answers). When Ollama
    cannot answer (down, slow, model missing, dropped mid-stream), "auto" gives the extractive
    answer and fallback_reason says why; "ollama" raises OllamaUnavailable. `ollama` is the Ollama host URL (default:
    OLLAMA_HOST or http://127.0.0.1:11434). on_text receives pieces of the answer as
    they become available; Answer.text is the final word (a fallback replaces partial
    Ollama text already streamed). `retrieval`: this question's, when the caller has it.
    """
    if generator not in GENERATORS:
        raise ValueError(f"generator must be one of {', '.join(GENERATORS)}, not {generator!r}")
    emit = on_text or (lambda piece: None)
    retrieval = retrieval or retriever.retrieve(question)

    if not retrieval.question:
        emit(REFUSAL)
        verdict = Verdict("", 0.0, False, {}, RefusalReason.EMPTY_QUESTION)
        return Answer("", True, REFUSAL, "extractive", retrieval, refusal_reason=RefusalReason.EMPTY_QUESTION, verdicts=[verdict])
    evidence = find_evidence(retriever, retrieval)

    def refuse(reason: RefusalReason, detail: str | None = None) -> Answer:
        emit(REFUSAL)
        return Answer(retrieval.question, True, REFUSAL, "extractive", retrieval, refusal_reason=reason,
                      refusal_detail=detail, verdicts=evidence.verdicts)

    if not retrieval.gate.passed:
        return refuse(RefusalReason.GATE)
    if not evidence.answerable:
        return refuse(RefusalReason.ANSWERABILITY, evidence.problem)
    fallback = None
    if generator != Generator.EXTRACTIVE:
        try:
            return generated_answer(retriever, retrieval, model, emit, ollama, evidence.verdicts)
        except OllamaUnavailable as err:
            if generator == Generator.OLLAMA:  # asked for by name: no quiet substitute
                raise
            fallback = f"{err}; answered extractively"
    pieces = extractive_text(evidence.quotes, evidence.uncovered)
    for piece in pieces:
        emit(piece)
    return Answer(
        retrieval.question, False, "".join(pieces), "extractive", retrieval, citations_of(evidence.quotes),
        fallback_reason=fallback, verdicts=evidence.verdicts,
    )


def generated_answer(
    retriever: Retriever, retrieval: Retrieval, model: str | None, emit: OnText, host: str | None, verdicts: list[Verdict]
) -> Answer:
    """Ollama's answer, checked claim by claim (guide_tui.ollama_answerer); raises OllamaUnavailable to fall back."""
    try:
        from guide_tui import ollama_answerer
    except ImportError as err:  # a trimmed install: answer extractively, say why
        raise OllamaUnavailable(f"Ollama support is not available ({err})") from err
    if not retrieval.within_cutoff:
        raise OllamaUnavailable("no retrieved chunk is within the cutoff to show Ollama")
    generated = ollama_answerer.generate(
        retrieval, retrieval.question, retriever.index.embedder, model=model, on_text=emit, host=host, chunks=retriever.index.chunks
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
