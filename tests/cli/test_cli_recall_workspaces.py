"""`kenning recall --workspaces`: each workspace's copy on this machine recalls on its own, and
the results come back interleaved, each labelled with its workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run

SHOP = "github.com/acme/shop"


def test_recall_across_workspaces_labels_each_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    for ws, text in (("acme", "The shop deploys from the release branch every Tuesday"),
                     ("beta", "The beta app deploys from main after every merge"),
                     ("local", "Invoices are rendered by the pdf worker")):  # fmt: skip
        monkeypatch.setenv("KENNING_WORKSPACE", ws)
        run(["remember", text, "--kind", "fact", "--project", SHOP], tmp_path, home)
    monkeypatch.setenv("KENNING_WORKSPACE", "local")

    out = json.loads(run(["recall", "how do we deploy", "--workspaces", "acme,beta", "--project", SHOP, "--json"],
                         tmp_path, home).stdout)  # fmt: skip
    assert out["workspaces"] == ["acme", "beta"]
    assert sorted((r["workspace"], r["text"]) for r in out["results"]) == [
        ("acme", "The shop deploys from the release branch every Tuesday"),
        ("beta", "The beta app deploys from main after every merge"),
    ]
    text = run(["recall", "how do we deploy", "--workspaces", "beta", "--project", SHOP], tmp_path, home).stdout
    assert text.startswith("[beta] ") and "main after every merge" in text
    # Each workspace abstains on its own: the pdf worker is only in local, and deploys are not.
    alone = json.loads(run(["recall", "pdf worker invoices", "--all-workspaces", "--project", SHOP, "--json"],
                           tmp_path, home).stdout)  # fmt: skip
    assert [(r["workspace"], r["text"]) for r in alone["results"]] == [("local", "Invoices are rendered by the pdf worker")]

    bad = run(["recall", "deploy", "--workspaces", "nosuch"], tmp_path, home, ok=False)
    assert bad.returncode != 0 and "nosuch" in bad.stderr and "kenning sync" in bad.stderr
    both = run(["recall", "deploy", "--workspaces", "acme", "--all-workspaces"], tmp_path, home, ok=False)
    assert both.returncode != 0 and "one at a time" in both.stderr
