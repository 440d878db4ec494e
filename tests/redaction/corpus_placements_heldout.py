"""Placements of the held-out split: other syntaxes and phrasings than ``corpus_placements``.

Written before the rules were measured on them, to tell whether the rules hold on text they
were not tuned to: docker-compose, Dockerfile, systemd, GitHub Actions, Terraform, TOML, INI,
Java properties, XML, appsettings.json, PHP, Ruby, Go, Python reprs, logs and tracebacks,
``docker inspect``, ``printenv NAME`` (the value on its own line), Markdown tables, PowerShell,
fish, httpie, ``git clone`` with a token, and other ways people phrase it in a chat.
"""

from __future__ import annotations

import random

from corpus_formats import Format
from corpus_placements import Builder, camel, kind_word, slug, snake


def _pick(category: str, *templates: str) -> Builder:
    def build(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
        if fmt.kind in ("pem", "webhook", "dsn", "url"):
            return None
        c = camel(fmt)
        t = rng.choice(templates)
        return category, t.format(s=s, env=fmt.env, prov=fmt.provider, slug=slug(fmt), snake=snake(fmt), camel=c,
                                  Camel=c[:1].upper() + c[1:], kind=kind_word(fmt),
                                  Prov=fmt.provider.title().replace(" ", ""))
    return build


PROMPTS = _pick(
    "prompt",
    "ok so the {prov} creds are: {s}",
    "Could you update the {prov} integration? New {kind}:\n\n    {s}\n\nThanks!",
    "{prov} {kind} -> {s}",
    "pls set {snake} to {s} in prod",
    "fyi {env} is {s} on staging, prod uses a different one",
    "why does `{env}={s} make test` fail with 403?",
)
BASH = _pick(
    "bash",
    "docker run --rm -e {env}={s} -p 8080:80 shop/api:latest",
    "kubectl set env deployment/api {env}={s} -n prod",
    "echo '{env}={s}' >> .env.production",
    '$env:{env} = "{s}"; npm start',
    "set -x {env} {s}",
    'setx {env} "{s}"',
    "vault kv put secret/{slug} {snake}={s}",
    'http POST https://api.{slug}.com/v1/run Authorization:"Bearer {s}" name=nightly',
    'wget --header="X-Api-Key: {s}" https://api.{slug}.com/v1/export.csv',
    "npm config set //registry.npmjs.org/:_authToken {s}",
)
HEREDOC = _pick(
    "heredoc",
    "cat <<EOF | kubectl apply -f -\napiVersion: v1\nkind: Secret\nmetadata:\n  name: {slug}\nstringData:\n"
    "  {snake}: \"{s}\"\nEOF",
    "python - <<'PY'\nimport {slug}\n{slug}.{snake} = \"{s}\"\nprint({slug}.ping())\nPY",
    "cat >> ~/.bashrc <<'EOF'\nexport {env}={s}\nEOF",
)
TOOL_OUTPUT = _pick(
    "tool-output",
    "services:\n  api:\n    image: shop/api:1.4\n    environment:\n      - {env}={s}\n      - LOG_LEVEL=info",
    "FROM python:3.12-slim\nENV {env}={s}\nRUN pip install -r requirements.txt",
    '[Service]\nEnvironment="{env}={s}"\nExecStart=/usr/bin/shop-api',
    "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      {env}: {s}",
    'provider "{slug}" {{\n  {snake} = "{s}"\n  region = "eu-west-1"\n}}',
    '[{slug}]\n{snake} = "{s}"\ntimeout = 30',
    "[{slug}]\n{snake}={s}\nverbose=false",
    "{slug}.{camel}={s}\n{slug}.timeout=30",
    "<config>\n  <{camel}>{s}</{camel}>\n  <timeout>30</timeout>\n</config>",
    '"{Prov}": {{\n    "{Camel}": "{s}",\n    "BaseUrl": "https://api.{slug}.com"\n  }}',
    "define('{env}', '{s}');",
    'config.{snake} = "{s}"',
    '{Camel}: "{s}",',
    "{{'{snake}': '{s}', 'timeout': 30, 'retries': 3}}",
    "DEBUG urllib3.connectionpool: Sending headers {{'Authorization': 'Bearer {s}', 'Accept': '*/*'}}",
    "INFO  configured {prov} client with {snake}={s} region=eu-west-1",
    "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
    "https://api.{slug}.com/v1/items?{snake}={s}&page=1",
    '"Env": [\n    "PATH=/usr/local/bin:/usr/bin",\n    "{env}={s}",\n    "LANG=C.UTF-8"\n]',
    "$ printenv {env}\n{s}\n$ ",
    "| name | value |\n|---|---|\n| {env} | {s} |\n| REGION | eu-west-1 |",
    '{env}="{s}"\nVERCEL_ENV="production"',
)
DIFF = _pick(
    "diff",
    "@@ -10,3 +10,4 @@ {slug}:\n   region: eu-west-1\n+  {snake}: {s}\n   timeout: 30",
    '-{env}="{s}"\n+{env}=',
    "diff --git a/settings.py b/settings.py\n-{env} = '{s}'\n+{env} = os.environ['{env}']",
)
ASSISTANT = _pick(
    "assistant",
    "Here's the updated config:\n\n```env\n{env}={s}\n```",
    "Your {prov} {kind} (`{s}`) is valid until next month.",
    "I found a hardcoded credential in `settings.py`: `{s}`. Move it to an environment variable.",
    "Set `{snake}` to `{s}` and restart the worker.",
)


def _clone(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
    if fmt.kind not in ("token", "password"):
        return None
    return "bash", rng.choice([f"git clone https://oauth2:{s}@gitlab.example.com/acme/shop.git",
                               f"git remote set-url origin https://deploy:{s}@git.example.com/shop.git",
                               f"curl -u api:{s} https://api.{slug(fmt)}.com/v3/messages"])


PLAIN: list[Builder] = [PROMPTS, BASH, HEREDOC, TOOL_OUTPUT, DIFF, ASSISTANT, _clone]
