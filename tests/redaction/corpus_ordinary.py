"""Ordinary text that looks like secrets and must be left alone, generated with a seeded RNG.

Git SHAs (also after words like *token* and *commit*), sha256/sha512 digests, UUIDs, lock files
(package-lock.json, yarn.lock, poetry.lock, Cargo.lock, go.sum, pip hashes), base64 images and
data URIs, minified JavaScript and CSS, random-looking ids (agent message and tool ids, Stripe
object ids, build hashes), paths and URLs without credentials, code that names secrets without
holding one, and placeholders (``<your-token>``, ``xxxx``, ``${TOKEN}``, ``changeme``). The
example keys providers publish (``AKIAIOSFODNN7EXAMPLE``) are not here: by policy they are
redacted like any key (docs/capture.md).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _b62(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


def _uuid(rng: random.Random) -> str:
    h = _hex(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _sri(rng: random.Random, algo: str = "sha512") -> str:
    size = {"sha512": 64, "sha384": 48, "sha256": 32, "sha1": 20}[algo]
    return f"{algo}-{base64.b64encode(rng.randbytes(size)).decode()}"


PACKAGES = ["jsonwebtoken", "passport-jwt", "keytar", "@auth0/auth0-spa-js", "secret-handshake", "dotenv", "jose",
            "bcryptjs", "express-session", "csrf-tokens", "node-forge", "crypto-js", "oauth-1.0a", "tokenizers",
            "js-tokens", "tiktoken", "password-validator", "@aws-sdk/credential-providers", "keyv", "api-key-auth"]
WORDS = ["token", "secret", "key", "password", "auth", "credential", "api key", "session"]


def lines(rng: random.Random, n: int, *, heldout: bool = False, fresh: bool = False) -> list[str]:
    """``n`` generated lines (some lines hold several: a lock-file entry is a few lines).
    ``heldout`` adds kinds of text the rules were not tuned on."""
    out: list[str] = []
    makers = [_git, _hashes, _uuids, _locks, _base64, _code_ids, _paths, _code_names, _placeholders, _web]
    if heldout:
        makers += [_other_ids, _other_locks, _other_code]
    if fresh:
        makers += [_public_keys, _api_outputs]
    while len(out) < n:
        out.extend(rng.choice(makers)(rng))
    return out[:n]


def _git(rng: random.Random) -> list[str]:
    sha, short = _hex(rng, 40), _hex(rng, 7)
    word = rng.choice(WORDS)
    return [rng.choice([
        f"commit {sha}", f"{short} Fix {word} refresh when the clock skews",
        f"the {word} refresh fix landed in {sha}", f"fixed the {word} rotation bug in {short}",
        f"token fix: {sha[:12]}", f"Merge: {short} {_hex(rng, 7)}", f"{sha} refs/heads/feature/{word.replace(' ', '-')}-cache",
        f"git cherry-pick {sha}", f"HEAD is now at {short} Rotate {word}s nightly", f"index {short}..{_hex(rng, 7)} 100644",
        f"Reverts {sha[:10]} (\"Store the {word} hash\")", f"secret scanning passed for {sha}",
    ])]


def _hashes(rng: random.Random) -> list[str]:
    h256, h512 = _hex(rng, 64), _hex(rng, 128)
    return [rng.choice([
        f"{h256}  dist/shop-1.4.2.tar.gz", f"sha256:{h256}", f"SHA512 ({h512[:20]}.zip) = {h512}",
        f"Digest: sha256:{h256}", f"--hash=sha256:{h256} \\", f"    checksum = \"{h256}\"",
        f"md5 {_hex(rng, 32)}  key.pub", f"etag: \"{_hex(rng, 32)}\"", f"content hash {h256[:16]} for the token cache",
        f"  \"integrity\": \"{_sri(rng)}\",", f"h1:{base64.b64encode(rng.randbytes(32)).decode()}",
        f"api key hash: {h256}", f"password digest sha256 {h256}",
    ])]


def _uuids(rng: random.Random) -> list[str]:
    u = _uuid(rng)
    return [rng.choice([
        f"request_id={u} path=/api/orders status=200", f"\"session_id\": \"{u}\",", f"trace {u} span {_hex(rng, 16)}",
        f"idempotency_key: {u}", f"Created API key with id {u}", f"x-request-id: {u}", f"tenant_id = \"{u}\"",
        f"client_id: {u}", f"\"key\": \"{u}\"", f"token id {u} revoked",
    ])]


def _locks(rng: random.Random) -> list[str]:
    pkg = rng.choice(PACKAGES)
    ver = f"{rng.randint(0, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}"
    kind = rng.randrange(6)
    if kind == 0:
        return [f'    "node_modules/{pkg}": {{', f'      "version": "{ver}",',
                f'      "resolved": "https://registry.npmjs.org/{pkg}/-/{pkg.split("/")[-1]}-{ver}.tgz",',
                f'      "integrity": "{_sri(rng)}",']
    if kind == 1:
        return [f'{pkg}@^{ver}:', f'  version "{ver}"',
                f'  resolved "https://registry.yarnpkg.com/{pkg}/-/{pkg.split("/")[-1]}-{ver}.tgz#{_hex(rng, 40)}"',
                f'  integrity {_sri(rng)}']
    if kind == 2:
        name = rng.choice(["pyjwt", "keyring", "cryptography", "python-dotenv", "secretstorage", "passlib"])
        return [f'{{file = "{name}-{ver}-py3-none-any.whl", hash = "sha256:{_hex(rng, 64)}"}},']
    if kind == 3:
        name = rng.choice(["jsonwebtoken", "secrecy", "keyring", "ring", "oauth2", "base64"])
        return ["[[package]]", f'name = "{name}"', f'version = "{ver}"',
                'source = "registry+https://github.com/rust-lang/crates.io-index"', f'checksum = "{_hex(rng, 64)}"']
    if kind == 4:
        mod = rng.choice(["github.com/golang-jwt/jwt/v5", "golang.org/x/oauth2", "github.com/zalando/go-keyring"])
        return [f"{mod} v{ver} h1:{base64.b64encode(rng.randbytes(32)).decode()}",
                f"{mod} v{ver}/go.mod h1:{base64.b64encode(rng.randbytes(32)).decode()}"]
    return [f"{rng.choice(['pyjwt', 'keyring', 'requests'])}=={ver} \\", f"    --hash=sha256:{_hex(rng, 64)} \\"]


def _base64(rng: random.Random) -> list[str]:
    blob = base64.b64encode(rng.randbytes(rng.randint(40, 300))).decode()
    text = base64.b64encode(rng.choice(["hello world", "the deploy is green", "{\"user\":\"ana\"}"]).encode()).decode()
    return [rng.choice([
        f'<img src="data:image/png;base64,{blob}" alt="logo">', f"background: url(data:image/svg+xml;base64,{blob});",
        f"src: url(data:font/woff2;base64,{blob}) format('woff2');", f"echo {text} | base64 -d",
        f'"thumbnail": "{blob}",', f"  logo.png: {blob}",
    ])]


def _code_ids(rng: random.Random) -> list[str]:
    return [rng.choice([
        f"\"id\": \"toolu_01{_b62(rng, 22)}\"", f"\"id\": \"msg_01{_b62(rng, 22)}\"", f"\"requestId\": \"req_011C{_b62(rng, 20)}\"",
        f"customer cus_{_b62(rng, 14)} paid invoice in_{_b62(rng, 24)}", f"payment_intent pi_{_b62(rng, 24)} succeeded",
        f"\"id\": \"chatcmpl-{_b62(rng, 29)}\"", f"\"id\": \"call_{_b62(rng, 24)}\"", f"event evt_{_b62(rng, 24)}",
        f"<script src=\"/static/js/main.{_hex(rng, 8)}.chunk.js\"></script>", f".Button_primary__{_b62(rng, 5)} {{ color: #{_hex(rng, 6)}; }}",
        f"!function(e,t){{var n=e.{_b62(rng, 3)}||{{}};t.{_b62(rng, 2)}=n}}(window,document);",
        f"color: #{_hex(rng, 6)}; border-color: rgba({rng.randint(0, 255)},{rng.randint(0, 255)},0,.5);",
        f"webpack compiled: bundle.{_hex(rng, 20)}.js 1.4 MiB", f"Successfully built {_hex(rng, 12)}",
        f"container {_hex(rng, 64)} exited with 0", f"channel C0{_b62(rng, 8).upper()} user U0{_b62(rng, 8).upper()}",
    ])]


def _paths(rng: random.Random) -> list[str]:
    return [rng.choice([
        "/home/dev/.ssh/id_ed25519.pub", "~/.config/gh/hosts.yml", "s3://shop-backups/2026/11/30/db.sql.gz",
        "https://github.com/acme/shop/blob/main/src/auth/token_store.py#L42", "https://auth.example.com/oauth/token",
        "GOOGLE_APPLICATION_CREDENTIALS=/run/secrets/gcp-sa.json", "SSL_KEY_FILE=./certs/server.key",
        "https://api.stripe.com/v1/customers?limit=3", "postgres://localhost:5432/shop",
        "https://user@example.com/repo.git", "ssh://git@github.com:22/acme/shop.git", "git@github.com:acme/shop.git",
        "vault kv get secret/shop/prod", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/shop/db-AbCdEf",
        "projects/shop-prod/secrets/db-password/versions/latest", "op://Private/Stripe/credential",
    ])]


def _code_names(rng: random.Random) -> list[str]:
    return [rng.choice([
        'secret_name = "prod/shop/db"', 'token_url = "https://auth.example.com/oauth/token"', "PASSWORD_MIN_LENGTH = 12",
        "max_tokens=4096,", "key=lambda item: item[1]", 'sort_key = "created_at"', 'cache_key = f"user:{user_id}:profile"',
        "id = Column(Integer, primary_key=True)", 'SECRET_KEY = env("SECRET_KEY")', '"token_type": "Bearer",',
        '"expires_in": 3600,', "def verify_token(token: str) -> bool:", "password: str = Field(min_length=8)",
        'token = request.headers.get("Authorization", "")', "API_KEY = os.environ[\"API_KEY\"]",
        "if not secret: raise ValueError('missing secret')", "self.api_key = api_key", "apiKey: process.env.STRIPE_KEY,",
        'headers = {"Authorization": f"Bearer {token}"}', "const token = await getAccessToken();",
        "password_hash = bcrypt.hashpw(password, bcrypt.gensalt())", "TOKEN_LIMIT=200000", "KEY_PREFIX=cache:v2:",
        "AUTH_MODE=oauth", "SECRET_KEY_FILE=/run/secrets/django_key", "session.cookie_secure = True",
        "auth: { type: 'oauth2', scopes: ['repo'] }", "--password-stdin", "tokenizer = AutoTokenizer.from_pretrained(name)",
        "keyboard shortcut: Ctrl+K", "The monkey stole the turkey's whiskey.", "bypass=True",
    ])]


def _placeholders(rng: random.Random) -> list[str]:
    return [rng.choice([
        "API_TOKEN=<your-token>", "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "export NPM_TOKEN=${NPM_TOKEN}",
        "OPENAI_API_KEY=sk-...", "password: changeme", "AWS_SECRET_ACCESS_KEY=YOUR_SECRET_KEY", 'api_key = "YOUR_API_KEY"',
        "token: ${{ secrets.DEPLOY_TOKEN }}", "Authorization: Bearer <token>", "DB_PASSWORD=********",
        "STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXXXXXXXXXX", "\"password\": \"[REDACTED]\"", "SECRET=changeme",
        "export AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX", "token = \"{{ vault_token }}\"", "key: %(api_key)s",
        "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/XXX/YYY/ZZZ", "DATABASE_URL=postgres://user:password@localhost/db",
        "PASSWORD=$(cat /run/secrets/db)", "export TOKEN=\"$(gh auth token)\"", "secret: !Ref DbSecret",
        "password = getpass.getpass()", "TWILIO_AUTH_TOKEN=your_auth_token_here", "api_key: ENC[AES256_GCM,data:abc,iv:def]",
    ])]


def _web(rng: random.Random) -> list[str]:
    return [rng.choice([
        f"GET /static/app.{_hex(rng, 8)}.css 200 1.2kB", f"Set-Cookie: _ga=GA1.1.{rng.randint(10**8, 10**9)}.{rng.randint(10**9, 2 * 10**9)}",
        f"https://www.youtube.com/watch?v={_b62(rng, 11)}", f"https://docs.google.com/document/d/{_b62(rng, 44)}/edit",
        f"https://example.com/search?q=token+refresh&page={rng.randint(1, 9)}", "Cache-Control: max-age=3600, public",
        f"Content-Security-Policy: script-src 'nonce-{base64.b64encode(rng.randbytes(12)).decode()}'",
        f"Location: https://shop.example.com/orders/{_uuid(rng)}", "X-RateLimit-Remaining: 4999",
    ])]


def documents(rng: random.Random, n: int, *, heldout: bool = False, fresh: bool = False) -> list[str]:
    """``n`` multi-line look-alike documents (lock files, a transcript line, config) as whole texts."""
    out = []
    for _ in range(n):
        chunk = lines(rng, rng.randint(4, 12), heldout=heldout, fresh=fresh)
        if rng.random() < 0.3:
            chunk = [json.dumps({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_01{_b62(rng, 22)}", "content": "\n".join(chunk)}]}})]
        out.append("\n".join(chunk))
    return out


def _other_ids(rng: random.Random) -> list[str]:
    return [rng.choice([
        f"\"_id\": ObjectId(\"{_hex(rng, 24)}\")", f"TOKEN_CONTRACT_ADDRESS=0x{_hex(rng, 40)}",
        f"wallet address 0x{_hex(rng, 40)}", f"ipfs://Qm{_b62(rng, 44)}", f"ulid 01{_b62(rng, 24).upper()}",
        f"256 SHA256:{base64.b64encode(rng.randbytes(32)).decode().rstrip('=')} dev@laptop (ED25519)",
        f"gpg: key {_hex(rng, 16).upper()}: public key imported", f"oid sha256:{_hex(rng, 64)}\nsize {rng.randint(10, 99999)}",
        f"image: ghcr.io/acme/shop@sha256:{_hex(rng, 64)}", f"\"InstanceId\": \"i-{_hex(rng, 17)}\",",
        f"\"KeyId\": \"arn:aws:kms:eu-west-1:123456789012:key/{_uuid(rng)}\"", f"snowflake id {rng.randint(10**17, 10**18)}",
        f"nanoid V1StGXR8_Z5jdHi6B-myT -> {_b62(rng, 21)}", f"\"api_key_id\": \"{_uuid(rng)}\"",
    ])]


def _other_locks(rng: random.Random) -> list[str]:
    ver = f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
    return [rng.choice([
        f"  /jsonwebtoken@{ver}:\n    resolution: {{integrity: {_sri(rng)}}}",
        f"    jwt ({ver})\n      base64 (~> 0.2)", f'            "sha256:{_hex(rng, 64)}",',
        f'"content-hash": "{_hex(rng, 32)}",', f"  - pyjwt=={ver}=pyhd8ed1ab_{rng.randint(0, 9)}",
        f'  "dist": {{"shasum": "{_hex(rng, 40)}", "tarball": "https://registry.npmjs.org/keytar/-/keytar-{ver}.tgz"}}',
    ])]


def _other_code(rng: random.Random) -> list[str]:
    return [rng.choice([
        "token = tokens[i]  # the next token", "if key in cache: return cache[key]",
        "secret := os.Getenv(\"WEBHOOK_SECRET\")", "const password = form.get('password')",
        "passwordField.setHint(\"Password\")", "@Value(\"${app.jwt.secret}\") private String jwtSecret;",
        "$password = $_POST['password'];", "apiKey := flag.String(\"api-key\", \"\", \"API key\")",
        f"for token in tokenizer.encode(text): counts[token] += {rng.randint(1, 9)}",
        "The API key is shown only once; store it in your password manager.",
        "Secrets are encrypted at rest with a KMS key.", "Rotate the token every 90 days.",
        f"key_{rng.randint(1, 99)} = ('{_b62(rng, 6)}', {rng.randint(1, 9)})",
    ])]


def _public_keys(rng: random.Random) -> list[str]:
    blob = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + rng.randbytes(32)).decode()
    rsa = base64.b64encode(b"\x00\x00\x00\x07ssh-rsa" + rng.randbytes(270)).decode()
    cert = "\n".join(base64.b64encode(rng.randbytes(48)).decode() for _ in range(3))
    return [rng.choice([
        f"ssh-ed25519 {blob} dev@laptop", f"ssh-rsa {rsa} ci@runner", f"github.com ssh-ed25519 {blob}",
        f"-----BEGIN CERTIFICATE-----\n{cert}\n-----END CERTIFICATE-----",
        f"-----BEGIN PUBLIC KEY-----\n{cert}\n-----END PUBLIC KEY-----",
        f"bc1q{''.join(rng.choice('qpzry9x8gf2tvdw0s3jn54khce6mua7l') for _ in range(38))}",
    ])]


def _api_outputs(rng: random.Random) -> list[str]:
    page = base64.b64encode(json.dumps({"offset": rng.randint(1, 9999), "k": _hex(rng, 8)}).encode()).decode()
    return [rng.choice([
        f'    "NextToken": "{page}"', f'"nextPageToken": "{_b62(rng, 40)}",', f"next_cursor={_b62(rng, 24)}",
        f'<input type="hidden" name="csrf_token" value="{_b62(rng, 40)}">', f"state={_b62(rng, 32)}&code_challenge_method=S256",
        f'"continuationToken": "{page}"', f'"ETag": "\\"{_hex(rng, 32)}\\""', f"X-Request-Id: {_b62(rng, 26)}",
        f'"pageToken": "{_b62(rng, 32)}"', f"nonce-{base64.b64encode(rng.randbytes(16)).decode()}",
    ])]


def sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()
