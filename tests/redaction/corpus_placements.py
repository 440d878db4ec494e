"""Where secrets turn up in an agent session, as text: the placements of the redaction corpus.

Each placement writes a secret into the text it would be in: a user's prompt, a Bash command
or heredoc, a tool's output (an env dump, ``cat .env``, ``aws secretsmanager`` JSON, ``kubectl
get secret -o yaml``, a docker ``config.json``, ``curl -v`` headers, connection strings), a diff,
the assistant's reply; then some are wrapped in a Claude Code JSONL transcript line (JSON-escaped),
split over lines, or URL-encoded. A placement returns the text and the forms the secret takes in
it (raw, base64 of it, escaped), whose pieces must all be gone after redaction.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from corpus_formats import Format


@dataclass(frozen=True)
class Placed:
    category: str  # prompt | bash | heredoc | tool-output | diff | assistant (+ jsonl, split, urlencoded)
    name: str
    text: str
    forms: tuple[str, ...]  # strings none of whose 8-character pieces may remain


def slug(fmt: Format) -> str:
    return re.sub(r"[^a-z0-9]+", "", fmt.provider.lower()) or "acme"


def snake(fmt: Format) -> str:
    """The env name without its provider prefix, lower case: GITHUB_TOKEN -> token."""
    words = fmt.env.lower().split("_")
    prov = set(re.split(r"[^a-z0-9]+", fmt.provider.lower()))
    rest = [w for w in words if w not in prov] or words
    return "_".join(rest)


def camel(fmt: Format) -> str:
    first, *rest = snake(fmt).split("_")
    return first + "".join(w.title() for w in rest)


def kind_word(fmt: Format) -> str:
    return {"password": "password", "secret": "secret", "key": "api key", "jwt": "token", "webhook": "webhook url",
            "dsn": "dsn", "url": "url"}.get(fmt.kind, "token")


Builder = Callable[[random.Random, Format, str], tuple[str, str] | None]


def _generic(category: str, *templates: str) -> Builder:
    def build(rng: random.Random, fmt: Format, s: str) -> tuple[str, str]:
        t = rng.choice(templates)
        return category, t.format(s=s, env=fmt.env, prov=fmt.provider, slug=slug(fmt), snake=snake(fmt),
                                  camel=camel(fmt), kind=kind_word(fmt), Prov=fmt.provider.title().replace(" ", ""))
    return build


PROMPTS = _generic(
    "prompt",
    "I set {env}={s} in my .env but the {prov} client still returns 401, any idea?",
    "here's the {prov} {kind} for staging: {s} — can you wire it into the deploy script?",
    "can you add this to the config?\n{env}: {s}",
    "My {prov} {kind} is {s}, please use it for the test run",
    "use this {kind} for {prov}: {s}\nand don't commit it",
)
BASH = _generic(
    "bash",
    'export {env}="{s}" && npm run deploy',
    "{env}={s} ./scripts/sync.sh --dry-run",
    "heroku config:set {env}={s} -a shop-api",
    "kubectl create secret generic {slug} --from-literal={snake}={s}",
    'gh secret set {env} --body "{s}"',
    "fly secrets set {env}={s} --app shop",
    "aws ssm put-parameter --name /prod/{slug}/{snake} --value '{s}' --type SecureString",
)
HEREDOC = _generic(
    "heredoc",
    "cat > .env <<'EOF'\nNODE_ENV=production\n{env}={s}\nLOG_LEVEL=info\nEOF",
    "cat <<EOF > ~/.config/{slug}/config.yml\n{slug}:\n  {snake}: {s}\n  region: eu-west-1\nEOF",
    "tee -a .envrc >/dev/null <<'EOT'\nexport {env}='{s}'\nEOT",
)
TOOL_OUTPUT = _generic(
    "tool-output",
    "HOME=/home/dev\nLANG=C.UTF-8\n{env}={s}\nPATH=/usr/local/bin:/usr/bin:/bin\nPWD=/home/dev/shop\nSHELL=/bin/bash",
    "# {prov}\n{env}={s}\n\n# database\nDATABASE_HOST=db.internal\nDATABASE_PORT=5432\n",
    '{{\n  "name": "shop-api",\n  "{camel}": "{s}",\n  "timeout": 30\n}}',
    "{slug}:\n  {snake}: \"{s}\"\n  endpoint: https://api.{slug}.com\n  retries: 3",
    '{snake} = "{s}"\nregion = "eu-west-1"',
    "client = {Prov}Client({snake}=\"{s}\", timeout=30)",
    "const {camel} = '{s}';\nexport default {{ {camel} }};",
    "env:\n  - name: {env}\n    value: \"{s}\"\n  - name: LOG_LEVEL\n    value: debug",
    "=== shop-api Config Vars\nDATABASE_URL:        postgres://shop@db.internal:5432/shop\n{env}: {s}\nWEB_CONCURRENCY:     2",
)
DIFF = _generic(
    "diff",
    "--- a/.env.example\n+++ b/.env.example\n@@ -1,3 +1,4 @@\n NODE_ENV=development\n+{env}={s}\n PORT=3000",
    "diff --git a/config/{slug}.yml b/config/{slug}.yml\n@@ -4,2 +4,2 @@\n-  {snake}: \"{s}\"\n+  {snake}: ${{{{ secrets.{env} }}}}",
)
ASSISTANT = _generic(
    "assistant",
    "I've added `{env}` to your `.env` with the value `{s}`. Remember to rotate it after the demo.",
    "The request failed because the {prov} {kind} `{s}` has expired; create a new one in the dashboard.",
    "Done. The deploy now reads {env} ({s}) from the environment instead of the config file.",
)


def _header(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    if fmt.kind not in ("token", "key", "jwt", "secret"):
        return None
    header = rng.choice(["Authorization: Bearer {s}", "X-API-Key: {s}", "Authorization: token {s}", "X-Auth-Token: {s}",
                         "Api-Key: {s}"]).format(s=s)
    if rng.random() < 0.5:
        return "bash", f'curl -sS -H "{header}" https://api.{slug(fmt)}.com/v1/me | jq .'
    return "tool-output", f"> GET /v1/me HTTP/2\n> Host: api.{slug(fmt)}.com\n> {header}\n> User-Agent: curl/8.5.0\n>\n< HTTP/2 200"


def _flag(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    if fmt.kind == "password":
        return "bash", rng.choice([
            "sshpass -p '{s}' ssh deploy@10.0.4.12 'sudo systemctl restart shop'",
            "docker login -u deploy -p {s} registry.example.com",
            "mysql -h db.internal -u root -p{s} shop < dump.sql",
            "az login -u ops@example.com -p '{s}'",
            "PGPASSWORD={s} psql -h db.internal -U shop -c 'select 1'",
            "redis-cli -h cache.internal -a {s} ping",
            "{slug} login --username deploy --password '{s}'",
        ]).format(s=s, slug=slug(fmt))
    if fmt.kind in ("token", "key", "secret", "jwt"):
        return "bash", rng.choice([
            "{slug} auth login --token {s}", "{slug} deploy --api-key={s} --env prod",
            "npx {slug}-cli --token={s} publish", "terraform apply -var '{snake}={s}'",
        ]).format(s=s, slug=slug(fmt), snake=snake(fmt))
    return None


def _connection(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    if fmt.kind != "password":
        return None
    return "tool-output", rng.choice([
        "DATABASE_URL=postgres://shop:{q}@db.internal:5432/shop",
        "Server=tcp:shop.database.windows.net,1433;Database=shop;User ID=shop;Password={s};Encrypt=True;",
        'MONGO_URI="mongodb+srv://admin:{q}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true"',
        "REDIS_URL=redis://:{q}@cache.internal:6379/0",
        "amqp://shop:{q}@rabbit.internal:5672/%2F",
        "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/shop\n    username: shop\n    password: {s}",
        "machine api.example.com login deploy password {s}",
    ]).format(s=s, q=quote(s, safe=""))


def _secretsmanager(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    if fmt.kind in ("pem", "webhook", "dsn", "url"):
        return None
    inner = json.dumps({"username": "shop", snake(fmt): s, "engine": "postgres", "host": "db.internal"},
                       separators=(",", ":"))
    return "tool-output", json.dumps({
        "ARN": f"arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/{slug(fmt)}-AbCdEf",
        "Name": f"prod/{slug(fmt)}", "VersionId": "3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b", "SecretString": inner,
        "VersionStages": ["AWSCURRENT"], "CreatedDate": "2026-11-02T10:14:07.123000+00:00"}, indent=4)


def _netrc_like(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    if fmt.provider == "aws":
        return "tool-output", f"[default]\naws_access_key_id = AKIA{rng.randrange(10**15, 10**16)}\nregion = eu-west-1\n" \
                              f"{'aws_secret_access_key' if fmt.kind == 'secret' else 'aws_session_token'} = {s}\n"
    if fmt.provider == "npm":
        return "tool-output", f"//registry.npmjs.org/:_authToken={s}\nalways-auth=true"
    if fmt.provider == "pypi":
        return "tool-output", f"[pypi]\nusername = __token__\npassword = {s}"
    if fmt.provider == "github":
        return "tool-output", f"https://x-access-token:{s}@github.com"
    return None


KINDS_PLAIN = ("token", "key", "secret", "password", "jwt")


def kubectl_secret(rng: random.Random, fmt: Format, s: str) -> tuple[str, str, str] | None:
    enc = base64.b64encode(s.encode()).decode()
    text = ("apiVersion: v1\ndata:\n  " + f"{snake(fmt)}: {enc}\n  username: c2hvcA==\nkind: Secret\nmetadata:\n"
            f"  name: {slug(fmt)}-credentials\n  namespace: prod\ntype: Opaque")
    return "tool-output", text, enc


def docker_auth(rng: random.Random, fmt: Format, s: str) -> tuple[str, str, str] | None:
    if fmt.kind not in ("password", "token"):
        return None
    enc = base64.b64encode(f"deploy:{s}".encode()).decode()
    text = json.dumps({"auths": {"registry.example.com": {"auth": enc}, "https://index.docker.io/v1/": {}},
                       "credsStore": "desktop"}, indent=2)
    return "tool-output", text, enc


def pem_placements(rng: random.Random, fmt: Format, s: str) -> list[tuple[str, str]]:
    indented = "\n".join("    " + line for line in s.splitlines())
    return [
        ("tool-output", f"$ cat ~/.ssh/id_deploy\n{s}\n"),
        ("tool-output", json.dumps({"type": "service_account", "project_id": "shop-prod", "private_key_id": "0" * 8,
                                    "private_key": s + "\n", "client_email": "ci@shop-prod.iam.gserviceaccount.com"}, indent=2)),
        ("heredoc", f"cat > deploy_key.pem <<'EOF'\n{s}\nEOF\nchmod 600 deploy_key.pem"),
        ("tool-output", f"tls:\n  private_key: |\n{indented}\n  certificate: ./tls.crt"),
        ("assistant", f"The key in the repo is:\n\n```\n{s}\n```\n\nI moved it to the secret store."),
    ]


def url_placements(rng: random.Random, fmt: Format, s: str) -> list[tuple[str, str]]:
    return [
        ("tool-output", f"{fmt.env}={s}\nAPP_ENV=production"),
        ("bash", f"curl -X POST -H 'Content-Type: application/json' -d '{{\"text\":\"deploy done\"}}' {s}"),
        ("prompt", f"the {fmt.provider} {kind_word(fmt)} is {s} — post the release notes there"),
        ("assistant", f"I configured `{fmt.env}` as `{s}`; alerts will go there."),
        ("tool-output", json.dumps({"notifications": {"url": s, "events": ["deploy", "rollback"]}}, indent=2)),
    ]


def wrap_jsonl(category: str, text: str, rng: random.Random) -> str:
    """``text`` inside a Claude Code transcript line, the way that tool writes it."""
    base = {"parentUuid": "6f1c2a7e-0b3d-4e5f-9a8b-7c6d5e4f3a2b", "isSidechain": False, "userType": "external",
            "cwd": "/home/dev/shop", "sessionId": "0b3d6f1c-2a7e-4e5f-9a8b-7c6d5e4f3a2b", "version": "2.1.328",
            "gitBranch": "main", "uuid": "9a8b7c6d-5e4f-4a2b-8c1d-2e3f4a5b6c7d", "timestamp": "2026-11-30T10:14:07.123Z"}
    if category == "prompt":
        rec = {**base, "type": "user", "message": {"role": "user", "content": text}}
    elif category in ("bash", "heredoc"):
        rec = {**base, "type": "assistant", "message": {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "role": "assistant",
               "content": [{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "Bash",
                            "input": {"command": text, "description": "Run it"}}]}}
    elif category == "assistant":
        rec = {**base, "type": "assistant", "message": {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "role": "assistant",
               "content": [{"type": "text", "text": text}]}}
    else:
        rec = {**base, "type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": "toolu_01A09q90qw90lq917835lq9", "type": "tool_result", "content": text, "is_error": False}]},
            "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False}}
    return json.dumps(rec, ensure_ascii=False)


def escaped(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)[1:-1]


def wrapped(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    """A long value over several lines: a token printed by ``fold``, an env dump wrapped at the
    terminal's width, a YAML folded scalar."""
    if len(s) < 50 or fmt.kind in ("pem", "webhook", "dsn", "url", "password"):
        return None
    width = rng.choice([32, 40, 64, 76])
    style = rng.randrange(3) if fmt.prefixed else 1 + rng.randrange(2)
    if style == 0:
        lines = "\n".join(s[i:i + width] for i in range(0, len(s), width))
        return "split", f"$ {slug(fmt)} tokens create --name ci | fold -w {width}\n{lines}\n$ "
    if style == 1:
        line = f"{fmt.env}={s}"
        width = max(width, 60)
        lines = "\n".join(line[i:i + width] for i in range(0, len(line), width))
        return "split", f"$ env | sort\nHOME=/home/dev\n{lines}\nLANG=C.UTF-8\n"
    lines = "\n".join("    " + s[i:i + width] for i in range(0, len(s), width))
    return "split", f"{slug(fmt)}:\n  {snake(fmt)}: >-\n{lines}\n  region: eu-west-1"


def url_encoded(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    if fmt.kind in ("pem", "webhook", "dsn", "url"):
        return None
    q = quote(s, safe="")
    if fmt.kind == "password":
        return "urlencoded", f"curl -X POST https://shop.example.com/login -d 'username=admin&password={q}&remember=1'"
    return "urlencoded", rng.choice([
        f"curl -X POST https://auth.{slug(fmt)}.com/oauth/token -d 'grant_type=client_credentials&client_id=shop"
        f"&client_secret={q}'",
        f"GET /v1/export?access_token={q}&format=csv HTTP/1.1",
        f"https://api.{slug(fmt)}.com/v2/items?api_key={q}&page=2",
    ])


PLAIN: list[Builder] = [PROMPTS, BASH, HEREDOC, TOOL_OUTPUT, DIFF, ASSISTANT, _header, _flag, _connection, _secretsmanager,
                        _netrc_like]
