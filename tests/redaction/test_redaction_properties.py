"""Properties of redaction that must hold for any text (Hypothesis).

- Redacting twice changes nothing more than redacting once.
- Text without secrets comes out unchanged (so redaction never lengthens it), even when it is
  full of hashes, ids, base64 and secret-sounding words.
- A secret put anywhere in random text, between any separators, is masked: no piece of 4 or
  more characters of its random part is left (unless the surrounding text had that piece).
"""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.redact import MASK, redact

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
URLSAFE = B62 + "-_"
PRINTABLE = string.ascii_letters + string.digits + " \t\n.,;:!?()[]{}<>'\"`=+-_*/\\|@#$%^&~"

# Prefix, alphabet and length of the random part: formats with a prefix, in the shapes providers use.
FORMATS = [
    ("ghp_", B62, 36), ("gho_", B62, 36), ("github_pat_11", B62 + "_", 80), ("glpat-", URLSAFE, 20),
    ("xoxb-7305918264-8204173659-", B62, 24), ("sk_live_", B62, 32), ("rk_live_", B62, 40), ("whsec_", B62, 32),
    ("AKIA", string.ascii_uppercase + string.digits, 16), ("AIza", URLSAFE, 35), ("GOCSPX-", URLSAFE, 28),
    ("sk-ant-api03-", URLSAFE, 95), ("sk-proj-", URLSAFE, 120), ("npm_", B62, 36), ("pypi-AgEIcHlwaS5vcmc", URLSAFE, 70),
    ("hf_", string.ascii_letters, 34), ("gsk_", B62, 52), ("dop_v1_", HEX, 64), ("hvs.", URLSAFE, 90),
    ("shpat_", HEX, 32), ("lin_api_", B62, 40), ("dckr_pat_", URLSAFE, 27), ("sntryu_", HEX, 64), ("NRAK-",
    string.ascii_uppercase + string.digits, 27), ("pul-", HEX, 40), ("SK", HEX, 32), ("rubygems_", HEX, 48),
]
SEPARATORS = [" ", "\n", "\t", '"', "'", "=", ": ", ", ", "(", "`", "\\n", " -> ", "\r\n"]


@st.composite
def secrets(draw: st.DrawFn) -> tuple[str, str]:
    """A random token of one of FORMATS: (the token, its random part)."""
    prefix, alphabet, n = draw(st.sampled_from(FORMATS))
    body = draw(st.text(alphabet=alphabet, min_size=n, max_size=n).filter(
        lambda b: len(set(b)) > 8 and sum(c.isdigit() for c in b) not in (0, len(b))))
    return prefix + body, body


ORDINARY_WORDS = st.sampled_from(
    [
        "the", "a", "deploy", "failed", "because", "cache", "was", "cold", "and", "we", "retried", "after", "ten",
        "seconds", "so", "build", "green", "again", "config", "region", "timeout", "users", "orders", "invoice",
        "api", "service", "worker", "queue", "retry", "merge", "branch", "main", "test", "function", "return",
        "value", "list", "dict", "None", "True", "False", "self", "import", "from", "def", "class",
    ])
ORDINARY_SHAPES = st.one_of(
    st.text(alphabet=HEX, min_size=7, max_size=64).map(lambda h: h),  # SHAs, digests
    st.uuids().map(str),
    st.integers(min_value=0, max_value=10**12).map(str),
    st.sampled_from(["/home/dev/shop/src/app.py", "https://example.com/docs/setup", "v1.2.3", "2026-11-30",
                     "node_modules/.bin/jest", "#3f2c1d", "user@example.com", "--dry-run", "a.b.c", "x = 1"]),
)
SECRET_WORDS = st.sampled_from(["token", "password", "secret", "api key", "key", "credentials", "auth"])
PLAIN_VALUES = st.one_of(ORDINARY_WORDS, st.integers(min_value=0, max_value=9999).map(str),
                         st.sampled_from(["<your-token>", "${TOKEN}", "changeme", "xxxxxxxx", "********", "required",
                                          "/run/secrets/db", "https://auth.example.com/token", "os.environ['KEY']"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=PRINTABLE, max_size=400))
def test_redaction_is_idempotent_on_any_text(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(secrets(), st.text(alphabet=PRINTABLE, max_size=40)), max_size=4),
       st.sampled_from(SEPARATORS))
def test_redaction_is_idempotent_with_secrets(parts: list[tuple[tuple[str, str], str]], sep: str) -> None:
    text = "".join(f"{filler}{sep}{secret}{sep}" for (secret, _body), filler in parts)
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(ORDINARY_WORDS, ORDINARY_SHAPES), max_size=60), st.sampled_from([" ", "\n", ", ", " | "]))
def test_text_without_secrets_is_left_alone(words: list[str], sep: str) -> None:
    text = sep.join(words)
    assert redact(text) == text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(SECRET_WORDS, st.sampled_from([" ", ": ", " = ", " is "]), PLAIN_VALUES), max_size=12),
       st.lists(ORDINARY_WORDS, max_size=20))
def test_secret_words_with_plain_values_are_left_alone(pairs: list[tuple[str, str, str]], words: list[str]) -> None:
    text = " ".join(words) + " " + ". ".join(f"{w}{op}{value}" for w, op, value in pairs)
    assert redact(text) == text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=PRINTABLE, max_size=200), secrets(), st.text(alphabet=PRINTABLE, max_size=200),
       st.sampled_from(SEPARATORS), st.sampled_from(SEPARATORS))
def test_a_secret_anywhere_in_random_text_is_masked(before: str, secret: tuple[str, str], after: str, left: str,
                                                    right: str) -> None:
    token, body = secret
    text = before + left + token + right + after
    out = redact(text)
    assert MASK in out
    surrounding = before + left + right + after
    left_over = [body[i:i + 4] for i in range(len(body) - 3)
                 if body[i:i + 4] in out and body[i:i + 4] not in surrounding]
    assert not left_over, (text, out)
