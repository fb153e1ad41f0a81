"""The built wheel, installed in a fresh virtual environment outside the checkout, works as a tool.

One build and one install per run (dependencies from PyPI, through pip's cache), then
every command a new user tries, each from a folder that is neither the checkout nor the venv,
with its own per-user folders. `make test` (and so .ci/run) runs it; `-m "not slow"` leaves it out.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import CLOSED_OLLAMA, ROOT, USER_FOLDERS
from terminal import Terminal

pytestmark = pytest.mark.slow

BAKERY = "When does the Kestrelford bakery sell out?"


def clone_of_checkout(folder: Path) -> Path:
    """What a clone of this worktree holds (tracked and new files, as they are now): the wheel is built from
    there, so the checkout gets no build/ folder and no stale file from an earlier build reaches the wheel."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    scratch = tmp_path_factory.mktemp("wheel")
    source = clone_of_checkout(scratch / "clone")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--wheel-dir", str(scratch / "dist"), str(source)], check=True)
    (wheel,) = (scratch / "dist").glob("guide_tui-*.whl")
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)  # this pip installs into it
    # --no-compile: byte-compiling every dependency at install is over a third of the install's time;
    # the commands below compile only what they import
    subprocess.run([*pip, "--python", str(venv / "bin" / "python"), "install", "--no-compile", str(wheel)], check=True)
    where = "import guide_tui, pathlib; print(pathlib.Path(guide_tui.__file__).parent)"
    package = Path(run(venv / "bin" / "python", "-c", where, cwd=scratch).stdout.strip())  # not from the checkout's folder
    return {"wheel": wheel, "venv": venv, "bin": venv / "bin", "package": package}


@pytest.fixture
def elsewhere(tmp_path) -> tuple[Path, dict]:
    """A working folder away from the checkout, and an environment with fresh per-user folders and no Ollama."""
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "VIRTUAL_ENV", "GUIDE_TUI_MODEL")}
    env |= {name: str(tmp_path / name.lower()) for name in USER_FOLDERS} | {"OLLAMA_HOST": CLOSED_OLLAMA}
    (tmp_path / "work").mkdir()
    return tmp_path / "work", env


def run(*command, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=120, **kwargs)


def folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def test_the_wheel_carries_the_whole_index_and_corpus_and_the_venv_has_no_torch(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for folder in ("index", "corpus"):
        shipped = {name.removeprefix(f"guide_tui/bundled/{folder}/") for name in names if name.startswith(f"guide_tui/bundled/{folder}/")}
        assert shipped == {path.relative_to(ROOT / folder).as_posix() for path in (ROOT / folder).rglob("*") if path.is_file()}
    assert {"guide_tui/questions.toml", "guide_tui/tui/app.tcss", "guide_tui/paths.py"} <= names
    probe = run(installed["bin"] / "python", "-c", "import importlib.util as u; print(u.find_spec('torch'), u.find_spec('transformers'))")
    assert probe.stdout.strip() == "None None"


def test_the_installed_tool_answers_from_another_folder(installed, elsewhere):
    cwd, env = elsewhere
    asked = run(installed["bin"] / "guide-tui", "ask", BAKERY, cwd=cwd, env=env)
    assert asked.returncode == 0, asked.stderr
    assert "11am" in asked.stdout and "Sources: guide_kestrelford.md" in asked.stdout
    retrieved = run(installed["bin"] / "guide-tui", "retrieve", "--json", BAKERY, cwd=cwd, env=env)
    assert retrieved.returncode == 0, retrieved.stderr
    assert json.loads(retrieved.stdout)["retrieved"][0]["file"] == "guide_kestrelford.md"


def test_index_without_out_lands_in_the_user_data_folder_and_the_package_is_never_written(installed, elsewhere):
    cwd, env = elsewhere
    guide_tui = installed["bin"] / "guide-tui"
    bundled = installed["package"] / "bundled" / "index"
    before = folder_digest(installed["package"] / "bundled")
    corpus = shutil.copytree(installed["package"] / "bundled" / "corpus", cwd / "guides")

    refused = run(guide_tui, "calibrate", cwd=cwd, env=env)  # no index of the user's yet: the default is the bundled one
    assert refused.returncode == 2 and refused.stderr.strip() == (
        f"guide-tui: {bundled} is inside the installed guide-tui package, which is never written to; "
        "`guide-tui index` builds and calibrates your own index; `guide-tui calibrate --dry-run` shows the cutoff"
    )
    assert run(guide_tui, "index", "--out", bundled, cwd=cwd, env=env).returncode == 2

    built = run(guide_tui, "index", "--corpus", corpus, cwd=cwd, env=env)
    own = Path(env["XDG_DATA_HOME"]) / "guide-tui" / "index"
    assert built.returncode == 0, built.stderr
    assert f"-> {own}" in built.stdout and (own / "manifest.json").is_file()
    assert folder_digest(installed["package"] / "bundled") == before
    doctor = run(guide_tui, "doctor", cwd=cwd, env=env)
    assert f"index      {own} (yours, built by `guide-tui index`)" in doctor.stdout
    assert f"guides     {corpus}" in doctor.stdout
    asked = run(guide_tui, "ask", BAKERY, cwd=cwd, env=env)
    assert asked.returncode == 0 and "11am" in asked.stdout


def test_doctor_names_the_installed_package_and_the_user_folders(installed, elsewhere):
    cwd, env = elsewhere
    doctor = run(installed["bin"] / "guide-tui", "doctor", cwd=cwd, env=env)
    assert doctor.returncode == 0 and doctor.stderr == ""
    package = installed["package"]
    assert f"running from the installed package {package}" in doctor.stdout
    assert f"index      {package / 'bundled' / 'index'} (the bundled one)" in doctor.stdout
    assert "ok: 14 guides, 84 chunks, cutoff 0.4795" in doctor.stdout
    assert f"guides     {package / 'bundled' / 'corpus'} (what the index was built from)" in doctor.stdout
    assert f"reports    {env['XDG_STATE_HOME']}/guide-tui/eval" in doctor.stdout
    assert f"settings   {env['XDG_CONFIG_HOME']}/guide-tui" in doctor.stdout
    assert f"Ollama not reachable at {CLOSED_OLLAMA}" in doctor.stdout
    version = run(installed["bin"] / "guide-tui", "--version", cwd=cwd, env=env)
    assert re.fullmatch(r"guide-tui \d+\.\d+\.\d+\n", version.stdout)


def test_the_installed_app_opens_on_the_bundled_index(installed, elsewhere, monkeypatch):
    cwd, env = elsewhere
    monkeypatch.chdir(cwd)  # Terminal starts the app in the current folder
    terminal = Terminal([str(installed["bin"] / "guide-tui")], env | {"GUIDE_TUI_EXIT_AFTER": "ready"})
    assert terminal.wait(timeout=60) == 0  # "ready" exits only once the index is loaded and shown
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", bytes(terminal.output).decode("utf-8", "replace"))
    assert "84 chunks" in screen and "cutoff 0.4795" in screen
