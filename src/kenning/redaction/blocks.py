"""Secrets that span lines: private keys (PEM, OpenSSH, PGP, PuTTY), base64-encoded private keys
(kubeconfig ``client-key-data``, Kubernetes ``tls.key``), and the values of a Kubernetes Secret.

Line breaks may be real or written as text (``\\n`` in a JSON string, ``\\\\n`` one level
deeper), and the block may be indented (YAML) or cut off before its END line (a truncated tool
output): the key's body is masked up to where it ends.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

from kenning.redaction import values as v
from kenning.redaction.assign import accept, read_value
from kenning.redaction.engine import Rule, Span, line_start, run_end, variants
from kenning.redaction.names import SECRET_WORDS, Strength, strength

_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_END = re.compile(r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# Body of a key whose END line is missing: base64 lines, PEM headers, escaped or raw breaks.
_BODY = re.compile(r"(?:[A-Za-z0-9+/=\s]|\\+[nrt]|[A-Za-z-]+:[^\n\\]*)*")


def _private_key(text: str, s: int, _e: int) -> Iterable[Span]:
    lo = max(0, s - 60)
    begin = text.rfind("-----BEGIN", lo, s)
    if begin < 0:
        return ()
    m = _BEGIN.match(text, begin)
    if m is None:
        return ()
    end = _END.search(text, m.end(), min(len(text), m.end() + 40_000))
    if end is not None:
        return ((begin, end.end(), "private-key"),)
    body = _BODY.match(text, m.end(), min(len(text), m.end() + 40_000))
    stop = body.end() if body else m.end()
    return ((begin, max(stop, m.end()), "private-key"),)


PRIVATE_KEY_RULE = Rule("private-key", ("PRIVATE KEY",), _private_key, prefixed=True)


_PUTTY = re.compile(r"PuTTY-User-Key-File-\d:.*?(?:Private-MAC:[ \t]*[0-9a-fA-F]+|$)", re.DOTALL)


def _putty(text: str, s: int, _e: int) -> Iterable[Span]:
    m = _PUTTY.match(text, s, min(len(text), s + 20_000))
    return ((s, m.end(), "private-key"),) if m else ()


PUTTY_RULE = Rule("private-key", ("PuTTY-User-Key-File-",), _putty, prefixed=True)


def _b64_private_key(text: str, s: int, _e: int) -> Iterable[Span]:
    """``LS0tLS1CRUdJTi…``: base64 of ``-----BEGIN``; masked when what it encodes is a private key
    (a certificate is public and stays)."""
    end = run_end(text, s, 200_000)
    head = text[s:s + 120]
    head = head[: len(head) // 4 * 4]
    try:
        decoded = base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return ()
    if b"PRIVATE KEY" not in decoded and b"ENCRYPTED" not in decoded:
        return ()
    return ((s, end, "private-key"),)


B64_KEY_RULE = Rule("private-key", ("LS0tLS1CRUdJTi",), _b64_private_key, prefixed=True)


_KIND_SECRET = re.compile(r"""kind\\*["']?:[ \t]*\\*["']?Secret\b""")
_YAML_DATA = re.compile(r"^([ \t]*)(?:data|stringData):[ \t]*$", re.MULTILINE)
_YAML_ITEM = re.compile(r"^([ \t]+)([\w.-]+):[ \t]*(\S.*)$", re.MULTILINE)
_JSON_DATA = re.compile(r"""\\*["'](?:data|stringData)\\*["']:[ \t]*\{""")
_JSON_ITEM = re.compile(r"""\\*["']([\w.-]+)\\*["']:[ \t]*""")


def _k8s_secret(text: str, s: int, _e: int) -> Iterable[Span]:
    """Every value under ``data:``/``stringData:`` of a Kubernetes Secret (YAML or JSON), whatever
    its key is called: ``kubectl get secret -o yaml`` prints them base64-encoded."""
    if _KIND_SECRET.match(text, max(0, s - 14), s + 6) is None and _KIND_SECRET.search(text, max(0, s - 16), s + 8) is None:
        return ()
    # The document around it: a YAML "---" or a blank stretch bounds it.
    lo = max(text.rfind("\n---", max(0, s - 3000), s) + 1, s - 3000, 0)
    hi = text.find("\n---", s, s + 3000)
    hi = min(hi if hi >= 0 else len(text), s + 3000)
    if text.find("ata", lo, hi) < 0:  # neither data: nor stringData: in this document
        return ()
    out: list[Span] = []
    for block in _YAML_DATA.finditer(text, lo, hi):
        indent = len(block.group(1))
        pos = block.end() + 1
        while pos < hi:
            item = _YAML_ITEM.match(text, pos, hi)
            if item is None or len(item.group(1)) <= indent:
                break
            value = item.group(3).strip().strip("\"'")
            if not v.placeholder(value) and len(value) >= 2:
                out.append((item.start(3), item.end(3), "kubernetes-secret"))
            pos = item.end() + 1
    for block in _JSON_DATA.finditer(text, lo, hi):
        pos = block.end()
        close = text.find("}", pos, hi)
        if close < 0:
            continue
        for item in _JSON_ITEM.finditer(text, pos, close):
            got = read_value(text, item.end())
            if got is not None and got[1] - got[0] >= 2 and not v.placeholder(text[got[0]:got[1]]):
                out.append((got[0], got[1], "kubernetes-secret"))
    return out


K8S_SECRET_RULE = Rule("kubernetes-secret", ("Secret",), _k8s_secret)

_ROW_END = re.compile(r"\r?\n|\\n")
_FIELD_END = re.compile(r"[\w .()/-]*(?:[,\t]|\r?\n|\\n)")


def _table_column(text: str, s: int, e: int) -> Iterable[Span]:
    """A CSV or TSV header with a secret column (``service,api_key,region``): that field of each
    row below (an exported credentials file, a spreadsheet pasted into a prompt)."""
    if _FIELD_END.match(text, e, e + 60) is None:
        return ()  # not a field of a comma- or tab-separated header
    head_start = line_start(text, s)
    if s - head_start > 400:
        return ()
    m = _ROW_END.search(text, e, e + 400)
    if m is None:
        return ()  # a header with no row below it
    head_end = m.start()
    header = text[head_start:head_end]
    sep = "," if header.count(",") >= 1 else "\t" if header.count("\t") >= 1 else ""
    if not sep or len(header) > 400 or " = " in header or ": " in header:
        return ()
    fields = [f.strip().strip("\"'") for f in header.split(sep)]
    if len(fields) < 2 or not all(_FIELD.fullmatch(f) for f in fields):
        return ()
    column = len(header[: s - head_start].split(sep)) - 1
    level = strength(fields[column]) if column < len(fields) else Strength.NONE
    if level < Strength.STRONG:
        return ()
    out: list[Span] = []
    pos = m.end()
    for _ in range(200):
        row_end_m = _ROW_END.search(text, pos, pos + 2000)
        row_end = row_end_m.start() if row_end_m else len(text)
        row = text[pos:row_end]
        cells = row.split(sep)
        if len(cells) != len(fields):
            break
        start = pos + sum(len(c) + 1 for c in cells[:column])
        cell = cells[column].strip().strip("\"'")
        if cell and accept(cell, level, fields[column]):
            inner = text.find(cell, start, start + len(cells[column]))
            out.append((inner, inner + len(cell), "table-secret"))
        if row_end_m is None:
            break
        pos = row_end_m.end()
    return out


_FIELD = re.compile(r"[A-Za-z][\w .()/-]{0,40}")
TABLE_RULE = Rule("table-secret", variants(*SECRET_WORDS), _table_column)


_PGPASS_LINE = re.compile(r"[^:\s]+:(?:\d+|\*):[^:\s]+:[^:\s]+:([^\s]+)")


def _pgpass(text: str, s: int, e: int) -> Iterable[Span]:
    """``host:port:database:user:password`` lines after a mention of ``.pgpass``."""
    out: list[Span] = []
    pos = e
    for _ in range(20):
        m = _ROW_END.search(text, pos, pos + 400)
        if m is None:
            break
        line = _PGPASS_LINE.match(text, m.end())
        if line is None:
            if out:
                break
            pos = m.end()
            continue
        if not v.placeholder(line.group(1)):
            out.append((line.start(1), line.end(1), "pgpass-password"))
        pos = line.end()
    return out


PGPASS_RULE = Rule("pgpass-password", (".pgpass", "PGPASSFILE"), _pgpass)

RULES = [PRIVATE_KEY_RULE, PUTTY_RULE, B64_KEY_RULE, K8S_SECRET_RULE, TABLE_RULE, PGPASS_RULE]
