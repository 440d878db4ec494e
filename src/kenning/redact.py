"""Secret redaction: keys, tokens, passwords, private keys and credentials become ``[secret]``.

Runs on every memory write and on all captured text, before anything reaches storage, so it
must be fast. Written by hand rather than with detect-secrets because that library scans line
by line with one regex pass per plugin and ran ~1 MB/s in our measurement, while capture needs
well over 20 MB/s. The vendor rules follow gitleaks' published token formats (MIT); the generic
rules (env assignments, connection strings, Authorization headers, secret words followed by a
high-entropy token) follow chat-recall's builtin set, with its known misses fixed.

Speed comes from a cheap prefilter: each rule names literal needles, and a rule's regex runs
only when one of its needles occurs in the text (all needles are found in one Aho-Corasick pass).
Only the secret value is replaced; the rest of the sentence is kept.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick_rs

MASK = "[secret]"


@dataclass(frozen=True)
class Rule:
    label: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...]
    # Needles are matched against the lower-cased text instead of the text itself.
    fold: bool = False
    # Capture group holding the secret (0 = the whole match).
    group: int = 0
    # Anchored rules start matching exactly at each needle occurrence (found with str.find)
    # instead of scanning every position.
    anchored: bool = False
    # Every one of these must occur too (a cheap reject).
    requires: tuple[str, ...] = ()


def _r(label: str, pattern: str, needles: tuple[str, ...], *, fold: bool = False, group: int = 0,
       anchored: bool = False, requires: tuple[str, ...] = ()) -> Rule:
    return Rule(label, re.compile(pattern), needles, fold, group, anchored, requires)


_B = r"(?<![A-Za-z0-9_])"  # start boundary that also treats "_" as part of a word
_E = r"(?![A-Za-z0-9_])"

# Vendor-anchored rules: a distinctive prefix, so they never fire on ordinary text.
_VENDOR: list[Rule] = [
    _r("aws-access-key", _B + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}" + _E,
       ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA")),
    _r("aws-session-token", r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9/+=]{40,}", ("IQoJ", "FwoG")),
    _r("github-token", _B + r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}" + _E, ("gh",)),
    _r("github-pat", _B + r"github_pat_[A-Za-z0-9_]{22,255}", ("github_pat_",)),
    _r("gitlab-token", _B + r"gl(?:pat|ptt|dt|rt|cbt|ft|imt|agent|oas|soat)-[A-Za-z0-9_\-]{20,}", ("gl",)),
    _r("slack-token", _B + r"xox[abposre]-[A-Za-z0-9\-]{10,}", ("xox",)),
    _r("slack-app-token", _B + r"xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]+", ("xapp-",)),
    _r("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_\-]{20,})",
       ("hooks.slack.com",), group=1),
    _r("stripe-key", _B + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,99}" + _E, ("_live_", "_test_")),
    _r("stripe-webhook-secret", _B + r"whsec_[A-Za-z0-9]{24,}", ("whsec_",)),
    _r("anthropic-key", _B + r"sk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_\-]{20,}", ("sk-ant-",)),
    _r("openai-key", _B + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}", ("sk-",)),
    _r("openai-key", _B + r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", ("T3BlbkFJ",)),
    # Classic unprefixed sk- keys: 32+ alphanumerics with a digit and both cases, so kebab names
    # like sk-fix-login or .sk-button never match.
    _r("openai-key", _B + r"sk-(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{32,}" + _E,
       ("sk-",)),
    _r("google-api-key", r"AIza[0-9A-Za-z_\-]{35}", ("AIza",)),
    _r("google-oauth-secret", r"GOCSPX-[A-Za-z0-9_\-]{28}", ("GOCSPX-",)),
    _r("google-oauth-token", _B + r"ya29\.[0-9A-Za-z_\-]{20,}", ("ya29.",)),
    _r("npm-token", _B + r"npm_[A-Za-z0-9]{36}" + _E, ("npm_",)),
    _r("npmrc-auth", r"_auth(?:Token)?\s*=\s*([^\s\"'$]{8,})", ("_auth",), group=1),
    _r("pypi-token", r"pypi-AgE[A-Za-z0-9_\-]{50,}", ("pypi-AgE",)),
    _r("sendgrid-key", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", ("SG.",)),
    _r("mailgun-key", _B + r"key-[0-9a-f]{32}" + _E, ("key-",)),
    _r("digitalocean-token", _B + r"do[opr]_v1_[a-f0-9]{64}", ("_v1_",)),
    _r("huggingface-token", _B + r"hf_[A-Za-z0-9]{30,}" + _E, ("hf_",)),
    _r("shopify-token", _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", ("shp",)),
    _r("telegram-bot-token", _B + r"\d{8,10}:AA[0-9A-Za-z_\-]{33}" + _E, (":AA",)),
    _r("doppler-token", _B + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}", ("dp.",)),
    _r("azure-sas", r"[?&]sig=([A-Za-z0-9%/+]{30,}=*)", ("sig=",), group=1),
    _r("azure-storage-key", r"AccountKey=([A-Za-z0-9+/]{80,}={0,2})", ("AccountKey=",), group=1),
    _r("twilio-key", _B + r"SK[0-9a-fA-F]{32}" + _E, ("SK",)),
    _r("heroku-key", _B + r"HRKU-[A-Za-z0-9_\-]{40,}", ("HRKU-",)),
    _r("netlify-token", _B + r"nfp_[A-Za-z0-9]{36}", ("nfp_",)),
    _r("linear-key", _B + r"lin_(?:api|oauth)_[A-Za-z0-9]{40}", ("lin_",)),
    _r("notion-token", _B + r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})" + _E, ("secret_", "ntn_")),
    _r("atlassian-token", r"ATATT3[A-Za-z0-9_\-=]{100,}", ("ATATT3",)),
    _r("discord-bot-token", _B + r"[MNO][A-Za-z\d]{23,27}\.[\w-]{6}\.[\w-]{27,40}" + _E, ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")),
    _r("discord-webhook", r"discord(?:app)?\.com/api/webhooks/\d+/([\w-]{60,})", ("/api/webhooks/",), group=1),
    _r("square-token", _B + r"(?:EAAA[A-Za-z0-9_\-]{60}|sq0(?:atp|csp)-[0-9A-Za-z\-_]{22,43})", ("EAAA", "sq0")),
    _r("facebook-token", _B + r"EAA[BCDG][A-Za-z0-9]{90,}", ("EAA",)),
    _r("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", ("PMAK-",)),
    _r("grafana-token", _B + r"(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})", ("glc_", "glsa_")),
    _r("newrelic-key", _B + r"NR(?:AK|AA|II|JS)-[A-Za-z0-9]{27,}", ("NRAK-", "NRAA-", "NRII-", "NRJS-")),
    _r("sentry-token", _B + r"sntry[su]_[A-Za-z0-9+/=_]{40,}", ("sntry",)),
    _r("sentry-dsn", r"https://([0-9a-f]{32})@[a-z0-9.\-]*sentry\.io", ("sentry.io",), group=1),
    _r("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ("AGE-SECRET-KEY-",)),
    _r("databricks-token", _B + r"dapi[a-f0-9]{32}(?:-\d)?" + _E, ("dapi",)),
    _r("vault-token", _B + r"hv[sb]\.[A-Za-z0-9_\-]{24,}", ("hvs.", "hvb.")),
    _r("terraform-token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}", (".atlasv1.",)),
    _r("flyio-token", _B + r"(?:fo1_[A-Za-z0-9_\-]{43}|fm[12][ar]?_[A-Za-z0-9+/=_\-]{40,})", ("fo1_", "fm1", "fm2")),
    _r("supabase-token", _B + r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})", ("sbp_", "sb_secret_")),
    _r("planetscale-token", _B + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.=]{32,64}", ("pscale_",)),
    _r("rubygems-key", _B + r"rubygems_[a-f0-9]{48}", ("rubygems_",)),
    _r("dockerhub-token", _B + r"dckr_pat_[A-Za-z0-9_\-]{27,}", ("dckr_pat_",)),
    _r("airtable-token", _B + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", ("pat",)),
    _r("mapbox-token", _B + r"sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}", ("sk.eyJ",)),
    _r("groq-key", _B + r"gsk_[A-Za-z0-9]{48,}", ("gsk_",)),
    _r("xai-key", _B + r"xai-[A-Za-z0-9]{70,}", ("xai-",)),
    _r("replicate-token", _B + r"r8_[A-Za-z0-9]{37}" + _E, ("r8_",)),
    _r("perplexity-key", _B + r"pplx-[A-Za-z0-9]{40,}", ("pplx-",)),
    _r("jwt", _B + r"eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}", ("eyJ",)),
]

_PLACEHOLDER = re.compile(
    r"^(?:\$|<|\{\{|%|\*{3}|x{4,}$|\.\.\.|\[secret\]|process\.env|os\.environ|env\(|getenv|None$|null$|"
    r"true$|false$|undefined$|your[_-]|changeme$|example$|redacted|REDACTED|placeholder|dummy$|"
    r"(?:string|str|int|bool|optional)\b)",
    re.IGNORECASE,
)

_SECRET_NAME = (
    r"(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH|DSN|COOKIE|BEARER|"
    r"SIGNATURE|SALT)S?\d?"
)

# Generic rules: they need judgement (placeholders, identifiers), done in _accept.
_GENERIC: list[Rule] = [
    # [^-] keeps the body scan linear; a key cut off before its END line is still redacted.
    _r("private-key", r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----[^-]{0,20000}"
       r"(?:-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----)?", ("PRIVATE KEY",)),
    _r("putty-key", r"PuTTY-User-Key-File-\d:[^\n]*(?:\n(?!Private-MAC)[^\n]*){0,60}\nPrivate-MAC:\s*[0-9a-fA-F]+",
       ("PuTTY-User-Key-File",)),
    # scheme://user:password@host keeps user and host, hides the password.
    _r("url-password", r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@'\"<>]{0,64}:([^\s@/'\"<>]{1,128})@[\w.\-\[\]]",
       ("://",), group=1, requires=("@",)),
    # KEY=value / KEY: value with an upper-case secret-ish name (env files, shell, YAML).
    # The name's prefix (DB_, AWS_SECRET_ACCESS_) is read back from the text in _accept.
    _r("env-secret", r"(" + _SECRET_NAME + r")[\"']?\s*(?:=|:)\s*[\"']?([^\s\"'`,;]{4,})",
       ("KEY", "SECRET", "TOKEN", "PASS", "PWD", "CREDENTIAL", "AUTH", "DSN", "COOKIE", "BEARER",
        "SIGNATURE", "SALT"), group=2, anchored=True),
    # password = "..." / "api_key": "..." in code and JSON: lower/camel names need a quoted value.
    # Fold rules run on the lower-cased text, starting at each needle found by str.find.
    _r("code-secret",
       r"(password|passwd|passphrase|secret|token|api[_\-]?key|apikey|access[_\-]?key|"
       r"private[_\-]?key|auth[_\-]?key|credentials?)([a-z0-9_]*)[\"']?\s*(?::=|=>|=|:)\s*[rbf]?[\"']"
       r"([^\"'\s]{4,200})[\"']",
       ("pass", "secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "private_key",
        "private-key", "auth_key", "auth-key", "credential"), fold=True, group=3, anchored=True),
    # aws_secret_access_key = value (INI, credentials files): unquoted, so the value must look machine-made.
    _r("ini-secret",
       r"(secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|password)([a-z0-9_]*)\s*[=:]\s*"
       r"([a-z0-9_+/=\-]{16,200})(?![a-z0-9_+/=\-])",
       ("secret", "token", "api_key", "api-key", "access_key", "access-key", "private_key", "private-key",
        "password"), fold=True, group=3, anchored=True),
    _r("authorization-header",
       r"authorization\s*[:=]\s*[\"']?(?:bearer|basic|token|bot|digest|apikey|sso-key)?\s*"
       r"([A-Za-z0-9._~+/\-]{8,}=*)",
       ("authorization",), fold=True, group=1),
    _r("bearer-token", r"bearer\s+([A-Za-z0-9._~+/\-]{16,}=*)", ("bearer",), fold=True, group=1),
    _r("api-key-header",
       r"(?:api-key|auth-token|private-token|access-token|goog-api-key)\s*:\s*[\"']?"
       r"([A-Za-z0-9._\-]{12,})",
       ("api-key", "-token"), fold=True, group=1),
    _r("curl-user", r"(?:\s-u|--user)\s+[\"']?[^\s:\"']+:([^\s\"'@]{4,})", (" -u ", "--user "), group=1, requires=(":",)),
    _r("mysql-password", r"\bmysql(?:dump|admin)?\b[^\n]{0,80}?\s-p([^\s\-][^\s]{3,})", ("mysql",), group=1),
    # A secret word, then within a short distance a high-entropy token.
    _r("contextual-secret",
       r"(password|passwd|passphrase|secret|credentials?|token|bearer|"
       r"(?:(?<=api[ _\-])|(?<=access[ _\-])|(?<=private[ _\-])|(?<=account[ _\-])|(?<=storage[ _\-])|"
       r"(?<=secret[ _\-])|(?<=signing[ _\-])|(?<=master[ _\-])|(?<=encryption[ _\-])|(?<=license[ _\-])|"
       r"(?<=client[ _\-]))key)(?![a-z0-9])([^\n]{0,60}?)"
       r"(?<![a-z0-9_+/=\-])([a-z0-9_+/=\-]{20,200})(?![a-z0-9_+/=\-])",
       ("pass", "secret", "credential", "token", "bearer", "key"), fold=True, group=3, anchored=True),
]

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_HASH_WORDS = re.compile(r"(?i)commit|sha|hash|digest|uuid|etag|checksum|md5|revision|rev\b|id\b")
_STRONG_NAME = re.compile(r"(?i)pass|pwd|secret|credential|private")
_IDENT = re.compile(r"^[a-z][a-z_\-]*$|^[A-Z][A-Z_\-]*$|^[a-z]+(?:[A-Z][a-z]+)+$|^[A-Za-z_][\w]*(?:\.[\w]+)+(?:\(\))?$")


def _entropic(token: str) -> bool:
    """Looks machine-made: mixed case with a digit, or long hex. Words and paths do not."""
    if _UUID.match(token):
        return False
    if _HEX.match(token):
        return len(token) >= 32
    if "/" in token and not re.search(r"[A-Z]", token):
        return False
    has_digit = any(c.isdigit() for c in token)
    has_lower = any(c.islower() for c in token)
    has_upper = any(c.isupper() for c in token)
    if not (has_digit and has_lower and has_upper):
        return False
    # Long camelCase identifiers and dotted paths are code, not secrets.
    return not _IDENT.match(token)


def _accept(rule: Rule, m: re.Match[str], text: str) -> bool:
    label = rule.label

    def grp(i: int) -> str:
        # Fold rules matched lower-cased text: read values from the original to keep their case.
        return text[m.start(i):m.end(i)] if m.start(i) >= 0 else ""

    if label == "contextual-secret":
        token = grp(3)
        between = grp(2)
        if _HASH_WORDS.search(between) or _HEX.match(token) and _HASH_WORDS.search(text[max(0, m.start() - 40):m.start()]):
            return False
        if "[secret]" in between or between.count(" ") > 6:
            return False
        return _entropic(token)
    if label == "ini-secret":
        return _entropic(grp(3)) and not _HASH_WORDS.search(grp(1) + grp(2))
    if label in ("env-secret", "code-secret"):
        if label == "env-secret":
            start = m.start(1)
            while start > 0 and (text[start - 1].isupper() or text[start - 1].isdigit() or text[start - 1] == "_"):
                start -= 1
            if start > 0 and (text[start - 1].isalnum()):
                return False
            name, value = text[start:m.end(1)], grp(2)
        else:
            name, value = grp(1) + grp(2), grp(3)
        if _PLACEHOLDER.match(value) or value.startswith(("[", "{", "(")):
            return False
        if _UUID.match(value) or (_HEX.match(value) and _HASH_WORDS.search(name)):
            return False
        if _STRONG_NAME.search(name):
            return len(value) >= 4 and not _IDENT.match(value) or len(value) >= 8 and not _IDENT.match(value) or _entropic(value)
        if len(value) < 8 or value.isdigit():
            return False
        if _IDENT.match(value):
            return False
        return _entropic(value) or any(not c.isalnum() and c not in "_-./" for c in value) or len(value) >= 16 and not value.isalpha()
    if label in ("authorization-header", "bearer-token", "api-key-header"):
        value = grp(rule.group)
        return not _PLACEHOLDER.match(value) and not _IDENT.match(value) and (
            any(c.isdigit() for c in value) or len(value) >= 20)
    if label in ("curl-user", "mysql-password", "url-password", "npmrc-auth"):
        value = grp(rule.group)
        return not _PLACEHOLDER.match(value) and value not in ("password", "pass", "PASSWORD")
    return True


_RULES = _VENDOR + _GENERIC
# Every vendor token holds a long run of these characters; text without one skips all vendor
# rules, and the needles are looked for only among the runs (a much shorter string).
_LONG_RUN = re.compile(r"[A-Za-z0-9_\-+/=.:]{16,}")


def _needle_index(rules: list[Rule]) -> tuple[ahocorasick_rs.AhoCorasick, dict[str, frozenset[int]], frozenset[int]]:
    """A finder of every needle, and for each needle the positions (in ``rules``) of its rules."""
    by_needle: dict[str, set[int]] = {}
    always = frozenset(i for i, r in enumerate(rules) if "" in r.needles)
    for i, rule in enumerate(rules):
        for needle in rule.needles:
            if needle:
                by_needle.setdefault(needle, set()).add(i)
    return _finder(by_needle), {n: frozenset(ix) for n, ix in by_needle.items()}, always


def _finder(needles: Iterable[str]) -> ahocorasick_rs.AhoCorasick:
    # Aho-Corasick finds every needle in one pass (overlapping: a needle inside another counts
    # too), where ``in`` would scan the text once per needle; it was most of redaction's time.
    return ahocorasick_rs.AhoCorasick(sorted(set(needles)))


def _candidates(hay: str) -> list[Rule]:
    """Vendor rules (in rule order) whose needles occur in ``hay``."""
    hit = _VENDOR_NEEDLES.find_matches_as_strings(hay, overlapping=True)
    if not hit and not _VENDOR_ALWAYS:
        return []
    chosen = set(_VENDOR_ALWAYS).union(*(_VENDOR_BY_NEEDLE[n] for n in hit))
    return [_VENDOR[i] for i in sorted(chosen)]


_VENDOR_NEEDLES, _VENDOR_BY_NEEDLE, _VENDOR_ALWAYS = _needle_index(_VENDOR)
# Generic rules' needles: fold ones are looked for in the lower-cased text, the others as written.
_FOLD_FINDER = _finder(n for r in _GENERIC if r.fold for n in r.needles + r.requires)
_TEXT_FINDER = _finder(n for r in _GENERIC if not r.fold for n in r.needles + r.requires)
_GENERIC_GATES = [(r, frozenset(r.needles), frozenset(r.requires)) for r in _GENERIC]


def _anchored_matches(rule: Rule, hay: str) -> list[re.Match[str]]:
    """Try an anchored rule only at the places where one of its needles occurs."""
    out: list[re.Match[str]] = []
    match = rule.pattern.match
    for needle in rule.needles:
        i = hay.find(needle)
        while i >= 0:
            m = match(hay, i)
            if m:
                out.append(m)
            i = hay.find(needle, i + 1)
    return out


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Spans of secrets in ``text`` as (start, end, rule label), sorted and non-overlapping."""
    if len(text) < 8:
        return []
    low = text.lower()
    if len(low) != len(text):
        # A few characters (e.g. U+0130) change length when lower-cased; keep spans aligned.
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    found: list[tuple[int, int, str]] = []
    # Vendor rules run over the long runs only, joined by spaces; spans map back to the text
    # (computed only when a vendor needle is there, which is rare).
    runs = " ".join(_LONG_RUN.findall(text))
    vendor = _candidates(runs) if runs else []
    run_spans: list[tuple[int, int]] = []
    run_starts: list[int] = []
    for rule in vendor:
        for m in rule.pattern.finditer(runs):
            if not run_spans:
                # Where each run sits in the text: only needed once a vendor rule matched.
                run_spans = [r.span() for r in _LONG_RUN.finditer(text)]
                pos = 0
                for a, b in run_spans:
                    run_starts.append(pos)
                    pos += b - a + 1
            idx = bisect_right(run_starts, m.start(rule.group)) - 1
            shift = run_spans[idx][0] - run_starts[idx]
            found.append((m.start(rule.group) + shift, m.end(rule.group) + shift, rule.label))
    # Each needle is looked for once; rules then test set membership.
    present_low = set(_FOLD_FINDER.find_matches_as_strings(low, overlapping=True))
    present_text = set(_TEXT_FINDER.find_matches_as_strings(text, overlapping=True))
    if not present_low and not present_text:
        candidates: list[Rule] = []
    else:
        candidates = [rule for rule, needles, requires in _GENERIC_GATES
                      if not (present_low if rule.fold else present_text).isdisjoint(needles)
                      and requires <= (present_low if rule.fold else present_text)]
    for rule in candidates:
        src = low if rule.fold else text
        matches = _anchored_matches(rule, src) if rule.anchored else rule.pattern.finditer(src)
        found.extend((m.start(rule.group), m.end(rule.group), rule.label) for m in matches if _accept(rule, m, text))
    if not found:
        return []
    found.sort()
    merged: list[tuple[int, int, str]] = [found[0]]
    for start, end, label in found[1:]:
        last = merged[-1]
        if start < last[1]:
            if end > last[1]:
                merged[-1] = (last[0], end, last[2])
            continue
        merged.append((start, end, label))
    return merged


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[secret]``; everything else unchanged."""
    return redact_count(text)[0]


def redact_count(text: str) -> tuple[str, int]:
    """``redact`` that also says how many secrets it replaced."""
    spans = find_secrets(text)
    if not spans:
        return text, 0
    out: list[str] = []
    pos = 0
    for start, end, _label in spans:
        out.append(text[pos:start])
        out.append(MASK)
        pos = end
    out.append(text[pos:])
    return "".join(out), len(spans)
