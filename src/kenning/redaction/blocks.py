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
from kenning.redaction.assign import read_value
from kenning.redaction.engine import Rule, Span, run_end

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
    lo = text.rfind("\n---", 0, s)
    lo = max(lo + 1, s - 8000, 0)
    hi = text.find("\n---", s)
    hi = min(hi if hi >= 0 else len(text), s + 8000)
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

RULES = [PRIVATE_KEY_RULE, PUTTY_RULE, B64_KEY_RULE, K8S_SECRET_RULE]
