"""JSON reading for the tool-call fast path without importing the ``json`` package.

``import json`` pulls in ``re``, ``enum``, ``functools`` and ``collections``: about as much CPU
as starting Python itself, on every tool call. The C scanner that ``json`` uses underneath
(``_json.make_scanner``) needs none of them, so the fast path calls it directly; anywhere it is
missing (another Python implementation) the ``json`` package is used instead.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class _Context:
    # What json.JSONDecoder hands its scanner; strict=False accepts control characters in
    # strings, as a tool's payload may carry them (json.loads would refuse the whole event).
    strict = False
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo: dict[str, str] = {}


_scan: Callable[[str, int], tuple[object, int]] | None
try:
    from _json import make_scanner as _make_scanner

    _scan = _make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed like json.JSONDecoder
except ImportError:  # pragma: no cover - CPython always has _json
    _scan = None

_SPACE = " \t\n\r"


def loads(data: bytes | str) -> object:
    """Parse one JSON document; ValueError when it is not exactly one."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = text.lstrip("\ufeff")
    if _scan is not None:
        start = len(text) - len(text.lstrip(_SPACE))
        try:
            value, end = _scan(text, start)
        except Exception:  # the scanner's own error needs json.decoder loaded: let json say it
            pass
        else:
            if not text[end:].strip(_SPACE):
                return value
    import json

    try:
        return json.loads(text, strict=False)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
