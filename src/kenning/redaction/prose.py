"""Secrets found by what is around them but not by a name: sentences, URLs, commands.

- **Sentences**: ``the staging password is Sunset42!``, ``here's my api key: …``,
  ``I rotated the token, new one qX3…``. A secret word, then within the same line and a few
  words a value that looks machine-made (or, after *password*, chosen by a person). Hex and UUIDs
  count only right after the word (``token: 3f2c…``), so ``the token fix landed in 3f2c1d0`` keeps
  its commit.
- **URLs with credentials**: ``postgres://app:…@db``, ``https://x-access-token:…@github.com``,
  ``https://<key>@o1.ingest.sentry.io/1`` (a random user part is a key).
- **Commands**: ``sshpass -p …``, ``docker login -p …``, ``az login -p …``, ``mysql -p…``,
  ``redis-cli -a …``, ``openssl … -passin pass:…``, ``keytool -storepass …``, ``curl -u user:…``,
  ``echo … | docker login --password-stdin``, and ``.netrc`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kenning.redaction import values as v
from kenning.redaction.engine import Rule, Span, starts_word, variants
from kenning.redaction.names import SECRET_WORDS, Strength, strength

# Words that may qualify "key"/"token" in a sentence: "api key", "access token", "license key".
_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "client", "app", "auth", "license", "signing", "master", "encryption",
    "account", "service", "admin", "deploy", "storage", "webhook", "bot", "personal", "refresh", "session",
    "bearer", "root", "db", "database", "wifi", "sdk", "ingest", "write", "read", "server", "consumer",
    "integration", "application", "project", "org", "organization", "team", "user", "upload", "publish", "registry",
    "npm", "pypi", "github", "gitlab", "slack", "stripe", "aws", "azure", "gcp", "openai", "anthropic", "heroku",
    "datadog", "sentry", "cloudflare", "twilio", "sendgrid", "mailgun", "shopify", "vault", "doppler", "ci",
    "deployment",
})
_DIRECT = frozenset({
    "is", "was", "=", ":", "-", "->", "=>", "→", "here", "here's", "now", "set", "to", "value", "the", "new", "old",
    "my", "our", "your", "this", "its", "it's", "as", "be", "are", "becomes", "became",
})
_HASHY = frozenset({
    "commit", "commits", "sha", "sha1", "sha256", "hash", "hashes", "digest", "checksum", "rev", "revision",
    "build", "version", "id", "ids", "uuid", "etag", "fix", "fixed", "merged", "landed", "pr", "branch", "tag",
    "release", "ref", "count", "counts",
})
_ASSIGNED = re.compile(r"""(?:\\*["'])?[ \t]*(?:[:=]|=>)""")
_CLAUSE_END = re.compile(r"[.!?](?:\s|$)")
_STRIP = "\"'`()[]<>{},;:*\\"


def prose_level(text: str, a: int, word: str) -> Strength:
    """The strength of ``word`` at ``a`` read with the word before it ("api key", "public key")."""
    level = strength(word)
    if level == Strength.PASSWORD or level == Strength.NONE:
        return level
    # The word before: "api key", "access token", "the key", "publishable key".
    j = a - 1
    while j > 0 and text[j - 1] == " ":
        j -= 1
    i = j
    while i > 0 and text[i - 1].isalpha():
        i -= 1
    prev = text[i:j].lower()
    if prev in _PUBLIC_WORDS:
        return Strength.NONE
    if prev in _QUALIFIERS:
        return max(level, strength(prev + "_" + word))
    return level


_BEFORE_OK = frozenset(" \t\n\r\"'`([*>")
_AFTER_OK = frozenset(" \t\n\r\"'`,.;:!?)]*")
_PUBLIC_WORDS = frozenset({"public", "publishable", "anon", "anonymous"})
# A word that ends a run of prose: code, shell syntax.
# Something a secret has and a plain word has not: a digit, a symbol, a case change inside.
_SHAPE = re.compile(r"[0-9!@#$%^&*+=/~_.:-]|[a-z][A-Z]|[A-Z]{2}[a-z]")
_HEXISH = re.compile(r"(?:0x)?[0-9a-fA-F]+")
_OPERATOR = re.compile(r"(?!=$|->$|=>$|:=$)[=+|&;<>*/%^!~-]{1,3}")
_CODEISH = re.compile(r"[=+|&;{}<>$\\]|^--?[a-z]|\(\)|^\W+$")


def _prose(text: str, s: int, e: int) -> Iterable[Span]:
    # The needle must be a whole word of a sentence (plural allowed): not part of a name, a
    # path, a package (jsonwebtoken, password-validator, /jwt/v5).
    end = e
    if text[end:end + 1] in ("s", "S"):
        end += 1
    before_ok = s == 0 or text[s - 1] in _BEFORE_OK or (s >= 2 and text[s - 2] == "\\" and text[s - 1] in "nt")
    after_ok = end >= len(text) or text[end] in _AFTER_OK and (
        text[end] != "." or end + 1 >= len(text) or text[end + 1] in " \t\r\n\"'`)]\\")
    if not before_ok or not after_ok or _ASSIGNED.match(text, end):
        return ()
    level = prose_level(text, s, text[s:e])
    if level == Strength.NONE:
        return ()
    found = scan_after(text, end, level, named=False)
    if found or not _CLAUSE_TAIL.match(text, end):
        return found
    return scan_before(text, s, level)


# The secret word ends a clause ("… as the datadog api key.", "… is my token,"): look back.
_CLAUSE_TAIL = re.compile(r"""[)"'`\]]*(?:[.,;!?]|[ \t]*(?:\r?\n|\\n|$))""")


_BEFORE_RELATION = frozenset({"as", "is", "was", "=", ":", "for", "-", "—"})


def scan_before(text: str, start: int, level: Strength) -> Iterable[Span]:
    """The value a few words before the secret word, tied to it by "as"/"is": "I'll use `…` as
    the datadog api key", "… is my token". Hex and UUIDs only after "as" (a commit id is often
    followed by "is")."""
    floor = max(0, start - 120)
    nl = max(text.rfind("\n", floor, start), text.rfind("\\n", floor, start) + 1)
    floor = max(floor, nl + 1)
    words = list(_WORDS.finditer(text, floor, start))
    between: list[str] = []
    for m in reversed(words[-8:]):
        word = m.group()
        bare = word.strip(_STRIP + ".!?-")
        if not bare:
            continue
        if "[secret]" in word or _CLAUSE_END.search(word) or _OPERATOR.fullmatch(word):
            break
        core_start, core_end = m.start(), m.end()
        while core_start < core_end and text[core_start] in _STRIP:
            core_start += 1
        while core_end > core_start and text[core_end - 1] in _STRIP + ".,":
            core_end -= 1
        core = text[core_start:core_end]
        related = bool(between) and between[-1] in _BEFORE_RELATION
        if related and len(core) >= 12 and not v.not_a_value(core):
            hexish = v.uuid_like(core) or _HEXISH.fullmatch(core)
            if hexish:
                if between[-1] == "as" and level >= Strength.STRONG and len(core) >= 16:
                    return ((core_start, core_end, "secret-in-text"),)
            elif level == Strength.PASSWORD and v.password_like(core) and not v.identifier_like(core) or \
                    level >= Strength.STRONG and v.random_like(core):
                return ((core_start, core_end, "secret-in-text"),)
        if bare.lower() in _HASHY:
            break
        between.append(bare.lower())
    return ()


def scan_after(text: str, end: int, level: Strength, *, named: bool) -> Iterable[Span]:
    """The first value in the words after ``end`` (same line, a few words) that is a secret for a
    name of strength ``level``. ``named``: the name is an identifier (``OKTA_API_TOKEN``), which
    lets hex and UUID values stand further from it."""
    limit = min(len(text), end + (140 if named else 90))
    nl = text.find("\n", end, limit)
    esc = text.find("\\n", end, limit)
    stop = min(x for x in (nl, esc, limit) if x >= 0)
    if stop - end < 7:
        # Nothing long enough on the rest of the line ("pass" ending a line of code), unless the
        # value is on the next line: "New token:" then the token, "printenv NAME" then its value.
        rest = text[end:stop].strip()
        if stop < limit and (rest.endswith(":") or (named and not rest)):
            return next_line_value(text, stop, level)
        return ()
    between: list[str] = []
    for m in _WORDS.finditer(text, end):
        if m.start() >= stop:
            break
        word = m.group()
        if "[secret]" in word:
            break  # the value an earlier pass masked: the sentence's secret is taken
        bare = word.strip(_STRIP + ".!?-")
        if not bare:
            continue  # punctuation alone: a closing backtick, a dash
        if bare.lower() in _HASHY:
            break
        if _OPERATOR.fullmatch(word):
            break  # code or shell: "passwd = passwd + '…'", "… | base64"
        if len(bare) < 6 or not _SHAPE.search(bare):
            # Too short, or a plain word (no digit, symbol or case change inside): a word of the
            # sentence, not a value.
            between.append(bare.lower() if not word.endswith(":") else bare.lower() + ":")
            if len(between) >= (9 if named else 7) or (
                    _CODEISH.search(word) and not word.endswith(":") and word not in ("=", "->", "=>", "→")):
                break
            continue
        if v.not_a_value(word.rstrip(".,;:!?").strip("\"'`")):
            between.append(word.lower())
            if len(between) >= (9 if named else 7):
                break
            continue
        core_start, core_end = m.start(), m.end()
        while core_start < core_end and text[core_start] in _STRIP:
            core_start += 1
        while core_end > core_start and text[core_end - 1] in _STRIP + ".!?":
            # A password may end in '!' or '?'.
            if text[core_end - 1] in "!?" and core_end - core_start > 6 and level == Strength.PASSWORD:
                break
            core_end -= 1
        core = text[core_start:core_end]
        if not core:
            continue  # punctuation alone: a closing backtick, a dash
        if _accept(core, level, between, named):
            return ((core_start, core_end, "secret-in-text"),)
        plain = word.strip(_STRIP + ".!?").lower()
        if plain in _HASHY or _CODEISH.search(word) and not word.endswith(":") or len(between) >= (9 if named else 7):
            break
        between.append(plain if not word.endswith(":") else plain + ":")
        if _CLAUSE_END.search(word) and not v.random_like(core):
            break
    return ()


_WORDS = re.compile(r"[^\s\\]+")
_NEXT_LINE = re.compile(r"(?:\r?\n|\\n)(?:[ \t]*(?:\r?\n|\\n))?[ \t>]*(?:```\w*(?:\r?\n|\\n)[ \t]*)?[`'\"]?"
                        r"([^\s`'\"\\]{8,})[`'\"]?[ \t]*(?=\r?\n|\\n|$)")


def next_line_value(text: str, pos: int, level: Strength) -> Iterable[Span]:
    """A value alone on the line after ``pos`` (maybe after a blank line or a code fence)."""
    m = _NEXT_LINE.match(text, pos)
    if m is None:
        return ()
    core = m.group(1)
    if not _accept(core, level, [], True):
        return ()
    return ((m.start(1), m.end(1), "secret-in-text"),)


def _accept(core: str, level: Strength, between: list[str], named: bool) -> bool:
    if len(core) < 6 or v.not_a_value(core):
        return False
    last = between[-1] if between else ""
    direct = (not between or last.endswith(":") or last in ("is", "was", "=", "are", "->", "=>", "→")
              or all(w in _DIRECT for w in between))
    if v.uuid_like(core) or _HEXISH.fullmatch(core):
        return (direct or named) and level >= Strength.STRONG and len(core) >= 16
    if level == Strength.PASSWORD:
        if v.identifier_like(core):
            mixed = any(c.isupper() for c in core) and any(c.islower() for c in core)
            if not (mixed and any(c.isdigit() for c in core) and len(core) >= 8):
                return False
        return v.password_like(core) and (direct or named or len(between) <= 4)
    if level == Strength.STRONG:
        return len(core) >= 12 and v.random_like(core)
    return len(core) >= 20 and v.random_like(core, strict=True)


PROSE_RULE = Rule("secret-in-text", variants(*SECRET_WORDS, "credentials", "apikey"), _prose)


_BEARER = re.compile(r"(?i)bearer[ \t]+([A-Za-z0-9._~+/-]{12,}=*)")


def _bearer(text: str, s: int, _e: int) -> Iterable[Span]:
    if not starts_word(text, s):
        return ()
    m = _BEARER.match(text, s)
    if m is None:
        return ()
    token = m.group(1)
    if v.placeholder(token) or v.reference(token) or v.identifier_like(token):
        return ()
    return ((m.start(1), m.end(1), "bearer-token"),)


BEARER_RULE = Rule("bearer-token", variants("bearer"), _bearer)


# user:password@host. The password may hold '@' and '/' (people paste them unencoded): it runs
# to the last '@' followed by a host name (masking a little too much beats leaking a piece).
_SPACE = re.compile(r"[\s\"'<>]")
_URL_AUTH = re.compile(
    r"""([^\s:/?#@'"<>\\]{0,128})(?::([^\s'"<>\\]{0,256}))?@"""
    r"""(?=(?:[\w-]+\.)*[\w-]+(?::\d{1,5})?(?:[/?#\s'"\\,;)]|$)|\[)""")


def _url_userinfo(text: str, s: int, e: int) -> Iterable[Span]:
    a = s
    while a > 0 and text[a - 1] in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-":
        a -= 1
    if a == s:
        return ()
    at = text.find("@", e, e + 400)
    if at < 0 or _SPACE.search(text, e, at) is not None:
        return ()  # no user part: most URLs
    m = _URL_AUTH.match(text, e)
    if m is None:
        return ()
    user, password = m.group(1), m.group(2)
    if password is not None:
        if not password or v.placeholder(password) or password.lower() in ("password", "pass", "pwd"):
            return ()
        return ((m.start(2), m.end(2), "url-password"),)
    # No password: a random user part is a key (Sentry DSN, https://<token>@github.com).
    if len(user) >= 16 and (v.random_like(user) or v.hex_like(user)) and not v.placeholder(user):
        return ((m.start(1), m.end(1), "url-password"),)
    return ()


URL_RULE = Rule("url-password", ("://",), _url_userinfo)


_CMD_END = re.compile(r"\n|\\n|&&|\|\||;|\|(?!\|)")
_PW_FLAG = re.compile(
    r"""(?:^|[ \t])(?P<flag>-p|-P|-a|-w|--pass|-storepass|-keypass|-srcstorepass|-deststorepass|-passin|-passout|-pass|-k)"""
    r"""(?P<sep>[ \t]+|(?=\S))(?:pass:|env:|file:|fd:|stdin)?(?P<q>["']?)(?P<val>[^\s"']+)(?P=q)""")
_GLUED_ONLY = ("mysql", "mysqldump", "mysqladmin", "mariadb", "mysqlimport", "mysqlshow", "mysqlcheck", "7z", "7za")
_PW_COMMANDS = (
    "sshpass", "login", "twine", "psexec", "PsExec", "PSEXEC", "psexec.exe", "PsExec.exe", "PSEXEC.EXE", "mongosh",
    "mongo", "zip", "unzip", "sqlcmd", "redis-cli", "keytool", "openssl", "ldapsearch", "ldapadd", "ldapmodify",
    "ldapwhoami", "smbclient", "rar", "unrar", "bcp", *_GLUED_ONLY,
)


def _password_flag(text: str, s: int, e: int) -> Iterable[Span]:
    # A command: the name, then a space and more words (zip(...) in code is not one).
    if text[e:e + 1] != " " or not starts_word(text, s) or "-" not in text[e:e + 80]:
        return ()
    cmd = text[s:e].lower().removesuffix(".exe")
    m_end = _CMD_END.search(text, e, min(len(text), e + 400))
    stop = m_end.start() if m_end else min(len(text), e + 400)
    for m in _PW_FLAG.finditer(text, e, stop):
        flag, sep, val = m.group("flag"), m.group("sep"), m.group("val")
        if cmd in _GLUED_ONLY and (sep or flag != "-p"):
            continue
        if flag in ("-a",) and cmd != "redis-cli" or flag == "-w" and not cmd.startswith("ldap"):
            continue
        if flag == "-k" and cmd != "openssl":
            continue
        raw = text[m.start("val") - 5:m.start("val")]
        if raw.endswith(("env:", "file:")) or raw.endswith("fd:"):
            continue
        if v.placeholder(val) or v.reference(val) or val.startswith("-") or len(val) < 3:
            continue
        if cmd in ("ssh", "docker") and val.isdigit():
            continue
        return ((m.start("val"), m.end("val"), "password-flag"),)
    return ()


PASSWORD_FLAG_RULE = Rule("password-flag", _PW_COMMANDS, _password_flag)


_CURL_USER = re.compile(r"""(?:-u|--user|--proxy-user)(?:=|[ \t]*)(["']?)([^\s:"'\\]{1,128}):([^\s"'\\]{1,256})\1""")


def _curl_user(text: str, s: int, _e: int) -> Iterable[Span]:
    if s > 0 and not text[s - 1].isspace():
        return ()
    m = _CURL_USER.match(text, s)
    if m is None:
        return ()
    user, password = m.group(2), m.group(3)
    if v.placeholder(password) or v.reference(password) or user.isdigit() or password.isdigit():
        return ()
    return ((m.start(3), m.end(3), "user-password"),)


CURL_USER_RULE = Rule("user-password", ("-u", "--user", "--proxy-user"), _curl_user)


_STDIN_SOURCE = re.compile(r"""(?:echo|printf)(?:[ \t]+-[neE]+)*[ \t]+(["']?)([^\s"'|]{6,})\1[ \t]*\|[^|\n]*$""")


def _piped_secret(text: str, s: int, _e: int) -> Iterable[Span]:
    """``echo TOKEN | docker login --password-stdin`` / ``gh auth login --with-token``."""
    start = max(0, text.rfind("\n", max(0, s - 300), s) + 1, s - 300)
    m = _STDIN_SOURCE.search(text, start, s)
    if m is None:
        return ()
    value = m.group(2)
    if v.placeholder(value) or v.reference(value):
        return ()
    return ((m.start(2), m.end(2), "password-flag"),)


STDIN_RULE = Rule("password-flag", ("--password-stdin", "--with-token", "--token-stdin"), _piped_secret)


_NETRC = re.compile(r"(?:machine[ \t]+\S+|default)(?:[ \t\n]+(?:login|account)[ \t]+\S+)*[ \t\n]+password[ \t]+(\S+)")


def _netrc(text: str, s: int, e: int) -> Iterable[Span]:
    if text[e:e + 1] not in (" ", "\t") or not starts_word(text, s):
        return ()
    m = _NETRC.match(text, s)
    if m is None or v.placeholder(m.group(1)):
        return ()
    return ((m.start(1), m.end(1), "netrc-password"),)


NETRC_RULE = Rule("netrc-password", ("machine", "default"), _netrc)

_POSITIONAL = re.compile(r"[ \t]+(?:-[\w-]+(?:=\S+)?[ \t]+)*([A-Za-z0-9+/=._-]{20,200})(?=[ \t]*(?:$|\r?\n|\\n|[;&|]))")


def _positional(text: str, s: int, e: int) -> Iterable[Span]:
    """The secret a command takes as its argument: ``vault operator unseal <key>``, ``vault login
    <token>``."""
    m = _POSITIONAL.match(text, e, e + 300)
    if m is None or not (v.random_like(m.group(1)) or v.base64_like(m.group(1))) or v.not_a_value(m.group(1)):
        return ()
    return ((m.start(1), m.end(1), "command-secret"),)


POSITIONAL_RULE = Rule("command-secret", ("operator unseal", "vault login"), _positional)

RULES = [PROSE_RULE, BEARER_RULE, URL_RULE, PASSWORD_FLAG_RULE, CURL_USER_RULE, STDIN_RULE, NETRC_RULE, POSITIONAL_RULE]
