"""What a value is: a placeholder, a reference, a path, a URL, a word, a hash, or a secret.

Context rules find a value next to a secret-sounding name (``API_KEY=...``, ``"token": "..."``,
``the password is ...``); whether it is redacted depends on what the value looks like. These
functions answer that from the value alone, so every context rule judges values the same way:

- placeholders and references are never secrets: ``${TOKEN}``, ``<your-token>``, ``xxxx``,
  ``changeme``, ``os.environ["KEY"]``, ``secrets.GITHUB_TOKEN``, ``op://vault/item``;
- paths, URLs without credentials, e-mail addresses, numbers, versions and words are not either:
  ``prod/shop/db``, ``https://auth.example.com/token``, ``required``, ``getUserToken``;
- a random string is: mixed letters and digits whose letter runs are not words (a bigram model
  of English and code tells ``kX9fLq2Zp`` from ``getUserName``), long hex, base64.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote

from kenning.redaction.bigrams import word_score

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]+")
_NUMBER = re.compile(r"[-+]?\d[\d_,.]*(?:[eE][-+]?\d+)?[a-zA-Z%]{0,3}")
_VERSION = re.compile(r"[vV]?\d+(?:\.\d+){1,3}(?:[-+.][0-9A-Za-z.]+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[-+]\d{2}:?\d{2})?)?")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_REPEAT = re.compile(r"(.)\1{5,}")
_FILLER_RUN = re.compile(r"(?i)x{4,}|\*{3,}|\.{3,}|…|_{4,}|#{4,}")
_HINT = re.compile(r"(?i)^(?:your|my|insert|enter|put|add|replace|paste|set)[-_ ]?[\w-]*(?:here|token|key|secret|"
                   r"password|api|value|id)[\w-]*$")
_FILLER_PART = re.compile(r"(?i)(?:^|[-_.])(?:example|placeholder|redacted|dummy|sample|changeme)(?:$|[-_.])")
_CODE_SPLIT = re.compile(r"[.\[\]()'\"]+")
_PATH_SPLIT = re.compile(r"[\\/]")
_JOINED_WORDS = re.compile(r"[A-Za-z]+(?:[-_.][A-Za-z]+)+")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_IDENT_CHARS = re.compile(r"[A-Za-z0-9_.:\-]+")
_PIECES = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

# Whole-value placeholders: templates, variables, angle-bracket hints, filler.
_TEMPLATE = re.compile(
    r"""^(?:
        %[A-Za-z_][A-Za-z0-9_]*%  # %VAR%
      | %\([A-Za-z_]+\)[sd]      # %(name)s
      | %[sdr]                   # %s
      | \{\{.*\}\}               # {{ var }}
      | \{%.*%\}                 # {% tag %}
      | \{[A-Za-z_][A-Za-z0-9_.]*\}  # {name}
      | <[^<>]*>                 # <your-token>
      | &lt;.*&gt;               # &lt;your-token&gt; (HTML-escaped)
      | \[[A-Za-z _-]*\]         # [REDACTED], [secret], [token]
      | @[A-Za-z_][\w.]*@        # @TOKEN@
      | __[A-Za-z_]+__           # __TOKEN__
      | ENC\[.*\]                # sops-encrypted value
      | !(?:Ref|Sub|GetAtt|ImportValue)\b.*
      | (?:vault|ssm|op|sm|awssm|gcpsm|azkv|keyvault|secretsmanager|ref\+\w+):.*  # secret-store references
    )$""",
    re.VERBOSE | re.DOTALL,
)
# Shell and template variables inside a value: ${VAR}, ${VAR:-x}, $(cmd), $VAR, $var.field.
_SHELL_VAR = re.compile(r"(?<![A-Za-z0-9_])(?:\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_]\w*)*)")
_FILLER_WORDS = frozenset(
    [
        "changeme", "change_me", "changeit", "replaceme", "replace_me", "replace-me", "placeholder", "example",
        "examples", "sample", "dummy", "fake", "test", "testing", "tests", "todo", "tbd", "fixme", "none", "null",
        "nil", "undefined", "true", "false", "yes", "no", "on", "off", "secret", "secrets", "password", "passwd",
        "pass", "pwd", "token", "tokens", "key", "keys", "apikey", "api_key", "api-key", "value", "your_token",
        "your_key", "your_api_key", "your-api-key", "your_secret", "your_password", "mytoken", "mysecret",
        "mypassword", "required", "optional", "string", "str", "int", "bool", "boolean", "bytes", "number",
        "integer", "any", "object", "default", "empty", "redacted", "masked", "hidden", "omitted", "removed",
        "censored", "foo", "bar", "baz", "qux", "foobar", "hello", "world", "abc", "abc123", "insert_here",
        "enter_here", "here", "xxx", "yyy", "zzz", "admin", "root", "user", "username", "guest", "demo",
    ]
)
# Reads of a value from somewhere else: code, not a secret.
_REFERENCE = re.compile(
    r"""^(?:
        [A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+(?:\(.*\))?[\]\)]?   # settings.SECRET, self.token, os.getenv(...)
      | [A-Za-z_][\w.]*\(.*\)?                                # get_token(), env("X")
      | [A-Za-z_][\w.]*\[.*\]?                                # os.environ["X"], ENV['X']
      | (?:process|import\.meta)\.env\b.*
      | (?:secrets|vars|env|inputs|steps|needs|github|matrix)\.[\w.]+   # GitHub Actions contexts
    )$""",
    re.VERBOSE,
)
_PATHISH = re.compile(r"^(?:~|\.{1,2}|\$[A-Z_]+|[A-Za-z]:)?[\\/]|^[\w.-]+(?:[\\/][\w.@-]+)+[\\/]?$")
_FILE = re.compile(r"^[\w.-]+\.(?:json|ya?ml|toml|ini|env|cfg|conf|txt|pem|key|crt|cer|p12|pfx|jks|pub|asc|gpg|"
                   r"der|csr|js|ts|py|rb|go|sh|md|xml|properties|secret|secrets|log|db|sqlite)$", re.IGNORECASE)
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s]*$")
# An ARN, a CSS selector or anchor, a MIME type: names of things, not values.
_NOT_VALUE = re.compile(r"arn:aws[\w-]*:|[#.][A-Za-z][\w-]*$|(?:application|text|image)/[\w.+-]+$")
_SCP_REMOTE = re.compile(r"[\w.-]+@[\w-]+(?:\.[\w-]+)+:[\w./~-]+")
_URL_CREDS = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^/\s@]*:[^/\s@]+@")
_TYPE = re.compile(r"^(?:Optional|Union|List|Dict|Literal|SecretStr|Secret|str|string|String|bytes|int|"
                   r"Annotated|Field|typing\.\w+)\b")


def unwrap(value: str) -> str:
    """``value`` without surrounding quotes, backticks, brackets and trailing punctuation."""
    v = value.strip()
    while len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'`":
        v = v[1:-1].strip()
    return v.strip("\"'`")


def low_diversity(value: str, *, alphabets: bool = True) -> bool:
    """Filler such as ``xxxxxxxx``, ``00000000``, ``****``, ``abcdefgh``, ``1234567890``: too few
    distinct characters, a long run of one character, or an alphabet walk."""
    core = value.strip("\"'` ")
    if not core:
        return True
    distinct = len(set(core.lower()))
    if distinct <= 3 or (len(core) >= 12 and distinct <= 5):
        return True
    if _REPEAT.search(core) or _FILLER_RUN.search(core):
        return True
    # An alphabet walk that is most of the value (a real random token may hold a short one), or
    # a whole alphabet spelled out (a constant in code: "ABC…XYZabc…xyz0123456789").
    lowered = core.lower()
    walks = ("abcdefgh", "12345678", "qwertyui", "01234567", "98765432", "0123456789abcdef")
    if any(w in lowered for w in walks) and len(core) <= 24:
        return True
    # ``alphabets=False``: the body of a token with a provider's prefix, masked whoever wrote it
    # (an example key in a note is still key-shaped; see docs/capture.md on published examples).
    return alphabets and ("abcdefghijklm" in lowered or "0123456789" in lowered or "nopqrstuvwxyz" in lowered)


def placeholder(value: str) -> bool:
    """A stand-in for a secret (``<your-token>``, ``${TOKEN}``, ``changeme``, ``xxxx``), not one."""
    v = unwrap(value)
    if not v:
        return True
    if _TEMPLATE.match(v):
        return True
    if v.startswith(("$(", "${", "`")):
        return True  # a shell expansion (cut at a space: "$($(dirname $0)/bin/get-setting …)")
    if "$" in v:
        # Made of variables and a little literal text ("${HOST}:${PORT}", "Bearer $TOKEN"), not
        # a random value that happens to hold a '$' (Django keys often do).
        rest = _SHELL_VAR.sub("", v)
        if rest != v and (len(rest) < 8 or not random_like(rest)):
            return True
    lowered = v.lower()
    if lowered in _FILLER_WORDS or lowered.strip("-_.") in _FILLER_WORDS:
        return True
    if _HINT.match(v) and identifier_like(v):
        return True
    if _FILLER_PART.search(v):
        return True
    return low_diversity(v)


def reference(value: str) -> bool:
    """Code or a template that reads the secret from elsewhere: ``os.environ["KEY"]``,
    ``settings.TOKEN``, ``get_token()``, ``secrets.NPM_TOKEN``, a type annotation."""
    v = unwrap(value)
    if _TYPE.match(v):
        return True
    if _REFERENCE.match(v):
        # A dotted run of random-looking parts is a token (``abc.def.ghi`` JWT-like), not code.
        parts = _CODE_SPLIT.split(v)
        return not any(len(p) >= 16 and random_like(p) for p in parts)
    return False


def path_like(value: str) -> bool:
    """A file system path or file name made of words: ``/run/secrets/db``, ``prod/shop/db``,
    ``~/.ssh/id_rsa``, ``service-account.json``. Base64 with slashes is not one."""
    v = unwrap(value)
    if _FILE.match(v):
        return True
    if not _PATHISH.match(v):
        return False
    parts = [p for p in _PATH_SPLIT.split(v) if p]
    if not parts:
        return True
    # Random parts (base64 cut at '/') make it a token, not a path.
    return not any(len(p) >= 6 and random_like(p, strict=True) for p in parts)


def url_like(value: str) -> bool:
    """A URL that carries no password (those are the url-password rule's job), or a git remote
    written the scp way (``git@github.com:acme/shop.git``)."""
    v = unwrap(value)
    return bool(_URL.match(v)) and not _URL_CREDS.match(v) or bool(_SCP_REMOTE.fullmatch(v))


def uuid_like(value: str) -> bool:
    return bool(UUID.fullmatch(unwrap(value)))


def hex_like(value: str) -> bool:
    v = unwrap(value)
    return len(v) >= 8 and bool(_HEX.fullmatch(v))


def number_like(value: str) -> bool:
    v = unwrap(value)
    return bool(_NUMBER.fullmatch(v) or _VERSION.fullmatch(v) or _DATE.fullmatch(v))


def identifier_like(value: str) -> bool:
    """Words joined as code joins them: ``get_user_token``, ``AUTH_MODE``, ``accessToken``,
    ``kebab-case-name``, ``com.example.Auth``, with at most short numbers among them."""
    v = unwrap(value)
    if not v or len(v) > 200 or not _IDENT_CHARS.fullmatch(v) or not any(c.isalpha() for c in v):
        return False
    return _wordy_share(v) >= 0.6


def _wordy_share(v: str) -> float:
    """The share of ``v``'s letters and digits that belong to words: letter runs the bigram
    model reads as words (3+ letters), and short numbers right after such a word (``version2``)."""
    pieces = _PIECES.findall(v)
    total = sum(len(p) for p in pieces)
    if not total:
        return 0.0
    wordy = 0
    for i, p in enumerate(pieces):
        if p.isdigit():
            if len(p) <= 4 and i > 0 and not pieces[i - 1].isdigit() and len(pieces[i - 1]) >= 3 \
                    and _wordish(pieces[i - 1]):
                wordy += len(p)
        elif len(p) >= 3 and _wordish(p):
            wordy += len(p)
    return wordy / total


# Short words the bigram model is unsure of, common in names.
_SHORT_WORDS = frozenset({
    "api", "key", "id", "ids", "url", "uri", "db", "my", "your", "the", "get", "set", "new", "old", "app", "env",
    "dev", "prod", "aws", "gcp", "ssh", "jwt", "pat", "max", "min", "num", "str", "int", "len", "tmp", "src",
    "dst", "buf", "ctx", "cfg", "err", "msg", "req", "res", "run", "log", "out", "sql", "xml", "css", "csv", "pdf",
    "png", "tls", "ssl", "tcp", "udp", "ip", "os", "ui", "io", "ok", "no", "to", "in", "on", "at", "by", "of",
    "or", "and", "for", "not", "all", "any", "use", "add", "fix", "bug", "web", "www", "org", "net", "com", "npm",
    "pip", "git", "cli", "sdk", "kit", "lib", "bin", "doc", "pkg", "ref", "tag", "raw", "hex", "utc", "rgb",
    "nav", "btn", "img", "div", "sec", "auth",
})


@lru_cache(maxsize=4096)
def _wordish(piece: str) -> bool:
    return piece.lower() in _SHORT_WORDS or word_score(piece) > -4.6


def random_like(value: str, *, strict: bool = False) -> bool:
    """Machine-made: a run whose letters are not words, mixed with digits or case changes, or
    long hex. ``strict`` asks for more evidence (used without a secret-sounding name)."""
    v = unwrap(value)
    n = len(v)
    if n < 8:
        return False
    if n > 256:
        v = v[:256]  # judged by its head: enough to tell, and linear cost
    if uuid_like(v):
        return False
    if _HEX.fullmatch(v):
        return n >= (32 if strict else 16) and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
    alnum = [c for c in v if c.isalnum()]
    if len(alnum) < max(8, n // 2):
        return False
    has_d = any(c.isdigit() for c in alnum)
    has_u = any(c.isupper() for c in alnum)
    has_l = any(c.islower() for c in alnum)
    if has_d + has_u + has_l < 2:
        # One class only: long random letters (base32 upper) still count, words do not.
        return n >= 20 and not strict and word_score(v) < -4.6
    pieces = _PIECES.findall(v)
    share = 1 - _wordy_share(v)
    if strict:
        return share >= 0.7 and len(pieces) >= 5
    return share >= 0.5


def password_like(value: str) -> bool:
    """Could be a password a person chose: letters with digits or symbols, not one word, not
    code. (Plain words such as ``postgres`` are left alone: too many are settings, not secrets.)"""
    v = unwrap(value)
    if len(v) < 6 or " " in v:
        return False
    has_alpha = any(c.isalpha() for c in v)
    has_digit = any(c.isdigit() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    if not has_alpha:
        return len(v) >= 10 and has_digit and has_symbol
    if not (has_digit or has_symbol):
        return random_like(v)
    # Words joined by dashes or dots are a name, not a password.
    return not (has_symbol and not has_digit and _JOINED_WORDS.fullmatch(v))


def base64_like(value: str) -> bool:
    """Standard or URL-safe base64 of some length (padding optional)."""
    v = unwrap(value)
    return len(v) >= 12 and bool(_BASE64.fullmatch(v)) and (
        v.endswith("=") or random_like(v))


def not_a_value(value: str) -> bool:
    """Anything that is certainly not a secret, whatever name it stands next to."""
    v = unwrap(value)
    if "%" in v and _PERCENT.search(v):
        decoded = unquote(v)
        if decoded != v:
            return not_a_value(decoded)
    return (placeholder(v) or reference(v) or url_like(v) or bool(_EMAIL.fullmatch(v)) or number_like(v)
            or path_like(v) or bool(_NOT_VALUE.match(v)))
