"""Session-end escalation: only what the user said or confirmed becomes a decision."""

from __future__ import annotations

from graph_sessions import CLAUDE_SESSION, CODEX_SESSION, Shop

from kenning.core import escalate

DECIDED_CLAUDE = [
    "We decided to move the export job to Celery with Redis as the broker instead of running it in the request,"
    " because exports take minutes.",
]
NEVER_DECISIONS = [
    "The task runs but the test still fails.",  # only the confirmed proposal sentence counts
    "Let me check the current export view.",
    "I'll look at the settings too.",
    "Let me check the Flower docs.",
    "Understood: Flower is now in the dev extras only.",
    "Let me run the search tests first.",
]


def _objects(result: escalate.Escalation, predicate: str) -> list[str]:
    return [a.fact.object for a in result.added if a.fact.predicate == predicate]


def test_escalate_claude_session(shop: Shop) -> None:
    shop.sync()
    result = escalate.escalate(shop.core, CLAUDE_SESSION)
    decided = _objects(result, "decided")
    assert decided == [DECIDED_CLAUDE[0], "I suggest we use Flower for monitoring the Celery workers."]
    for line in NEVER_DECISIONS:
        assert line not in decided
    assert _objects(result, "user_corrected") == [
        "No, don't add flower to requirements.txt, put it in the dev extras instead."]
    outcome = _objects(result, "last_session_outcome")
    assert len(outcome) == 1 and outcome[0].startswith("interrupted: last ask unanswered")
    assert all(a.fact.origin == "escalated" and a.fact.person in ("user", "") for a in result.added)


def test_escalate_twice_adds_nothing_and_outcome_is_single_valued(shop: Shop) -> None:
    shop.sync()
    db = shop.core.stores.db
    escalate.escalate(shop.core, f"claude:{CLAUDE_SESSION}")
    before = db.one("SELECT count(*) AS n FROM graph_facts")["n"]  # type: ignore[index]
    again = escalate.escalate(shop.core, f"claude:{CLAUDE_SESSION}")
    assert again.added == [] and again.extracted == 0
    assert db.one("SELECT count(*) AS n FROM graph_facts")["n"] == before  # type: ignore[index]
    codex = escalate.escalate(shop.core, CODEX_SESSION)
    assert _objects(codex, "decided") == [
        "Let's use SQLite FTS5 rather than Elasticsearch, we don't want another service to run."]
    outcomes = db.query("SELECT object FROM graph_facts WHERE predicate = 'last_session_outcome'"
                        " AND valid_to IS NULL")
    assert [r["object"] for r in outcomes] == ["unresolved: 1 failing command(s), last ruff check shop"]


def test_corrections_and_confirmations_rules() -> None:
    turns = [
        {"id": 1, "role": "user", "text": "No, start with the parser.", "at": "1"},  # first ask: not a correction
        {"id": 2, "role": "assistant", "text": "Shall we use Hypothesis for the parser tests?", "at": "2"},
        {"id": 3, "role": "user", "text": "Yes but only for the tokenizer.", "at": "3"},  # doubt: not confirmed
        {"id": 4, "role": "assistant", "text": "I recommend pinning the grammar version. Let me check it.", "at": "4"},
        {"id": 5, "role": "user", "text": "ok, do it", "at": "5"},
        {"id": 6, "role": "user", "text": "No problem, thanks.", "at": "6"},
        {"id": 7, "role": "user", "text": "Let's see what the tests say. Should we use uv?", "at": "7"},
        {"id": 8, "role": "user", "text": "You forgot the changelog entry.", "at": "8"},
    ]
    learned = escalate.learn(turns, None)
    assert [(x.predicate, x.text) for x in learned] == [
        ("decided", "I recommend pinning the grammar version."),
        ("user_corrected", "You forgot the changelog entry."),
    ]


def test_session_end_reads_the_transcript_when_sync_has_not_run(shop: Shop) -> None:
    path = next((shop.home / ".claude" / "projects").glob(f"*/{CLAUDE_SESSION}.jsonl"))
    result = escalate.at_session_end(shop.core, "claude-code", CLAUDE_SESSION, str(path))
    assert result is not None
    assert result.project == shop.core.place(shop.root).project
    assert _objects(result, "decided")[0] == DECIDED_CLAUDE[0]
    # after the sync the captured session gives the same facts: nothing is added twice
    shop.sync()
    again = escalate.escalate(shop.core, CLAUDE_SESSION)
    assert again.added == []
    assert escalate.at_session_end(shop.core, "claude-code", "unknown-id") is None


def test_the_wake_up_bundle_holds_a_recorded_decision(shop: Shop) -> None:
    from kenning.context import wakeup
    from kenning.core import notes

    place = shop.core.place(shop.root)
    notes.decision_record(shop.core, place, "Use Redis streams for jobs", area="jobs", reason="simpler retries")
    text = wakeup.bundle(shop.core, place)
    assert "Use Redis streams for jobs" in text and text.startswith("kenning wake-up for shop")
