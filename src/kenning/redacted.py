"""The one door text passes before it is stored, logged or handed to another session.

``Redacted`` is a ``str`` that went through :func:`kenning.redact.redact`. Every store method
that writes a text field takes it, and so does every renderer of stored or transcript text,
so mypy refuses a path that forgot redaction. Only this module makes one from text
(``tests/test_architecture.py`` checks that nothing else calls ``Redacted(...)``), and the
store's readers take their rows back with :func:`stored` (only modules under
``kenning.store`` may call it): what the store holds went through the door on its way in,
and migrations redacted what older versions wrote raw.

It is a real subclass, not a ``NewType``, so the store can also check at run time: a write
method hands anything that is not ``Redacted`` (a value that came around the types, e.g.
through ``Memory.evolve``) to :func:`ensure`, which redacts it. Every ``str`` operation on
it (slicing, ``+``, f-strings) gives a plain ``str`` back, so a cut or a concatenation has
to go through this module again to count as redacted.

Redaction comes before any cut. A token cut in half is no longer recognisable, so cutting
first leaves a fragment of it behind: :func:`head` redacts a window longer than the part it
keeps (by :data:`MARGIN`, longer than any token format) and only then cuts. Cutting a
``Redacted`` (:func:`clip`) is safe: a cut can only shorten a mask, never reveal a secret.
Whitespace is folded before redaction, never after: joining lines could make two harmless
halves read as one secret.
"""

from __future__ import annotations


class Redacted(str):
    """Text with every secret replaced by :data:`kenning.redact.MASK`."""

    __slots__ = ()


EMPTY = Redacted("")
# How far past a cut the text is still redacted. A token that starts before the cut must be
# whole (or long enough for its rule) inside the window: longer than any fixed-length token
# format plus the words around it that generic rules read. Longer blocks need no more: the
# private-key rule masks a block whose END line was cut off, and a JWT cut short still
# matches its rule. Every character of margin is redaction work on each long tool output.
MARGIN = 1024
ELLIPSIS = "…"


def redacted(text: str) -> Redacted:
    """``text`` with every secret masked: the only way text becomes :data:`Redacted`."""
    if not text:
        return EMPTY
    # Imported on use: a hook that never writes text never pays for compiling the rules.
    from kenning.redact import redact

    return Redacted(redact(text))


def counted(text: str, limit: int | None = None) -> tuple[Redacted, int]:
    """:func:`redacted` (or :func:`head` with ``limit``) that also says how many secrets it masked."""
    if not text:
        return EMPTY, 0
    from kenning.redact import redact_count

    if limit is None:
        masked, found = redact_count(text)
        return Redacted(masked), found
    masked, found = redact_count(text[: limit + MARGIN] if len(text) > limit + MARGIN else text)
    return clip(Redacted(masked), limit), found


def one_line(text: str) -> str:
    """Every run of whitespace folded to one space (do this before redacting, never after)."""
    return " ".join(text.split())


def head(text: str, limit: int, *, fold: bool = False, at_word: bool = False) -> Redacted:
    """The first ``limit`` characters of ``text``, redacted before the cut.

    ``fold`` folds whitespace first; ``at_word`` ends the cut at a word boundary. A cut text
    ends with "…".
    """
    window = text[: limit + MARGIN] if len(text) > limit + MARGIN else text
    if fold:
        window = one_line(window)
    return clip(redacted(window), limit, at_word=at_word)


def clip(text: Redacted, limit: int, *, at_word: bool = False) -> Redacted:
    """``text`` cut to at most ``limit`` characters (ending in "…" when cut)."""
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return Redacted(text[:limit])
    cut = text[: limit - len(ELLIPSIS)]
    if at_word and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return Redacted(cut.rstrip() + ELLIPSIS)


def part(text: Redacted, start: int, end: int | None = None) -> Redacted:
    """A slice of redacted text (a slice can only shorten a mask, never reveal a secret)."""
    return Redacted(text[start:end])


def strip(text: Redacted) -> Redacted:
    return Redacted(text.strip())


def join(parts: list[Redacted], sep: str = " ") -> Redacted:
    """Redacted parts joined by a separator that holds no secret."""
    return Redacted(sep.join(parts))


def ensure(text: str) -> Redacted:
    """The store's run-time guard: ``text`` as it is when it is ``Redacted``, else redacted."""
    return text if isinstance(text, Redacted) else redacted(text)


def stored(text: str) -> Redacted:
    """Text read back from the store, which only ever took :data:`Redacted` text.

    Only store modules call this (checked by ``tests/test_architecture.py``).
    """
    return Redacted(text)
