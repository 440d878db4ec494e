"""How much a name says that its value is a secret: ``DB_PASSWORD``, ``apiKey``, ``x-auth-token``.

A name is split into words the way code writes them (snake, kebab, camel, dotted). What counts
is the secret word and what follows it: ``secret_name``, ``token_url``, ``PASSWORD_MIN_LENGTH``
and ``client_id`` only describe a secret (their last word is a *meta* word), while
``SECRET_KEY_BASE`` and ``id_token`` hold one. A secret word glued to another word counts only
in the spellings people use for credentials (``APIKEY``, ``apitoken``, ``PGPASSWORD``), not inside
ordinary words (``jsonwebtoken``, ``monkey``, ``bypass``, ``keyboard``).
"""

from __future__ import annotations

import re
from enum import IntEnum
from functools import lru_cache

# The words whose spellings are the needles of the name and sentence rules.
SECRET_WORDS = (
    "password", "passwd", "pwd", "pass", "passphrase", "passcode", "secret", "token", "key", "auth",
    "credential", "creds", "bearer", "cookie", "dsn", "sig", "signature", "salt", "session", "jwt", "pat",
    "hmac", "mnemonic", "phrase", "authorization", "sas", "webhook", "license",
)


class Strength(IntEnum):
    """What a name's value is allowed to look like before it is redacted."""

    NONE = 0
    WEAK = 1  # key, auth, sig, salt, session: only machine-made values
    STRONG = 2  # token, secret, api_key, credentials: random values, also UUIDs and hex
    PASSWORD = 3  # password, passwd, pwd, passphrase: also values a person chose


_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

_PASSWORD = frozenset({"password", "passwd", "passwort", "pwd", "pass", "passphrase", "passcode", "pw", "pword",
                       "passwords", "mot", "contrasena", "senha"})
_STRONG = frozenset({"secret", "secrets", "token", "credential", "credentials", "creds", "cred", "apikey",
                     "bearer", "dsn", "jwt", "pat", "privatekey", "accesskey", "secretkey", "authtoken",
                     "accesstoken", "refreshtoken", "idtoken", "apitoken", "clientsecret", "hmac",
                     "authorization", "cookie", "mnemonic", "passkey", "sas", "sastoken", "webhook",
                     "signingkey", "masterkey", "licensekey", "connectionstring", "connstr"})
_WEAK = frozenset({"key", "keys", "auth", "sig", "signature", "salt", "session", "sessionid", "sid", "otp",
                   "pin", "nonce", "seed", "hash", "license", "access"})
# "key" with one of these in front of it is still only WEAK: a lookup key, not a credential.
_LOOKUP_KEYS = frozenset({"sort", "primary", "foreign", "cache", "partition", "lookup", "dict", "map", "row",
                          "shard", "group", "range", "idempotency", "dedup", "dedupe", "routing", "object", "s3",
                          "redis", "translation", "i18n", "state", "hot", "shortcut", "react", "unique",
                          "composite", "natural", "surrogate", "hash", "index", "sorting", "cluster",
                          "bucket", "storage_path", "public", "pub", "host", "gpg", "pgp", "ssh", "deploy",
                          "message", "event", "metric", "label", "tag", "field", "column", "table", "query",
                          "param", "setting", "config", "registry", "env", "cursor", "page", "next",
                          "prev", "last", "first", "min", "max", "start", "end", "api_version", "i", "k"})
# The last word of a name that only describes a secret.
META = frozenset({
    "name", "names", "id", "ids", "uid", "guid", "uuid", "arn", "arns", "url", "uri", "urls", "uris", "endpoint",
    "endpoints", "host", "hostname", "hosts", "domain", "server", "port", "path", "paths", "file", "filename",
    "files", "dir", "directory", "folder", "location", "loc", "type", "types", "kind", "mode", "method", "scheme",
    "format", "fmt", "algorithm", "algo", "alg", "length", "len", "size", "count", "max", "min", "limit", "limits",
    "ttl", "expiry", "expires", "expiration", "expire", "expiresin", "lifetime", "age", "header", "headers",
    "field", "fields", "param", "params", "parameter", "prefix", "suffix", "env", "var", "vars", "variable",
    "variables", "ref", "refs", "reference", "version", "versions", "policy", "rotation", "provider", "providers",
    "manager", "store", "holder", "placeholder", "hint", "label", "labels", "description", "desc", "help", "regex",
    "pattern", "enabled", "required", "disabled", "enable", "disable", "flag", "flags", "usage", "hash", "hashed",
    "digest", "checksum", "sha", "md5", "index", "idx", "number", "num", "status", "state", "error", "errors",
    "message", "msg", "template", "class", "cls", "schema", "option", "options", "opts", "input", "output",
    "prompt", "text", "title", "link", "button", "form", "page", "view", "route", "handler", "callback", "factory",
    "builder", "validator", "generator", "parser", "helper", "util", "utils", "test", "tests", "spec", "mock",
    "fixture", "example", "sample", "dummy", "fake", "rule", "rules", "strategy", "level", "scope", "scopes",
    "audience", "issuer", "payload", "at", "on", "by", "date", "time", "created", "updated", "timestamp", "ts",
    "exp", "iat", "nbf", "source", "src", "region", "zone", "account", "owner", "user", "username", "login",
    "email", "mail", "principal", "role", "group", "org", "project", "tenant", "subscription", "client", "app",
    "application", "service", "bucket", "table", "queue", "topic", "channel", "cache", "bytes", "bits", "rounds",
    "iterations", "cost", "factor", "strength", "command", "cmd", "script", "arg", "args", "argv", "env_var",
    "envvar", "map", "list", "dict", "set", "keys", "values", "enc", "encoding", "charset", "color", "colour",
    "width", "height", "visible", "visibility", "hidden", "toggle", "show", "hide", "icon", "address", "addresses",
    "addr", "contract", "hasher", "hashers", "encoder", "encoders", "complexity", "history", "reset", "lockout",
    "attempts", "retries", "protected", "protection", "managers", "stores",
})
# In front of a secret word: a token that grants nothing (pagination, anti-forgery, OAuth state).
_HARMLESS = frozenset({"page", "next", "prev", "previous", "continuation", "cursor", "pagination", "sync", "resume",
                       "csrf", "xsrf", "forgery", "nonce", "state", "cancel", "cancellation", "lexer", "parser"})
# Words that never make their own name a secret even next to a secret word.
_PUBLIC = frozenset({"public", "publishable", "pub", "pk", "anon", "anonymous"})
_GLUE_PREFIXES = ("api", "access", "auth", "refresh", "id", "bearer", "secret", "private", "client", "app",
                  "session", "master", "admin", "root", "db", "user", "bot", "oauth", "oauth2", "github", "gh",
                  "gitlab", "npm", "pypi", "slack", "discord", "stripe", "csrf", "xsrf", "jwt", "sso",
                  "service", "account", "storage", "shared", "signing", "encryption", "webhook", "my", "new",
                  "old", "default", "registry", "docker", "login", "sudo", "ssh", "pg", "mysql", "redis",
                  "mongo", "smtp", "mail", "email", "ftp", "vnc", "wifi", "keystore", "truststore", "store",
                  "key", "license", "personal", "install", "hub", "deploy", "cloud", "server", "site",
                  "consumer", "dev", "prod", "test", "live", "sandbox", "twine", "pat", "nuget", "rpc", "identity",
                  "repo", "ci", "gitea", "bitbucket", "vault", "tf", "atlas", "team", "org", "project")
_GLUE_WORDS = ("password", "passwd", "pwd", "pass", "passphrase", "token", "secret", "key", "apikey", "auth",
               "credentials", "creds")


def words(name: str) -> list[str]:
    """``name`` split as code splits names, lower-cased: ``X-Api-Key`` -> x, api, key."""
    return [w.lower() for w in _WORDS.findall(name)]


def _glued(word: str, upper: bool) -> str | None:
    """The secret word at the end of a glued word (``apikey``, ``PGPASSWORD``), if it is one."""
    for tail in _GLUE_WORDS:
        if word.endswith(tail) and len(word) > len(tail):
            head = word[: -len(tail)]
            if upper or head in _GLUE_PREFIXES or head.rstrip("0123456789") in _GLUE_PREFIXES:
                return "apikey" if tail == "key" and head.endswith("api") else tail
    return None


@lru_cache(maxsize=8192)
def strength(name: str) -> Strength:
    """How strongly ``name`` says its value is a secret (``NONE`` when it only describes one)."""
    raw = _WORDS.findall(name)
    if not raw:
        return Strength.NONE
    parts = [w.lower() for w in raw]
    best = Strength.NONE
    best_at = -1
    for i, (w, r) in enumerate(zip(parts, raw, strict=True)):
        s = _word_strength(w, r.isupper() and len(r) > 1, parts[i - 1] if i else "")
        if s and s >= best:
            best, best_at = s, i
    if best == Strength.NONE:
        return best
    # "page_token", "nextToken", "csrf_token", "state": a token that grants nothing.
    if best_at > 0 and parts[best_at - 1] in _HARMLESS:
        return Strength.NONE
    after = parts[best_at + 1:]
    # "token_url", "secret_name", "PASSWORD_MIN_LENGTH": a meta word after the secret word.
    if any(w in META for w in after):
        return Strength.NONE
    if any(w in _PUBLIC for w in parts):
        return Strength.NONE
    # "client_id" style names never reach here; "id_token" keeps its strength.
    return best


def _word_strength(w: str, upper: bool, before: str) -> Strength:
    if w in _PASSWORD:
        return Strength.PASSWORD
    if w in _STRONG:
        return Strength.STRONG
    if w == "phrase":  # "seed phrase", "recovery phrase"; a phrase alone is a phrase
        return Strength.STRONG if before in ("seed", "recovery", "mnemonic", "secret", "backup", "wallet") else Strength.NONE
    if w in ("key", "keys"):
        if before and before not in _LOOKUP_KEYS and not before.isdigit():
            return Strength.STRONG
        return Strength.WEAK
    if w in _WEAK:
        return Strength.WEAK
    tail = _glued(w, upper)
    if tail is None:
        return Strength.NONE
    if tail in _PASSWORD:
        return Strength.PASSWORD
    if tail in ("auth", "key"):
        return Strength.WEAK
    return Strength.STRONG
