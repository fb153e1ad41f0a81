"""The Textual app's coordinator: it runs the workers (index, Ollama, answers) and hands what they find to the screen.

Widgets own what they show (widgets/), the main screen lays them out (screens.py). Blocking work
runs in daemon threads awaited by Textual workers (background.py), so a slow or dead Ollama never
freezes the screen, delays the first paint or holds up quitting. Retrieval itself takes about a
millisecond and runs on the spot, so the table is filled before the answer starts.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from textual import events, on, work
from textual.app import App
from textual.css.query import NoMatches
from textual.widgets import Input

from guide_tui.answers import Answer
from guide_tui.indexes import IndexLoadError, LoadedIndex
from guide_tui.inspection import LOOK_PAST
from guide_tui.paths import default_index
from guide_tui.questions import Question, load_questions
from guide_tui.report import question_markdown, save_export
from guide_tui.retrieval import TOP_K, Retrieval, Retriever, shortened_note
from guide_tui.settings import EXIT_AFTER, RetrievalSettings, SettingsFile, environment
from guide_tui.tui import background
from guide_tui.tui.commands import KEYS, PALETTE_ONLY, GuideCommands, KnobCommands, ModelChoice, ModelCommands, QuestionCommands
from guide_tui.tui.eval_session import EvalOutcome, EvalSession, RunAll
from guide_tui.tui.ollama_status import Clock, Stream, connected, probe_ollama
from guide_tui.tui.results_screen import ResultsScreen
from guide_tui.tui.screens import IndexErrorScreen, MainScreen
from guide_tui.tui.terminal import terminal_hung_up
from guide_tui.tui.tuning import RESCORE_DELAY, Tuning, moved, to_save
from guide_tui.tui.widgets import AnswerPanel, EvalBar, HitsTable, KnobsLine, StatusLine, TuningPanel
from guide_tui.tui.widgets.knobs_line import delta_content

MAIN_SCREEN_ACTIONS = ({binding.action.split("(")[0] for binding in KEYS} | {action for _, action in PALETTE_ONLY}) - {"quit", "stop", "run_all", "results"}
"""The keys that act on the main screen: over the results view they would act unseen."""
EXIT_AFTER_ENV = EXIT_AFTER.name  # "paint" or "ready": exit once there, for the start-up benchmark


class GuideApp(App):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere (benchmark, tests) find it too
    TITLE = "guide-tui"
    COMMANDS = App.COMMANDS | {GuideCommands, KnobCommands, ModelCommands, QuestionCommands}
    BINDINGS = KEYS

    def __init__(
        self,
        index_dir: Path | None = None,
        generator: str = "auto",
        model: str | None = None,
        questions: list[Question] | None = None,
        built_label: str | None = None,
        retriever: Retriever | None = None,
        corpus_dir: Path | None = None,
        gate: bool = True,
        settings: SettingsFile | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        """Tests may pass a loaded retriever (no load at start), fewer questions, and a fixed built_label
        in place of the index's build time (the status line stays the same run to run).
        corpus_dir (--corpus): the index must have been built from that folder's guides.
        gate=False (--no-gate): an index never calibrated opens, with no cutoff.
        settings: where the picked model and the saved knobs are kept (default: settings.json in the user's config
        folder); model (--model) and GUIDE_TUI_OLLAMA_MODEL win over the model saved there. clock: what the status line's seconds are read from."""
        super().__init__()
        self.settings = settings or SettingsFile.default()
        self.gate = gate
        self.index_dir = Path(index_dir or (retriever.index.folder if retriever else default_index()))
        self.corpus_dir = corpus_dir
        self.generator = generator
        self.model = model  # --model, or the model picked in the palette
        self.remembered_model = self.settings.saved_model()  # picked in an earlier run
        self.saved_knobs, self.knobs_warning = self.settings.saved_retrieval()  # the retrieval knobs saved with Ctrl+S
        self.tuning: Tuning | None = None  # the knobs' baseline and re-scores, made at first need
        self.rescore_cancel = threading.Event()  # set: the re-score running in its thread stops (a newer knob move)
        self.rescore_pending = False  # a re-score is waiting for the knobs to rest, or running
        self.asked_text: str | None = None  # the question the table shows, re-asked at every knob move
        self.start_retriever: Retriever | None = None
        self.questions = questions
        self.index: LoadedIndex | None = None
        self.retriever: Retriever | None = None
        self.preloaded = retriever
        self.pending_question: str | None = None
        self.index_error: IndexLoadError | None = None
        self.run_id = 0
        self.answer_stop = threading.Event()  # set: the answering thread closes its Ollama stream
        self.prefetcher = background.Prefetcher()  # the question being typed, encoded before Enter
        self.exit_after = environment().exit_after
        self.terminal_fd: int | None = None  # run_app sets it: the app quits when that terminal hangs up
        self.status = StatusLine(self.index_dir, generator, built_label, clock, id="status")

    def get_default_screen(self) -> MainScreen:
        return MainScreen(self.status)

    @property
    def main(self) -> MainScreen:
        return self.screen_stack[0]

    @property
    def stream(self) -> Stream | None:
        """The answer Ollama may be writing now (Esc stops it)."""
        return self.status.stream

    @property
    def eval(self) -> EvalSession | None:
        return self.main.query_one("#eval", EvalBar).session

    def on_resize(self, event: events.Resize) -> None:
        if self.screen_stack:
            self.main.fit_layout(event.size.width, event.size.height)

    def started(self) -> None:
        """The main screen is up: load the index (or show the one given), then ask Ollama, keep the status line ticking."""
        if self.preloaded is not None:
            self.index_ready(self.preloaded)
            self.probe_worker()
        else:
            self.load_index_worker()
        self.set_interval(1.0, self.status.tick)
        if self.terminal_fd is not None:
            # Textual's input thread spins on a hung-up terminal when a wrapper (make) took the hang-up
            # signal: without this, closing the window left a process using a whole core.
            self.set_interval(1.0, self.quit_if_terminal_hung_up)
        if self.exit_after == "paint":
            self.call_after_refresh(self.exit)

    def quit_if_terminal_hung_up(self) -> None:
        if self.terminal_fd is not None and terminal_hung_up(self.terminal_fd):
            self.exit()

    @work(group="startup")
    async def load_index_worker(self) -> None:
        """The index, then the Ollama probe: the probe's imports (httpx, ollama, pydantic: ~0.5 s of CPU) hold the
        interpreter lock the loading thread needs, and the index is what a first question waits for."""
        try:
            retriever = await background.in_daemon_thread(background.open_retriever, self.index_dir, self.corpus_dir, self.gate)
        except IndexLoadError as err:
            self.index_failed(err)
        else:
            self.index_ready(retriever)
        self.probe_worker()  # not when the app stopped this worker (it is quitting)

    def index_failed(self, err: IndexLoadError) -> None:
        self.index_error = err
        self.push_screen(IndexErrorScreen(err, self.index_dir))
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Without an index only quitting makes sense: the other keys leave the footer. Over the results view the main
        screen's keys do nothing (they would act unseen)."""
        if action == "stop":
            return self.stream is not None or self.running_all is not None
        if self.results_screen() is not None and action in MAIN_SCREEN_ACTIONS:
            return False
        return action == "quit" or self.index_error is None

    def index_ready(self, retriever: Retriever) -> None:
        self.index, self.retriever = retriever.index, retriever.tuned(self.saved_knobs)
        self.start_retriever = self.retriever  # the knobs' baseline: the settings the app started with
        self.status.index, self.status.cutoff = self.index, self.retriever.cutoff
        notes = [f"note: {note}" for note in self.index.notes] + ([f"warning: {self.knobs_warning}"] if self.knobs_warning else [])
        if notes:
            self.say(" · ".join(notes), "warning")
        if self.saved_knobs != RetrievalSettings():  # saved knobs are in force: say which
            self.show_knobs()
        if self.pending_question is not None:
            question, self.pending_question = self.pending_question, None
            self.ask(question)
        if self.exit_after == "ready":
            self.call_after_refresh(self.exit)

    @work(group="startup")
    async def probe_worker(self) -> None:
        self.status.ollama = await background.in_daemon_thread(probe_ollama, self.generator, self.ollama_model())

    def say(self, message: str, kind: str = "info") -> None:
        self.main.say(message, kind)

    def refresh_status(self) -> None:
        self.status.redraw()

    @on(Input.Changed, "#question")
    def question_changed(self, event: Input.Changed) -> None:
        if self.retriever is not None and event.value.strip() and event.value != self.asked_text:  # not a question just asked
            self.prefetcher.offer(self.retriever, event.value)

    @on(Input.Submitted, "#question")
    def question_submitted(self, event: Input.Submitted) -> None:
        self.ask(event.value)

    def ask(self, text: str) -> None:
        """Run one question: the table fills as soon as retrieval is done, then the answer streams in."""
        if not text.strip():
            self.say("Type a question first: an empty question is not searched.", "warning")
            return
        if self.retriever is None:
            self.pending_question = text
            self.say("Loading the index… the question runs as soon as it is ready.")
            return
        self.asked_text = text
        self.say(shortened_note(text) or "")
        self.answer_stop.set()  # a stale stream would hold up this answer: Ollama answers one request at a time
        self.answer_stop = threading.Event()
        self.run_id += 1
        retrieval = self.retriever.retrieve(text)  # which cleans it (retrieval.question is the cleaned text)
        self.main.show_retrieval(retrieval, self.wider(retrieval))
        # the answer panel and its thread wait for the table to be on screen: they would slow that paint down
        self.call_after_refresh(self.answer_worker, retrieval, self.run_id, self.answer_stop)

    @work(exclusive=True, group="answer")
    async def answer_worker(self, retrieval: Retrieval, run_id: int, stop: threading.Event) -> None:
        read_as = "; ".join(retrieval.reading_notes) or None
        self.main.query_one("#answer", AnswerPanel).begin(retrieval.question, self.status.answerer_label(), read_as)
        eval_bar = self.main.query_one("#eval", EvalBar)
        eval_bar.show(None, labelled=eval_bar.question_for(retrieval.question) is not None)
        loop = asyncio.get_running_loop()
        if self.generator != "extractive" and retrieval.gate.passed:  # Ollama may write it: count its pieces
            self.status.start_stream()
            self.refresh_bindings()

        def on_text(piece: str) -> None:  # called in the answering thread; never waits for the screen
            loop.call_soon_threadsafe(self.show_piece, run_id, piece)

        try:
            answer = await background.in_daemon_thread(
                background.answer_with, self.retriever, retrieval, self.generator, self.ollama_model(), on_text, stop
            )
        except Exception as err:  # an answerer failure must not take the screen down: say it instead
            self.answer_failed(run_id, err)
            return
        self.show_answer(run_id, answer)

    def show_piece(self, run_id: int, piece: str) -> None:
        if run_id == self.run_id:
            if self.stream is not None:
                self.stream.add_piece()
                if self.stream.pieces == 1:  # "waiting for the first token" ends now, not at the next tick
                    self.refresh_status()
            try:
                self.main.query_one("#answer", AnswerPanel).add_text(piece)
            except NoMatches:  # quitting mid-answer: the screen has gone, and pieces already sent still arrive
                self.answer_stop.set()

    def end_stream(self, outcome: str) -> None:
        self.status.end_stream(outcome)
        self.refresh_bindings()

    def action_stop(self) -> None:
        """Stop the answer being generated (its HTTP stream is closed at once), else a run over all questions."""
        if self.stream is None:
            if self.running_all is not None:
                self.stop_run_all()
            return
        self.answer_stop.set()  # the stream is closed within a tenth of a second, even while Ollama is silent
        self.run_id += 1  # the answer, should it still come, is not shown
        self.main.query_one("#answer", AnswerPanel).stopped()
        self.end_stream("stopped (Esc) mid-answer")

    def show_answer(self, run_id: int, answer: Answer) -> None:
        if run_id != self.run_id:
            return
        streamed = self.stream is not None
        self.status.answer_ended(answer)
        if streamed:  # Esc (stop) leaves the footer; a footer rebuilt after every extractive answer would cost a frame
            self.refresh_bindings()
        self.main.query_one("#answer", AnswerPanel).finish(answer)
        self.main.query_one("#eval", EvalBar).record(self.retriever, answer)
        self.main.show_answer(answer)

    def answer_failed(self, run_id: int, err: Exception) -> None:
        if run_id == self.run_id:
            self.end_stream(f"failed: {err}")
            self.say(f"the answer failed: {err}", "error")
            self.main.query_one("#answer", AnswerPanel).failed(err)

    def ollama_model(self) -> str | None:
        """--model or the model picked now, else GUIDE_TUI_OLLAMA_MODEL (read each time), else the one picked in an earlier run."""
        return self.model or environment().ollama_model or self.remembered_model

    def use_model(self, choice: ModelChoice) -> None:
        """Answer with the picked model from the next question on, and remember it for the next run."""
        if choice.model is None:
            self.say(choice.title.removeprefix("Model: ") + ". " + choice.help + ".", "warning")
            return
        self.model = choice.model
        self.status.ollama = connected(choice.model)  # it is in Ollama's list this moment
        problem = self.settings.remember(model=choice.model)
        self.say(f"Answers now come from {choice.model}; " + (problem or f"remembered in {self.settings.path}"), "warning" if problem else "info")

    # ------------------------------------------------------------ the knobs

    def action_knob(self, name: str, steps: int) -> None:
        """Move a retrieval knob (Alt+Up/Down: the cutoff, Alt+Right/Left: the vector weight); the table re-ranks at once."""
        self.move_knob(name, steps)

    def move_knob(self, name: str, steps: int) -> None:
        """One knob `steps` steps (settings.KNOBS), then re-rank, re-answer and (in the background) re-score."""
        if self.retriever is None or self.index is None:
            self.say("The index is still loading: the knobs move once it is ready.", "warning")
            return
        settings = moved(self.retriever.settings, self.index.cutoff, name, steps)
        if isinstance(settings, str):
            self.say(settings, "warning")
            return
        self.use_knobs(settings)

    def restore_knobs(self) -> None:
        """Every knob back to the saved settings (or the defaults)."""
        if self.retriever is not None:
            self.use_knobs(self.saved_knobs)

    def use_knobs(self, settings: RetrievalSettings) -> None:
        """Retrieve with these settings from now on: the current question is re-ranked and re-answered at once,
        the labelled questions re-scored once the knobs rest (an older re-score stops)."""
        self.retriever = self.retriever.tuned(settings)
        self.status.cutoff = self.retriever.cutoff
        self.refresh_status()
        self.rescore_cancel.set()
        self.rescore_pending = True
        self.rescore_worker()
        self.show_knobs()
        if self.asked_text is not None:
            self.ask(self.asked_text)
        if self.eval is not None:  # outcomes run with the old knobs leave the tally (the results view marks them)
            self.eval.knobs = self.retriever.knobs
            if self.running_all is not None:  # it would go on with the old knobs, every outcome stale on arrival
                self.stop_run_all(": the knobs moved (Ctrl+R runs all with the new ones).")  # after ask, which clears the line
            self.show_tally()

    def knob_tuning(self) -> Tuning:
        if self.tuning is None:
            self.tuning = Tuning(self.start_retriever, self.labelled_questions())
        return self.tuning

    @work(exclusive=True, group="rescore")
    async def rescore_worker(self, delay: float = RESCORE_DELAY) -> None:
        """The labelled questions scored with the knobs in force, in a daemon thread, once they have rested for
        `delay` seconds (a newer move cancels this worker while it waits, and stops its thread)."""
        await asyncio.sleep(delay)
        cancel = self.rescore_cancel = threading.Event()
        tuning, retriever = self.knob_tuning(), self.retriever
        try:
            scores = await background.in_daemon_thread(tuning.rescore, retriever, cancel)
        except Exception as err:  # a failure must not leave the line saying it is re-scoring, nor take the screen down
            self.rescore_pending = False
            self.say(f"re-scoring the labelled questions failed: {err}", "error")
            scores = None
        if scores is not None and scores.settings == self.retriever.settings:  # else a newer move's worker is on its way
            tuning.latest, self.rescore_pending = scores, False
        self.show_knobs()

    def show_knobs(self) -> None:
        """The knobs line (and the tuning panel, when open) for the knobs in force and the latest scores."""
        if self.retriever is None or self.index is None:
            return
        tuning = self.knob_tuning()  # the labelled questions are read once, here
        baseline, latest = tuning.baseline, tuning.latest
        fresh = next((s for s in (latest, baseline) if s is not None and s.settings == self.retriever.settings), None)
        shown = fresh or latest or baseline  # an older re-score stays on screen, marked, until the new one is in
        delta = delta_content(baseline, shown, len(tuning.questions), scoring=self.rescore_pending)
        self.main.query_one("#knobs", KnobsLine).show(self.retriever.settings, self.saved_knobs, self.index.cutoff, delta)
        if self.main.query_one("#main").has_class("-tuning"):
            self.main.query_one("#tuning", TuningPanel).show(baseline, shown, self.retriever.cutoff, len(tuning.questions))

    def action_toggle_tuning(self) -> None:
        """Show or hide the tuning panel: the labelled questions the knobs changed, and their best distances around the cutoff."""
        if self.retriever is None:
            return
        if self.main.toggle_tuning():
            if self.knob_tuning().baseline is None and not self.rescore_pending:
                self.rescore_pending = True
                self.rescore_worker(delay=0)
            self.show_knobs()

    def action_save_knobs(self) -> None:
        """Save the knobs in settings.json: `guide-tui ask`, `retrieve`, `eval` and the next start use them."""
        if self.retriever is None or self.index is None:
            return
        saving = to_save(self.retriever.settings, self.index.cutoff)
        problem = self.settings.remember(retrieval=saving.to_json())
        if problem:
            self.say(problem, "error")
            return
        self.saved_knobs = saving
        self.show_knobs()
        self.say(f"Knobs saved in {self.settings.path}: guide-tui ask, retrieve and eval use them too (a flag such as --cutoff wins).")

    def labelled_questions(self) -> list[Question]:
        """The questions eval stepping goes through: the session's once it started, else those given to the app,
        else the bundled labelled ones."""
        if self.eval is not None:
            return self.eval.questions
        return load_questions().questions if self.questions is None else self.questions

    def eval_session(self) -> EvalSession:
        """The labelled questions' session, started (and the eval line shown) the first time it is needed."""
        session = self.main.query_one("#eval", EvalBar).open(self.labelled_questions)
        session.knobs = self.retriever.knobs if self.retriever is not None else None
        return session

    def step_eval(self, position: int) -> None:
        question = self.main.query_one("#eval", EvalBar).step(position, self.labelled_questions)
        if question is None:
            self.say("There are no labelled questions to step through.", "warning")
            return
        field = self.main.query_one("#question", Input)
        field.value = question.text
        field.cursor_position = len(question.text)  # typing goes on at its end, not where the last question's cursor was
        self.ask(question.text)
        following = self.eval.questions[self.eval.position + 1 : self.eval.position + 2]
        if following and self.retriever is not None:  # F4 is the likeliest next key: its question is encoded meanwhile
            self.prefetcher.offer(self.retriever, following[0].text)
        if self.eval.position != position:  # kept within the list: F3 on the first, F4 on the last; said why nothing moved
            self.say(f"This is the {'first' if position < 0 else 'last'} of the {len(self.eval.questions)} labelled questions.")

    def open_question(self, question_id: str) -> bool:
        """Go to the labelled question with this id and ask it (eval stepping goes on from there); False when there is none."""
        position = next((n for n, q in enumerate(self.labelled_questions()) if q.id == question_id), None)
        if position is None:
            self.say(f"There is no labelled question {question_id!r}.", "warning")
            return False
        self.step_eval(position)
        return True

    def action_first_question(self) -> None:
        """Jump to the first labelled question."""
        self.step_eval(0)

    def action_next_question(self) -> None:
        """Step to the next labelled question (starts eval stepping)."""
        self.step_eval(self.eval.position + 1 if self.eval else 0)

    def action_previous_question(self) -> None:
        """Step back to the previous labelled question."""
        self.step_eval(self.eval.position - 1 if self.eval else 0)

    def action_rerun(self) -> None:
        """Ask the question in the input again."""
        self.ask(self.main.query_one("#question", Input).value)

    def action_toggle_detail(self) -> None:
        """Show or hide why the selected row ranks there, with its chunk's full text."""
        if not self.main.query_one("#detail").shown and self.main.query_one("#hits", HitsTable).hit_at_cursor() is None:  # nothing to explain
            self.say("No row to explain yet: ask a question, then F6 (or Enter on a row) shows why it ranks there.", "warning")
            return
        self.main.toggle_detail()

    def wider(self, retrieval: Retrieval) -> Retrieval | None:
        """The question's top LOOK_PAST for the table when it looks past the top 5 (F7), else None. Only the table
        shows it: the answer is given `retrieval`, the top 5, whose hits are its first five."""
        if not self.main.query_one("#hits", HitsTable).look_past or not retrieval.question:
            return None
        return self.retriever.retrieve(retrieval.question, k=LOOK_PAST)

    def action_look_past(self) -> None:
        """Look past the top 5: the table shows the top 20 chunks, or the top 5 again (the answer is given the top 5 either way)."""
        table = self.main.query_one("#hits", HitsTable)
        table.look_past = not table.look_past
        if table.retrieval is not None:
            self.main.show_retrieval(table.retrieval, self.wider(table.retrieval))
        if table.look_past:
            self.say(f"Top {LOOK_PAST} shown; rows {TOP_K + 1}-{LOOK_PAST} are below the line: the answer gets the top {TOP_K} only.")
        else:
            self.say(f"Top {TOP_K} shown; F7 looks past them, to the top {LOOK_PAST}.")

    def action_export_markdown(self) -> None:
        """Export this question as Markdown: the table with why each row ranks there, and the answer, to a file in the current folder."""
        table = self.main.query_one("#hits", HitsTable)
        if table.retrieval is None or self.retriever is None:
            self.say("Nothing to export yet: ask a question first.", "warning")
            return
        markdown = question_markdown(self.retriever, table.shown, table.answer, why=True)
        try:
            path = save_export(markdown, table.retrieval.question)
        except OSError as err:  # a read-only or deleted folder
            self.say(f"Could not export the question: {err.strerror or err} ({err.filename or 'the current folder'})", "error")
            return
        self.say(f"Exported to {path}" + ("" if table.answer else " (the table only: the answer has not come yet)"))

    def open_kind(self, kind: str) -> bool:
        """Go to the first labelled question of this kind (answerable, near_miss, off_topic) and ask it."""
        first = next((q for q in self.labelled_questions() if q.kind == kind), None)
        if first is None:
            self.say(f"There is no labelled question of kind {kind!r}.", "warning")
            return False
        return self.open_question(first.id)

    def action_next_miss(self) -> None:
        """Go to the next labelled question whose last outcome was not right."""
        self.step_to_miss(1)

    def action_previous_miss(self) -> None:
        """Go to the previous labelled question whose last outcome was not right."""
        self.step_to_miss(-1)

    def step_to_miss(self, direction: int) -> None:
        session = self.eval_session()
        position, was = session.next_miss(direction), session.position
        if position is None:
            self.say(session.no_miss_message(), "warning")
            return
        self.step_eval(position)
        if position == was:  # going round came back to the question shown: no other miss
            self.say("This is the only miss so far.")

    # ---------------------------------------------------------------- run all and the results view

    @property
    def running_all(self) -> RunAll | None:
        return self.eval.run_all if self.eval is not None else None

    def action_run_all(self) -> None:
        """Run every labelled question in the background (extractive answerer), with a live tally; again stops it."""
        if self.running_all is not None:
            self.stop_run_all()
            return
        if self.retriever is None:
            self.say("Loading the index… run all once it is ready.", "warning")
            return
        session = self.eval_session()
        if not session.questions:
            self.say("There are no labelled questions to run.", "warning")
            return
        session.run_all = RunAll(len(session.questions))
        self.say(f"Running all {len(session.questions)} labelled questions with the extractive answerer (Ctrl+R or Esc stops)…")
        self.show_tally()  # not refresh_bindings: a new footer (Esc, Stop) held the next key 200-300 ms on a busy machine
        self.run_all_worker(session.run_all, list(session.questions))

    @work(group="run_all")
    async def run_all_worker(self, run: RunAll, questions: list[Question]) -> None:
        loop = asyncio.get_running_loop()

        def on_outcome(outcome: EvalOutcome) -> None:  # in the run's thread
            try:
                loop.call_soon_threadsafe(self.run_all_step, run, outcome)
            except RuntimeError:  # the app has ended and its loop is closed
                run.stop.set()

        try:
            await background.in_daemon_thread(background.run_all, self.index.folder, self.retriever.settings, questions, run.stop, on_outcome)
        except Exception as err:  # a failure must not take the screen down: say it instead
            if self.run_goes_on(run):
                self.end_run_all(f"run all failed after {run.done} questions: {err}", "error")
            return
        if self.run_goes_on(run):
            misses = len(self.eval.misses())
            self.end_run_all(
                f"Ran all {run.done} labelled questions in {time.perf_counter() - run.started:.1f} s: {run.done - misses} right, {misses} not right"
                + (" (F8 / F9 go to them, F10 lists them)." if misses else ".")
            )

    def run_goes_on(self, run: RunAll) -> bool:
        """Whether a run's news still belongs on screen: not once it was stopped, replaced, or its screen has gone (quitting)."""
        if run.stop.is_set():
            return False
        try:
            return self.running_all is run
        except NoMatches:  # the app is closing: the main screen's widgets are being removed
            run.stop.set()
            return False

    def run_all_step(self, run: RunAll, outcome: EvalOutcome) -> None:
        """One question of a run came back (on the screen's loop): keep its outcome and move the tally on."""
        if not self.run_goes_on(run):
            return
        self.eval.outcomes[outcome.question.id] = outcome
        run.done += 1
        self.show_tally()

    def show_tally(self) -> None:
        """The tally on the eval line, and the results view's rows when it is open."""
        self.main.query_one("#eval", EvalBar).redraw()
        if (results := self.results_screen()) is not None:
            results.fill()

    def stop_run_all(self, why: str = " (their outcomes are kept).") -> None:
        run = self.running_all
        run.stop.set()
        self.end_run_all(f"Run all stopped after {run.done} of {run.total} questions{why}", "warning")

    def end_run_all(self, message: str, kind: str = "info") -> None:
        self.eval.run_all = None
        self.say(message, kind)
        self.show_tally()

    def results_screen(self) -> ResultsScreen | None:
        return next((screen for screen in self.screen_stack if isinstance(screen, ResultsScreen)), None)

    def action_results(self) -> None:
        """Open (or close) the results view: every labelled question's failure class, filterable; Enter opens one."""
        if self.results_screen() is not None:
            self.pop_screen()
            return
        self.push_screen(ResultsScreen(self.eval_session()))
        self.refresh_bindings()
