"""check_all: stored citation states follow the code, and recall and the index obey them."""

from __future__ import annotations

from gitrepo_helper import Repo

from kenning.core.citations import check_all, fresh_reading
from kenning.core.remember import RememberRequest
from kenning.core.render import hit_marks
from kenning.core.service import Core
from kenning.domain.lifecycle import in_index
from kenning.model import Citation, Kind, Memory

CODE = "import os\n\n\ndef pay(amount):\n    return round(amount, 2)\n"


def cite(core: Core, repo: Repo, text: str, source_ref: str) -> Memory:
    place = core.place(repo.root)
    memory = core.remember(place, RememberRequest(text=text, kind=Kind.FACT, source_ref=source_ref)).memory
    assert memory is not None
    # What remember does on write when the project root is known: a fresh reading.
    digest, state = fresh_reading(place.root, source_ref)
    core.store.update(memory.evolve(source_hash=digest, citation=state))
    return core.get(memory.ref)


def test_sweep_follows_edits_moves_and_deletes(core: Core, repo: Repo) -> None:
    path = repo.write("src/pay.py", CODE)
    repo.commit("init")
    memory = cite(core, repo, "Payments round to cents with Python's round", "src/pay.py:4-5")
    other = cite(core, repo, "The payments module imports os", "src/pay.py")
    assert memory.citation is Citation.SAME and memory.source_hash.startswith("v1:")

    path.write_text("# header\n" + CODE)  # moves the cited lines, changes the file
    [sweep] = check_all(core, memory.scope)
    assert sweep.checked == 2 and sweep.changed == {other.ref: Citation.CHANGED}
    assert core.get(memory.ref).citation is Citation.SAME

    path.write_text(CODE.replace("round(amount, 2)", "int(amount * 100) / 100"))
    check_all(core, memory.scope)
    changed = core.get(memory.ref)
    assert changed.citation is Citation.CHANGED
    assert not in_index(changed, core.now())  # leaves the index
    found = core.recall(core.place(repo.root), "how do payments round to cents")
    hits = {h.memory.ref: h for h in found.hits}
    assert memory.ref in hits and "citation: changed" in hit_marks(hits[memory.ref])  # recall marks it

    path.unlink()
    check_all(core)
    assert core.get(memory.ref).citation is Citation.GONE
    assert not core.deliverable(core.get(memory.ref))  # reaches no session
    assert memory.ref not in [h.memory.ref for h in core.recall(core.place(repo.root), "payments round cents").hits]


def test_restating_takes_a_fresh_reading(core: Core, repo: Repo) -> None:
    path = repo.write("src/pay.py", CODE)
    memory = cite(core, repo, "Payments round to cents with Python's round", "src/pay.py:pay")
    path.write_text(CODE.replace("2)", "3)"))
    check_all(core)
    assert core.get(memory.ref).citation is Citation.CHANGED
    digest, state = fresh_reading(repo.root, "src/pay.py:pay")
    assert state is Citation.SAME and digest != memory.source_hash


def test_sweep_of_a_project_not_on_this_machine(core: Core, repo: Repo) -> None:
    repo.write("src/pay.py", CODE)
    memory = cite(core, repo, "Payments round to cents", "src/pay.py:4")
    core.store.upsert_scope(core.store.get_scope(core.workspace, memory.scope).__class__(  # type: ignore[union-attr]
        core.workspace, memory.scope, "project", "proj", "/no/such/checkout", "", core.now()))
    [sweep] = check_all(core, memory.scope)
    assert sweep.not_judged and core.get(memory.ref).citation is Citation.UNCHECKED
