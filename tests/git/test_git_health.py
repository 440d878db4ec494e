"""kenning health: unreachable memories, group filing, citations that stopped resolving."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

from gitrepo_helper import Repo

from kenning.clock import FixedClock
from kenning.config import Settings
from kenning.core.health import health
from kenning.core.remember import RememberRequest
from kenning.core.service import Core
from kenning.ids import new_ref
from kenning.model import Citation, Kind, Memory, Origin, Status
from kenning.store.protocol import ScopeRow


def scope(core: Core, key: str, kind: str, root: Path | str = "", parent: str = "",
          removed: datetime | None = None) -> None:  # fmt: skip
    core.store.upsert_scope(ScopeRow(core.workspace, key, kind, key, str(root), parent, core.now(), removed))


def note(core: Core, where: str, text: str, **kw: object) -> str:
    result = core.remember(core.place(project=where), RememberRequest(text=text, kind=Kind.FACT, **kw))  # type: ignore[arg-type]
    assert result.memory is not None
    return result.memory.ref


def test_memory_under_a_removed_scope_moves_where_recall_reaches(core: Core, tmp_path: Path) -> None:
    scope(core, "grp", "group", tmp_path)
    scope(core, "old/app", "project", tmp_path / "old", parent="grp")
    scope(core, "lone/app", "project", tmp_path / "lone")
    a = note(core, "old/app", "The billing service reads invoices from the ledger table")
    b = note(core, "lone/app", "The exporter writes one file per customer account")
    scope(core, "old/app", "project", tmp_path / "old", parent="grp", removed=core.now())
    scope(core, "lone/app", "project", tmp_path / "lone", removed=core.now())
    preview = health(core)
    assert {(m.ref, m.to_scope) for m in preview.moves} == {(a, "grp"), (b, "personal")}
    assert core.get(a).scope == "old/app"  # showing changes nothing
    health(core, repair=True)
    assert (core.get(a).scope, core.get(b).scope) == ("grp", "personal")
    assert health(core).moves == []


def test_group_memory_moves_to_the_one_project_holding_its_file(core: Core, tmp_path: Path) -> None:
    group = tmp_path / "work"
    for name in ("api", "web"):
        (group / name / "src").mkdir(parents=True)
        (group / name / "src" / "shared.py").write_text("x = 1\n")
    (group / "api" / "src" / "billing.py").write_text("def bill():\n    pass\n")
    scope(core, "grp", "group", group)
    scope(core, "acme/api", "project", group / "api", parent="grp")
    scope(core, "acme/web", "project", group / "web", parent="grp")
    only = note(core, "grp", "Billing rounds each line before summing", source_ref="src/billing.py:bill")
    both = note(core, "grp", "Shared settings come from one module", source_ref="src/shared.py")
    taught = note(core, "grp", "Deploys go out on Tuesdays only", session="sess-7")
    note(core, "acme/web", "The web app renders invoices server side", session="sess-7")
    report = health(core)
    moves = {m.ref: m for m in report.moves}
    assert moves[only].to_scope == "acme/api" and "src/billing.py" in moves[only].why
    assert moves[taught].to_scope == "acme/web" and "sess-7" in moves[taught].why
    assert both not in moves
    health(core, repair=True)
    assert core.get(only).scope == "acme/api" and core.get(both).scope == "grp"
    assert any(e.event == "moved" for e in core.history(only).events)


def test_citation_that_stopped_resolving_is_dropped_and_the_claim_kept(core: Core, repo: Repo) -> None:
    path = repo.write("src/pay.py", "def pay():\n    return 1\n")
    repo.commit("init")
    place = core.place(repo.root)
    kept = core.remember(place, RememberRequest(text="Payments never retry on a timeout", kind=Kind.FACT,
                                                source_ref="src/pay.py:pay")).memory  # fmt: skip
    version = core.remember(place, RememberRequest(text="The runtime is Node", kind=Kind.FACT,
                                                   source_ref="Node 24.14")).memory  # fmt: skip
    assert kept is not None and version is not None
    assert health(core).drops == []
    path.unlink()
    preview = health(core)
    assert [(d.ref, d.source_ref) for d in preview.drops] == [(kept.ref, "src/pay.py:pay")]
    assert preview.files_not_found == [f"{place.project}: src/pay.py:pay"]
    assert core.get(kept.ref).source_ref == "src/pay.py:pay"
    health(core, repair=True)
    after = core.get(kept.ref)
    assert (after.source_ref, after.citation, after.status, after.text) == (
        "", Citation.UNCHECKED, Status.ACTIVE, "Payments never retry on a timeout")
    assert core.get(version.ref).source_ref == "Node 24.14"


def test_project_not_on_this_machine_is_not_judged(core: Core, tmp_path: Path) -> None:
    scope(core, "far/away", "project", "/no/such/checkout")
    ref = note(core, "far/away", "The cache key includes the tenant", source_ref="src/cache.py:12")
    report = health(core, repair=True)
    assert report.drops == [] and report.not_judged == ["far/away"]
    assert core.get(ref).source_ref == "src/cache.py:12"


def test_reports_untouched(core: Core, tmp_path: Path) -> None:
    scope(core, "p/x", "project", tmp_path)
    tagged = note(core, "p/x", "Invoices are numbered per customer", tags=("billing",))
    long = note(core, "p/x", "Exports run nightly. They write to the bucket. Nobody reads them.")
    now = core.now()
    twins = []
    for _ in range(2):  # dedupe runs on every write, so an exact twin can only be a fault
        ref = new_ref()
        core.store.insert(Memory(ref, core.workspace, "p/x", "The queue drains every minute.", Kind.FACT, 0.7,
                                 Origin.AGENT, now, now))  # fmt: skip
        twins.append(ref)
    core.store.mark_recalled(core.workspace, [tagged])
    before = [(m.ref, m.scope, m.text) for m in core.store.iter_all(core.workspace)]
    report = health(core, repair=True)
    assert tagged not in report.never_returned and long in report.never_returned
    assert report.long == [long]
    assert tagged not in report.untagged and long in report.untagged
    assert report.duplicates == [twins]
    assert [(m.ref, m.scope, m.text) for m in core.store.iter_all(core.workspace)] == before


def test_a_repeat_look_gives_the_same_report_and_sees_any_change_at_once(core: Core, tmp_path: Path) -> None:
    """The report is kept between looks (the web app's Health page); a write by another
    process, and a cited file that goes or comes back, show on the next look."""
    root = tmp_path / "checkout"
    (root / "src").mkdir(parents=True)
    cited = root / "src" / "tax.py"
    cited.write_text("def tax():\n    return 0\n")
    scope(core, "acme/shop", "project", root)
    ref = note(core, "acme/shop", "Tax is rounded per line", source_ref="src/tax.py:tax")
    first = health(core)
    assert first.drops == [] and first.checked == 1
    again = health(core)
    assert again.as_dict() == first.as_dict()
    again.long.append("m:changed-by-the-caller")  # a caller's change stays its own
    assert health(core).long == []

    other = Core.open(Settings(home=tmp_path / "home"), FixedClock(core.now()))  # another process: the CLI, a hook
    try:
        long = note(other, "acme/shop", "Exports run nightly. They write to the bucket.")
        assert health(core).long == [long] and health(core).checked == 2
        scope(other, "acme/shop", "project", root, removed=core.now())
        assert {m.ref for m in health(core).moves} == {ref, long}
        scope(other, "acme/shop", "project", root)  # back again
    finally:
        other.close()
    assert health(core).moves == []

    cited.unlink()
    assert [d.ref for d in health(core).drops] == [ref]
    cited.write_text("def tax():\n    return 1\n")
    assert health(core).drops == []
    shutil.rmtree(root)
    assert health(core).not_judged == ["acme/shop"] and health(core).drops == []
