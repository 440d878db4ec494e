"""`kenning eval`: recall@5 and MRR per question kind, on a labelled set and on the user's own
recall history (captured sessions), with --json and clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import make_shop_repo, run
from kenning.capture.recall_history import shell_recall_query
from kenning.core.evaluation import half_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "recall-eval"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_shop_repo(tmp_path)


def test_a_labelled_set_scores_every_kind(repo: Path, kenning_home: Path) -> None:
    out = json.loads(run(["eval", str(FIXTURES), "--json", "--details"], repo, kenning_home).stdout)
    kinds = {k["kind"]: k for k in out["kinds"]}
    assert set(kinds) == {"task", "why", "paraphrase", "lookup", "multi", "none", "all"}
    assert all(kinds[k]["n"] == 4 for k in kinds if k != "all") and kinds["all"]["n"] == 20
    assert kinds["none"]["recall_at_5"] is None and 0 <= kinds["none"]["empty"] <= 1
    # The identifiers of a lookup are found; the eval never touches the user's own store.
    assert kinds["lookup"]["recall_at_5"] == 1.0
    assert out["notes"] == []  # every memory of the set was stored
    lookup = next(q for q in out["questions"] if q["query"] == "PARALLEL_UPDATES for the sensor platform")
    assert lookup["ranked"][0] == "ha-096" and lookup["mrr"] == 1.0
    assert json.loads(run(["memory", "list", "--json"], repo, kenning_home).stdout) == []
    text = run(["eval", str(FIXTURES)], repo, kenning_home).stdout
    assert "recall@5" in text and "lookup" in text and "abstained" in text


def test_halves_split_the_questions_for_good(repo: Path, kenning_home: Path) -> None:
    tune = json.loads(run(["eval", str(FIXTURES), "--half", "tune", "--json", "--details"], repo, kenning_home).stdout)
    report = json.loads(run(["eval", str(FIXTURES), "--half", "report", "--json", "--details"], repo, kenning_home).stdout)
    ids_tune = {q["id"] for q in tune["questions"]}
    ids_report = {q["id"] for q in report["questions"]}
    assert ids_tune and ids_report and not ids_tune & ids_report and len(ids_tune | ids_report) == 24
    assert all(half_of(i) == "tune" for i in ids_tune)


def write_set(folder: Path, memories: list[dict[str, Any]], queries: list[dict[str, Any]] | str) -> Path:
    folder.mkdir()
    (folder / "memories.jsonl").write_text("".join(json.dumps(m) + "\n" for m in memories))
    text = queries if isinstance(queries, str) else "".join(json.dumps(q) + "\n" for q in queries)
    (folder / "queries.jsonl").write_text(text)
    return folder


MEMORY = {"id": "a-1", "project": "a", "kind": "fact", "text": "The cart merges baskets on login"}


@pytest.mark.parametrize(
    ("queries", "says"),
    [
        ("not json\n", "line 1 is not JSON"),
        ([{"id": "q1", "project": "a", "type": "task", "query": "merge"}], "lacks relevant"),
        ([{"id": "q1", "project": "a", "type": "task", "query": "merge", "relevant": {"b-9": 2}}], "not in project a"),
        ([{"id": "q1", "project": "a", "type": "task", "query": "merge", "relevant": {"a-1": 5}}], "grade 1 or 2"),
    ],
)
def test_a_bad_labelled_set_is_refused_with_a_fix(repo: Path, kenning_home: Path, tmp_path: Path,
                                                  queries: Any, says: str) -> None:  # fmt: skip
    folder = write_set(tmp_path / "set", [MEMORY], queries)
    bad = run(["eval", str(folder)], repo, kenning_home, ok=False)
    assert bad.returncode == 1 and says in bad.stderr and "fix:" in bad.stderr


def test_eval_needs_a_folder_or_history(repo: Path, kenning_home: Path, tmp_path: Path) -> None:
    for args in (["eval"], ["eval", str(FIXTURES), "--history"], ["eval", str(tmp_path / "missing")]):
        bad = run(args, repo, kenning_home, ok=False)
        assert bad.returncode == 1 and "fix:" in bad.stderr
    assert "Example:" in run(["eval", "--help"], repo, kenning_home).stdout


# -- the user's own history ------------------------------------------------------------------
SESSION = "7d0c1e2f-3a4b-4c5d-8e6f-708192a3b4c5"


def line(n: int, kind: str, message: dict[str, Any], cwd: Path) -> str:
    return json.dumps({
        "parentUuid": None, "isSidechain": False, "type": kind, "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-03-02T10:{n:02d}:00.000Z", "userType": "external", "entrypoint": "cli", "cwd": str(cwd),
        "sessionId": SESSION, "version": "2.1.328", "gitBranch": "main", "message": message,
    })  # fmt: skip


def transcript(cwd: Path, first: str, second: str, other: str) -> str:
    """A Claude Code session: it recalls, reads the answer (which lists two refs), cites one;
    recalls again and cites another."""
    def tool_use(n: int, query: str) -> str:
        return line(n, "assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "mcp__kenning__recall", "input": {"query": query}}]}, cwd)

    def tool_result(n: int, text: str) -> str:
        return line(n, "user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n - 1}", "content": text}]}, cwd)

    def says(n: int, text: str) -> str:
        return line(n, "assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]}, cwd)

    rows = [
        line(1, "user", {"role": "user", "content": "Speed up the basket merge, then fix the tax rounding."}, cwd),
        tool_use(2, "basket merge on login"),
        tool_result(3, f"{first} The cart merges baskets on login\n{other} Invoices round half up"),
        says(4, f"Following {first}, the merge keeps the newer quantity."),
        tool_use(5, "tax rounding of invoices"),
        tool_result(6, f"{second} Tax is rounded per line"),
        says(7, f"Per {second} I round each line."),
    ]
    return "\n".join(rows) + "\n"


def test_history_asks_again_what_sessions_recalled_and_cited(repo: Path, kenning_home: Path, tmp_path: Path) -> None:
    def remember(text: str) -> str:
        out = run(["--now", "2026-03-01T09:00Z", "remember", text, "--json"], repo, kenning_home).stdout
        return str(json.loads(out)["memory"]["ref"])

    merge = remember("The cart merges baskets on login, keeping the newer quantity")
    tax = remember("Tax is rounded per invoice line, half up")
    other = remember("Invoices are numbered per year")
    user_home = tmp_path / "user-home"
    folder = user_home / ".claude" / "projects" / str(repo).replace("/", "-")
    folder.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_text(transcript(repo, merge, tax, other))
    run(["sessions", "sync"], repo, kenning_home, user_home=user_home)

    out = json.loads(run(["eval", "--history", "--half", "all", "--json", "--details"], repo, kenning_home).stdout)
    questions = {q["query"]: q for q in out["questions"]}
    # Each recall is labelled with what was cited after it, never with what its answer listed.
    assert questions["basket merge on login"]["relevant"] == {merge: 2}
    assert questions["tax rounding of invoices"]["relevant"] == {tax: 2}
    assert questions["basket merge on login"]["ranked"][0] == merge
    kinds = {k["kind"]: k for k in out["kinds"]}
    assert kinds["history"]["n"] == 2 and kinds["all"]["recall_at_5"] == 1.0
    # Nothing was written: measuring recall does not count as recalling.
    got = json.loads(run(["get", merge, "--json"], repo, kenning_home).stdout)[0]
    assert got["evidence"]["recalled"] == 0
    both = json.loads(run(["eval", "--history", "--json"], repo, kenning_home).stdout)
    assert [r["half"] for r in both] == ["tune", "report"]
    assert sum(k["n"] for r in both for k in r["kinds"] if k["kind"] == "history") == 2


def test_a_shell_recall_is_a_recall() -> None:
    assert shell_recall_query('kenning recall "why do we pin TZ" --json') == "why do we pin TZ"
    assert shell_recall_query("/home/dev/.venv/bin/kenning recall -n 3 'basket merge'") == "basket merge"
    assert shell_recall_query("kenning remember 'x'") == ""
