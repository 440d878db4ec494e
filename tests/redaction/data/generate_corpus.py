"""Regenerate the older labelled redaction corpus (legacy_secrets.b64, ordinary.txt). Seeded: same output.

Secrets have each provider's real format with random values, set in the sentences they turn up
in (env files, shell, JSON, YAML, prose, logs). Ordinary lines are real Python standard-library
source, git logs, service logs with UUIDs and hashes, base64 that is not a secret, and prose
from the LoCoMo conversations. Run: .venv/bin/python tests/redaction/data/generate_corpus.py LOCOMO_DIR
(LOCOMO_DIR: the folder of LoCoMo conversation files, e.g. the project's shared bench/locomo).
The tests read only the generated files, never LOCOMO_DIR.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import sys
import sysconfig
import uuid
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
R = random.Random(20261130)
ALNUM = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
HEXL = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rnd(alphabet: str, n: int) -> str:
    while True:
        s = "".join(R.choice(alphabet) for _ in range(n))
        # Real tokens are mixed; re-draw the rare all-letter draw so every value is realistic.
        if alphabet not in (ALNUM, B64, URLSAFE) or (any(c.isdigit() for c in s) and any(c.isupper() for c in s)
                                                    and any(c.islower() for c in s)):
            return s


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt() -> str:
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64url(json.dumps({"sub": str(R.randint(1000, 99999)), "exp": R.randint(1_700_000_000, 1_900_000_000),
                              "role": R.choice(["admin", "user", "svc"])}).encode())
    return f"{head}.{body}.{b64url(R.randbytes(32))}"


def pem(label: str) -> str:
    body = base64.b64encode(R.randbytes(R.choice([300, 600, 900]))).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"


def password() -> str:
    words = ["Sunset", "Hunter", "Maple", "Orbit", "Tiger", "Violet", "Quartz", "Falcon"]
    return R.choice(words) + str(R.randint(10, 9999)) + R.choice("!@#%^&*") + rnd(ALNUM, 4)


GENERATORS: dict[str, Callable[[], str]] = {
    "aws-access-key": lambda: R.choice(["AKIA", "ASIA"]) + rnd(UP, 16),
    "aws-secret-key": lambda: rnd(B64, 40),
    "github": lambda: R.choice(["ghp_", "gho_", "ghs_"]) + rnd(ALNUM, 36),
    "github-pat": lambda: "github_pat_" + rnd(ALNUM, 22) + "_" + rnd(ALNUM, 59),
    "gitlab": lambda: "glpat-" + rnd(URLSAFE, 20),
    "slack-token": lambda: R.choice(["xoxb-", "xoxp-"]) + f"{R.randint(10**10, 10**11)}-{R.randint(10**10, 10**11)}-" + rnd(ALNUM, 24),
    "slack-webhook": lambda: f"https://hooks.slack.com/services/T{rnd(UP, 8)}/B{rnd(UP, 8)}/{rnd(ALNUM, 24)}",
    "stripe": lambda: R.choice(["sk_live_", "rk_live_", "sk_test_"]) + rnd(ALNUM, 24),
    "anthropic": lambda: "sk-ant-api03-" + rnd(URLSAFE, 93) + "AA",
    "openai": lambda: "sk-proj-" + rnd(URLSAFE, 48) + "T3BlbkFJ" + rnd(URLSAFE, 48),
    "google-api": lambda: "AIza" + rnd(URLSAFE, 35),
    "google-oauth-secret": lambda: "GOCSPX-" + rnd(URLSAFE, 28),
    "npm": lambda: "npm_" + rnd(ALNUM, 36),
    "pypi": lambda: "pypi-AgEIcHlwaS5vcmc" + rnd(URLSAFE, 70),
    "sendgrid": lambda: "SG." + rnd(URLSAFE, 22) + "." + rnd(URLSAFE, 43),
    "mailgun": lambda: "key-" + rnd(HEXL, 32),
    "digitalocean": lambda: "dop_v1_" + rnd(HEXL, 64),
    "huggingface": lambda: "hf_" + rnd(string.ascii_letters, 34),
    "shopify": lambda: "shpat_" + rnd(HEXL, 32),
    "telegram": lambda: f"{R.randint(10**8, 10**10 - 1)}:AA" + rnd(URLSAFE, 33),
    "doppler": lambda: "dp.st." + rnd(ALNUM, 43),
    "twilio": lambda: "SK" + rnd(HEXL, 32),
    "netlify": lambda: "nfp_" + rnd(ALNUM, 36),
    "linear": lambda: "lin_api_" + rnd(ALNUM, 40),
    "notion": lambda: "ntn_" + rnd(ALNUM, 46),
    "databricks": lambda: "dapi" + rnd(HEXL, 32),
    "vault": lambda: "hvs." + rnd(URLSAFE, 90),
    "supabase": lambda: "sbp_" + rnd(HEXL, 40),
    "dockerhub": lambda: "dckr_pat_" + rnd(URLSAFE, 27),
    "groq": lambda: "gsk_" + rnd(ALNUM, 52),
    "postman": lambda: "PMAK-" + rnd(HEXL, 24) + "-" + rnd(HEXL, 34),
    "grafana": lambda: "glsa_" + rnd(ALNUM, 32) + "_" + rnd(HEXL, 8),
    "newrelic": lambda: "NRAK-" + rnd(UP, 27),
    "age": lambda: "AGE-SECRET-KEY-1" + "".join(R.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") for _ in range(58)),
    "jwt": jwt,
    "private-key-rsa": lambda: pem("RSA PRIVATE KEY"),
    "private-key-openssh": lambda: pem("OPENSSH PRIVATE KEY"),
    "private-key-pkcs8": lambda: pem("PRIVATE KEY"),
    "db-password": password,
    "generic-api-key": lambda: rnd(ALNUM, 32),
    "datadog": lambda: rnd(HEXL, 32),
    "azure-storage": lambda: base64.b64encode(R.randbytes(64)).decode(),
}

# How each kind of secret appears in real text; {s} is the secret.
TEMPLATES: dict[str, list[str]] = {
    "default": [
        "export {env}={s}",
        "{env}={s}",
        '  "{jkey}": "{s}",',
        "{jkey}: {s}",
        "I pasted the key {s} into the config, can you check it works?",
        "curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/items",
        "2026-11-02 10:14:07 DEBUG client init token={s} retries=3",
        "the new token is {s} (rotate it next week)",
    ],
    "aws-secret-key": ["aws_secret_access_key = {s}", "export AWS_SECRET_ACCESS_KEY={s}",
                       '"SecretAccessKey": "{s}",', "AWS_SECRET_ACCESS_KEY: {s}", "secret key: {s}"],
    "slack-webhook": ["SLACK_WEBHOOK_URL={s}", "posting to {s} failed with 404", 'webhook: "{s}"',
                      "requests.post('{s}', json=payload)", "use the webhook {s} for alerts"],
    "db-password": ["DATABASE_URL=postgres://app:{s}@db.internal:5432/app", "DB_PASSWORD={s}",
                    "mysql -u root -p{s} shop", 'password = "{s}"', "redis://:{s}@cache:6379/0",
                    "mongodb+srv://admin:{s}@cluster0.abcde.mongodb.net/prod", "PGPASSWORD={s} psql -h db",
                    "the db password is {s}"],
    "generic-api-key": ["API_KEY={s}", 'api_key = "{s}"', "X-API-Key: {s}", "my api key is {s}",
                        '{{"apiKey": "{s}"}}'],
    "datadog": ["DD_API_KEY={s}", "DATADOG_APP_KEY={s}", 'datadog_api_key: "{s}"', "datadog api key {s}"],
    "azure-storage": ["DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey={s};EndpointSuffix=core.windows.net",
                      'AZURE_STORAGE_KEY="{s}"', "storage account key: {s}"],
    "jwt": ["Authorization: Bearer {s}", "token={s}", "session cookie was {s}", '"id_token": "{s}"',
            "decoded {s} and the exp claim is in the past"],
}
PEM_TEMPLATES = ["{s}", "key file contents:\n{s}\n", '"private_key": "{s}"', "cat ~/.ssh/id_rsa\n{s}"]
ENV = {"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN", "stripe": "STRIPE_SECRET_KEY", "anthropic": "ANTHROPIC_API_KEY",
       "openai": "OPENAI_API_KEY", "npm": "NPM_TOKEN", "pypi": "TWINE_PASSWORD", "sendgrid": "SENDGRID_API_KEY"}


def secrets() -> list[dict[str, str]]:
    rows = []
    for provider, gen in GENERATORS.items():
        if provider.startswith("private-key"):
            templates = PEM_TEMPLATES
        else:
            templates = TEMPLATES.get(provider, TEMPLATES["default"])
        env = ENV.get(provider, provider.upper().replace("-", "_") + "_TOKEN")
        jkey = R.choice(["token", "apiKey", "secret", "access_token", "auth_token"])
        for template in templates[:6]:
            s = gen()
            rows.append({"provider": provider, "secret": s, "line": template.format(s=s, env=env, jkey=jkey)})
    return rows


def stdlib_lines(n: int) -> list[str]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    names = ["smtplib.py", "getpass.py", "hashlib.py", "base64.py", "uuid.py", "secrets.py", "hmac.py", "ssl.py",
             "urllib/request.py", "http/client.py", "netrc.py", "json/encoder.py", "logging/__init__.py",
             "argparse.py", "subprocess.py", "tarfile.py", "ftplib.py", "imaplib.py", "poplib.py", "configparser.py"]
    pool: list[str] = []
    for name in names:
        path = lib / name
        if path.exists():
            pool += [ln.rstrip() for ln in path.read_text(encoding="utf-8").splitlines() if len(ln.strip()) > 12]
    R.shuffle(pool)
    return pool[:n]


def git_lines(prose: list[str], n: int) -> list[str]:
    out = []
    for i in range(n):
        sha = hashlib.sha1(R.randbytes(16)).hexdigest()
        msg = R.choice(prose)[:70]
        out.append(R.choice([f"commit {sha}", f"{sha[:7]} {msg}", f"Merge: {sha[:7]} {sha[-7:]}",
                             f"{sha} refs/heads/main", f"git cherry-pick {sha}", f"fixed in {sha[:10]} ({msg[:40]})"]))
        if i % 5 == 0:
            out.append(f"index {sha[:7]}..{hashlib.sha1(R.randbytes(8)).hexdigest()[:7]} 100644")
    return out[:n]


def log_lines(n: int) -> list[str]:
    out = []
    for _ in range(n):
        u = uuid.UUID(bytes=R.randbytes(16), version=4)
        md5 = hashlib.md5(R.randbytes(8)).hexdigest()
        sha256 = hashlib.sha256(R.randbytes(8)).hexdigest()
        ts = f"2026-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}T{R.randint(0, 23):02d}:{R.randint(0, 59):02d}:07.{R.randint(100, 999)}Z"
        out.append(R.choice([
            f"{ts} INFO request_id={u} path=/api/orders status=200 duration_ms={R.randint(2, 900)}",
            f"{ts} WARN cache miss key=user:{R.randint(1, 99999)} etag={md5}",
            f"{ts} ERROR upload failed checksum sha256={sha256} expected {sha256[::-1]}",
            f"Downloading wheel ... sha256:{sha256}",
            f"session {u} resumed; token count 128000, output tokens {R.randint(10, 9000)}",
            f"trace_id={md5} span_id={md5[:16]} parent={u}",
            f"integrity sha512-{base64.b64encode(R.randbytes(64)).decode()}",
            f"image digest: sha256:{sha256}",
            f"uuid={u} md5={md5}",
            f"Step {R.randint(1, 20)}/20 : RUN pip install -r requirements.txt ---> {sha256[:12]}",
            f"  at com.shop.orders.OrderService.place(OrderService.java:{R.randint(10, 400)})",
            f"{ts} DEBUG token bucket refill tokens={R.randint(1, 100)} capacity=100",
            f"Cache-Control: max-age={R.randint(60, 86400)}, ETag: \"{md5}\"",
        ]))
    return out


def base64_lines(prose: list[str], n: int) -> list[str]:
    out = []
    for _ in range(n):
        text = R.choice(prose).encode()
        enc = base64.b64encode(text).decode()
        blob = base64.b64encode(R.randbytes(R.randint(12, 60))).decode()
        out.append(R.choice([
            f"echo {enc} | base64 -d",
            f'<img src="data:image/png;base64,{blob}">',
            f"content: {enc}",
            f"payload = base64.b64decode('{enc}')",
            f'"data": "{blob}",',
            f"font-src url(data:font/woff2;base64,{blob})",
            f"X-Request-Signature-Version: 2; body-md5={base64.b64encode(hashlib.md5(text).digest()).decode()}",
        ]))
    return out


TRICKY = [
    "git checkout -b sk-fix-login-timeout", ".sk-button-primary { color: red; }", "report-2026-11-30-final.csv",
    "NPM_TOKEN=${NPM_TOKEN}", "API_TOKEN=<YOUR_API_TOKEN_HERE>", "export GITHUB_TOKEN=$(gh auth token)",
    "password = getpass.getpass()", "token = request.headers.get('Authorization')", "BYPASS=true",
    "The access token expires after one hour; refresh it with the refresh token.",
    "Set OPENAI_API_KEY in your shell before running the script.", "max_tokens: 4096",
    "Use the secret manager rather than committing keys.", "PRIMARY_KEY=id", "SORT_KEY=created_at",
    "password: required", "the password field must not be empty", "AUTH_MODE=oauth",
    "com.example.auth.TokenProviderFactory.createDefault()", "Bearer tokens are sent in the Authorization header.",
    "TOKEN_LIMIT=200000", "KEY_PREFIX=cache:v2:", "DB_PASSWORD_FILE=/run/secrets/db_password",
    "SECRET_KEY_BASE is generated by rails credentials:edit", "Authorization: Bearer <token>",
    "Authorization: Basic $(echo -n user:pass | base64)", "api_key = os.environ['API_KEY']",
    'api_key = "YOUR_API_KEY"', "aws_secret_access_key = ${AWS_SECRET}", "postgres://localhost:5432/app",
    "https://user@example.com/repo.git", "ssh://git@github.com:22/org/repo.git", "token: ${{ secrets.GITHUB_TOKEN }}",
]


def prose_lines(base: Path, n: int) -> list[str]:
    out: list[str] = []
    for f in sorted(base.glob("*.json")):
        data = json.loads(f.read_text())
        for key, value in data["conversation"].items() if "conversation" in data else data.items():
            if key.startswith("session_") and isinstance(value, list):
                out += [t["text"] for t in value if isinstance(t, dict) and t.get("text")]
    R.shuffle(out)
    return out[:n]


def main(argv: list[str]) -> None:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        raise SystemExit("usage: generate_corpus.py LOCOMO_DIR (the folder holding LoCoMo's *.json files)")
    rows = secrets()
    prose = prose_lines(Path(argv[0]), 700)
    ordinary = TRICKY + stdlib_lines(700) + git_lines(prose, 250) + log_lines(400) + base64_lines(prose, 250) + prose
    ordinary = [ln.replace("\n", " ") for ln in ordinary if ln.strip()]
    # Base64 per line, so secret scanners (push protection) do not flag the fake secrets.
    (HERE / "legacy_secrets.b64").write_text("".join(base64.b64encode(json.dumps(r).encode()).decode() + "\n" for r in rows))
    (HERE / "ordinary.txt").write_text("\n".join(ordinary) + "\n")
    print(f"{len(rows)} secrets of {len({r['provider'] for r in rows})} providers, {len(ordinary)} ordinary lines")


if __name__ == "__main__":
    main(sys.argv[1:])
