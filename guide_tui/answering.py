"""Answers grounded in the guides: the contract shared by the extractive answerer and Ollama.

Every answer either quotes/cites retrieved chunks or is exactly REFUSAL with no
source. `answer_question` is the one entry point the CLI, the app and the eval use.
Its steps, each of which can refuse:
  1. an empty question, or the relevance gate (retrieval) failing: reason "empty question" / "gate";
  2. answerability (extractive.why_unanswerable), for every generator: what the question
     is about must be said by the retrieved sentences, in the guide of the place it names
     (the gate alone lets near misses and false premises through): reason "answerability";
  3. the answerer (answerers.py): Ollama when asked for and reachable (the model may refuse: "model"),
     else the extractive answerer, which quotes the chosen sentences verbatim.
"""

from __future__ import annotations

import threading

from guide_tui.answerability import Verdict
from guide_tui.answerers import answerer_names, first_answer
from guide_tui.answers import REFUSAL, Answer, Asked, OnText, RefusalReason
from guide_tui.extractive import find_evidence
from guide_tui.retrieval import Retrieval, Retriever


def answer_question(
    retriever: Retriever,
    question: str,
    generator: str = "auto",
    model: str | None = None,
    on_text: OnText | None = None,
    ollama: str | None = None,
    retrieval: Retrieval | None = None,
    stop: threading.Event | None = None,
) -> Answer:
    """Retrieve, gate, check answerability, then answer with Ollama or by quoting.

    generator: "extractive", "ollama", or "auto" (Ollama when it answers). When Ollama
    cannot answer (down, slow, model missing, dropped mid-stream), "auto" gives the extractive
    answer and fallback_reason says why; "ollama" raises OllamaUnavailable. `ollama` is the Ollama host URL (default:
    OLLAMA_HOST or http://127.0.0.1:11434). on_text receives pieces of the answer as
    they become available; Answer.text is the final word (a fallback replaces partial
    Ollama text already streamed). `retrieval`: this question's, when the caller has it.
    `stop`: once set, Ollama's stream is closed within a fraction of a second, even while it is
    silent, and errors.GenerationStopped is raised.
    """
    names = answerer_names(generator)
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
    return first_answer(names, Asked(retriever, retrieval, evidence, stop), emit, model, ollama)
