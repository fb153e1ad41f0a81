"""The retrieval knobs: saved in settings.json and read by ask/retrieve/eval and the app, moved live in the app
(the table re-ranks, the labelled questions are re-scored in the background and shown as Δ), the tuning panel."""

from __future__ import annotations

import json
import re
import threading

import pytest
from conftest import from_the_palette, settle, text_of, wait_for
from textual.widgets import Input, OptionList

from guide_tui.answering import answer_question
from guide_tui.calibration import histogram
from guide_tui.cli import main
from guide_tui.evaluation import compute_criteria, expected_rank, phrase_in_answer, run_questions
from guide_tui.questions import load_questions
from guide_tui.retrieval import Retriever
from guide_tui.settings import KNOB_BY_NAME, FusionSettings, RetrievalSettings, SettingsError, SettingsFile
from guide_tui.tui.app import GuideApp
from guide_tui.tui.tuning import moved, score_questions, to_save
from guide_tui.tui.widgets import HitsTable
from guide_tui.tui.widgets.tuning_panel import PANEL_BIN

SIZE = (120, 40)
BAKERY = "When does the Kestrelford bakery sell out?"
CROSSING = "When does the bakery sell out?"  # some of its top 5 are beyond the cutoff, some within

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_ollama(ollama_down):
    """Ollama is down: the app answers extractively."""


@pytest.fixture
def config(tmp_path, monkeypatch) -> SettingsFile:
    """This test's own config folder, for the app and the CLI alike (never the session's, which other tests read)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return SettingsFile.default()


def some_questions(step: int = 6):
    """Every step-th labelled question: all three kinds, few enough for a quick re-score."""
    questions = load_questions().questions[::step]
    assert {q.kind for q in questions} == {"answerable", "near_miss", "off_topic"}
    return questions


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def ask(pilot, question: str) -> None:
    pilot.app.query_one("#question", Input).value = question
    await pilot.press("enter")
    await settle(pilot)


def cutoff_row(app) -> str:
    table = app.query_one("#hits", HitsTable)
    return str(table.get_row("cutoff")[1])


def fused_scores(app) -> list[float]:
    return [hit.fused_score for hit in app.query_one("#hits", HitsTable).hits.values()]


# ---------------------------------------------------------------- settings


def test_retrieval_settings_round_trip_and_refuse_bad_values():
    settings = RetrievalSettings(FusionSettings(vector_weight=0.55, teacher_pool=12), cutoff=0.45)
    assert RetrievalSettings.from_json(settings.to_json()) == settings
    assert RetrievalSettings.from_json({}) == RetrievalSettings()
    assert RetrievalSettings.from_json({"cutoff": None, "region_bonus": 0.2}) == RetrievalSettings(FusionSettings(region_bonus=0.2))
    for bad, said in (
        ({"vector_weight": 1.5}, "vector_weight 1.5 is out of range (0 to 1)"),
        ({"cutoff": -0.1}, "cutoff -0.1 is out of range"),
        ({"teacher_pool": 2.5}, "teacher_pool must be a whole number"),
        ({"region_bonus": "0.1"}, "region_bonus must be a number"),
        ({"asked_value_bonus": True}, "must be a number"),
        ({"vector_wieght": 0.5}, "unknown retrieval setting 'vector_wieght'"),
        ([0.5], "must be an object"),
    ):
        with pytest.raises(SettingsError, match=re.escape(said)):
            RetrievalSettings.from_json(bad)


def test_a_damaged_or_out_of_range_settings_file_gives_one_warning_and_the_defaults(tmp_path):
    file = SettingsFile(tmp_path / "settings.json")
    assert file.saved_retrieval() == (RetrievalSettings(), None)  # never saved: no warning
    file.path.write_text('{"model": "m", "retrieval": {"cutoff": 0.3, "vector_weight": 7}}', encoding="utf-8")
    settings, warning = file.saved_retrieval()
    assert settings == RetrievalSettings()  # the whole tuning, not half of it
    assert warning == f"{file.path}: vector_weight 7 is out of range (0 to 1); using the default retrieval settings"
    assert file.saved_model() == "m"  # the model picked is still used
    file.path.write_text('{"retrieval": {"cutoff": 0.3', encoding="utf-8")
    settings, warning = file.saved_retrieval()
    assert settings == RetrievalSettings() and warning.startswith(f"{file.path} cannot be read (") and "\n" not in warning


def test_a_knob_moves_by_its_step_within_its_bounds(retriever):
    cutoff = retriever.index.cutoff
    assert moved(RetrievalSettings(), cutoff, "cutoff", 1).cutoff == round(cutoff + 0.005, 4)
    assert moved(RetrievalSettings(), cutoff, "vector_weight", -2).fusion.vector_weight == 0.6
    top = RetrievalSettings(FusionSettings(vector_weight=1.0))
    assert moved(top, cutoff, "vector_weight", 1) == "The vector knob is at its highest value, 1."
    assert moved(RetrievalSettings(FusionSettings(region_bonus=0.02)), cutoff, "region_bonus", -1).fusion.region_bonus == 0.0
    assert "no cutoff to move" in moved(RetrievalSettings(), None, "cutoff", 1)
    assert to_save(RetrievalSettings(cutoff=cutoff), cutoff) == RetrievalSettings()  # the calibrated one follows a recalibration
    assert KNOB_BY_NAME["cutoff"].step == 0.005


def test_a_retriever_given_a_cutoff_gates_with_it_and_a_tuned_copy_shares_what_is_loaded(retriever):
    tuned = retriever.tuned(RetrievalSettings(FusionSettings(vector_weight=0.5), cutoff=0.3))
    assert tuned.index is retriever.index and tuned.teacher is retriever.teacher and retriever.cutoff == retriever.index.cutoff
    retrieval = tuned.retrieve(CROSSING)
    assert retrieval.gate.cutoff == 0.3 and all(hit.above_cutoff == (hit.vector_distance > 0.3) for hit in retrieval.hits)
    fresh = Retriever(retriever.index, FusionSettings(vector_weight=0.5), cutoff=0.3).retrieve(CROSSING)
    assert [(h.chunk.chunk_id, h.fused_score) for h in fresh.hits] == [(h.chunk.chunk_id, h.fused_score) for h in retrieval.hits]
    assert retriever.fusion == FusionSettings()  # the original is untouched


# ---------------------------------------------------------------- the CLI reads them


def test_saved_knobs_are_used_by_retrieve_and_ask_and_a_flag_wins(config, capsys, retriever):
    config.remember(retrieval=RetrievalSettings(FusionSettings(vector_weight=0.4), cutoff=0.3).to_json())
    code, out, err = run_cli(capsys, "retrieve", "--json", CROSSING)
    record = json.loads(out)
    assert code == 0 and err == "" and record["gate"]["cutoff"] == 0.3
    assert {part["weight"] for hit in record["retrieved"] for name, part in hit["parts"].items() if name == "vector"} == {0.4}
    code, out, err = run_cli(capsys, "retrieve", "--json", "--cutoff", "0.5", "--vector-weight", "0.7", CROSSING)
    record = json.loads(out)
    assert record["gate"]["cutoff"] == 0.5 and record["retrieved"][0]["parts"]["vector"]["weight"] == 0.7
    code, out, err = run_cli(capsys, "ask", "--json", "--cutoff", "0.1", BAKERY)  # nothing is that close: the gate refuses
    assert json.loads(out)["refused"] and json.loads(out)["gate"]["cutoff"] == 0.1


def test_a_bad_flag_is_a_usage_error(capsys):
    code, out, err = run_cli_raw(capsys, "retrieve", "--vector-weight", "2", BAKERY)
    assert code == 2 and "argument --vector-weight: vector_weight 2.0 is out of range (0 to 1)" in err


def run_cli_raw(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_damaged_settings_file_warns_once_and_retrieve_uses_the_defaults(config, capsys, retriever):
    config.path.parent.mkdir(parents=True)
    config.path.write_text("{not json", encoding="utf-8")
    code, out, err = run_cli(capsys, "retrieve", "--json", BAKERY)
    assert code == 0 and json.loads(out)["gate"]["cutoff"] == round(retriever.index.cutoff, 4)
    assert err.count("\n") == 1 and err.startswith(f"warning: {config.path} cannot be read (") and "using the default retrieval settings" in err


def test_eval_runs_with_the_saved_knobs_and_records_them(config, capsys, tmp_path):
    config.remember(retrieval={"cutoff": 0.45, "region_bonus": 0.2})
    questions = tmp_path / "q.toml"
    questions.write_text(
        '[[question]]\nid = "bakery"\ntext = "When does the Kestrelford bakery sell out?"\nkind = "answerable"\n'
        'expected_chunks = ["guide_kestrelford.md#2"]\nexpected_phrase = "11am"\n',
        encoding="utf-8",
    )
    code, out, _ = run_cli(capsys, "eval", "--questions", str(questions), "--out", str(tmp_path / "results"), "--teacher-weight", "1")
    sidecar = json.loads(next((tmp_path / "results").glob("*.json")).read_text(encoding="utf-8"))
    retrieval = sidecar["settings"]["retrieval"]
    assert (retrieval["cutoff"], retrieval["region_bonus"], retrieval["teacher_weight"]) == (0.45, 0.2, 1.0)
    assert sidecar["settings"]["knobs_from"] == f"{config.path} + --teacher-weight"
    report = next((tmp_path / "results").glob("*.md")).read_text(encoding="utf-8")
    assert "| cutoff | 0.4500 (set by the knobs; the index's calibrated cutoff is" in report
    knobs = "cutoff 0.45, vector_weight 0.7, region_bonus 0.2, asked_value_bonus 0.1, teacher_pool 20, teacher_weight 1, teacher_let_in 0.05"
    assert f"{knobs} (knobs from {config.path} + --teacher-weight)" in out


# ---------------------------------------------------------------- the app


async def test_alt_up_and_down_move_the_cutoff_line_and_the_knobs_line(retriever, tmp_path):
    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(), settings=SettingsFile(tmp_path / "s.json"))
    cutoff = retriever.index.cutoff
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, CROSSING)
        assert not app.query_one("#knobs").display  # hidden until the knobs are used
        assert f"cutoff {cutoff:.4f}" in cutoff_row(app)
        await pilot.press("alt+up")
        await settle(pilot)
        assert f"cutoff {cutoff + 0.005:.4f}" in cutoff_row(app)
        assert app.retriever.cutoff == round(cutoff + 0.005, 4)
        knobs = text_of(app, "#knobs")
        assert f"cutoff {cutoff + 0.005:.4f}*" in knobs and "vector 0.70  region" in knobs and "not saved; Ctrl+S saves" in knobs
        assert f"cutoff {cutoff + 0.005:.4f} (knob; calibrated {cutoff:.4f})" in text_of(app, "#status")
        await pilot.press("alt+down", "alt+down")
        await settle(pilot)
        assert f"cutoff {cutoff - 0.005:.4f}" in cutoff_row(app) and f"cutoff {cutoff - 0.005:.4f}*" in text_of(app, "#knobs")
        table = app.query_one("#hits", HitsTable)
        assert all(hit.above_cutoff == (hit.vector_distance > cutoff - 0.005) for hit in table.hits.values())


async def test_alt_left_and_right_move_the_vector_weight_and_the_fused_scores(retriever, tmp_path):
    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(), settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, BAKERY)
        before = fused_scores(app)
        await pilot.press("alt+left")
        await settle(pilot)
        after = fused_scores(app)
        assert after != before
        expected = Retriever(retriever.index, FusionSettings(vector_weight=0.65)).retrieve(BAKERY)
        assert after == [hit.fused_score for hit in expected.hits]
        assert "vector 0.65*" in text_of(app, "#knobs")
        await pilot.press("alt+right", "alt+right")
        await settle(pilot)
        assert app.retriever.fusion.vector_weight == 0.75 and "vector 0.75*" in text_of(app, "#knobs")


@pytest.mark.parametrize(
    ("entry", "name", "part", "value"),
    [
        ("Region bonus +0.05", "region_bonus", "region_bonus", 0.15),
        ("Region bonus -0.05", "region_bonus", "region_bonus", 0.05),
        ("Asked value bonus +0.05", "asked_value_bonus", "asked_value_bonus", 0.15),
        ("Asked value bonus -0.05", "asked_value_bonus", "asked_value_bonus", 0.05),
        ("Teacher weight +0.1", "teacher_weight", "teacher", 1.6),
        ("Teacher weight -0.1", "teacher_weight", "teacher", 1.4),
        ("Vector weight down, keyword up", "vector_weight", "vector", 0.65),  # the keys' own entries, by their tooltips
        ("Cutoff up one step", "cutoff", None, 0.4845),
    ],
)
async def test_palette_entries_move_the_bonuses_and_the_teacher_weight(retriever, tmp_path, entry, name, part, value):
    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(), settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, BAKERY)
        await from_the_palette(pilot, entry)
        assert app.retriever.settings.value(name) == value
        if part is not None:
            assert {p.weight for hit in app.query_one("#hits", HitsTable).hits.values() for p in hit.parts if p.name == part} == {value}
        await from_the_palette(pilot, "Knobs back to the saved")
        assert app.retriever.settings == RetrievalSettings()


async def test_the_delta_is_what_an_eval_run_with_those_settings_measures(retriever, tmp_path):
    questions = some_questions(3)
    app = GuideApp(generator="extractive", retriever=retriever, questions=questions, settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*["alt+left"] * 8)  # vector weight 0.7 -> 0.3: the keyword side leads
        await settle(pilot)
        line = text_of(app, "#knobs")
    assert "re-scoring" not in line
    shown = {m: tuple(map(int, found)) for m, *found in re.findall(r"(rank-1|hit@5|phrase|refusals) (\d+)/(\d+) ([+-]\d+)", line)}
    measured = {}
    for settings in (FusionSettings(), FusionSettings(vector_weight=0.3)):
        evaluated = Retriever(retriever.index, settings)
        criteria = compute_criteria(run_questions(evaluated, questions, 1, "extractive", None), evaluated, None)
        refusals = criteria["near_miss_refused"].count + criteria["off_topic_refused"].count
        total = criteria["near_miss_refused"].total + criteria["off_topic_refused"].total
        measured[settings] = {
            "rank-1": (criteria["rank1"].count, criteria["rank1"].total), "hit@5": (criteria["hit_at_5"].count, criteria["hit_at_5"].total),
            "phrase": (criteria["expected_phrase"].count, criteria["expected_phrase"].total), "refusals": (refusals, total),
        }  # fmt: skip
    start, now = measured[FusionSettings()], measured[FusionSettings(vector_weight=0.3)]
    assert shown == {m: (*now[m], now[m][0] - start[m][0]) for m in now}
    assert any(now[m] != start[m] for m in now), "vector weight 0.3 should change something, or this test shows nothing"


def outcome_of(retriever: Retriever, question) -> tuple:
    """The expected chunk's rank, whether the phrase came back, and whether it was refused: what the panel compares."""
    answer = answer_question(retriever, question.text, generator="extractive")
    ids = [hit.chunk.chunk_id for hit in answer.retrieval.hits]
    return expected_rank(question, ids), phrase_in_answer(question, answer), answer.refused


async def test_ctrl_t_lists_the_changed_questions_and_enter_opens_one(retriever, tmp_path):
    questions = some_questions(3)
    app = GuideApp(generator="extractive", retriever=retriever, questions=questions, settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.query_one("#tuning").display and not app.query_one("#answer").display
        assert f"0 of {len(questions)} labelled questions changed" in text_of(app, "#tuning-summary")
        await pilot.press(*["alt+left"] * 8, "alt+up")
        await settle(pilot)
        changed = app.query_one("#tuning-changed", OptionList)
        baseline = score_questions(retriever, questions, threading.Event())
        moved_to = Retriever(retriever.index, app.retriever.settings.fusion, app.retriever.settings.cutoff)  # worked out apart from the panel
        expected = [q.id for q in questions if outcome_of(retriever, q) != outcome_of(moved_to, q)]
        assert expected and [changed.get_option_at_index(n).id for n in range(changed.option_count)] == expected
        assert f"{len(expected)} of {len(questions)} labelled questions changed" in text_of(app, "#tuning-summary")
        await settle(pilot)  # the histogram is redrawn at the panel's width once the list beside it has settled
        cutoff = app.retriever.cutoff
        plot = text_of(app, "#tuning-histogram-head") + "\n" + text_of(app, "#tuning-histogram")
        width = app.query_one("#tuning-histogram-box").scrollable_content_region.width
        assert plot == "\n".join(line.plain for line in histogram(baseline.measured(), cutoff, width, PANEL_BIN))  # calibrate's own
        assert "in-corpus" in text_of(app, "#tuning-histogram-head")  # the legend, outside what scrolls
        assert f"cutoff {cutoff:.4f}" in plot
        changed.focus()
        await pilot.pause()
        assert app.focused is changed and changed.highlighted == 0
        await pilot.press("enter")
        await settle(pilot)
        opened = next(q for q in questions if q.id == expected[0])
        assert app.query_one("#question", Input).value == opened.text and app.eval.current.id == opened.id
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not app.query_one("#tuning").display and app.query_one("#answer").display


async def test_the_histogram_shows_the_cutoff_moved_while_the_panel_was_hidden(retriever, tmp_path):
    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(3), settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("ctrl+t", "alt+up", "alt+up")
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert f"cutoff {app.retriever.cutoff:.4f}" in text_of(app, "#tuning-histogram")


async def test_ctrl_s_saves_the_knobs_for_the_cli_and_the_next_start(config, capsys, retriever):
    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(), settings=config)
    cutoff = retriever.index.cutoff
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("alt+up", "alt+left")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Knobs saved in" in text_of(app, "#message")
        assert "*" not in text_of(app, "#knobs")  # what is on screen is what is saved
    saved = json.loads(config.path.read_text(encoding="utf-8"))["retrieval"]
    assert saved["cutoff"] == round(cutoff + 0.005, 4) and saved["vector_weight"] == 0.65
    code, out, err = run_cli(capsys, "retrieve", "--json", CROSSING)
    record = json.loads(out)
    assert record["gate"]["cutoff"] == round(cutoff + 0.005, 4) and record["retrieved"][0]["parts"]["vector"]["weight"] == 0.65
    again = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(), settings=config)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.retriever.cutoff == round(cutoff + 0.005, 4) and again.retriever.fusion.vector_weight == 0.65
        assert again.query_one("#knobs").display and "vector 0.65  region" in text_of(again, "#knobs")  # saved knobs in force: shown
        assert "Δ: a knob move (or Ctrl+T) scores the" in text_of(again, "#knobs")  # nothing is scored until then


async def test_a_damaged_settings_file_is_said_in_the_app_and_the_defaults_used(retriever, tmp_path):
    settings = SettingsFile(tmp_path / "s.json")
    settings.path.write_text('{"retrieval": {"cutoff": 9}}', encoding="utf-8")
    app = GuideApp(generator="extractive", retriever=retriever, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "cutoff 9 is out of range (0 to 2); using the default retrieval settings" in text_of(app, "#message")
        assert app.retriever.settings == RetrievalSettings()


async def test_a_newer_knob_move_supersedes_an_older_rescore(retriever, tmp_path):
    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(2), settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("alt+left")
        await pilot.pause(0.5)  # past the debounce: its re-score is running
        first = app.rescore_cancel
        await pilot.press("alt+left")
        assert first.is_set()  # the older re-score stops at its next question
        await settle(pilot)
        assert app.tuning.latest.settings == app.retriever.settings and app.retriever.fusion.vector_weight == 0.6
        assert "re-scoring" not in text_of(app, "#knobs")


def test_doctor_says_which_knobs_are_saved(config, capsys, ollama_down):
    code, out, _ = run_cli(capsys, "doctor")
    assert code == 0 and "knobs      the defaults (none saved)" in out
    config.remember(retrieval={"cutoff": None, "vector_weight": 0.6})
    code, out, _ = run_cli(capsys, "doctor")
    knobs = "cutoff calibrated, vector_weight 0.6, region_bonus 0.1, asked_value_bonus 0.1, teacher_pool 20, teacher_weight 1.5, teacher_let_in 0.05"
    assert f"knobs      {knobs}" in out


async def test_the_knobs_do_nothing_over_the_results_view(retriever, tmp_path):
    from guide_tui.tui.commands import KnobCommands

    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(), settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f10")
        await settle(pilot)
        assert app.results_screen() is not None
        await pilot.press("alt+up", "alt+left", "ctrl+t")
        await settle(pilot)
        assert app.retriever.settings == RetrievalSettings() and not app.query_one("#knobs").display  # they would act unseen
        assert KnobCommands(app.screen).entries() == []


async def test_run_all_runs_with_the_knobs_in_force(retriever, tmp_path):
    """Run all's own process is handed the moved cutoff, not the index's: its refusals are those of an eval with it."""
    questions = some_questions(3)
    app = GuideApp(generator="extractive", retriever=retriever, questions=questions, settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*["alt+down"] * 30)  # the cutoff 0.15 lower: more questions are cut by the gate
        await settle(pilot)
        settings = app.retriever.settings
        await pilot.press("ctrl+r")
        await settle(pilot)
        refused = {o.question.id for o in app.eval.outcomes.values() if o.refused}
    assert settings.cutoff is not None and settings.cutoff < retriever.index.cutoff
    expected, default = (
        {o.question.id for o in run_questions(tuned, questions, 1, "extractive", None) if o.answer.refused}
        for tuned in (Retriever(retriever.index, settings.fusion, settings.cutoff), retriever)
    )
    assert refused == expected
    assert refused != default, "a cutoff 0.15 lower should refuse more, or this test shows nothing"


def test_retrieve_says_when_the_cutoff_is_a_knobs_not_the_calibrated_one(config, capsys, retriever):
    calibrated = retriever.index.cutoff
    code, out, err = run_cli(capsys, "retrieve", "--cutoff", "0.5", BAKERY)
    assert code == 0 and f"cutoff 0.5000 (knob; calibrated {calibrated:.4f})" in " ".join(out.split())
    code, out, err = run_cli(capsys, "retrieve", "--json", "--cutoff", "0.5", BAKERY)
    gate = json.loads(out)["gate"]
    assert (gate["cutoff"], gate["calibrated_cutoff"], gate["passed"]) == (0.5, round(calibrated, 4), True)
    code, out, err = run_cli(capsys, "retrieve", "--markdown", BAKERY)
    assert f"cutoff {calibrated:.4f}." in out and "knob" not in out  # the calibrated cutoff in force: nothing more to say


async def test_outcomes_run_with_earlier_knobs_leave_the_tally_until_run_again(retriever, tmp_path):
    """A knob moved after two labelled questions ran: the tally counts neither (it says so) and the results view marks
    them stale; moving the knob back counts both again."""
    app = GuideApp(generator="extractive", retriever=retriever, questions=some_questions(), settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f4", "f4")
        await settle(pilot)
        assert "rank-1 hits 2/2" in text_of(app, "#eval") and "stale" not in text_of(app, "#eval")
        await pilot.press("alt+up")
        await settle(pilot)
        tally = text_of(app, "#eval")
        assert "rank-1 hits 1/1" in tally and "eval 2/21 · 1 stale: earlier knobs · rank-1 hits 1/1" in tally
        await pilot.press("alt+down")  # back to the knobs both ran with: both count again
        await settle(pilot)
        assert "rank-1 hits 2/2" in text_of(app, "#eval") and "stale" not in text_of(app, "#eval")
        await pilot.press("alt+up")
        await settle(pilot)
        await pilot.press("f10")
        await settle(pilot)
        table = app.screen.query_one("#results")
        first, second = (app.eval.questions[i].id for i in (0, 1))
        assert table.get_row(first)[2].plain == "right (stale)" and table.get_row(second)[2].plain == "right"
        assert "21 labelled questions: 1 right · 0 not right · 19 not run · 1 stale (earlier knobs)" in text_of(app, "#results-head")


async def test_moving_a_knob_stops_run_all_which_would_go_on_with_the_old_ones(retriever, tmp_path):
    app = GuideApp(generator="extractive", retriever=retriever, questions=load_questions().questions * 3, settings=SettingsFile(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f4")  # a question on screen: the knob move re-answers it, and the line still says why the run stopped
        await settle(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.running_all is not None and app.running_all.done >= 2, "two questions run", seconds=20.0)
        await pilot.press("alt+up")
        assert app.running_all is None
        await settle(pilot)
        assert "the knobs moved (Ctrl+R runs all with the new ones)" in text_of(app, "#message")
        stale = sum(app.eval.earlier(o) for o in app.eval.outcomes.values())  # the question on screen, re-answered, is not
        assert stale >= 1 and f"{stale} stale: earlier knobs" in text_of(app, "#eval")
