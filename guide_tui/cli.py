"""`guide-tui`: the app with no arguments; subcommands show the same numbers in plain text."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from guide_tui.answers import GENERATORS
from guide_tui.corpus import Corpus
from guide_tui.errors import OllamaUnavailable
from guide_tui.indexes import IndexLoadError
from guide_tui.inspection import LOOK_PAST
from guide_tui.paths import BUNDLED_CORPUS, default_index, inside_installed_package, reports_dir, user_index
from guide_tui.retrieval import TOP_K
from guide_tui.settings import KNOBS, SettingsError, checked_knob, chosen_knobs, knob_flag


class UsageError(Exception):
    """The command line cannot be run as given (exit status 2, like argparse's own errors)."""


class VersionAction(argparse.Action):
    """--version: looked up only when asked (reading the package metadata costs every other command time)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version and exit", **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from guide_tui.doctor import installed_version

        print(f"guide-tui {installed_version()}")
        parser.exit()


SHARED_DEFAULTS = {"index": None, "built_from": None, "gate": True, "generator": None, "model": None}
"""Options accepted before the subcommand and after it: given in either place, they count."""


def add_shared_option(parser: argparse.ArgumentParser, *names: str, **kwargs) -> None:
    """An option whose default is filled in after parsing (apply_defaults): an argparse default on the
    subcommand would overwrite the same option given before the subcommand."""
    action = parser.add_argument(*names, default=argparse.SUPPRESS, **kwargs)
    parser.set_defaults(shared_options=parser.get_default("shared_options") | {action.dest})


def add_index_option(parser: argparse.ArgumentParser) -> None:
    add_shared_option(
        parser, "--index", type=Path, metavar="DIR",
        help=f"index folder (default: yours at {user_index()} once `guide-tui index` has built it, else the bundled one)",
    )  # fmt: skip


def refuse_installed_package(folder: Path, what: str) -> None:
    """Nothing is written into an installed guide-tui: an upgrade or reinstall would replace it silently."""
    if inside_installed_package(folder):
        raise IndexLoadError(f"{folder} is inside the installed guide-tui package, which is never written to; {what}")


def add_built_from_option(parser: argparse.ArgumentParser) -> None:
    add_shared_option(
        parser, "--corpus", dest="built_from", type=Path, metavar="DIR",
        help="check that the index was built from the guides in DIR (refuses an index of other guides)",
    )  # fmt: skip


def add_no_gate_option(parser: argparse.ArgumentParser) -> None:
    add_shared_option(
        parser, "--no-gate", dest="gate", action="store_false",
        help="use an index that was never calibrated: no cutoff, so every question passes the relevance gate",
    )  # fmt: skip


def add_generator_options(parser: argparse.ArgumentParser, default: str) -> None:
    add_shared_option(
        parser, "--generator", choices=GENERATORS,
        help=f"who writes the answer: ollama (fails when Ollama cannot answer), extractive (quotes the guides), "
        f"or auto (Ollama when it answers, else quotes; says why on stderr) (default: {default})",
    )  # fmt: skip
    add_shared_option(parser, "--model", help="Ollama model (default: GUIDE_TUI_OLLAMA_MODEL or llama3.2)")
    parser.set_defaults(generator_default=default)


def apply_defaults(args: argparse.Namespace) -> None:
    """Fill in the shared options not given anywhere; refuse one given before a subcommand that has no use for it."""
    accepted = args.shared_options
    for name, default in SHARED_DEFAULTS.items():
        if name not in accepted:
            if hasattr(args, name):
                flag = {"built_from": "--corpus", "gate": "--no-gate"}.get(name, f"--{name}")
                raise UsageError(f"{flag} does not apply to `guide-tui {args.command}`")
            continue
        if not hasattr(args, name):
            setattr(args, name, default)
    if "index" in accepted and args.index is None:
        args.index = default_index()
    if "generator" in accepted and getattr(args, "generator", None) is None:
        args.generator = args.generator_default


def check_corpus_option(args: argparse.Namespace) -> None:
    """--corpus DIR: stop, with the rebuild command, when the index holds other guides than DIR's."""
    from guide_tui.indexes import check_built_from

    if args.built_from is not None:
        check_built_from(args.index, args.built_from)


def knob_value(name: str):
    """argparse's type for a knob's flag: a number within the knob's bounds (settings.KNOBS), else a usage error."""

    def parse(text: str) -> float | int:
        try:
            return checked_knob(name, float(text))
        except ValueError as err:  # SettingsError is one
            raise argparse.ArgumentTypeError(str(err) if isinstance(err, SettingsError) else f"{name} must be a number, not {text!r}") from err

    parse.__name__ = name  # argparse names the type in its message
    return parse


def add_knob_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("retrieval knobs", "each overrides the value the app saved in settings.json (Ctrl+S there)")
    for knob in KNOBS:
        what = "the relevance cutoff (default: the index's calibrated one)" if knob.name == "cutoff" else f"FusionSettings.{knob.name}"
        group.add_argument(
            knob_flag(knob.name), dest=f"knob_{knob.name}", type=knob_value(knob.name), metavar="N",
            help=f"{what}, {knob.low:g} to {knob.high:g}",
        )  # fmt: skip


def read_questions(args: argparse.Namespace) -> list[str]:
    """Questions from the command line and/or --from FILE (one a line; blank lines skipped)."""
    questions = list(args.question)
    if args.from_file:
        try:
            text = sys.stdin.read() if str(args.from_file) == "-" else Path(args.from_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise UsageError(f"cannot read questions from {args.from_file}: {err}") from err
        questions += [line for line in text.splitlines() if line.strip()]
    if not questions:
        raise UsageError("give a question, or --from FILE with one question a line")
    return questions


def print_corpus_warnings(corpus: Corpus) -> None:
    for problem in corpus.problems:
        print(f"warning: {problem}", file=sys.stderr)


def cmd_chunks(args: argparse.Namespace) -> int:
    from guide_tui.chunking import check_chunks, chunk_corpus, chunk_stats
    from guide_tui.corpus import load_corpus

    corpus = load_corpus(args.corpus)
    print_corpus_warnings(corpus)
    chunks = chunk_corpus(corpus)
    print(chunk_stats(chunks))
    failures = check_chunks(chunks)
    for failure in failures:
        print(f"check failed: {failure}")
    if not failures:
        print(f"check passed: all {len(chunks)} chunks start with their title line, end at a sentence end, have a body, unique ids")
    return 1 if failures else 0


def cmd_index(args: argparse.Namespace) -> int:
    from rich.progress import Progress, ProgressColumn
    from rich.text import Text

    from guide_tui.calibration import calibration_record
    from guide_tui.embedding import Embedder
    from guide_tui.indexes import BUILD_STEPS, build_index
    from guide_tui.questions import load_questions

    class ChunkRate(ProgressColumn):
        """Chunks per second, while a step counts chunks (a long build's embedding and analysis)."""

        def render(self, task) -> Text:
            return Text(f"{task.speed:,.0f} chunks/s" if task.speed and task.total != BUILD_STEPS else "")

    refuse_installed_package(args.out, f"build your own index with `guide-tui index` (it goes to {user_index()}) or choose another --out")
    try:  # read first: a build that cannot be calibrated is not swapped in
        question_set = load_questions()
    except (OSError, ValueError) as err:
        print(
            f"guide-tui: cannot read the labelled questions, so no cutoff can be calibrated: {err}; nothing was built ({args.out} is as it was)",
            file=sys.stderr,
        )
        return 1
    embedder = Embedder()  # one model load for the build and the calibration inside it
    with Progress(*Progress.get_default_columns(), ChunkRate(), transient=True) as progress:
        task = progress.add_task("indexing", total=None)  # build_index reports its step count, or chunks within a step

        def report(step: str, done: int, total: int) -> None:
            if step != progress.tasks[task].description:
                progress.reset(task)  # a new step: its own count and rate
            progress.update(task, description=step, completed=done, total=total)

        manifest, corpus = build_index(
            args.corpus, args.out, embedder=embedder, progress=report, with_teacher=args.teacher,
            calibrate=lambda folder: calibration_record(folder, question_set, embedder),
        )
    print_corpus_warnings(corpus)
    counts = manifest["counts"]
    print(f"indexed {counts['guides']} guides: {counts['chunks']} chunks, {counts['sentences']} sentence vectors -> {args.out}")
    cutoff = manifest["cutoff"]
    if cutoff is None:
        print(
            "guide-tui: built without a cutoff (the labelled questions hold no in-corpus one to calibrate on); "
            "ask, retrieve and the app refuse it unless given --no-gate",
            file=sys.stderr,
        )
        return 1
    print(f"cutoff {cutoff['value']:.4f} (calibrated on the labelled questions; details: guide-tui calibrate --index {args.out})")
    return 0


def cmd_retrieve(args: argparse.Namespace) -> int:
    from guide_tui.report import print_retrievals

    check_corpus_option(args)
    if args.k < 1:
        raise UsageError("--k must be at least 1")
    return print_retrievals(
        args.index, read_questions(args), as_json=args.json, gate=args.gate, k=args.k, why=args.why, markdown=args.markdown,
        settings=chosen_knobs(args).settings,
    )  # fmt: skip


def cmd_calibrate(args: argparse.Namespace) -> int:
    from guide_tui.calibration import run_calibrate

    if not args.dry_run:
        refuse_installed_package(args.index, "`guide-tui index` builds and calibrates your own index; `guide-tui calibrate --dry-run` shows the cutoff")
    return run_calibrate(args.index, write=not args.dry_run)


def cmd_ask(args: argparse.Namespace) -> int:
    from guide_tui.report import print_answers

    check_corpus_option(args)
    return print_answers(
        args.index,
        read_questions(args),
        as_json=args.json,
        generator=args.generator,
        model=args.model,
        show_prompt=args.show_prompt,
        gate=args.gate,
        markdown=args.markdown,
        settings=chosen_knobs(args).settings,
    )


def cmd_eval(args: argparse.Namespace) -> int:
    from guide_tui.evaluation import run_eval

    return run_eval(args)


def cmd_doctor(args: argparse.Namespace) -> int:
    from guide_tui.doctor import print_report

    print_report(args.index, args.model)
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    from guide_tui.tui import run_app

    return run_app(index_dir=args.index, generator=args.generator, model=args.model, corpus_dir=args.built_from, gate=args.gate)


def add_command(sub, name: str, func, helptext: str) -> argparse.ArgumentParser:
    command = sub.add_parser(name, help=helptext, description=helptext)
    command.set_defaults(func=func, shared_options=frozenset())
    return command


def add_question_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("question", nargs="*", help='one or more questions, each in quotes: "When does the bakery open?"')
    command.add_argument("--from", dest="from_file", type=Path, metavar="FILE", help="read one question a line ('-' for stdin)")
    output = command.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON object per question")
    output.add_argument("--markdown", action="store_true", help="each question's table (and answer) as Markdown, to paste into a note or issue")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="guide-tui", description=__doc__,
        epilog="exit status: 0 answered or refused, 1 runtime failure (e.g. Ollama asked for and not answering), 2 usage error",
    )  # fmt: skip
    parser.add_argument("--version", action=VersionAction)
    parser.set_defaults(func=cmd_app, command="", shared_options=frozenset())
    add_index_option(parser)
    add_built_from_option(parser)
    add_no_gate_option(parser)
    add_generator_options(parser, default="auto")
    sub = parser.add_subparsers(dest="command")

    chunks = add_command(sub, "chunks", cmd_chunks, "chunk a folder of guides and check every chunk")
    chunks.add_argument("--corpus", type=Path, default=BUNDLED_CORPUS, metavar="DIR", help="folder of guides (default: the bundled ones)")

    index = add_command(sub, "index", cmd_index, "build the vector and keyword indexes for a folder of guides")
    index.add_argument("--corpus", type=Path, default=BUNDLED_CORPUS, metavar="DIR", help="folder of guides to index (default: the bundled ones)")
    index.add_argument(
        "--out", type=Path, default=user_index(), metavar="DIR",
        help="folder to write the index to (default: %(default)s, which guide-tui then reads by default)",
    )  # fmt: skip
    index.add_argument(
        "--no-teacher", dest="teacher", action="store_false",
        help="leave out the teacher model's sentence vectors (faster to build; retrieval and answers use the static model only)",
    )

    for name, func, helptext in (
        ("retrieve", cmd_retrieve, "show the top chunks (5, or --k) and every number behind their order"),
        ("ask", cmd_ask, "answer from the guides, with sources"),
    ):
        command = add_command(sub, name, func, helptext)
        add_question_options(command)
        add_index_option(command)
        add_built_from_option(command)
        add_no_gate_option(command)
        add_knob_options(command)
    retrieve = sub.choices["retrieve"]
    retrieve.add_argument(
        "--k", type=int, default=TOP_K, metavar="N", help=f"show the top N chunks (default: {TOP_K}; {LOOK_PAST} looks past what the answer is given)"
    )
    retrieve.add_argument(
        "--why", action="store_true",
        help="under the table, each row's fused score in its weighted parts, the question's terms it holds and its best sentence",
    )  # fmt: skip
    ask = sub.choices["ask"]
    add_generator_options(ask, default="auto")
    ask.add_argument("--show-prompt", action="store_true", help="print the prompt exactly as sent to Ollama")

    calibrate = add_command(sub, "calibrate", cmd_calibrate, "set the relevance cutoff from the labelled questions")
    add_index_option(calibrate)
    calibrate.add_argument("--dry-run", action="store_true", help="print the report without writing the cutoff")

    evaluate = add_command(sub, "eval", cmd_eval, "run the labelled questions end to end and write a report")
    add_index_option(evaluate)
    evaluate.add_argument(
        "--questions", type=Path, default=None, metavar="FILE",
        help="labelled questions (.toml, default: the bundled ones) or a traveller question file (.jsonl)",
    )  # fmt: skip
    evaluate.add_argument(
        "--runs", type=int, default=1, metavar="N", help="run every question N times; the report gives each run and all runs pooled (default: 1)"
    )
    add_generator_options(evaluate, default="extractive")
    evaluate.add_argument("--compare", type=Path, default=None, metavar="FILE", help="an earlier report to compare against")
    evaluate.add_argument("--out", type=Path, default=None, metavar="DIR", help=f"folder for the report (default: {reports_dir()})")
    add_knob_options(evaluate)

    doctor = add_command(sub, "doctor", cmd_doctor, "where every file is read from and written to, library versions, whether Ollama answers")
    add_index_option(doctor)
    add_shared_option(doctor, "--model", help="Ollama model to look for (default: GUIDE_TUI_OLLAMA_MODEL or llama3.2)")
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line with every default filled in (UsageError for an option in the wrong place)."""
    args = build_parser().parse_args(argv)
    apply_defaults(args)
    return args


def main(argv: list[str] | None = None) -> int:
    from guide_tui.corpus import CorpusError
    from guide_tui.embedding import ModelError

    try:
        args = parse_args(argv)
        return args.func(args) or 0
    except (IndexLoadError, CorpusError, ModelError, UsageError) as err:
        print(f"guide-tui: {err}", file=sys.stderr)
        return 2
    except OllamaUnavailable as err:  # --generator ollama, and Ollama did not answer
        print(f"guide-tui: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
