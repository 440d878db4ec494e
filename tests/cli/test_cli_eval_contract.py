"""The recall evaluation harness drives kenning through its CLI (the project's shared
bench/recall-eval/adapters/kenning.py): it imports `kenning.cli.main:cli`, runs it through
click's CliRunner, and reads fixed JSON fields. This holds that contract: the same calls, the
same fields, top-level `remember`, `recall` and `get`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kenning.cli.main import cli

KEY = "receval.local/receval/shop"


def invoke(home: Path, args: list[str]) -> tuple[int, dict[str, object]]:
    """As the adapter does: in-process, KENNING_HOME set, JSON on stdout."""
    result = CliRunner().invoke(cli, args, env={"KENNING_HOME": str(home)}, prog_name="kenning")
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, json.loads(result.stdout) if result.exit_code == 0 else {}


def remember_args(m: dict[str, object]) -> list[str]:
    args = ["remember", str(m["text"]), "--kind", str(m["kind"]), "--project", KEY, "--json"]
    for flag, field in (("--reason", "reason"), ("--rejected", "rejected"), ("--subject", "subject"),
                        ("--when", "trigger")):  # fmt: skip
        if m.get(field):
            args += [flag, str(m[field])]
    for tag in m.get("tags", []):  # type: ignore[attr-defined]
        args += ["--tag", tag]
    return args


def test_the_adapter_calls_and_fields(tmp_path: Path) -> None:
    home = tmp_path / "home"
    memories = [
        {"text": "Config entries replace YAML configuration for new integrations", "kind": "decision",
         "reason": "the UI can set them up", "rejected": "YAML only", "tags": ["config", "integrations"]},
        {"text": "Use pytest parametrize for table-driven tests", "kind": "preference", "subject": "tests.parametrize"},
        {"text": "Run the translations script before committing strings", "kind": "lesson",
         "trigger": "shell:git commit"},
        {"text": "The export branch still rounds refunds twice", "kind": "state",
         "subject": "branch.shop.export.state"},
        {"text": "Prefer pytest parametrize for every table of cases", "kind": "preference",
         "subject": "tests.parametrize"},
    ]  # fmt: skip
    refs = []
    for m in memories:
        code, res = invoke(home, remember_args(m))
        assert code == 0
        assert set(res) >= {"outcome", "memory", "superseded", "review", "warnings"}
        assert res["outcome"] in ("stored", "strengthened", "held_for_review", "index_full")
        memory = res["memory"]
        assert isinstance(memory, dict) and str(memory["ref"]).startswith("m:")
        refs.append(memory["ref"])
    # The later preference on the same slot supersedes the earlier: the adapter reads "superseded".
    assert res["superseded"] == [refs[1]]

    code, found = invoke(home, ["recall", "why config entries instead of YAML", "--json", "--project", KEY, "-n", "8"])
    assert code == 0
    results = found["results"]
    assert isinstance(results, list) and results[0]["ref"] == refs[0]
    code, nothing = invoke(home, ["recall", "kubernetes helm chart values", "--json", "--project", KEY, "-n", "8"])
    assert code == 0 and nothing["results"] == []

    result = CliRunner().invoke(cli, ["get", refs[0], "--json"], env={"KENNING_HOME": str(home)})
    got = json.loads(result.stdout)
    assert got[0]["ref"] == refs[0] and got[0]["reason"] == "the UI can set them up"
