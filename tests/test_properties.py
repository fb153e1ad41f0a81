"""Property-based: any text at all goes through retrieval and answering without an exception, and the
answer contract holds for each: a refusal is exactly REFUSAL naming no source, an answer quotes its
cited chunks verbatim. Hypothesis generates the text: every Unicode category (control and format
codes, surrogates, unassigned code points), and question words mixed with query syntax, markup and
escapes. Real components throughout: the bundled index, the session `retriever`.
"""

from __future__ import annotations

import io
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from guide_tui.answering import answer_question
from guide_tui.answers import REFUSAL
from guide_tui.chunking import sentences
from guide_tui.ollama_answerer import build_prompt
from guide_tui.questions import load_questions
from guide_tui.report import no_hits_message, retrieval_table
from guide_tui.retrieval import MAX_QUESTION_CHARS, TOP_K

ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=300)  # nothing left out, surrogates included
QUESTION_WORDS = sorted({word for q in load_questions().questions for word in q.text.split()})
ODD_FRAGMENTS = [
    '"', "(", ")", ":", "^", "*", "~", "+", "-", "!", "\\", "{", "}", "[", "]", "AND", "OR", "NOT", "TO", "field:x",
    "text:bakery", "title:Kestrelford^2", "*:*", "~2", "/re.*gex/", "[a TO z]",  # tantivy query syntax
    "[bold red]", "[/]", "[/bold]", "[link=http://evil.example]", "[@click=app.quit]", ":smile:",  # Rich markup
    "\x1b[31m", "\x1b]8;;http://evil.example\x1b\\", "\x1b[2J", "\x00", "\x07", "\t", "\n", "\r", "\x85",  # escapes
    "\u202e", "\u200f", "\u200d", "\ufeff", "\udcff", "🍞", "👨‍👩‍👧", "متى", "שלום", "Bäckerei", "é", "e\u0301",
]
QUESTION_LIKE = st.builds(
    lambda parts, glue: glue.join(parts),
    st.lists(st.sampled_from(QUESTION_WORDS + ODD_FRAGMENTS), max_size=8),
    st.sampled_from([" ", ""]),
)
QUESTIONS = st.one_of(ANY_TEXT, QUESTION_LIKE)
UNSAFE = ("Cc", "Cf", "Cs")  # what a terminal acts on or hides: never in what we show


def unsafe_characters(text: str, keep: str = "") -> list[str]:
    return [ch for ch in text if ch not in keep and unicodedata.category(ch) in UNSAFE]


@settings(max_examples=10_000, deadline=None)
@given(question=QUESTIONS)
def test_any_text_gets_a_refusal_or_verbatim_cited_quotes(retriever, question):
    answer = answer_question(retriever, question, generator="extractive")
    retrieval = answer.retrieval
    assert len(retrieval.hits) <= TOP_K and [h.rank for h in retrieval.hits] == list(range(1, len(retrieval.hits) + 1))
    assert len(retrieval.question) <= MAX_QUESTION_CHARS and unsafe_characters(retrieval.question) == []
    assert answer.question == retrieval.question
    if answer.refused:
        assert answer.text == REFUSAL
        assert answer.citations == [] and answer.sources() == [] and answer.to_json()["citations"] == []
        return
    assert retrieval.gate.passed and answer.citations
    retrieved = {hit.chunk.chunk_id: hit.chunk for hit in retrieval.hits}
    for citation in answer.citations:
        chunk = retrieved[citation.chunk_id]  # only retrieved chunks are cited
        assert (citation.file, citation.section) == (chunk.file, chunk.section)
        assert citation.quote in sentences(chunk.text)  # a whole sentence of the chunk, word for word
        assert citation.quote in answer.text


@settings(max_examples=500, deadline=None)
@given(question=QUESTIONS)
def test_what_the_cli_prints_and_ollama_is_sent_holds_no_control_codes(retriever, question):
    retrieval = retriever.retrieve(question)
    console = Console(file=io.StringIO(), width=80, force_terminal=False, color_system=None)
    console.print(no_hits_message(retrieval) or retrieval_table(retrieval))
    printed = console.file.getvalue()
    assert unsafe_characters(printed, keep="\n") == []
    if retrieval.hits:
        sent = build_prompt(retrieval, question)[-1]["content"]
        assert sent.endswith(f"Question: {retrieval.question}")
        assert unsafe_characters(sent, keep="\n") == []
