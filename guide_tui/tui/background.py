"""Blocking work off the screen's loop: daemon threads, and the one call into answering."""

from __future__ import annotations

import asyncio
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

from guide_tui.answering import answer_question
from guide_tui.answers import Answer
from guide_tui.indexes import IndexLoadError, check_built_from, load_index, rebuild_hint, require_cutoff
from guide_tui.retrieval import Retrieval, Retriever
from guide_tui.settings import RetrievalSettings


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


class Prefetcher:
    """The question being typed, encoded by the teacher in one daemon thread (Retriever.prepare), the latest text
    only: the keys are not held up, and Enter finds the question's vector made."""

    def __init__(self) -> None:
        self.latest: tuple[Retriever, str] | None = None
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def offer(self, retriever: Retriever, text: str) -> None:
        """Encode this text next, instead of any text offered before it and not yet begun."""
        self.latest = (retriever, text)
        self.wake.set()
        if self.thread is None:
            self.thread = threading.Thread(target=self.run, name="guide-tui prefetch", daemon=True)
            self.thread.start()

    def run(self) -> None:
        while True:
            self.wake.wait()
            self.wake.clear()
            retriever, text = self.latest
            try:
                retriever.prepare(text)
            except Exception:  # noqa: BLE001 - only a head start: Enter meets the same fault and says so on screen
                pass


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


def run_all(index_dir: Path, settings: RetrievalSettings, questions: list, stop: threading.Event, on_outcome) -> int:
    """Run labelled questions through retrieval and the extractive answerer, judged as `guide-tui eval` judges them,
    in a process of its own at a lower priority (this thread only hands its results on: on_outcome gets each
    EvalOutcome here). A thread of this process would hold the interpreter for tens of milliseconds at a time and
    typing would wait for it. Stops (and ends the process) once `stop` is set; returns how many came back."""
    command = [sys.executable, "-c", "from guide_tui.tui.background import run_all_process; run_all_process()"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # nothing on the app's screen
    done = 0
    try:
        pickle.dump((index_dir, settings, questions), process.stdin)
        process.stdin.close()
        while done < len(questions) and not stop.is_set():
            try:
                found = pickle.load(process.stdout)
            except EOFError:
                raise RuntimeError(f"the run-all process ended early (exit status {process.wait()})") from None
            if isinstance(found, str):  # the process failed and said why
                raise RuntimeError(found)
            on_outcome(found)
            done += 1
        return done
    finally:
        process.kill()
        process.wait()


def run_all_process() -> None:
    """The run-all process: reads (index folder, the knobs in force, questions) from stdin, loads the index afresh and
    writes one EvalOutcome per question to stdout (both pickled: it talks only to the app that started it)."""
    from guide_tui.tui.eval_session import judge

    os.nice(RUN_ALL_NICENESS)
    index_dir, settings, questions = pickle.load(sys.stdin.buffer)
    out = sys.stdout.buffer
    try:
        retriever = Retriever(load_index(index_dir), settings.fusion, settings.cutoff)
        for question in questions:
            answer = answer_question(retriever, question.text, generator="extractive")
            pickle.dump(judge(retriever, question, answer), out)
            out.flush()
    except BrokenPipeError:  # the app stopped the run or has ended
        return
    except Exception as err:  # noqa: BLE001 - the app shows it on its message line
        pickle.dump(f"{type(err).__name__}: {err}", out)
        out.flush()


RUN_ALL_NICENESS = 10
"""How much lower the run-all process's priority is: on a busy machine typing in the app comes first."""
