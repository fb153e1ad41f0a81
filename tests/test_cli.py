"""The command line as a new user meets it: where options go, exit statuses, help texts, messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import CLOSED_OLLAMA

from guide_tui.answers import REFUSAL
from guide_tui.cli import build_parser, main
from guide_tui.retrieval import MAX_QUESTION_CHARS

BAKERY = "When does the Kestrelford bakery sell out?"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- options before the subcommand


def test_an_index_given_before_the_subcommand_is_the_one_used(capsys, tmp_path):
    missing = tmp_path / "nope"
    code, out, err = run_cli(capsys, "--index", str(missing), "ask", BAKERY)
    assert (code, out) == (2, "")
    assert err.startswith(f"guide-tui: no index at {missing}")


def test_a_generator_given_before_the_subcommand_is_the_one_used(capsys, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", CLOSED_OLLAMA)  # "auto" would try it and say so on stderr
    code, out, err = run_cli(capsys, "--generator", "extractive", "ask", "--json", BAKERY)
    assert (code, err) == (0, "")
    assert json.loads(out)["fallback_reason"] is None


def test_the_subcommand_default_applies_when_the_option_is_given_nowhere():
    args = build_parser().parse_args(["eval"])
    from guide_tui.cli import apply_defaults

    apply_defaults(args)
    assert args.generator == "extractive" and args.index.is_dir() and args.model is None


def test_an_option_before_a_subcommand_that_has_no_use_for_it_is_a_usage_error(capsys):
    code, out, err = run_cli(capsys, "--generator", "ollama", "retrieve", BAKERY)
    assert (code, out, err) == (2, "", "guide-tui: --generator does not apply to `guide-tui retrieve`\n")


# ---------------------------------------------------------------- exit statuses


def test_no_question_is_a_usage_error(capsys):
    assert run_cli(capsys, "ask") == (2, "", "guide-tui: give a question, or --from FILE with one question a line\n")


def test_an_unreadable_question_file_is_a_usage_error(capsys, tmp_path):
    code, out, err = run_cli(capsys, "retrieve", "--from", str(tmp_path / "missing.txt"))
    assert (code, out) == (2, "")
    assert err.startswith(f"guide-tui: cannot read questions from {tmp_path / 'missing.txt'}: ")


def test_an_unknown_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["ask", "--nope", BAKERY])
    assert caught.value.code == 2


def test_a_question_cut_short_is_said_to_be_on_stderr(capsys):
    huge = "When does the Kestrelford bakery sell out? " * 100
    for command in ("ask", "retrieve"):
        code, out, err = run_cli(capsys, command, huge)
        assert code == 0 and f"note: Question shortened to its first {MAX_QUESTION_CHARS} characters" in err
        assert "shortened" not in out
    assert "shortened" not in run_cli(capsys, "ask", BAKERY)[2]


def test_answered_and_refused_both_exit_0(capsys):
    assert run_cli(capsys, "ask", "--generator", "extractive", BAKERY)[0] == 0
    code, out, _ = run_cli(capsys, "ask", "--generator", "extractive", "Is there a cinema on the moon?")
    assert (code, out.splitlines()[0]) == (0, REFUSAL)


def test_generator_ollama_is_strict_when_ollama_is_down(capsys, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", CLOSED_OLLAMA)
    assert run_cli(capsys, "ask", "--generator", "ollama", BAKERY) == (1, "", f"guide-tui: Ollama not reachable at {CLOSED_OLLAMA}\n")
    code, out, err = run_cli(capsys, "ask", BAKERY)  # auto, the default: quotes the guides and says why
    assert code == 0 and out.splitlines()[-1].startswith("Sources: ")
    assert err == f"note: Ollama not reachable at {CLOSED_OLLAMA}; answered extractively\n"


def test_an_address_that_is_not_a_url_is_said_to_be_unusable(capsys, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "not a url")
    code, out, err = run_cli(capsys, "ask", "--generator", "ollama", BAKERY)
    assert (code, out) == (1, "")
    assert err.startswith("guide-tui: Ollama address 'not a url' is not usable (not a host name or address")
    assert "not reachable" not in err


def test_an_address_the_ollama_package_cannot_parse_at_import_is_said_to_be_unusable():
    """The ollama package builds a client from OLLAMA_HOST when imported: a port out of range raised there, in a
    fresh process, as a traceback. Now the same one-line note as any unusable address."""
    env = os.environ | {"OLLAMA_HOST": "http://127.0.0.1:99999"}
    done = subprocess.run([sys.executable, "-m", "guide_tui", "ask", BAKERY], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "11am" in done.stdout
    assert done.stderr == "note: Ollama address 'http://127.0.0.1:99999' is not usable (Port out of range 0-65535); answered extractively\n"


# ---------------------------------------------------------------- help and messages


@pytest.mark.parametrize(
    "command, option",
    [("ask", "question"), ("ask", "--generator"), ("eval", "--runs"), ("eval", "--questions"), ("eval", "--generator"),
     ("index", "--corpus"), ("index", "--out"), ("chunks", "--corpus"), ("eval", "--out"), ("retrieve", "question")],
)  # fmt: skip
def test_every_option_has_a_help_text(command, option):
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    action = next(a for a in sub._actions if option in a.option_strings or a.dest == option)
    assert action.help and len(action.help) > 10


def test_help_states_the_exit_statuses(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    assert caught.value.code == 0
    assert "exit status: 0 answered or refused, 1 runtime failure" in " ".join(capsys.readouterr().out.split())


def test_an_empty_question_says_why_it_is_refused(capsys):
    code, out, err = run_cli(capsys, "ask", "")
    assert (code, out) == (0, REFUSAL + "\n")
    assert err == "note: empty question: nothing to look up (ask something about the guides)\n"


def test_paths_are_printed_without_dot_dot(capsys, tmp_path):
    import shutil

    from guide_tui.paths import BUNDLED_CORPUS, BUNDLED_INDEX

    index = tmp_path / "index"
    shutil.copytree(BUNDLED_INDEX, index)
    corpus = tmp_path / "corpus"
    shutil.copytree(BUNDLED_CORPUS, corpus)
    (corpus / "guide_kestrelford.md").write_text("# Kestrelford\n\n## Eat\n\nThe bakery sells out by ten.\n", encoding="utf-8")
    manifest = json.loads((index / "manifest.json").read_text(encoding="utf-8"))
    manifest["corpus"] = "../corpus"
    (index / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    code, _, err = run_cli(capsys, "retrieve", "--index", str(index), BAKERY)
    assert code == 0 and "note: " in err
    assert "/../" not in err and str(corpus) in err
