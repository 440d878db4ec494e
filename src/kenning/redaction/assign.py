"""Secrets found by their name: ``KEY=value``, ``"token": "…"``, ``password: …``, headers, flags.

One finder serves every syntax that puts a value next to a name: env files and shell
(``export API_KEY=…``), JSON and YAML (``"apiKey": "…"``, ``api_key: …``), code (``password = "…"``,
``token := "…"``, ``'secret' => '…'``), INI/TOML, connection strings (``Password=…;``), URL
queries (``?access_token=…&``), HTTP headers (``X-Api-Key: …``, ``Authorization: Bearer …``),
command-line flags (``--password …``, ``--token=…``), XML (``<password>…</password>``), and the
same inside JSON strings (``\\"password\\":\\"…\\"``, as ``aws secretsmanager`` prints a secret).

The name decides how much a value must look like a secret (``names.strength``), the value's own
shape decides the rest (``values``). Only the value is masked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kenning.redaction import values as v
from kenning.redaction.engine import (
    LINE_BREAK,
    Rule,
    Span,
    line_start,
    starts_word,
    variants,
    wrapped_end,
)
from kenning.redaction.names import SECRET_WORDS, Strength, strength, words
from kenning.redaction.prose import next_line_value, prose_level, scan_after

NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_OP = re.compile(r"""(?:\\*["'])?(?:\])?[ \t]*(?:(:=|=>|==|!=|=|:(?![:/])|->)|(>))[ \t]*""")
_SPACE_OP = re.compile(r"[ \t]+")
# After "set NAME": the value, maybe behind a flag (gh secret set NAME --body VALUE).
_SET_VALUE = re.compile(r"[ \t]+(?:(?:--body|--value|--data|--secret-string|--string|-b)(?:=|[ \t]+)|to[ \t]+)?")
# What may follow a name that has a value: an operator, a quote, a bracket, a space.
_AFTER_NAME = frozenset(" \t=:\"'`>\\]}),;")
_NAME_END = frozenset(" \t`\"')(,")
# A command that prints the secret it names; its value is the next line.
_PRINTS = re.compile(r"(?<![\w.$-])(?:printenv|echo|printf|config:get|get|access|read|reveal|show|decrypt|"
                     r"get-secret-value|get-parameter)(?=[ \t])|jsonpath=|-field=")
_LINE_TAIL = re.compile(r"""[\w.-]*[}\]'"`)]*(?:[ \t]+--?[\w-]+(?:[= ][^\s\\]+)?)*[ \t]*(?=\r?\n|\\n)""")
_IDENTIFIER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[A-Z][A-Z0-9]+")
# A YAML block scalar: the value is on the indented lines below (key: |, key: >-).
_BLOCK_SCALAR = re.compile(r"[|>][+-]?[ \t]*(?:\r?\n|\\n)")
# "set NAME VALUE" (also "npm config set //registry/:_authToken VALUE"): a space is the operator.
_SET_BEFORE = re.compile(r"(?:\b(?:set|add|put|config:set|env:set|secrets\s+set)\s+\S*|--from-literal=?)$", re.IGNORECASE)
_OPEN = re.compile(r"""(?:[rbfuRBFU@]{1,2}(?=["']))?(\\*)(["'`])""")
_SCHEME = re.compile(
    r"(?i)(?:bearer|basic|token|bot|ssws|digest|api-?key|key|oauth|geniekey|splunk|deepl-auth-key|"
    r"klaviyo-api-key|zoho-oauthtoken|sso-key|jwt|negotiate|hmac|apitoken|access_token|client-token)"
    r"(?:[ \t]+|=)")
# Where an unquoted value stops. Backslash stops it only as the start of an escape (\n, \").
_STOP = frozenset(" \t\r\n\"'`,;<>|{}")
_QUERY_STOP = _STOP | frozenset("&#")
_MAX_VALUE = 600


def _name_span(text: str, s: int, e: int) -> tuple[int, int]:
    a = s
    floor = max(0, s - 64)
    while a > floor and text[a - 1] in NAME_CHARS:
        a -= 1
    b = e
    ceil = min(len(text), e + 64)
    while b < ceil and text[b] in NAME_CHARS:
        b += 1
    # An escape written as text (\nAPI_KEY=…, \tpassword: …) is not part of the name.
    if a >= 1 and text[a - 1] == "\\" and a < s and text[a] in "nrt":
        a += 1
    return a, b


def read_value(text: str, i: int, query: bool = False) -> tuple[int, int, bool] | None:
    """The value that starts at ``i``: (start, end, quoted). Quotes may be escaped (``\\"``)
    to any depth; an unquoted value ends at white space, a quote, ``,``/``;`` or an escape."""
    m = _OPEN.match(text, i)
    if m is not None:
        esc, quote = m.group(1), m.group(2)
        start = m.end()
        close = esc + quote
        j = start
        limit = min(len(text), start + _MAX_VALUE)
        while True:
            j = text.find(close, j, limit)
            if j < 0:
                return None
            # Count the backslashes right before the quote: more than ours means the quote is
            # escaped one level deeper, inside the value.
            q_at = j + len(esc)
            k = q_at
            while k > start and text[k - 1] == "\\":
                k -= 1
            if q_at - k == len(esc):
                break
            j += 1
        if "\n" in text[start:j]:
            return None
        return start, j, True
    stops = _QUERY_STOP if query else _STOP
    j = i
    limit = min(len(text), i + _MAX_VALUE)
    while j < limit:
        c = text[j]
        if c in stops:
            break
        if c == "\\" and j + 1 < len(text) and text[j + 1] in "nrt\"'\\":
            break
        j += 1
    # Sentence punctuation after an unquoted value is not part of it; nor is a closing bracket
    # that has no opening one in the value.
    while j - i > 1:
        c = text[j - 1]
        if c in ".,:;" or (c in ")]}" and "([{"[")]}".index(c)] not in text[i:j - 1]):
            j -= 1
        else:
            break
    if j == i:
        return None
    return i, j, False


def _scheme_value(text: str, start: int, end: int) -> int:
    """Skip an auth scheme (``Bearer ``, ``Basic ``, ``key=``, ``SSWS ``) at the value's start."""
    m = _SCHEME.match(text, start, end)
    if m is not None and m.end() < end:
        return m.end()
    return start


def accept(value: str, level: Strength, name: str = "") -> bool:
    """Whether ``value`` next to a name of strength ``level`` is a secret."""
    val = value.strip()
    if len(val) < 4 or level == Strength.NONE:
        return False
    if " " in val:
        # A wallet's recovery phrase: 12 to 24 lower-case words next to a mnemonic/seed name.
        return bool(_MNEMONIC_NAME.search(name)) and bool(_PHRASE.fullmatch(val))
    if val[0] in "{[(" and val[-1] == "}])"["{[(".index(val[0])] and not v.random_like(val):
        return False  # a JSON object, a list, a call: structure, not a value
    if v.not_a_value(val):
        return False
    if "authorization" in name.lower() or name.lower() in ("bearer", "cookie"):
        return len(val) >= 8 and not v.identifier_like(val)
    if level == Strength.PASSWORD:
        if v.uuid_like(val) or v.hex_like(val):
            return True
        if v.identifier_like(val) and not any(c.isdigit() for c in val):
            return False
        return v.password_like(val) or v.random_like(val) or (len(val) >= 4 and any(c.isdigit() for c in val)
                                                                and any(c.isalpha() for c in val))
    if level == Strength.STRONG:
        if v.uuid_like(val) or (v.hex_like(val) and len(val) >= 16):
            return True
        if len(val) < 8:
            return False
        return v.random_like(val) or v.base64_like(val) or (
            len(val) >= 12 and v.password_like(val) and not v.identifier_like(val))
    # WEAK: only what is plainly machine-made, never what could be a hash or an id.
    if v.uuid_like(val) or v.hex_like(val):
        return False
    return len(val) >= 16 and (v.random_like(val) or v.base64_like(val))


def _assignment(text: str, s: int, e: int) -> Iterable[Span]:
    a, b = _name_span(text, s, e)
    name = text[a:b]
    flag = name.startswith("-")
    core = name.lstrip("-.")
    if not core:
        return ()
    nxt = text[b:b + 1]
    if nxt not in _AFTER_NAME and not flag and LINE_BREAK.match(text, b) is None:
        return ()  # get_token(), self.key[...], api_key.strip(): code, not a name and its value
    level = strength(core)
    if core.isalpha():
        level = prose_level(text, a, core)  # "API key: …", "publishable key: …"
    if level == Strength.NONE:
        return ()
    # Inside a colon-separated identifier (arn:aws:secretsmanager:…:secret:prod/db) there is no name.
    if a > 0 and text[a - 1] == ":" and text[b:b + 1] == ":":
        return ()
    op = _OP.match(text, b)
    xml = False
    if op is None or op.end() == b and not op.group(1) and not op.group(2):
        sp = _SET_VALUE.match(text, b) if flag or _set_before(text, a) else None
        if sp is not None:
            op_end = sp.end()
        elif level >= Strength.STRONG and _IDENTIFIER_NAME.fullmatch(core) and text[b:b + 1] in _NAME_END:
            # OKTA_API_TOKEN (00jH…), "`SMTP_PASSWORD` … with the value `…`": a name written as
            # code, its value further along the sentence.
            return scan_after(text, b, level, named=True)
        elif level >= Strength.STRONG and _prints_value(text, a, b):
            # "$ printenv API_TOKEN", "kubectl … jsonpath='{.data.password}'", "gcloud secrets
            # versions access latest --secret=db-password": the value is the output below.
            return next_line_value(text, _line_end(text, b), level)
        else:
            return ()
    else:
        if op.group(2):  # '>' closes an XML tag: <password>value</password>
            if a == 0 or text[a - 1] != "<":
                return ()
            xml = True
        elif op.group(1) is None:
            return ()
        op_end = op.end()
    # "passwordLabel:\"Password:\",\"…\"": the name sits inside a string that the quote after
    # its colon closes; what follows is another string, not its value.
    opened = text[a - 1] if a > 0 and text[a - 1] in "\"'" else ""
    if opened and op is not None and not op.group().lstrip().startswith(opened) \
            and text.startswith(opened, op_end) and not text.startswith(opened, b):
        return ()
    query = a > 0 and text[a - 1] in "?&"
    block = _BLOCK_SCALAR.match(text, op_end)
    if block is not None:
        return _block_value(text, block.end(), level, core)
    if core.lower().endswith("cookie"):
        return _cookies(text, op_end)
    got = read_value(text, op_end, query=query)
    if got is None:
        if op is not None and op.group(1) == ":" and LINE_BREAK.match(text, op_end):
            return next_line_value(text, op_end, level)  # "New token:" then the token below
        return ()
    start, end, quoted = got
    if xml and not text.startswith("</", end):
        return ()
    if quoted:
        start = _scheme_value(text, start, end)
    else:
        scheme = _SCHEME.match(text, start)
        if scheme is not None:
            again = read_value(text, scheme.end(), query=query)
            if again is not None and not again[2]:
                start, end = again[0], again[1]
    value = text[start:end]
    if not accept(value, level, core) and not _env_password(core, op, value):
        return ()
    if not quoted and LINE_BREAK.match(text, end) is not None:
        end = wrapped_end(text, start, end)
    return ((start, end, "named-secret"),)


def _env_password(name: str, op: re.Match[str] | None, value: str) -> bool:
    """``DB_PASSWORD=whiteduke``: an environment variable named for a password holds one, even a
    plain word (in code, ``password = word`` is more often a variable than a password)."""
    if op is None or op.group(1) not in ("=", ":") or name.upper() != name or not name[:1].isalpha():
        return False
    last = words(name)[-1:]
    if last not in (["password"], ["passwd"], ["pass"], ["pwd"], ["passphrase"]):
        return False
    return len(value) >= 5 and value.isalpha() and not v.not_a_value(value)


def _line_end(text: str, i: int) -> int:
    m = _LINE_TAIL.match(text, i, i + 200)
    return m.end() if m else i


def _prints_value(text: str, a: int, b: int) -> bool:
    """The name ends a command that prints its value (only flags may follow it on the line)."""
    if _PRINTS.search(text, max(line_start(text, a), a - 200), a) is None:
        return False
    return _LINE_TAIL.match(text, b, b + 200) is not None


def _set_before(text: str, a: int) -> bool:
    window = text[max(0, a - 40):a]
    return any(w in window for w in _SET_WORDS) and _SET_BEFORE.search(window) is not None


_SET_WORDS = ("set", "Set", "SET", "add", "Add", "ADD", "put", "PUT", "literal")


def _block_value(text: str, i: int, level: Strength, name: str) -> Iterable[Span]:
    """The indented lines of a YAML block scalar, joined (a long key folded over lines)."""
    start = i
    while start < len(text) and text[start] in " \t":
        start += 1
    end = start
    while end < len(text) and text[end] not in "\r\n" and not text.startswith("\\n", end):
        end += 1
    if end == start:
        return ()
    full = wrapped_end(text, start, end)
    value = _SPACES.sub("", text[start:full])
    if not accept(value, level, name) and not accept(text[start:end], level, name):
        return ()
    return ((start, full, "named-secret"),)


_MNEMONIC_NAME = re.compile(r"(?i)mnemonic|seed|phrase|recovery")
_PHRASE = re.compile(r"[a-z]{3,8}(?: [a-z]{3,8}){11,23}")
_SPACES = re.compile(r"\s+|\\n")
_COOKIE_PAIR = re.compile(r"[ \t]*([^=;\s\"']+)=([^;\s\"']*)")
_SESSION_COOKIE = re.compile(r"(?i)sess|sid|token|auth|jwt|remember|login|secret|key")


def _cookies(text: str, i: int) -> Iterable[Span]:
    """``Cookie: a=1; session=…``: each cookie judged by its own name (session ids are secrets,
    analytics ids such as ``_ga`` are not)."""
    out: list[Span] = []
    pos = i
    while True:
        m = _COOKIE_PAIR.match(text, pos)
        if m is None:
            break
        name, value = m.group(1), m.group(2)
        if _SESSION_COOKIE.search(name) and len(value) >= 8 and not v.not_a_value(value) and (
                v.random_like(value) or v.base64_like(value) or v.hex_like(value) or v.uuid_like(value)):
            out.append((m.start(2), m.end(2), "named-secret"))
        pos = m.end()
        if text[pos:pos + 1] != ";":
            break
        pos += 1
    return out


NAME_RULE = Rule("named-secret", variants(*SECRET_WORDS), _assignment)


_FIELD_WORD = re.compile(r"name|Name|NAME|key|Key|KEY|-n |variable")
_NAME_FIELD = re.compile(
    r"""(?:name|key|Name|Key|NAME|KEY|ParameterKey|OptionName|--name|-n|variable)\\*["']?\s*(?:[:=]|\s)\s*\\*["']?"""
    r"""([A-Za-z0-9_./-]{2,80})\\*["']?""")


def _named_value(text: str, s: int, e: int) -> Iterable[Span]:
    """``- name: API_KEY`` then ``value: …`` (Kubernetes env, AWS tags and SSM, .NET appSettings,
    CloudFormation parameters): the name is a field's value; the secret is the next ``value``."""
    if _OP.match(text, e) is None and text[s - 2:s] != "--":
        return ()
    if _FIELD_WORD.search(text, max(0, s - 200), s) is None:
        return ()
    if not starts_word(text, s - 2 if text[s - 2:s] == "--" else s) and text[s - 1:s] not in ("-", "r"):
        return ()
    a, b = _name_span(text, s, e)
    if words(text[a:b].lstrip("-"))[-1:] not in (["value"], ["default"]):
        return ()
    op = _OP.match(text, b)
    if op is not None and (op.group(1) or op.group(2)) and not op.group(2):
        op_end = op.end()
    elif text[a:a + 2] == "--" and (sp := _SPACE_OP.match(text, b)) is not None:
        op_end = sp.end()
    else:
        return ()
    fields = _NAME_FIELD.findall(text, max(0, a - 200), a)
    if not fields:
        return ()
    name = fields[-1].rstrip("/").rsplit("/", 1)[-1]
    level = strength(name)
    if level == Strength.NONE:
        return ()
    got = read_value(text, op_end)
    if got is None:
        return ()
    start, end, _quoted = got
    if not accept(text[start:end], level, name):
        return ()
    return ((start, end, "named-secret"),)


VALUE_RULE = Rule("named-secret", ("value", "Value", "VALUE", "default"), _named_value)
