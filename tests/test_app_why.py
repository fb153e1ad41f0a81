"""The app's tuning workbench, driven by its pilot over the real bundled index: the cutoff line, why a row
ranks (F6), looking past the top 5 (F7) and exporting a question as Markdown."""

from __future__ import annotations

import re

import pytest
from conftest import from_the_palette, settle, submit_and_go_on, text_of
from textual.widgets import Static

from guide_tui.inspection import LOOK_PAST
from guide_tui.report import export_stem, save_export
from guide_tui.retrieval import TOP_K
from guide_tui.tui.app import GuideApp
from guide_tui.tui.widgets import HitsTable
from guide_tui.tui.widgets.chunk_detail import BEST_SENTENCE, MATCHED_WORD, QUOTED, QUOTED_MARK

SIZE = (120, 40)
BAKERY = "When does the Kestrelford bakery sell out?"
CROSSING = "When does the bakery sell out?"  # the answer quotes rank 1; rank 2 is beyond the cutoff, rank 3 within
COACH = "Where do long-distance coaches stop in Brightwater?"  # own-025: the fused order puts a ✗ chunk (rank 4) above a usable one (rank 5)

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_ollama(ollama_down):
    """Ollama is down: the extractive answerer answers."""


async def ask(pilot, question: str) -> None:
    await submit_and_go_on(pilot, question)
    await settle(pilot)


def rows(app) -> list[str]:
    """The table's rows top to bottom: each hit's chunk id, and "cutoff" for the line."""
    table = app.query_one("#hits", HitsTable)
    return [table.hits[key.value].chunk.chunk_id if key.value in table.hits else "cutoff" for key in table.rows]


def split_at_the_line(app) -> tuple[list[str], list[str]]:
    shown = rows(app)
    line = shown.index("cutoff")
    return shown[:line], shown[line + 1 :]


async def test_rows_above_the_cutoff_line_are_exactly_the_chunks_the_answer_may_use(retriever):
    retrieval = retriever.retrieve(COACH)
    beyond = [hit.above_cutoff for hit in retrieval.hits]
    assert beyond.index(True) < len(beyond) - 1 - beyond[::-1].index(False), "a chunk beyond the cutoff should outrank a usable one"
    within = [hit.chunk.chunk_id for hit in retrieval.within_cutoff]
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, COACH)
        above, below = split_at_the_line(app)
        assert above == within  # in fused order
        assert below == [hit.chunk.chunk_id for hit in retrieval.hits if hit.above_cutoff]
        table = app.query_one("#hits", HitsTable)
        assert [table.get_row(f"hit-{hit.rank}")[0].plain.split()[0] for hit in retrieval.hits] == [str(hit.rank) for hit in retrieval.hits]
        for key, hit in table.hits.items():
            distance = table.get_row(key)[2]
            assert (str(distance.style) == HitsTable.BEYOND_CUTOFF) == hit.above_cutoff == distance.plain.endswith(" ✗")
        answer = table.answer
        assert answer is not None and {c.chunk_id for c in answer.citations} <= set(above)


async def test_f7_looks_past_the_top_5_and_keeps_the_answer_on_the_top_5(retriever):
    top_5 = retriever.retrieve(COACH)
    wide = retriever.retrieve(COACH, k=LOOK_PAST)
    assert [h.chunk.chunk_id for h in wide.hits[:TOP_K]] == [h.chunk.chunk_id for h in top_5.hits]
    assert any(not h.above_cutoff for h in wide.hits[TOP_K:]), "a chunk past the top 5 within the cutoff: it must still go below the line"
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, COACH)
        table = app.query_one("#hits", HitsTable)
        height, answer_region = table.outer_size.height, app.query_one("#answer").region
        assert table.border_title.startswith(f"top {TOP_K} chunks")
        await pilot.press("f7")
        await settle(pilot)
        assert table.border_title.startswith(f"top {LOOK_PAST} chunks")
        above, below = split_at_the_line(app)
        assert above == [h.chunk.chunk_id for h in top_5.within_cutoff]
        assert below == [h.chunk.chunk_id for h in wide.hits if h.chunk.chunk_id not in above]  # rank order, 6-20 included
        assert [table.hits[f"hit-{h.rank}"].chunk.chunk_id for h in wide.hits] == [h.chunk.chunk_id for h in wide.hits]  # fused ranks
        for hit in wide.hits[TOP_K:]:
            assert str(table.get_row(f"hit-{hit.rank}")[1].style) == HitsTable.BEYOND_CUTOFF
        assert table.outer_size.height == height and app.query_one("#answer").region == answer_region  # it scrolls in its box
        table.focus()
        table.move_cursor(row=table.row_count - 1)
        await pilot.pause()
        assert table.scroll_y > 0 and table.hit_at_cursor().rank == LOOK_PAST
        assert len(table.answer.retrieval.hits) == TOP_K  # the answer was given the top 5
        assert "below the line: the answer gets the top 5 only" in text_of(app, "#message")

        await ask(pilot, BAKERY)  # the toggle outlives the question
        assert len(table.hits) == LOOK_PAST and len(table.answer.retrieval.hits) == TOP_K
        await pilot.press("ctrl+p")  # F7 is left out of the footer at 80 columns: the palette has it
        await pilot.pause()
        await pilot.press(*"Top 5 / top 20")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert len(table.hits) == TOP_K and table.border_title == f"top {TOP_K} chunks"


def pane_numbers(app) -> tuple[str, list[str], str]:
    """From the chunk pane: the fused score of its sum line, each part's value, and the whole text."""
    text = text_of(app, "#detail-text")
    fused = re.search(r"^fused (\d+\.\d{4}) =$", text, re.M).group(1)
    values = re.findall(r"^[ +] \S.* = (\d+\.\d{4})", text, re.M)
    return fused, values, text


async def test_the_why_pane_adds_up_to_the_rows_fused_score_and_marks_the_chunk(retriever):
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, CROSSING)
        table = app.query_one("#hits", HitsTable)
        quoted = {c.chunk_id: c.quote for c in table.answer.citations}
        assert quoted
        await pilot.press("f6")
        await pilot.pause()
        seen = 0
        for row in range(table.row_count):
            table.move_cursor(row=row)
            await pilot.pause()
            hit = table.hit_at_cursor()
            if hit is None:
                continue  # the cutoff line
            seen += 1
            cells = [cell.plain for cell in table.get_row(f"hit-{hit.rank}")]
            fused, values, text = pane_numbers(app)
            assert fused == cells[5] and len(values) == 5
            assert f"{sum(map(float, values)):.4f}" == fused, "the parts add up to the table's fused score"
            assert f"distance {cells[2].removesuffix(' ✗')}" in text and f"BM25 {cells[3]}" in text and f"cosine {cells[4]}" in text
            assert text.startswith(f"{hit.chunk.chunk_id} · {hit.chunk.section} · rank {hit.rank}\n")
            content = app.query_one("#detail-text", Static).visual
            styled = {str(span.style): [] for span in content.spans}
            for span in content.spans:
                styled[str(span.style)].append(" ".join(content.plain[span.start : span.end].split()))
            assert styled[BEST_SENTENCE] == [" ".join(hit.matched_sentence.split())]
            terms = [term for term in text.split("terms matched: ")[1].split("\n")[0].split(", ") if term != "none"]
            assert terms == [term for term in retriever.query_terms(CROSSING) if term in terms]
            assert ("bakeri" in terms) == ("bakery" in hit.chunk.text.lower())
            assert {stem for word in styled[MATCHED_WORD] for stem in retriever.analyzer.analyze(word)} == set(terms)
            assert (QUOTED_MARK in cells[0]) == (hit.chunk.chunk_id in quoted) == (f"{QUOTED_MARK} quoted" in text.split("\n")[1])
            assert ("above the cutoff line" in text.split("\n")[1]) == (hit.chunk.chunk_id in [h.chunk.chunk_id for h in table.retrieval.within_cutoff])
            assert styled.get(QUOTED, []) == ([" ".join(quoted[hit.chunk.chunk_id].split())] if hit.chunk.chunk_id in quoted else [])
        assert seen == TOP_K


async def test_the_why_pane_gives_a_list_rows_heading_distance_and_its_best_sentences(retriever):
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "What are the main sights in Brightwater?")
        await pilot.press("f6")
        await pilot.pause()
        hit = app.query_one("#hits", HitsTable).hit_at_cursor()
        assert hit.rank == 1 and hit.by_heading
        text = " ".join(text_of(app, "#detail-text").split())
        assert f"(distance {hit.vector_distance:.4f} of its heading; its best sentence's {hit.sentence_distance:.4f})" in text


async def test_the_quoted_mark_comes_with_the_answer_and_reads_without_colour(retriever, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await submit_and_go_on(pilot, CROSSING)
        table = app.query_one("#hits", HitsTable)
        await settle(pilot)  # (no mark before the answer comes: test_re_running_... checks that)
        marked = [table.hits[key].chunk.chunk_id for key in table.hits if table.get_row(key)[0].plain.endswith(QUOTED_MARK)]
        assert marked == [c.chunk_id for c in table.answer.citations]


async def export(pilot) -> str:
    await from_the_palette(pilot, "Export this")
    return text_of(pilot.app, "#message")


async def test_the_palette_exports_the_question_as_markdown_without_overwriting(retriever, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Nothing to export yet: ask a question first." in await export(pilot)
        assert not list(tmp_path.iterdir())
        await ask(pilot, CROSSING)
        await pilot.press("f7")
        await settle(pilot)
        first = tmp_path / "when-does-the-bakery-sell-out.md"
        assert await export(pilot) == f"Exported to {first}"
        assert app.query_one("#message").region.height >= 2, "a path longer than the line wraps, and every line of it shows"
        markdown = first.read_text(encoding="utf-8")
        assert markdown.startswith(f"## {CROSSING}\n")
        table_rows = [line for line in markdown.splitlines() if line.startswith("| ") and "`guide_" in line]
        assert [re.search(r"`([^`]+)`", line).group(1) for line in table_rows] == [c for c in rows(app) if c != "cutoff"]
        assert markdown.count("    fused ") == LOOK_PAST  # each row's why
        assert "**Answer (extractive):**" in markdown and "Sources: guide_eating.md (Local specifics)" in markdown
        assert await export(pilot) == f"Exported to {tmp_path / 'when-does-the-bakery-sell-out-2.md'}"
        assert first.read_text(encoding="utf-8") == markdown


async def test_an_export_to_a_folder_that_is_gone_says_so(retriever, tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, BAKERY)
        assert await export(pilot) == "Could not export the question: No such file or directory (the current folder)"


async def test_an_export_to_a_folder_that_cannot_be_written_says_so(retriever, tmp_path, monkeypatch, make_immutable):
    make_immutable(tmp_path)
    monkeypatch.chdir(tmp_path)
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, BAKERY)
        message = await export(pilot)
        assert message.startswith("Could not export the question: ") and str(tmp_path / export_stem(BAKERY)) in message
        assert not list(tmp_path.iterdir())


def test_export_names_are_safe_and_never_overwrite(tmp_path):
    assert export_stem("When does the Kestrelford bakery sell out?") == "when-does-the-kestrelford-bakery-sell-out"
    assert export_stem("../../etc/passwd; rm -rf *") == "etc-passwd-rm-rf"
    assert export_stem("¿?") == "question"
    long = export_stem("word " * 40)
    assert len(long) <= 60 and long.endswith("word")
    paths = [save_export(f"# {n}\n", "Same question?", tmp_path) for n in range(3)]
    assert [p.name for p in paths] == ["same-question.md", "same-question-2.md", "same-question-3.md"]
    assert [p.read_text(encoding="utf-8") for p in paths] == ["# 0\n", "# 1\n", "# 2\n"]


async def test_with_no_cutoff_the_top_20_still_has_a_line_under_the_answers_top_5(bundled_index):
    import dataclasses

    from guide_tui.retrieval import Retriever

    manifest = {key: value for key, value in bundled_index.manifest.items() if key != "cutoff"}
    retriever = Retriever(dataclasses.replace(bundled_index, manifest=manifest))  # --no-gate on an index never calibrated
    assert retriever.cutoff is None
    app = GuideApp(generator="extractive", retriever=retriever, gate=False)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, COACH)
        assert "cutoff" not in rows(app)  # the top 5: every chunk may be used, no line
        await pilot.press("f7")
        await settle(pilot)
        above, below = split_at_the_line(app)
        wide = retriever.retrieve(COACH, k=LOOK_PAST).hits
        assert (above, below) == ([h.chunk.chunk_id for h in wide[:TOP_K]], [h.chunk.chunk_id for h in wide[TOP_K:]])
        assert app.query_one("#hits", HitsTable).get_row("cutoff")[1].plain == "── cutoff none ──"


async def test_re_running_a_question_clears_the_quoted_marks_until_the_new_answer_comes(retriever):
    app = GuideApp(generator="extractive", retriever=retriever)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, CROSSING)
        table = app.query_one("#hits", HitsTable)
        assert any(QUOTED_MARK in table.get_row(key)[0].plain for key in table.hits)
        app.action_rerun()  # F5: a new retrieval of the same question; its answer has not come yet
        assert table.answer is None and not any(QUOTED_MARK in table.get_row(key)[0].plain for key in table.hits)
        await settle(pilot)
        assert any(QUOTED_MARK in table.get_row(key)[0].plain for key in table.hits)
