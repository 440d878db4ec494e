"""Keyboard only, on every page: the first Tab lands on the skip link and Enter moves focus to
the page's content; Tab then reaches every link, button and field that is shown, in document
order, each with a visible focus outline; and an action can be done with the keyboard alone."""

from __future__ import annotations

from typing import Any

import pytest
from test_browser_pages import PAGES
from web_seed import CAPTURED_SESSION, PROJECT, Seeded
from web_support import Served, shoot

# Marks every element a keyboard user must be able to reach (shown, enabled, not tabindex=-1),
# in document order.
MARK = """() => {
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]';
  const all = Array.from(document.querySelectorAll(sel)).filter(el =>
    el.checkVisibility() && !el.disabled && el.tabIndex >= 0 && !(el.type === 'radio' && !el.checked && el.name &&
      document.querySelector(`input[type=radio][name="${el.name}"]:checked`)));
  all.forEach((el, i) => el.dataset.kt = String(i));
  return all.length;
}"""
FOCUSED = """() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  // A date field's calendar button takes focus inside the field's own shadow UI, ringed by the
  // browser itself: the field then does not match :focus.
  const inner = el.type === 'date' && !el.matches(':focus');
  return {kt: el.dataset.kt ?? null, id: el.id, tag: el.tagName, text: (el.innerText || el.value || '').slice(0, 40),
          outline: inner || (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0)};
}"""


def tab_through(tab: Any, limit: int = 400) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    for _ in range(limit):
        tab.keyboard.press("Tab")
        here = tab.evaluate(FOCUSED)
        if here["tag"] == "BODY" or (seen and here["kt"] is not None and here["kt"] == seen[0]["kt"]):
            break
        seen.append(here)
    return seen


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_page_works_from_the_keyboard(browse_page: Any, served: Served, seeded: Seeded, name: str) -> None:
    tab = browse_page
    path = PAGES[name].format(fact=seeded.fact, project=PROJECT, session=f"claude-code:{CAPTURED_SESSION[7:]}",
                              captured=CAPTURED_SESSION)  # fmt: skip
    tab.goto(served.base + path)
    total = tab.evaluate(MARK)
    # The skip link comes first, shows when focused, and moves focus to the content.
    tab.keyboard.press("Tab")
    first = tab.evaluate(FOCUSED)
    assert first["text"] == "Skip to content"
    assert tab.locator(".skip").bounding_box()["y"] >= 0
    tab.keyboard.press("Enter")
    assert tab.evaluate("document.activeElement.id") == "main"
    # From the top, Tab reaches everything, in order, each with a visible outline.
    tab.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    tab.goto(served.base + path)
    tab.evaluate(MARK)
    order = tab_through(tab)
    # A date field takes one Tab per part (month, day, year): count it once.
    reached = [int(f["kt"]) for i, f in enumerate(order) if f["kt"] is not None and (i == 0 or f["kt"] != order[i - 1]["kt"])]
    assert reached == list(range(total)), f"{name}: Tab order {reached[:20]}… of {total}"
    assert all(f["outline"] for f in order), [f for f in order if not f["outline"]][:3]
    nav = [f["text"] for f in order][:14]
    assert any(t.startswith("Needs review") for t in nav) and "Report" in nav
    shoot(tab, f"keyboard-{name}")


def test_an_action_with_the_keyboard_alone(browse_page: Any, served: Served, seeded: Seeded) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/memory/{seeded.fact}")
    for _ in range(60):
        tab.keyboard.press("Tab")
        if tab.evaluate("document.activeElement.innerText") == "Pin":
            break
    else:
        pytest.fail("Tab never reached the Pin button")
    tab.keyboard.press("Enter")
    tab.locator("#flash", has_text="Pinned").wait_for()
    assert served.core.get(seeded.fact).pinned
    # The result is announced in the live region and focus lands on it.
    assert tab.locator("#flash").get_attribute("aria-live") == "polite"
    assert tab.evaluate("document.activeElement.closest('#flash') !== null")
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.innerText") == "Undo (unpin)"
    tab.keyboard.press("Enter")
    tab.locator("#flash", has_text="Unpinned").wait_for()
    assert not served.core.get(seeded.fact).pinned


def test_slash_jumps_to_search(browse_page: Any, served: Served) -> None:
    tab = browse_page
    tab.goto(f"{served.base}/memory")
    tab.keyboard.press("/")
    assert tab.evaluate("document.activeElement.id") == "q"
