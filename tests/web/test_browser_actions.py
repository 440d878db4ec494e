"""Every action clicked in a real browser, its effect checked in the store and on the page."""

from __future__ import annotations

from typing import Any

from web_seed import HOOK_SESSION, PROJECT, Seeded
from web_support import Served, shoot

from kenning.core import rules
from kenning.model import Citation, Kind, Status

MAIN = "main"


def flash(tab: Any) -> str:
    return str(tab.locator("#flash").inner_text())


def accept_dialogs(tab: Any) -> None:
    tab.on("dialog", lambda dialog: dialog.accept())


def test_card_actions_and_their_undo(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab, core = browse_page, served.core
    tab.goto(f"{served.base}/memory/{seeded.fact}")
    for click, flag, done_word, back in (("Pin", "pinned", "Pinned", "Unpin"),
                                         ("Hide from sessions", "hidden", "Hidden from sessions", "Give to sessions again"),
                                         ("Protect", "protected", "Protected", "Unprotect")):  # fmt: skip
        tab.get_by_role("button", name=click, exact=True).click()
        tab.get_by_role("button", name=back, exact=True).wait_for()
        assert getattr(core.get(seeded.fact), flag) is True, flag
        assert done_word in flash(tab)
        tab.get_by_role("button", name=back, exact=True).click()
        tab.get_by_role("button", name=click, exact=True).wait_for()
        assert getattr(core.get(seeded.fact), flag) is False, flag
    # Undo from the message.
    tab.get_by_role("button", name="Pin", exact=True).click()
    tab.get_by_role("button", name="Undo (unpin)").click()
    tab.get_by_role("button", name="Pin", exact=True).wait_for()
    assert core.get(seeded.fact).pinned is False
    # Retire asks first, keeps the why; bring back restores.
    accept_dialogs(tab)
    tab.get_by_label("Why it no longer holds").fill("the default moved to the config file")
    tab.get_by_role("button", name="Retire", exact=True).click()
    tab.get_by_role("button", name="Bring back", exact=True).wait_for()
    retired = core.get(seeded.fact)
    assert retired.status is Status.RETIRED and retired.status_note == "the default moved to the config file"
    assert "retired" in tab.locator(MAIN).inner_text()
    tab.get_by_role("button", name="Bring back", exact=True).click()
    tab.get_by_role("button", name="Retire", exact=True).wait_for()
    assert core.get(seeded.fact).status is Status.ACTIVE
    shoot(tab, "action-card")


def test_release_a_held_widget_memory(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/memory?writer=standup-widget")
    tab.get_by_role("link", name=seeded.widget).click()
    assert "quoted as data" in tab.locator(MAIN).inner_text()
    tab.get_by_role("button", name="Release").click()
    tab.locator("#flash", has_text="Released").wait_for()
    assert served.core.get(seeded.widget).held is False
    assert tab.get_by_role("button", name="Release").count() == 0


def test_list_filters_and_search(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/memory")
    tab.get_by_label("Kind").select_option("lesson")  # submits by itself
    tab.wait_for_url("**/memory?*kind=lesson*")
    refs = tab.locator(".mem .ref").all_inner_texts()
    assert refs == [seeded.lesson]
    tab.get_by_label("Status").select_option("all")
    tab.wait_for_url("**status=all*")
    tab.get_by_role("link", name="Clear").click()
    tab.get_by_label("Search (the same recall sessions use)").fill("why do we use redis for the job queue")
    tab.get_by_role("button", name="Apply").click()
    tab.wait_for_url("**q=why*")
    assert tab.locator(".mem .ref").first.inner_text() == seeded.decision
    assert "found for" in tab.locator(".page-head").inner_text()
    tab.get_by_label("Origin").select_option("agent")
    tab.wait_for_url("**origin=agent*")
    assert tab.locator(".mem .ref").all_inner_texts() == []  # the decision was the person's


def test_needs_review_choices_accept_all_and_undo(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab, core = browse_page, served.core
    place = core.place(project=PROJECT)
    tab.goto(f"{served.base}/review")
    assert tab.locator("nav .count").inner_text() == "3"
    item = tab.locator(f"#item-{seeded.retire_item}")
    item.get_by_role("button", name="Dismiss").click()
    tab.locator("#flash", has_text="Dismiss").wait_for()
    assert core.get(seeded.gone).status is Status.ACTIVE
    assert tab.locator("nav .count").inner_text() == "2"
    # Replace it: the contradicting claim replaces the firmer memory.
    tab.locator(f"#item-{seeded.contradiction}").get_by_role("button", name="Replace it").click()
    tab.locator("#flash", has_text="Replace it").wait_for()
    texts = {m.text: m for m in core.list_memories(place, limit=500, include_inactive=True)}
    assert texts["Mock the clock in scheduler tests"].status is Status.SUPERSEDED
    assert texts["Never mock the clock in scheduler tests"].status is Status.ACTIVE
    # Accept all (the merge is left), then Undo.
    tab.get_by_role("button", name="Accept all").click()
    tab.locator("#flash", has_text="Accepted 1 item").wait_for()
    assert core.get(seeded.fact).status is Status.SUPERSEDED
    assert tab.locator("nav .count").count() == 0
    tab.get_by_role("button", name="Undo accept all").click()
    tab.locator("#flash", has_text="wait for review again").wait_for()
    assert core.get(seeded.fact).status is Status.ACTIVE
    assert [i.id for i in core.reviews(place)] == [seeded.merge]
    tab.locator(f"#item-{seeded.merge}").get_by_role("button", name="Accept").click()
    tab.locator("#flash", has_text="Accept").wait_for()
    assert core.get(seeded.session_refs[0]).status is Status.SUPERSEDED


def test_keep_existing_and_keep_both(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab, core = browse_page, served.core
    place = core.place(project=PROJECT)
    tab.goto(f"{served.base}/review")
    tab.locator(f"#item-{seeded.contradiction}").get_by_role("button", name="Keep existing").click()
    tab.locator("#flash", has_text="Keep existing").wait_for()
    assert "Never mock the clock in scheduler tests" not in {m.text for m in core.list_memories(place, limit=500)}
    from kenning.core.remember import RememberRequest
    from kenning.model import Origin

    again = core.remember(place, RememberRequest(text="Never mock the clock in scheduler tests", origin=Origin.AGENT))
    assert again.review is not None
    tab.reload()
    tab.locator(f"#item-{again.review.id}").get_by_role("button", name="Keep both").click()
    tab.locator("#flash", has_text="Keep both").wait_for()
    active = {m.text for m in core.list_memories(place, limit=500)}
    assert {"Never mock the clock in scheduler tests", "Mock the clock in scheduler tests"} <= active


def test_retire_a_session_then_bring_one_back(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab, core = browse_page, served.core
    accept_dialogs(tab)
    tab.goto(f"{served.base}/retire?project={PROJECT}")
    tab.get_by_label("Session", exact=True).select_option(HOOK_SESSION)
    tab.get_by_role("button", name="Preview").click()
    tab.get_by_role("heading", name="Would retire (2)").wait_for()
    tab.get_by_role("heading", name="Kept: pinned or protected (1)").wait_for()
    assert all(core.get(r).status is Status.ACTIVE for r in seeded.session_refs)  # a preview changes nothing
    tab.get_by_role("button", name="Retire 2 memories").click()
    tab.locator("#flash", has_text="Retired 2 memories").wait_for()
    statuses = [core.get(r).status for r in seeded.session_refs]
    assert statuses == [Status.RETIRED, Status.RETIRED, Status.ACTIVE]  # the pinned one is kept
    retired_list = tab.locator("section", has=tab.get_by_role("heading", name="Retired in the last 30 days"))
    assert retired_list.locator(".mem").count() == 2
    retired_list.locator(".mem", has_text=seeded.session_refs[0]).get_by_role("button", name="Bring back").click()
    tab.locator("#flash", has_text="Brought back").wait_for()
    assert core.get(seeded.session_refs[0]).status is Status.ACTIVE
    shoot(tab, "action-retire")


def test_map_marks_citation_states_and_opens_a_file(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/map")
    tab.get_by_role("link", name="shop").first.click()
    tree = tab.locator(".tree")
    assert "1 changed" in tree.inner_text() and "1 gone" in tree.inner_text() and "1 same" in tree.inner_text()
    tab.get_by_role("link", name="login.py").click()
    tab.get_by_role("heading", name="Memories citing it (1)").wait_for()
    text = tab.locator(MAIN).inner_text()
    assert seeded.changed in text and seeded.lesson in text  # its memory, and the lesson an edit brings
    assert served.core.get(seeded.changed).citation is Citation.CHANGED


def test_decisions_show_reasoning_and_outcome(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/decisions")
    doc = tab.locator(".doc", has_text="Job queue")
    assert "polling the database was slow" in doc.inner_text() and "RabbitMQ" in doc.inner_text()
    assert "To be determined." in doc.inner_text()
    doc.get_by_role("link", name=seeded.decision).click()
    tab.get_by_role("heading", name="Decision doc: Job queue").wait_for()


def test_rules_add_switch_set_and_remove(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab, core = browse_page, served.core
    tab.goto(f"{served.base}/rules?project={PROJECT}")
    assert "would leave out 0" in tab.locator("table").inner_text()
    tab.get_by_label("Keep only lessons used in at least N sessions").check()
    tab.get_by_label("N (days or sessions)").fill("3")
    tab.locator("form[action='/rules/ready']").get_by_role("button", name="Add rule").click()
    tab.locator("#flash", has_text="added").wait_for()
    views = rules.listing(core, core.place(project=PROJECT))
    proven = next(v for v in views if v.rule.kind == "proven")
    assert proven.rule.n == 3 and proven.rule.project == PROJECT and proven.leaves_out == 1  # the lesson, unused
    row = tab.locator(f"#rule-{proven.rule.id}")
    assert "would leave out 1" in row.inner_text()
    tab.get_by_label("A sentence every agent saving memory here is told").fill("Say which test you ran.")
    tab.locator("form[action='/rules/sentence']").get_by_label("all projects").check()
    tab.locator("form[action='/rules/sentence']").get_by_role("button", name="Add rule").click()
    tab.locator("#flash", has_text="agents are told it").wait_for()
    assert any(v.rule.text == "Say which test you ran." and v.rule.project == "" for v in rules.listing(core, None))
    row = tab.locator(f"#rule-{proven.rule.id}")
    row.get_by_role("button", name="Turn off").click()
    tab.locator("#flash", has_text="is off").wait_for()
    assert not next(v for v in rules.listing(core, None) if v.rule.id == proven.rule.id).rule.enabled
    tab.locator(f"#rule-{proven.rule.id}").get_by_role("button", name="Turn on").click()
    tab.locator("#flash", has_text="is on").wait_for()
    tab.locator(f"#rule-{proven.rule.id}").get_by_label(f"N for rule {proven.rule.id}").fill("5")
    tab.locator(f"#rule-{proven.rule.id}").get_by_role("button", name="Set N").click()
    tab.locator("#flash", has_text="N = 5").wait_for()
    assert next(v for v in rules.listing(core, None) if v.rule.id == proven.rule.id).rule.n == 5
    tab.locator(f"#rule-{proven.rule.id}").get_by_role("button", name="Remove").click()
    tab.locator("#flash", has_text="removed").wait_for()
    assert proven.rule.id not in {v.rule.id for v in rules.listing(core, None)}
    assert tab.locator(f"#rule-{proven.rule.id}").count() == 0


def test_health_shows_then_repairs(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab, core = browse_page, served.core
    accept_dialogs(tab)
    tab.goto(f"{served.base}/health?project={PROJECT}")
    tab.get_by_role("link", name="Show what would change").click()
    section = tab.locator("section", has=tab.get_by_role("heading", name="What would change"))
    assert seeded.gone in section.inner_text() and "src/old.py" in section.inner_text()
    assert core.get(seeded.gone).source_ref == "src/old.py"  # showing changed nothing
    tab.get_by_role("button", name="Repair").click()
    tab.locator("#flash", has_text="dropped 1 citation").wait_for()
    repaired = core.get(seeded.gone)
    assert repaired.source_ref == "" and repaired.status is Status.ACTIVE  # the claim is kept


def test_sessions_search_opens_the_turn_with_the_words_marked(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/sessions")
    tab.get_by_label("Search captured sessions").fill("root cause local time")
    tab.get_by_role("button", name="Search").click()
    first = tab.locator(".hit").first
    assert "root cause" in first.inner_text().lower()
    first.get_by_role("link").click()
    evidence = tab.locator(".turn.evidence")
    evidence.wait_for()
    assert [m.lower() for m in evidence.locator("mark").all_inner_texts()][:2] == ["root", "cause"]
    given = tab.locator("section", has=tab.get_by_role("heading", name="What it was given")).inner_text()
    assert "pointed" in given and seeded.lesson in given
    used = tab.locator("section", has=tab.get_by_role("heading", name="What it used and wrote")).inner_text()
    assert seeded.fact in used and all(r in used for r in seeded.session_refs)


def test_report_window_and_numbers(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/report")
    sessions = tab.locator("#fig-sessions")
    sessions.locator("summary").click()
    table = sessions.locator("table").inner_text()
    assert "codex\t2\t1\t3" in table and "claude-code\t1\t0\t1" in table  # pointed, holdout, total
    tab.get_by_label("Sessions in the last").select_option("7")
    tab.wait_for_url("**days=7*")
    tab.locator("#fig-held summary").click()
    held = tab.locator("#fig-held table").inner_text()
    assert f"{Kind.PREFERENCE.value}\t1\t1\t0\t2" in held


def test_pages_and_actions_work_without_javascript(browser: Any, served: Served, seeded: Seeded) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(served.url)
        tab.goto(f"{served.base}/memory/{seeded.fact}")
        tab.get_by_role("button", name="Pin", exact=True).click()  # a plain form post and redirect
        tab.get_by_role("button", name="Unpin", exact=True).wait_for()
        assert "Pinned" in tab.locator("#flash").inner_text()
        assert served.core.get(seeded.fact).pinned
        tab.goto(f"{served.base}/memory")
        tab.get_by_label("Kind").select_option("decision")
        tab.get_by_role("button", name="Apply").click()  # no auto-submit without JS: the button does it
        assert tab.locator(".mem .ref").all_inner_texts() == [seeded.decision]
    finally:
        context.close()


def test_placements_on_the_card_each_listed_with_an_undo(browse_page: Any, served: Served, seeded: Seeded) -> None:
    from kenning.model import Placing

    tab, core = browse_page, served.core
    tab.goto(f"{served.base}/memory/{seeded.decision}")
    assert "No decisions" in tab.locator(MAIN).inner_text()
    tab.get_by_role("button", name="Not relevant here", exact=True).click()
    undo_listed = tab.get_by_role("button", name=f"Undo: not relevant here in {PROJECT}")
    undo_listed.wait_for()
    assert [(p.decision, p.place) for p in core.placements(seeded.decision)] == [(Placing.NOT_HERE, PROJECT)]
    assert "Placed: not relevant here in github.com/acme/shop" in flash(tab)
    # The message's undo takes it back.
    tab.get_by_role("button", name="Undo this placement").click()
    tab.get_by_text("No decisions", exact=False).wait_for()
    assert core.placements(seeded.decision) == []
    tab.get_by_role("button", name="Never for agent runs", exact=True).click()
    tab.get_by_role("button", name="Undo: never for agent runs").wait_for()
    # "Always give this here" in the same place replaces "not relevant here".
    tab.get_by_role("button", name="Not relevant here", exact=True).click()
    undo_listed.wait_for()
    tab.get_by_label("In", exact=True).select_option(PROJECT)
    tab.get_by_role("button", name="Always give this here", exact=True).click()
    tab.get_by_role("button", name=f"Undo: always give this here in {PROJECT}").wait_for()
    assert {p.decision for p in core.placements(seeded.decision)} == {Placing.ALWAYS, Placing.NO_AGENT_RUNS}
    # Each listed decision has its own undo.
    tab.get_by_role("button", name="Undo: never for agent runs").click()
    tab.get_by_role("button", name="Never for agent runs", exact=True).wait_for()
    assert [p.decision for p in core.placements(seeded.decision)] == [Placing.ALWAYS]
    shoot(tab, "action-placements")
