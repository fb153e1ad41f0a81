"""Blocking work off the screen's loop: daemon threads, and the one call into answering."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from guide_tui.answering import answer_question
from guide_tui.answers import Answer
from guide_tui.indexes import IndexLoadError, check_built_from, load_index, rebuild_hint, require_cutoff
from guide_tui.retrieval import Retrieval, Retriever


async def in_daemon_thread(func, *args):
    """Run blocking work in a daemon thread and await its result.

    Not Textual's thread workers: those run in the loop's executor, which the
    interpreter joins at exit, so quitting would wait for an Ollama read that may
    block for a minute. A daemon thread is simply dropped when the app ends.
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(outcome: str, value) -> None:
        if not future.done():  # the worker was cancelled (a newer question, or quitting)
            getattr(future, outcome)(value)

    def run() -> None:
        try:
            outcome = ("set_result", func(*args))
        except Exception as err:
            outcome = ("set_exception", err)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the app has ended and its loop is closed: nobody is waiting
            pass

    threading.Thread(target=run, name=f"guide-tui {getattr(func, '__name__', 'work')}", daemon=True).start()
    return await future


def answer_with(
    retriever: Retriever, retrieval: Retrieval, generator: str, model: str | None, on_text, stop: threading.Event
) -> Answer:
    """The one call into answering (kept here so the widgets never see an answerer), with the
    retrieval already on screen, so the question is not retrieved a second time."""
    return answer_question(
        retriever, retrieval.question, generator=generator, model=model, on_text=on_text, retrieval=retrieval, stop=stop
    )


WARM_UP_QUESTION = "When does the Kestrelford bakery sell out?"


def warm_up(retriever: Retriever) -> None:
    """One retrieval and one extractive answer while the index loads, so the first real question
    does not pay the one-time costs (caches, first calls into the libraries) between Enter and the table."""
    try:
        answer_question(retriever, WARM_UP_QUESTION, generator="extractive")
    except Exception:  # noqa: BLE001 - a real question meets the same fault and says so on screen
        pass


def open_retriever(index_dir: Path, corpus_dir: Path | None, gate: bool) -> Retriever:
    """The index, checked against --corpus first when given, and its retriever, warmed up (runs in the loading
    thread). Anything that goes wrong is an IndexLoadError: the app shows its screen, it does not crash."""
    try:
        if corpus_dir is not None:
            check_built_from(index_dir, corpus_dir)
        index = load_index(index_dir)
        if gate:
            require_cutoff(index, index_dir)
        retriever = Retriever(index)
        warm_up(retriever)
    except IndexLoadError:
        raise
    except Exception as err:  # noqa: BLE001 - whatever else breaks on load gets the same screen
        raise IndexLoadError(f"unexpected error while opening {index_dir}: {err}; {rebuild_hint(index_dir)}") from err
    return retriever
