"""Secret formats of the redaction corpus: provider, shape, and the name it usually goes by.

Each format is a template of literal text and random parts with the provider's real length and
alphabet, taken from the providers' token documentation and public rule sets (gitleaks,
trufflehog, Nosey Parker). Bodies are drawn from a seeded RNG, so no real secret is ever here.

Two sets: ``DEV`` (the rules were tuned against it) and ``HELDOUT`` (other providers and
formats, drawn with another seed, looked at only to measure; see bench/capture_redaction.py).
``prefixed`` formats carry a distinctive literal prefix; the others can only be found by the
words around them (their env name, header or sentence).
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from dataclasses import dataclass

ALPHABETS = {
    "b62": string.ascii_letters + string.digits,
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "up": string.ascii_uppercase + string.digits,
    "low": string.ascii_lowercase + string.digits,
    "alpha": string.ascii_letters,
    "lower": string.ascii_lowercase,
    "b64": string.ascii_letters + string.digits + "+/",
    "url": string.ascii_letters + string.digits + "-_",
    "b32": string.ascii_uppercase + "234567",
    "dig": string.digits,
    "bech": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "django": string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)",
    "azure": string.ascii_letters + string.digits + "~._-",
}
_PART = re.compile(r"\{(\w+)(?::(\d+))?\}")


@dataclass(frozen=True)
class Format:
    provider: str
    name: str
    template: str
    env: str  # the env/config name it usually has
    kind: str  # token | key | secret | password | webhook | dsn | pem | jwt | url
    prefixed: bool


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    present = [p for p in ("[a-z]", "[A-Z]", "[0-9]") if re.search(p, alphabet)]
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        # Real random tokens of these lengths mix their alphabet's classes; re-draw the rare
        # draw that holds one class only (it would test nothing).
        if n < 12 or len(present) < 2 or sum(bool(re.search(p, s)) for p in present) >= 2:
            return s


def _uuid(rng: random.Random) -> str:
    h = _rand(rng, ALPHABETS["hex"], 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[rng.randrange(4)]}{h[17:20]}-{h[20:]}"


def _password(rng: random.Random) -> str:
    words = ["Sunset", "Hunter", "Maple", "Orbit", "Tiger", "Violet", "Quartz", "Falcon", "Copper", "Nimbus",
             "Harbor", "Juniper", "Pepper", "Rocket", "Saffron", "Walnut"]
    style = rng.randrange(3)
    if style == 0:
        return rng.choice(words) + str(rng.randint(10, 9999)) + rng.choice("!@#%^&*?") + _rand(rng, ALPHABETS["b62"], 4)
    if style == 1:
        return _rand(rng, string.ascii_letters + string.digits + "!#%&*+-=?@^_", rng.randint(14, 24))
    return _rand(rng, ALPHABETS["b62"], rng.randint(16, 32))


def _pem(rng: random.Random, label: str) -> str:
    body = base64.b64encode(rng.randbytes(rng.choice([400, 900, 1200]))).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"


def _jwt(rng: random.Random) -> str:
    def b64u(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    head = b64u(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    body = b64u(json.dumps({"sub": str(rng.randint(1000, 99999)), "iat": rng.randint(1_700_000_000, 1_800_000_000),
                            "role": rng.choice(["service_role", "admin", "user"])}).encode())
    return f"{head}.{body}.{b64u(rng.randbytes(32))}"


def _discord(rng: random.Random) -> str:
    ident = base64.b64encode(str(rng.randint(10**17, 10**19 - 1)).encode()).decode().rstrip("=")
    return f"{ident}.{_rand(rng, ALPHABETS['url'], 6)}.{_rand(rng, ALPHABETS['url'], 38)}"


_PEM_LABELS = {"rsa": "RSA PRIVATE KEY", "openssh": "OPENSSH PRIVATE KEY", "ec": "EC PRIVATE KEY", "pkcs8": "PRIVATE KEY",
               "pgp": "PGP PRIVATE KEY BLOCK", "enc": "ENCRYPTED PRIVATE KEY"}


def make(rng: random.Random, fmt: Format) -> tuple[str, list[str]]:
    """A random value of ``fmt``, and its random parts (what must not survive redaction; the
    literal parts such as ``ghp_`` are public)."""
    out: list[str] = []
    parts: list[str] = []
    pos = 0
    t = fmt.template
    for m in re.finditer(r"\{[\w:]+\}", t):
        out.append(t[pos:m.start()])
        spec = m.group()[1:-1]
        if spec == "uuid":
            piece = _uuid(rng)
        elif spec == "pw":
            piece = _password(rng)
        elif spec == "jwt":
            piece = _jwt(rng)
        elif spec == "discord":
            piece = _discord(rng)
        elif spec.startswith("pem:"):
            piece = _pem(rng, _PEM_LABELS[spec[4:]])
            parts.extend(line for line in piece.splitlines() if "-----" not in line)
            out.append(piece)
            pos = m.end()
            continue
        else:
            name, n = spec.split(":")
            piece = _rand(rng, ALPHABETS[name], int(n))
        out.append(piece)
        parts.append(piece)
        pos = m.end()
    out.append(t[pos:])
    return "".join(out), [p for p in parts if len(p) >= 8]


def F(provider: str, name: str, template: str, env: str, kind: str = "token", prefixed: bool = True) -> Format:
    return Format(provider, name, template, env, kind, prefixed)


def C(provider: str, name: str, template: str, env: str, kind: str = "key") -> Format:
    return Format(provider, name, template, env, kind, False)


DEV: list[Format] = [
    F("aws", "access key id", "AKIA{up:16}", "AWS_ACCESS_KEY_ID", "key"),
    C("aws", "secret access key", "{b64:40}", "AWS_SECRET_ACCESS_KEY", "secret"),
    F("aws", "session token", "IQoJb3JpZ2luX2VjE{b64:280}", "AWS_SESSION_TOKEN"),
    F("aws", "bedrock api key", "ABSKQmVkcm9jaw{b64:118}", "AWS_BEARER_TOKEN_BEDROCK"),
    F("github", "classic pat", "ghp_{b62:36}", "GITHUB_TOKEN"),
    F("github", "oauth token", "gho_{b62:36}", "GH_TOKEN"),
    F("github", "app installation token", "ghs_{b62:36}", "GITHUB_APP_TOKEN"),
    F("github", "fine-grained pat", "github_pat_11{up:20}_{b62:59}", "GITHUB_PAT"),
    F("gitlab", "personal access token", "glpat-{url:20}", "GITLAB_TOKEN"),
    F("gitlab", "runner token", "glrt-{url:20}", "CI_RUNNER_TOKEN"),
    F("gitlab", "deploy token", "gldt-{url:20}", "GITLAB_DEPLOY_TOKEN"),
    F("gitlab", "pipeline trigger token", "glptt-{hex:40}", "GITLAB_TRIGGER_TOKEN"),
    F("bitbucket", "app password", "ATBB{b62:32}", "BITBUCKET_APP_PASSWORD"),
    F("atlassian", "api token", "ATATT3xFfGF0{url:180}={HEX:8}", "JIRA_API_TOKEN"),
    F("npm", "access token", "npm_{b62:36}", "NPM_TOKEN"),
    F("pypi", "upload token", "pypi-AgEIcHlwaS5vcmc{url:70}", "TWINE_PASSWORD"),
    F("rubygems", "api key", "rubygems_{hex:48}", "GEM_HOST_API_KEY"),
    F("nuget", "api key", "oy2{low:43}", "NUGET_API_KEY"),
    F("crates.io", "api token", "cio{b62:32}", "CARGO_REGISTRY_TOKEN"),
    F("docker hub", "personal access token", "dckr_pat_{url:27}", "DOCKERHUB_TOKEN"),
    F("jfrog", "api key", "AKCp{b62:69}", "ARTIFACTORY_API_KEY"),
    F("sonarqube", "user token", "squ_{hex:40}", "SONAR_TOKEN"),
    F("sourcegraph", "access token", "sgp_{hex:16}_{hex:40}", "SRC_ACCESS_TOKEN"),
    F("postman", "api key", "PMAK-{hex:24}-{hex:34}", "POSTMAN_API_KEY"),
    F("readme", "api key", "rdme_{low:70}", "README_API_KEY"),
    F("terraform cloud", "api token", "{b62:14}.atlasv1.{url:67}", "TFE_TOKEN"),
    F("pulumi", "access token", "pul-{hex:40}", "PULUMI_ACCESS_TOKEN"),
    F("hashicorp vault", "service token", "hvs.{url:90}", "VAULT_TOKEN"),
    F("doppler", "service token", "dp.st.prd.{b62:43}", "DOPPLER_TOKEN"),
    F("doppler", "personal token", "dp.pt.{b62:43}", "DOPPLER_PERSONAL_TOKEN"),
    F("1password", "service account token", "ops_eyJ{b64:300}", "OP_SERVICE_ACCOUNT_TOKEN"),
    F("age", "secret key", "AGE-SECRET-KEY-1{bech:58}", "SOPS_AGE_KEY"),
    F("tailscale", "auth key", "tskey-auth-{b62:12}CNTRL-{b62:33}", "TS_AUTHKEY"),
    F("sentry", "user auth token", "sntryu_{hex:64}", "SENTRY_AUTH_TOKEN"),
    F("sentry", "dsn", "https://{hex:32}@o{dig:6}.ingest.sentry.io/{dig:7}", "SENTRY_DSN", "dsn"),
    F("grafana", "cloud token", "glc_eyJvIjoi{b64:120}", "GRAFANA_CLOUD_TOKEN"),
    F("grafana", "service account token", "glsa_{b62:32}_{hex:8}", "GRAFANA_TOKEN"),
    F("new relic", "user api key", "NRAK-{up:27}", "NEW_RELIC_API_KEY"),
    F("new relic", "license key", "{hex:36}NRAL", "NEW_RELIC_LICENSE_KEY", "key"),
    F("dynatrace", "api token", "dt0c01.{up:24}.{b62:64}", "DT_API_TOKEN"),
    F("linear", "api key", "lin_api_{b62:40}", "LINEAR_API_KEY"),
    F("notion", "integration token", "ntn_{dig:11}{b62:35}", "NOTION_TOKEN"),
    F("figma", "personal access token", "figd_{url:40}", "FIGMA_TOKEN"),
    F("airtable", "personal access token", "pat{b62:14}.{hex:64}", "AIRTABLE_TOKEN"),
    F("asana", "personal access token", "2/{dig:16}/{dig:16}:{hex:32}", "ASANA_TOKEN"),
    F("clickup", "api token", "pk_{dig:8}_{up:32}", "CLICKUP_API_KEY"),
    F("hubspot", "private app token", "pat-na1-{uuid}", "HUBSPOT_ACCESS_TOKEN"),
    F("typeform", "personal token", "tfp_{url:59}", "TYPEFORM_TOKEN"),
    F("dropbox", "access token", "sl.{url:140}", "DROPBOX_ACCESS_TOKEN"),
    F("slack", "bot token", "xoxb-{dig:12}-{dig:13}-{b62:24}", "SLACK_BOT_TOKEN"),
    F("slack", "user token", "xoxp-{dig:12}-{dig:12}-{dig:13}-{hex:32}", "SLACK_USER_TOKEN"),
    F("slack", "app token", "xapp-1-A{up:10}-{dig:13}-{hex:64}", "SLACK_APP_TOKEN"),
    F("slack", "webhook", "https://hooks.slack.com/services/T{up:8}/B{up:10}/{b62:24}", "SLACK_WEBHOOK_URL", "webhook"),
    F("discord", "bot token", "{discord}", "DISCORD_TOKEN"),
    F("discord", "webhook", "https://discord.com/api/webhooks/{dig:18}/{url:68}", "DISCORD_WEBHOOK_URL", "webhook"),
    F("telegram", "bot token", "{dig:10}:AA{url:33}", "TELEGRAM_BOT_TOKEN"),
    F("microsoft teams", "incoming webhook",
      "https://acme.webhook.office.com/webhookb2/{uuid}@{uuid}/IncomingWebhook/{hex:32}/{uuid}", "TEAMS_WEBHOOK_URL", "webhook"),
    F("twilio", "api key", "SK{hex:32}", "TWILIO_API_KEY"),
    F("sendgrid", "api key", "SG.{url:22}.{url:43}", "SENDGRID_API_KEY"),
    F("mailgun", "api key", "key-{hex:32}", "MAILGUN_API_KEY"),
    F("mailchimp", "api key", "{hex:32}-us{dig:2}", "MAILCHIMP_API_KEY", "key"),
    F("brevo", "api key", "xkeysib-{hex:64}-{b62:16}", "BREVO_API_KEY"),
    F("resend", "api key", "re_{b62:8}_{b62:24}", "RESEND_API_KEY"),
    F("stripe", "secret key", "sk_live_{b62:24}", "STRIPE_SECRET_KEY"),
    F("stripe", "restricted key", "rk_live_{b62:99}", "STRIPE_RESTRICTED_KEY"),
    F("stripe", "webhook secret", "whsec_{b62:32}", "STRIPE_WEBHOOK_SECRET", "secret"),
    F("square", "access token", "EAAA{url:60}", "SQUARE_ACCESS_TOKEN"),
    F("square", "oauth secret", "sq0csp-{url:43}", "SQUARE_APPLICATION_SECRET", "secret"),
    F("shopify", "admin api token", "shpat_{hex:32}", "SHOPIFY_ACCESS_TOKEN"),
    F("shopify", "shared secret", "shpss_{hex:32}", "SHOPIFY_API_SECRET", "secret"),
    F("braintree", "access token", "access_token$production${low:16}${hex:32}", "BRAINTREE_ACCESS_TOKEN"),
    F("flutterwave", "secret key", "FLWSECK-{hex:32}-X", "FLW_SECRET_KEY"),
    F("plaid", "access token", "access-sandbox-{uuid}", "PLAID_ACCESS_TOKEN"),
    F("easypost", "api key", "EZAK{b62:54}", "EASYPOST_API_KEY"),
    F("shippo", "api token", "shippo_live_{hex:40}", "SHIPPO_API_TOKEN"),
    F("duffel", "access token", "duffel_live_{url:43}", "DUFFEL_ACCESS_TOKEN"),
    F("klaviyo", "private key", "pk_{hex:34}", "KLAVIYO_PRIVATE_KEY"),
    F("twitter", "bearer token", "AAAAAAAAAAAAAAAAAAAAA{b62:80}", "TWITTER_BEARER_TOKEN"),
    F("facebook", "page access token", "EAAG{b62:180}", "FB_PAGE_ACCESS_TOKEN"),
    F("mapbox", "secret token", "sk.eyJ1Ijoi{url:50}.{url:22}", "MAPBOX_SECRET_TOKEN"),
    F("google", "api key", "AIza{url:35}", "GOOGLE_API_KEY"),
    F("google", "oauth client secret", "GOCSPX-{url:28}", "GOOGLE_CLIENT_SECRET", "secret"),
    F("google", "oauth access token", "ya29.{url:150}", "GOOGLE_ACCESS_TOKEN"),
    F("google", "oauth refresh token", "1//0{url:100}", "GOOGLE_REFRESH_TOKEN"),
    F("azure", "ad client secret", "{azure:3}8Q~{azure:34}", "AZURE_CLIENT_SECRET", "secret"),
    C("azure", "storage account key", "{b64:86}==", "AZURE_STORAGE_KEY"),
    C("azure", "devops pat", "{b32:52}", "AZURE_DEVOPS_PAT", "token"),
    C("azure", "openai key", "{hex:32}", "AZURE_OPENAI_API_KEY"),
    F("alibaba", "access key id", "LTAI{b62:20}", "ALIBABA_CLOUD_ACCESS_KEY_ID", "key"),
    C("alibaba", "access key secret", "{b62:30}", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "secret"),
    F("tencent", "secret id", "AKID{b62:32}", "TENCENTCLOUD_SECRET_ID", "key"),
    F("digitalocean", "personal access token", "dop_v1_{hex:64}", "DIGITALOCEAN_TOKEN"),
    F("heroku", "api key v2", "HRKU-AA{url:58}", "HEROKU_API_KEY"),
    C("heroku", "api key (uuid)", "{uuid}", "HEROKU_API_KEY"),
    F("fly.io", "access token", "fo1_{url:43}", "FLY_API_TOKEN"),
    C("vercel", "access token", "{b62:24}", "VERCEL_TOKEN", "token"),
    F("netlify", "personal access token", "nfp_{b62:36}", "NETLIFY_AUTH_TOKEN"),
    F("render", "api key", "rnd_{b62:32}", "RENDER_API_KEY"),
    C("cloudflare", "api token", "{url:40}", "CLOUDFLARE_API_TOKEN", "token"),
    C("cloudflare", "global api key", "{hex:37}", "CLOUDFLARE_API_KEY"),
    F("cloudflare", "origin ca key", "v1.0-{hex:24}-{hex:146}", "CF_ORIGIN_CA_KEY"),
    F("supabase", "access token", "sbp_{hex:40}", "SUPABASE_ACCESS_TOKEN"),
    F("supabase", "service role key", "{jwt}", "SUPABASE_SERVICE_ROLE_KEY", "jwt"),
    F("planetscale", "service token", "pscale_tkn_{url:43}", "PLANETSCALE_SERVICE_TOKEN"),
    F("neon", "api key", "napi_{low:64}", "NEON_API_KEY"),
    F("databricks", "personal access token", "dapi{hex:32}", "DATABRICKS_TOKEN"),
    F("openai", "project key", "sk-proj-{url:74}T3BlbkFJ{url:74}", "OPENAI_API_KEY"),
    F("openai", "service account key", "sk-svcacct-{url:74}T3BlbkFJ{url:74}", "OPENAI_API_KEY"),
    F("openai", "legacy key", "sk-{b62:20}T3BlbkFJ{b62:20}", "OPENAI_API_KEY"),
    F("anthropic", "api key", "sk-ant-api03-{url:93}AA", "ANTHROPIC_API_KEY"),
    F("anthropic", "admin key", "sk-ant-admin01-{url:93}AA", "ANTHROPIC_ADMIN_KEY"),
    F("openrouter", "api key", "sk-or-v1-{hex:64}", "OPENROUTER_API_KEY"),
    F("hugging face", "access token", "hf_{alpha:34}", "HF_TOKEN"),
    F("groq", "api key", "gsk_{b62:52}", "GROQ_API_KEY"),
    F("xai", "api key", "xai-{b62:80}", "XAI_API_KEY"),
    F("perplexity", "api key", "pplx-{b62:48}", "PERPLEXITY_API_KEY"),
    F("replicate", "api token", "r8_{b62:37}", "REPLICATE_API_TOKEN"),
    F("nvidia", "api key", "nvapi-{url:64}", "NVIDIA_API_KEY"),
    F("langsmith", "api key", "lsv2_pt_{hex:32}_{hex:10}", "LANGSMITH_API_KEY"),
    F("pinecone", "api key", "pcsk_{b62:5}_{b62:63}", "PINECONE_API_KEY"),
    F("tavily", "api key", "tvly-dev-{b62:32}", "TAVILY_API_KEY"),
    F("firecrawl", "api key", "fc-{hex:32}", "FIRECRAWL_API_KEY"),
    F("deepseek", "api key", "sk-{hex:32}", "DEEPSEEK_API_KEY"),
    C("mistral", "api key", "{b62:32}", "MISTRAL_API_KEY"),
    C("cohere", "api key", "{b62:40}", "COHERE_API_KEY"),
    F("elevenlabs", "api key", "sk_{hex:48}", "ELEVENLABS_API_KEY"),
    F("generic", "jwt", "{jwt}", "ACCESS_TOKEN", "jwt"),
    F("rsa", "private key", "{pem:rsa}", "PRIVATE_KEY", "pem"),
    F("openssh", "private key", "{pem:openssh}", "SSH_PRIVATE_KEY", "pem"),
    F("ec", "private key", "{pem:ec}", "EC_PRIVATE_KEY", "pem"),
    F("pgp", "private key block", "{pem:pgp}", "GPG_PRIVATE_KEY", "pem"),
    F("pkcs8", "private key", "{pem:pkcs8}", "SIGNING_KEY", "pem"),
    C("postgres", "password", "{pw}", "POSTGRES_PASSWORD", "password"),
    C("mysql", "password", "{pw}", "MYSQL_ROOT_PASSWORD", "password"),
    C("mongodb", "password", "{pw}", "MONGO_PASSWORD", "password"),
    C("redis", "password", "{pw}", "REDIS_PASSWORD", "password"),
    C("rabbitmq", "password", "{pw}", "RABBITMQ_DEFAULT_PASS", "password"),
    C("smtp", "password", "{pw}", "SMTP_PASSWORD", "password"),
    F("django", "secret key", "django-insecure-{django:50}", "DJANGO_SECRET_KEY", "secret"),
    C("django", "secret key (no prefix)", "{django:50}", "SECRET_KEY", "secret"),
    C("rails", "secret key base", "{hex:128}", "SECRET_KEY_BASE", "secret"),
    C("generic", "jwt signing secret", "{b64:64}", "JWT_SECRET", "secret"),
    C("express", "session secret", "{b62:48}", "SESSION_SECRET", "secret"),
    C("datadog", "api key", "{hex:32}", "DD_API_KEY"),
    C("datadog", "application key", "{hex:40}", "DD_APP_KEY"),
    C("okta", "api token", "00{url:40}", "OKTA_API_TOKEN", "token"),
    C("auth0", "client secret", "{url:64}", "AUTH0_CLIENT_SECRET", "secret"),
    F("firebase", "fcm server key", "AAAA{url:7}:APA91b{url:134}", "FCM_SERVER_KEY"),
    C("algolia", "admin api key", "{hex:32}", "ALGOLIA_ADMIN_KEY"),
    C("pusher", "app secret", "{hex:20}", "PUSHER_APP_SECRET", "secret"),
    C("twilio", "auth token", "{hex:32}", "TWILIO_AUTH_TOKEN", "token"),
    C("vonage", "api secret", "{b62:16}", "VONAGE_API_SECRET", "secret"),
    C("segment", "write key", "{b62:32}", "SEGMENT_WRITE_KEY"),
    C("mixpanel", "api secret", "{hex:32}", "MIXPANEL_API_SECRET", "secret"),
    C("sentry", "auth token (legacy)", "{hex:64}", "SENTRY_AUTH_TOKEN", "token"),
    C("circleci", "personal token", "{hex:40}", "CIRCLECI_TOKEN", "token"),
    C("codecov", "upload token", "{uuid}", "CODECOV_TOKEN", "token"),
    C("snyk", "api token", "{uuid}", "SNYK_TOKEN", "token"),
    C("consul", "acl token", "{uuid}", "CONSUL_HTTP_TOKEN", "token"),
    F("launchdarkly", "sdk key", "sdk-{uuid}", "LAUNCHDARKLY_SDK_KEY"),
    C("postmark", "server token", "{uuid}", "POSTMARK_SERVER_TOKEN", "token"),
    C("rollbar", "access token", "{hex:32}", "ROLLBAR_ACCESS_TOKEN", "token"),
    C("bugsnag", "api key", "{hex:32}", "BUGSNAG_API_KEY"),
    C("openweather", "api key", "{hex:32}", "OPENWEATHER_API_KEY"),
    C("etherscan", "api key", "{up:34}", "ETHERSCAN_API_KEY"),
    C("infura", "project secret", "{hex:32}", "INFURA_PROJECT_SECRET", "secret"),
    C("ethereum", "wallet private key", "0x{hex:64}", "DEPLOYER_PRIVATE_KEY", "secret"),
    C("wireguard", "private key", "{b64:43}=", "WG_PRIVATE_KEY", "secret"),
    C("ngrok", "authtoken", "2{b62:26}_{b62:21}", "NGROK_AUTHTOKEN", "token"),
    F("contentful", "management token", "CFPAT-{url:43}", "CONTENTFUL_MANAGEMENT_TOKEN"),
    F("frame.io", "developer token", "fio-u-{url:64}", "FRAMEIO_TOKEN"),
    F("prefect", "api key", "pnu_{b62:36}", "PREFECT_API_KEY"),
    C("mattermost", "access token", "{low:26}", "MATTERMOST_TOKEN", "token"),
    C("zendesk", "api token", "{b62:40}", "ZENDESK_API_TOKEN", "token"),
    F("intercom", "access token", "dG9rOj{b64:54}=", "INTERCOM_ACCESS_TOKEN"),
    F("posthog", "personal api key", "phx_{b62:43}", "POSTHOG_PERSONAL_API_KEY"),
    F("yandex", "api key", "AQVN{url:36}", "YC_API_KEY"),
    F("scaleway", "access key", "SCW{up:17}", "SCW_ACCESS_KEY", "key"),
    C("scaleway", "secret key", "{uuid}", "SCW_SECRET_KEY", "secret"),
    F("buildkite", "api token", "bkua_{low:40}", "BUILDKITE_API_TOKEN"),
    F("harness", "personal access token", "pat.{url:22}.{hex:24}.{b62:20}", "HARNESS_API_KEY"),
    F("cloudinary", "url", "cloudinary://814763926518273:{url:27}@acme-media", "CLOUDINARY_URL", "url"),
    C("gcp", "service account key id", "{hex:40}", "GCP_SA_PRIVATE_KEY", "secret"),
]

HELDOUT: list[Format] = [
    F("gitlab", "oauth application secret", "gloas-{hex:64}", "GITLAB_OAUTH_SECRET", "secret"),
    F("gitlab", "scim token", "glsoat-{url:20}", "GITLAB_SCIM_TOKEN"),
    F("github", "refresh token", "ghr_{b62:36}", "GITHUB_REFRESH_TOKEN"),
    F("atlassian", "bitbucket data center token", "BBDC-{b64:44}", "BITBUCKET_TOKEN"),
    F("dynatrace", "platform token", "dt0s16.{up:24}.{b62:64}", "DT_PLATFORM_TOKEN"),
    F("grafana", "legacy api key", "eyJrIjoi{b62:72}", "GRAFANA_API_KEY"),
    F("slack", "config refresh token", "xoxe-1-{b62:146}", "SLACK_CONFIG_REFRESH_TOKEN"),
    F("stripe", "test secret key", "sk_test_{b62:99}", "STRIPE_TEST_SECRET_KEY"),
    F("paddle", "api key", "pdl_live_apikey_{low:26}_{b62:22}_{b62:3}", "PADDLE_API_KEY"),
    F("woocommerce", "consumer secret", "cs_{hex:40}", "WC_CONSUMER_SECRET", "secret"),
    F("mailersend", "api token", "mlsn.{hex:64}", "MAILERSEND_API_TOKEN"),
    F("pubnub", "secret key", "sec-c-{b62:48}", "PUBNUB_SECRET_KEY", "secret"),
    F("digitalocean", "oauth token", "doo_v1_{hex:64}", "DIGITALOCEAN_OAUTH_TOKEN"),
    F("vercel", "personal token", "vcp_{b62:56}", "VERCEL_TOKEN"),
    F("infracost", "api key", "ico-{b62:32}", "INFRACOST_API_KEY"),
    F("octopus deploy", "api key", "API-{up:26}", "OCTOPUS_API_KEY"),
    F("dependency-track", "api key", "odt_{b62:32}", "DT_API_KEY"),
    F("e2b", "api key", "e2b_{hex:40}", "E2B_API_KEY"),
    F("jina", "api key", "jina_{hex:32}{url:40}", "JINA_API_KEY"),
    F("langfuse", "secret key", "sk-lf-{uuid}", "LANGFUSE_SECRET_KEY", "secret"),
    F("fireworks", "api key", "fw_{b62:24}", "FIREWORKS_API_KEY"),
    F("cerebras", "api key", "csk-{low:48}", "CEREBRAS_API_KEY"),
    F("rootly", "api key", "rootly_{hex:64}", "ROOTLY_API_KEY"),
    F("maxmind", "license key", "{b62:6}_{b62:29}_mmk", "MAXMIND_LICENSE_KEY"),
    F("salad", "api key", "salad_cloud_user_{b62:40}", "SALAD_API_KEY"),
    F("instagram", "access token", "IGQVJ{url:160}", "INSTAGRAM_ACCESS_TOKEN"),
    F("azure", "devops pat (new)", "{b62:52}JQQJ99{b62:22}AZDO{b62:4}", "AZURE_DEVOPS_EXT_PAT"),
    F("rsa", "encrypted private key", "{pem:enc}", "TLS_KEY", "pem"),
    C("jira", "api token (legacy)", "{b62:24}", "JIRA_TOKEN", "token"),
    C("twitch", "client secret", "{low:30}", "TWITCH_CLIENT_SECRET", "secret"),
    C("spotify", "client secret", "{hex:32}", "SPOTIFY_CLIENT_SECRET", "secret"),
    C("hetzner", "cloud token", "{b62:64}", "HCLOUD_TOKEN", "token"),
    C("linode", "personal access token", "{hex:64}", "LINODE_TOKEN", "token"),
    C("vultr", "api key", "{up:36}", "VULTR_API_KEY"),
    C("ibm cloud", "api key", "{url:44}", "IBMCLOUD_API_KEY"),
    C("backblaze", "application key", "K00{b62:28}", "B2_APPLICATION_KEY"),
    C("minio", "secret key", "{b62:40}", "MINIO_SECRET_KEY", "secret"),
    C("weights & biases", "api key", "{hex:40}", "WANDB_API_KEY"),
    C("assemblyai", "api key", "{hex:32}", "ASSEMBLYAI_API_KEY"),
    C("deepgram", "api key", "{hex:40}", "DEEPGRAM_API_KEY"),
    C("coinbase", "api secret", "{b64:88}", "COINBASE_API_SECRET", "secret"),
    C("binance", "secret key", "{b62:64}", "BINANCE_SECRET_KEY", "secret"),
    C("sumo logic", "access key", "{b62:64}", "SUMO_ACCESS_KEY"),
    C("opsgenie", "api key", "{uuid}", "OPSGENIE_API_KEY"),
    C("pagerduty", "api token", "u+{url:18}", "PAGERDUTY_TOKEN", "token"),
    C("elastic", "password", "{pw}", "ELASTIC_PASSWORD", "password"),
    C("keycloak", "client secret", "{b62:32}", "KEYCLOAK_CLIENT_SECRET", "secret"),
    C("mssql", "sa password", "{pw}", "MSSQL_SA_PASSWORD", "password"),
    C("gpg", "passphrase", "{pw}", "GPG_PASSPHRASE", "password"),
    C("android", "keystore password", "{pw}", "KEYSTORE_PASSWORD", "password"),
]
