"""hook-runs.log and hook-errors.log never hold what a session wrote: names are kenning's own,
errors are redacted before they are written."""

from __future__ import annotations

from pathlib import Path

from kenning.hooks import runlog

SECRET = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


def test_an_error_carrying_a_secret_is_logged_redacted(tmp_path: Path) -> None:
    try:
        raise ValueError(f"could not store the prompt 'push with {SECRET}'")
    except ValueError as exc:
        runlog.error(str(tmp_path), "2026-03-02T09:00:00Z", "UserPromptSubmit", "claude-code", exc)
    logged = (tmp_path / runlog.ERRORS).read_text()
    assert "ValueError" in logged and "could not store the prompt" in logged
    assert SECRET not in logged and "[secret]" in logged


def test_names_a_payload_made_up_are_not_written(tmp_path: Path) -> None:
    runlog.run(str(tmp_path), "2026-03-02T09:00:00Z", SECRET, "claude-code", 3.2)
    runlog.run(str(tmp_path), "2026-03-02T09:00:01Z", "PreToolUse", SECRET, 1.0)
    lines = (tmp_path / runlog.RUNS).read_text().splitlines()
    assert lines == ["2026-03-02T09:00:00Z\tother\tclaude-code\t3.2", "2026-03-02T09:00:01Z\tPreToolUse\tother\t1.0"]
