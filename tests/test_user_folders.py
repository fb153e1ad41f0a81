"""Per-user files land in per-user folders, never in the bundled index; --version and doctor say what is where."""

from __future__ import annotations

import tomllib

import pytest
from conftest import CLOSED_OLLAMA, ROOT

from guide_tui.cli import main
from guide_tui.paths import BUNDLED_CORPUS, BUNDLED_INDEX, CHECKOUT, default_index, reports_dir, user_index
from guide_tui.settings import VARIABLES

QUESTION = "When does the Kestrelford bakery sell out?"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_index_without_out_goes_to_the_user_data_folder_and_is_read_from_then_on(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    bundled = {path: path.read_bytes() for path in BUNDLED_INDEX.rglob("*") if path.is_file()}
    assert default_index() == BUNDLED_INDEX

    code, out, _ = run(capsys, "index")
    assert code == 0
    own = tmp_path / "data" / "guide-tui" / "index"
    assert f"-> {own}" in out and (own / "manifest.json").is_file()
    assert {path: path.read_bytes() for path in BUNDLED_INDEX.rglob("*") if path.is_file()} == bundled  # untouched
    assert user_index() == own and default_index() == own

    code, out, _ = run(capsys, "retrieve", "--json", QUESTION)
    assert code == 0 and "guide_kestrelford.md" in out
    (own / "chunks.jsonl").write_text("damaged\n", encoding="utf-8")  # read by default: its damage shows, it is not skipped
    code, _, err = run(capsys, "retrieve", QUESTION)
    assert code == 2 and f"{own}/chunks.jsonl does not match the manifest" in err


def test_eval_reports_go_to_results_in_a_checkout():
    assert CHECKOUT == ROOT and reports_dir() == ROOT / "results"
    assert BUNDLED_CORPUS == ROOT / "corpus"


def test_version_is_the_project_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert done.value.code == 0 and capsys.readouterr().out == f"guide-tui {project['version']}\n"


def test_doctor_names_every_folder_and_finds_ollama(fake_ollama, capsys):
    code, out, _ = run(capsys, "doctor")
    assert code == 0
    assert f"index      {BUNDLED_INDEX} (the bundled one)" in out
    assert "ok: 14 guides, 84 chunks, cutoff 0.4795" in out
    assert f"guides     {BUNDLED_CORPUS} (what the index was built from)" in out
    assert f"{user_index()} (`guide-tui index` without --out; read by default once it exists: not built yet)" in out
    assert f"reports    {ROOT / 'results'}" in out
    environment = out.split("\nenvironment\n")[1].split("\nlibraries\n")[0].splitlines()
    assert f"  OLLAMA_HOST{' ' * 26}{fake_ollama.url!r}" in environment
    assert [line.split()[0] for line in environment] == [variable.name for variable in VARIABLES]  # every one, in one list
    assert "tantivy 0." in out and "model2vec 0." in out
    assert out.rstrip().endswith(f"Ollama 0.9.0 at {fake_ollama.url}, model llama3.2")


def test_doctor_reports_an_unusable_index_and_a_silent_ollama_and_still_exits_0(ollama_down, tmp_path, capsys):
    code, out, err = run(capsys, "doctor", "--index", str(tmp_path / "nowhere"))
    assert code == 0 and err == ""
    assert f"NOT USABLE: no index at {tmp_path / 'nowhere'}; rebuild it with" in out
    assert out.rstrip().endswith(f"Ollama not reachable at {CLOSED_OLLAMA}; answers come from the built-in extractive answerer")
