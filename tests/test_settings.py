"""settings.py: the one module that reads environment variables, and what it makes of them."""

import ast
from pathlib import Path

import guide_tui
from guide_tui.settings import VARIABLES, Environment, FusionSettings

PACKAGE = Path(guide_tui.__file__).parent
SETS_PROCESS_DEFAULTS = {"__init__.py", "distill.py"}  # set library variables before their libraries are imported


def environment_uses(path: Path) -> list[int]:
    """Lines where a module touches os.environ or os.getenv."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv")
        and isinstance(node.value, ast.Name) and node.value.id == "os"
    ]


def test_only_settings_reads_the_environment():
    readers = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if path.name not in SETS_PROCESS_DEFAULTS and path.name != "settings.py" and (lines := environment_uses(path))
    }
    assert readers == {}


def test_every_variable_is_parsed_and_bad_values_are_ignored():
    env = Environment.read({
        "OLLAMA_HOST": "http://box:1", "GUIDE_TUI_OLLAMA_TIMEOUT": "7", "GUIDE_TUI_OLLAMA_FIRST_TOKEN_TIMEOUT": "-3",
        "GUIDE_TUI_GROUNDING_MODEL": "  ", "GUIDE_TUI_GROUNDING_TIMEOUT": "inf", "GUIDE_TUI_KILL_AFTER_STEP": "2",
        "GUIDE_TUI_RENAME_EXCHANGE": "0", "SOURCE_DATE_EPOCH": "yesterday", "GUIDE_TUI_MODEL": "/models/m",
    })  # fmt: skip
    assert env.ollama_host == "http://box:1" and env.ollama_timeout == 7.0
    assert env.ollama_first_token_timeout is None and env.grounding_timeout is None and env.grounding_model is None
    assert env.kill_after_step == 2 and env.rename_exchange is False and env.source_date_epoch is None
    assert env.embedding_model == Path("/models/m")
    assert Environment.read({}) == Environment()
    assert len({v.name for v in VARIABLES}) == len(VARIABLES) == len(Environment.__dataclass_fields__)


def test_fusion_settings_are_frozen_and_recorded_whole():
    settings = FusionSettings()
    assert set(settings.to_json()) == {"vector_weight", "region_bonus", "asked_value_bonus", "teacher_pool", "teacher_weight", "teacher_let_in"}
    try:
        settings.vector_weight = 0.5
    except AttributeError:
        return
    raise AssertionError("FusionSettings can be changed in place")
