"""The model picker in the command palette: Ollama's /api/tags from the real fake server, the choice
used for the next answer, shown in the status line and remembered in settings.json across runs."""

from __future__ import annotations

import json

import pytest
from conftest import settle, text_of
from textual.command import CommandList
from textual.widgets import Input

from guide_tui.settings import SettingsFile
from guide_tui.tui.app import GuideApp

SIZE = (120, 40)
SMALL_MODEL = "qwen2.5:0.5b"

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_ollama(ollama_down):
    """Ollama is down unless a test starts the fake server (which overrides OLLAMA_HOST)."""


@pytest.fixture
def settings(tmp_path) -> SettingsFile:
    return SettingsFile(tmp_path / "config" / "settings.json")


async def model_entries(pilot, query: str = "Model") -> list[str]:
    """Open the palette, type query, and read the model picker's entries once its provider has asked Ollama."""
    await settle(pilot)
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*query)
    entries: list[str] = []
    for _ in range(100):
        await pilot.pause(0.05)
        options = pilot.app.screen.query_one(CommandList)
        entries = [str(options.get_option_at_index(n).prompt) for n in range(options.option_count)]
        if any("Model:" in entry for entry in entries):
            break
    return entries


async def test_the_palette_lists_ollamas_models_and_the_pick_answers_the_next_question(retriever, fake_ollama, settings):
    from fake_ollama import QUESTION

    fake_ollama.models.append(SMALL_MODEL)
    app = GuideApp(generator="auto", retriever=retriever, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        entries = await model_entries(pilot)
        assert any("Model: llama3.2:latest (in use)" in entry for entry in entries), entries
        assert any(f"Model: {SMALL_MODEL}" in entry and "in use" not in entry for entry in entries), entries
        await pilot.press(*" qwen")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert f"connected, model {SMALL_MODEL}" in text_of(app, "#status")
        assert f"Answers now come from {SMALL_MODEL}; remembered in {settings.path}" in text_of(app, "#message")
        assert json.loads(settings.path.read_text())["model"] == SMALL_MODEL
        app.query_one("#question", Input).value = QUESTION
        await pilot.press("enter")
        await settle(pilot)
        assert fake_ollama.requests[-1]["model"] == SMALL_MODEL
        assert f"answered by ollama:{SMALL_MODEL}" in text_of(app, "#answer-text")


async def test_the_picked_model_is_used_on_the_next_run_unless_model_or_the_variable_says_otherwise(
    retriever, fake_ollama, settings, monkeypatch
):
    fake_ollama.models.append(SMALL_MODEL)
    assert settings.remember(model=SMALL_MODEL) is None
    app = GuideApp(generator="auto", retriever=retriever, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert f"connected, model {SMALL_MODEL}" in text_of(app, "#status")
        assert any(f"Model: {SMALL_MODEL} (in use)" in entry for entry in await model_entries(pilot))
    assert GuideApp(generator="auto", retriever=retriever, settings=settings, model="llama3.2").ollama_model() == "llama3.2"
    monkeypatch.setenv("GUIDE_TUI_OLLAMA_MODEL", "llama3.2")
    assert GuideApp(generator="auto", retriever=retriever, settings=settings).ollama_model() == "llama3.2"


async def test_with_ollama_down_the_palette_entry_says_so_and_nothing_changes(retriever, settings):
    app = GuideApp(generator="auto", retriever=retriever, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        entries = await model_entries(pilot)
        assert entries and "Model: none to pick (Ollama not reachable at http://127.0.0.1:9)" in entries[0], entries
        await pilot.press("enter")
        await settle(pilot)
        assert "none to pick (Ollama not reachable at http://127.0.0.1:9). Start Ollama" in text_of(app, "#message")
        assert app.ollama_model() is None and not settings.path.exists()
        assert app.is_running


async def test_with_the_extractive_generator_the_picker_says_ollama_is_not_used(retriever, fake_ollama, settings):
    app = GuideApp(generator="extractive", retriever=retriever, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        entries = await model_entries(pilot)
        assert entries and "does not use Ollama" in entries[0], entries


def test_a_damaged_settings_file_means_nothing_was_picked_and_saving_replaces_it(settings):
    settings.path.parent.mkdir(parents=True)
    settings.path.write_text("{not json")
    assert settings.saved_model() is None
    assert settings.remember(model=SMALL_MODEL) is None
    assert settings.saved_model() == SMALL_MODEL


def test_an_unwritable_settings_folder_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    reason = SettingsFile(blocker / "settings.json").remember(model=SMALL_MODEL)
    assert reason is not None and reason.startswith(f"could not save {blocker / 'settings.json'}")
