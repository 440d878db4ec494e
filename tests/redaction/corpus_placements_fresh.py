"""Placements and formats of the *fresh* split: a third set of phrasings and some more providers,
written after the rules were tuned on the dev and held-out splits, to measure them once more on
text they were not shaped by (bench/capture_redaction.py reports its first measurement)."""

from __future__ import annotations

import random

from corpus_formats import C, F, Format
from corpus_placements import Builder, camel, kind_word, slug, snake

FORMATS: list[Format] = [
    F("databricks", "oauth secret", "dose{hex:32}", "DATABRICKS_CLIENT_SECRET", "secret"),
    F("gitlab", "feed token", "glft-{url:20}", "GITLAB_FEED_TOKEN"),
    F("gitlab", "incoming mail token", "glimt-{url:25}", "GITLAB_INCOMING_EMAIL_TOKEN"),
    F("sourcegraph", "dotcom token", "sgph_{hex:16}_{hex:40}", "SRC_ACCESS_TOKEN"),
    F("openai", "admin key", "sk-admin-{url:58}T3BlbkFJ{url:58}", "OPENAI_ADMIN_KEY"),
    F("anthropic", "oauth token", "sk-ant-oat01-{url:93}AA", "CLAUDE_CODE_OAUTH_TOKEN"),
    F("clerk", "secret key", "sk_live_{b62:40}", "CLERK_SECRET_KEY", "secret"),
    F("new relic", "insert key", "NRII-{url:32}", "NEW_RELIC_INSERT_KEY"),
    F("tailscale", "api key", "tskey-api-{b62:12}CNTRL-{b62:33}", "TAILSCALE_API_KEY"),
    F("shopify", "custom app token", "shpca_{hex:32}", "SHOPIFY_CUSTOM_TOKEN"),
    C("sanity", "api token", "sk{b62:80}", "SANITY_API_TOKEN", "token"),
    C("pagerduty", "integration key", "{hex:32}", "PAGERDUTY_INTEGRATION_KEY"),
    C("contentful", "delivery token", "{url:43}", "CONTENTFUL_DELIVERY_TOKEN", "token"),
    C("mailjet", "secret key", "{hex:32}", "MAILJET_SECRET_KEY", "secret"),
    C("gitea", "access token", "{hex:40}", "GITEA_TOKEN", "token"),
    C("jenkins", "api token", "11{hex:32}", "JENKINS_API_TOKEN", "token"),
    C("nexus", "password", "{pw}", "NEXUS_PASSWORD", "password"),
    C("ldap", "bind password", "{pw}", "LDAP_BIND_PASSWORD", "password"),
    C("splunk", "hec token", "{uuid}", "SPLUNK_HEC_TOKEN", "token"),
    C("expo", "access token", "{url:40}", "EXPO_TOKEN", "token"),
]


def _pick(category: str, *templates: str) -> Builder:
    def build(rng: random.Random, fmt: Format, s: str) -> tuple[str, str] | None:
        if fmt.kind in ("pem", "webhook", "dsn", "url"):
            return None
        c = camel(fmt)
        return category, rng.choice(templates).format(
            s=s, env=fmt.env, prov=fmt.provider, slug=slug(fmt), snake=snake(fmt), camel=c, kind=kind_word(fmt),
            Camel=c[:1].upper() + c[1:])
    return build


PROMPTS = _pick(
    "prompt",
    "Quick q — I exported {env} as {s}; is that the right format?",
    "{prov} gave me this: {s} (it says it won't show it again)",
    "{kind} for the {prov} sandbox = {s}",
    "{kind}: {s}\nendpoint: https://api.{slug}.com",
    "the {prov} {kind} we use in CI is {s}, can you add it to the workflow?",
)
BASH = _pick(
    "bash",
    "env {env}='{s}' python manage.py sync_{slug}",
    'ssh deploy@web1 "echo {env}={s} >> /etc/shop.env"',
    "aws secretsmanager create-secret --name prod/{slug} --secret-string '{{\"{snake}\":\"{s}\"}}'",
    "curl -sf https://api.{slug}.com/v2/ping -H 'x-{slug}-key: {s}'",
    "helm upgrade shop ./chart --set {slug}.{camel}={s}",
)
HEREDOC = _pick(
    "heredoc",
    "cat <<'CFG' > /etc/{slug}.conf\n[auth]\n{snake} = {s}\nCFG",
    "kubectl create secret generic {slug} --from-env-file=/dev/stdin <<EOF\n{env}={s}\nEOF",
)
TOOL_OUTPUT = _pick(
    "tool-output",
    "$ heroku config:get {env}\n{s}",
    "NAME                          VALUE\n{env}    {s}\nREGION                        eu-west-1",
    '{{\n  "credentials": {{\n    "{snake}": "{s}"\n  }}\n}}',
    "WARNING: {env} is set in plain text ({s}); consider a secret store",
    'export {env}="{s}"  # added by installer',
    '    {Camel} = "{s}";',
    "secrets:\n  - name: {snake}\n    value: {s}",
    "{snake} : {s}",
)
DIFF = _pick(
    "diff",
    '+    "{camel}": "{s}",',
    "@@ -1 +1 @@\n-{snake}=\n+{snake}={s}",
)
ASSISTANT = _pick(
    "assistant",
    "Got it — I'll use `{s}` as the {prov} {kind}.",
    "In `.env.local`: {env}={s}. I didn't commit it.",
)

PLAIN: list[Builder] = [PROMPTS, BASH, HEREDOC, TOOL_OUTPUT, DIFF, ASSISTANT]
