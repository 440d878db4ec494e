"""JSON for the hooks without importing the ``json`` package.

``import json`` pulls in ``re``, ``enum``, ``functools`` and ``collections``: about as much CPU
as starting Python itself, on every hook run. The C scanner and string encoder that ``json``
uses underneath (``_json.make_scanner``, ``_json.encode_basestring``) need none of them, so the
hooks call them directly; anywhere they are missing (another Python implementation) the
``json`` package is used instead.
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
_quote: Callable[[str], str] | None
try:
    from _json import encode_basestring as _encode_basestring
    from _json import make_scanner as _make_scanner

    _scan = _make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed like json.JSONDecoder
    _quote = _encode_basestring
except ImportError:  # pragma: no cover - CPython always has _json
    _scan = _quote = None

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


def dumps(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False)`` for what hooks answer: dicts with string keys,
    lists, strings, ints, bools and None (anything else is handed to the json package)."""
    if _quote is None:
        import json

        return json.dumps(value, ensure_ascii=False)
    return _dump(value, _quote)


def _dump(value: object, quote: Callable[[str], str]) -> str:
    if isinstance(value, str):
        return quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return "{" + ", ".join(f"{quote(k)}: {_dump(v, quote)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_dump(v, quote) for v in value) + "]"
    import json

    return json.dumps(value, ensure_ascii=False)
