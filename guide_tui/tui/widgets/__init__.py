"""The app's widgets, one per screen area, each owning what it shows."""

from guide_tui.tui.widgets.answer_panel import AnswerPanel
from guide_tui.tui.widgets.chunk_detail import DetailPane
from guide_tui.tui.widgets.eval_bar import EvalBar
from guide_tui.tui.widgets.hits_table import HitsTable
from guide_tui.tui.widgets.knobs_line import KnobsLine
from guide_tui.tui.widgets.question_input import QuestionInput
from guide_tui.tui.widgets.status_line import StatusLine
from guide_tui.tui.widgets.tuning_panel import TuningPanel

__all__ = ["AnswerPanel", "DetailPane", "EvalBar", "HitsTable", "KnobsLine", "QuestionInput", "StatusLine", "TuningPanel"]
