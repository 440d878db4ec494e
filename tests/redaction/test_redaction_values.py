"""The two judgements every context rule relies on: how strongly a name says its value is a
secret, and whether a value's shape is that of a secret."""

from __future__ import annotations

import pytest
from redaction_helpers import B62, B64, HEX, UP, URL, Tokens

from kenning.redaction import values as v
from kenning.redaction.names import Strength, strength


@pytest.mark.parametrize(("name", "level"), [
    ("DB_PASSWORD", Strength.PASSWORD), ("PGPASSWORD", Strength.PASSWORD), ("SSHPASS", Strength.PASSWORD),
    ("passphrase", Strength.PASSWORD), ("AWS_SECRET_ACCESS_KEY", Strength.STRONG), ("apiKey", Strength.STRONG),
    ("X-Api-Key", Strength.STRONG), ("X-Auth-Key", Strength.STRONG), ("SECRET_KEY_BASE", Strength.STRONG),
    ("id_token", Strength.STRONG), ("npmAuthToken", Strength.STRONG), ("SharedAccessKey", Strength.STRONG),
    ("client_secret", Strength.STRONG), ("Authorization", Strength.STRONG), ("key", Strength.WEAK),
    ("auth", Strength.WEAK), ("sig", Strength.WEAK), ("sort_key", Strength.WEAK), ("secret_name", Strength.NONE),
    ("token_url", Strength.NONE), ("PASSWORD_MIN_LENGTH", Strength.NONE), ("client_id", Strength.NONE),
    ("aws_access_key_id", Strength.NONE), ("private_key_id", Strength.NONE), ("publishable_key", Strength.NONE),
    ("jsonwebtoken", Strength.NONE), ("max_tokens", Strength.NONE), ("keyboard", Strength.NONE),
    ("bypass", Strength.NONE), ("password_hash", Strength.NONE), ("TOKEN_CONTRACT_ADDRESS", Strength.NONE),
])
def test_name_strength(name: str, level: Strength) -> None:
    assert strength(name) == level


@pytest.mark.parametrize("value", [
    "${TOKEN}", "${DB_PASSWORD:-changeme}", "$(gh auth token)", "$API_KEY", "<your-token>", "{{ vault_token }}",
    "%(api_key)s", "xxxxxxxxxxxxxxxx", "********", "changeme", "YOUR_API_KEY", "your-api-key-here", "[REDACTED]",
    "ENC[AES256_GCM,data:abc]", "op://vault/item/field", "sk-...",
])
def test_placeholders(value: str) -> None:
    assert v.placeholder(value) and v.not_a_value(value)


@pytest.mark.parametrize("value", [
    'os.environ["API_KEY"]', "settings.SECRET_KEY", "self.token", "get_token()", "process.env.STRIPE_KEY",
    "secrets.GITHUB_TOKEN", "Optional[str]", "str",
])
def test_references(value: str) -> None:
    assert v.reference(value) and v.not_a_value(value)


@pytest.mark.parametrize("value", [
    "/run/secrets/db_password", "prod/shop/db", "~/.ssh/id_rsa", "service-account.json", "./certs/server.key",
    "https://auth.example.com/oauth/token", "admin@example.com", "4096", "v1.2.3", "2026-11-30",
])
def test_paths_urls_numbers(value: str) -> None:
    assert v.not_a_value(value)


def test_base64_with_slashes_is_not_a_path(tok: Tokens) -> None:
    assert not v.path_like(tok(B62, 10) + "/" + tok(B62, 14) + "/" + tok(B62, 14))


@pytest.mark.parametrize("value", ["getUserName", "AUTH_MODE", "kebab-case-name", "com.example.Auth", "version2",
                                   "created_at", "TokenProviderFactory", "sk-fix-login-timeout"])
def test_identifiers_are_words(value: str) -> None:
    assert v.identifier_like(value) and not v.random_like(value)


def test_random_values_of_every_alphabet(tok: Tokens) -> None:
    for alphabet, n in [(B62, 16), (B62, 40), (UP, 20), (URL, 43), (B64, 40), (HEX, 32), ("abcdefghijklmnopqrstuvwxyz0123456789", 30)]:
        for _ in range(20):
            value = tok(alphabet, n)
            assert v.random_like(value), value
            assert not v.identifier_like(value) or alphabet == HEX, value


def test_passwords_people_choose() -> None:
    for value in ("Sunset42!", "Hunter2024", "c0rrect-h0rse", "p@ssw0rd!x"):
        assert v.password_like(value), value
    for value in ("postgres", "required", "correct-horse-battery", "short"):
        assert not v.password_like(value), value
