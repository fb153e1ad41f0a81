"""The command palette (Ctrl+P): the app's actions by name, and the Ollama model picker."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

from textual import command
from textual.binding import Binding
from textual.content import Content

from guide_tui.questions import KINDS
from guide_tui.tui.background import in_daemon_thread

KEYS = [  # short descriptions: the footer keeps every key at 80 columns
    Binding("f2", "first_question", "First q", tooltip="First eval question"),
    Binding("f3", "previous_question", "Prev q", tooltip="Previous eval question"),
    Binding("f4", "next_question", "Next q", tooltip="Next eval question"),
    Binding("f5", "rerun", "Re-run", tooltip="Re-run the question"),
    Binding("f6", "toggle_detail", "Chunk", tooltip="Chunk detail: why this rank"),
    Binding("f7", "look_past", "Top 20", tooltip="Top 5 / top 20 chunks", show=False),  # no room left at 80 columns beside Esc
    Binding("f8", "next_miss", "Next miss", tooltip="Next eval miss", show=False),  # nor for these four: they are in the palette,
    Binding("f9", "previous_miss", "Prev miss", tooltip="Previous eval miss", show=False),  # the README and the eval line's hint
    Binding("f10", "results", "Results", tooltip="Eval results view", show=False),
    Binding("ctrl+r", "run_all", "Run all", tooltip="Run all eval questions", show=False),
    Binding("escape", "stop", "Stop", tooltip="Stop the answer being generated, or run all"),
    # the knobs: off the footer (it must fit 80 columns), listed in the palette by their tooltips
    Binding("alt+up", "knob('cutoff', 1)", "Cutoff+", tooltip="Cutoff up one step (+0.005)", show=False, priority=True),
    Binding("alt+down", "knob('cutoff', -1)", "Cutoff-", tooltip="Cutoff down one step (-0.005)", show=False, priority=True),
    Binding("alt+right", "knob('vector_weight', 1)", "Vector+", tooltip="Vector weight up, keyword down (0.05)", show=False, priority=True),
    Binding("alt+left", "knob('vector_weight', -1)", "Vector-", tooltip="Vector weight down, keyword up (0.05)", show=False, priority=True),
    Binding("ctrl+t", "toggle_tuning", "Tuning", tooltip="Tuning panel: changed questions and the distance histogram", show=False),
    Binding("ctrl+s", "save_knobs", "Save", tooltip="Save these settings (ask, retrieve and eval use them too)", show=False),
    Binding("ctrl+q", "quit", "Quit", priority=True),
]
"""The app's keys: the footer shows them, the palette lists them by their tooltips."""

PALETTE_ONLY = [("Export this question as Markdown", "export_markdown")]
"""Actions without a key: the palette lists them by these titles."""


@dataclass(frozen=True)
class ModelChoice:
    """One entry of the model picker: a model Ollama has, or (model None) why there is none to pick."""

    title: str
    help: str
    model: str | None = None


def model_choices(generator: str, model: str | None) -> list[ModelChoice]:
    """Ollama's models (its /api/tags) for the palette, the one in use marked; a single entry saying why when there are none."""
    if generator == "extractive":
        return [ModelChoice("Model: none to pick (--generator extractive does not use Ollama)", "Start without --generator extractive to use Ollama")]
    from guide_tui.errors import OllamaUnavailable
    from guide_tui.ollama_answerer import model_names, resolve_model

    try:
        names = model_names()
    except OllamaUnavailable as err:
        return [ModelChoice(f"Model: none to pick ({err.reason})", "Start Ollama (ollama serve), then open the palette again")]
    if not names:
        return [ModelChoice("Model: none to pick (Ollama has no models)", "Pull one first: ollama pull llama3.2")]
    in_use = resolve_model(model)
    return [
        ModelChoice(f"Model: {name}{' (in use)' if name in (in_use, f'{in_use}:latest') else ''}", f"Answer with {name} from now on (remembered)", name)
        for name in names
    ]


class ListedCommands(command.Provider):
    """A fixed list of palette entries, each (title, what it runs, help), shown whole and matched by title."""

    def entries(self) -> list[tuple[str, Callable, str]]:
        raise NotImplementedError

    async def discover(self) -> command.Hits:
        for title, run, help in self.entries():
            yield command.DiscoveryHit(title, run, help=help)

    async def search(self, query: str) -> command.Hits:
        matcher = self.matcher(query)
        for title, run, help in self.entries():
            score = matcher.match(title)
            if score > 0:
                yield command.Hit(score, matcher.highlight(title), run, help=help)


def keyed_title(binding: Binding) -> str:
    """A key's palette entry: what it does, then the key itself, so the palette also teaches the keys ("Next eval miss · F8")."""
    return f"{binding.tooltip or binding.description} · {' / '.join(key_name(key) for key in binding.key.split(','))}"


def key_name(key: str) -> str:
    """"ctrl+r" -> "Ctrl+R", "f10" -> "F10", a bare "c" stays "c" (a capital would ask for Shift)."""
    *modifiers, last = key.strip().split("+")
    return "+".join([m.capitalize() for m in modifiers] + [last.capitalize() if len(last) > 1 or modifiers else last])


class GuideCommands(ListedCommands):
    """The app's own actions in the command palette (Ctrl+P): the same list as the footer's bindings."""

    def entries(self) -> list[tuple[str, Callable, str]]:
        keyed = [(keyed_title(binding), binding.action) for binding in self.app.BINDINGS if binding.action != "quit"]
        return [(title, runner(self.app, action), action_help(type(self.app), action)) for title, action in keyed + PALETTE_ONLY]



class ScreenCommands(ListedCommands):
    """A screen's own keys in the palette, by their tooltips (the results view's filters and its Markdown export)."""

    def entries(self) -> list[tuple[str, Callable, str]]:
        keys = type(self.screen).BINDINGS
        screen = self.screen
        return [(keyed_title(binding), runner(screen, binding.action), action_help(type(screen), binding.action)) for binding in keys]



class KnobCommands(ListedCommands):
    """The knobs without a key of their own (the bonuses, the teacher's weight and let-in margin), a step up or down each, and a way back."""

    def entries(self) -> list[tuple[str, Callable, str]]:
        from guide_tui.settings import KNOB_BY_NAME

        if self.app.results_screen() is not None:  # over the results view a knob would act unseen, as the knob keys would
            return []
        entries = []
        for name, about in (
            ("region_bonus", "added to region-wide guides' chunks when the question names no town"),
            ("asked_value_bonus", "added to chunks holding the kind of value asked for"),
            ("teacher_weight", "the second stage's weight"),
            ("teacher_let_in", "how near the best row's teacher cosine a row beyond the cutoff is let in (about the town asked, or a list's)"),
        ):
            knob = KNOB_BY_NAME[name]
            title = name.replace("_", " ").capitalize()
            for sign, steps in (("+", 1), ("-", -1)):
                entries.append((f"{title} {sign}{knob.step:g}", partial(self.app.move_knob, name, steps), f"{about}; re-ranks now"))
        entries.append(("Knobs back to the saved settings", self.app.restore_knobs, "every knob as settings.json has it (or the defaults)"))
        return entries


class ModelCommands(ListedCommands):
    """The model picker: Ollama's models, asked for when the palette opens (so never a stale list)."""

    async def startup(self) -> None:
        self.choices = await in_daemon_thread(model_choices, self.app.generator, self.app.ollama_model())

    def entries(self) -> list[tuple[str, Callable, str]]:
        return [(choice.title, partial(self.app.use_model, choice), choice.help) for choice in self.choices]


def runner(target, action: str) -> Callable:
    """A palette entry's callback: run `action` on the app or screen that owns the key."""

    async def run() -> None:
        await target.run_action(action)

    return run


def action_help(app_class: type, action: str) -> str:
    return (getattr(app_class, f"action_{action.split('(')[0]}").__doc__ or "").strip()


class QuestionCommands(ListedCommands):
    """The labelled questions in the palette: each by its id, kind and text, and the first question of each kind."""

    async def startup(self) -> None:
        self.questions = self.app.labelled_questions()

    async def discover(self) -> command.Hits:  # only the kinds until something is typed: the questions would bury the actions
        for title, run, help in self.kind_entries(self.questions):
            yield command.DiscoveryHit(title, run, help=help)

    async def search(self, query: str) -> command.Hits:
        """Every entry holding each typed word (case ignored), the words highlighted. Not the fuzzy matcher: over 124
        long titles it takes seconds a key, and it would read "[answerable]" in a title as markup."""
        words = query.casefold().split()
        for title, run, help in self.entries():
            folded = title.casefold()
            starts = [folded.find(word) for word in words]
            if not words or min(starts) < 0:
                continue
            shown = Content(title)
            for start, word in zip(starts, words):
                shown = shown.stylize(self.match_style or "reverse", start, start + len(word))
            yield command.Hit(sum(map(len, words)) / len(title), shown, run, help=help)

    def kind_entries(self, questions: list) -> list[tuple[str, Callable, str]]:
        kinds = [kind for kind in KINDS if any(q.kind == kind for q in questions)]
        return [
            (f"Questions of kind {kind}", partial(self.app.open_kind, kind), f"Go to the first of the {sum(q.kind == kind for q in questions)}")
            for kind in kinds
        ]

    def entries(self) -> list[tuple[str, Callable, str]]:
        questions = self.questions
        return self.kind_entries(questions) + [
            (f"Question {q.id} [{q.kind}]: {q.text}", partial(self.app.open_question, q.id), "Open this labelled question and ask it") for q in questions
        ]
