"""Tokens with a distinctive prefix: cloud providers, hosting, databases and AI model APIs.

Formats learned from gitleaks' rules (MIT), trufflehog's detectors (formats only), Nosey Parker's
rules (Apache-2.0) and the providers' documentation; the regexes are written here. An AWS secret
access key has no prefix, but it is found in the same pass next to its access key id (``AKIA…``),
however the two are laid out (``aws configure`` output, a CSV of credentials, a sentence).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kenning.redaction import values as v
from kenning.redaction.engine import Rule, Span, starts_word, token_rule

E = r"(?![A-Za-z0-9_])"
ED = r"(?![A-Za-z0-9_-])"
B62 = "[A-Za-z0-9]"
HEXL = "0123456789abcdef"
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def t(label: str, pattern: str, *needles: str, **kw: object) -> Rule:
    return token_rule(label, pattern, needles, **kw)  # type: ignore[arg-type]


_AWS_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA", "A3T")
_AWS_ID = re.compile(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")


def _aws(text: str, s: int, _e: int) -> Iterable[Span]:
    """An AWS access key id, and the secret access key written within a few lines after it."""
    if not starts_word(text, s):
        return ()
    m = _AWS_ID.match(text, s)
    if m is None or v.low_diversity(m.group()[4:]):
        return ()
    out: list[Span] = [(m.start(), m.end(), "aws-access-key")]
    secret = _AWS_SECRET.search(text, m.end(), min(len(text), m.end() + 240))
    if secret is not None and v.random_like(secret.group()) and not v.low_diversity(secret.group()):
        out.append((secret.start(), secret.end(), "aws-secret-key"))
    return out


def _telegram_start(text: str, s: int) -> int:
    a = s
    while a > 0 and s - a < 16 and text[a - 1].isdigit():
        a -= 1
    return a


_TELEGRAM = re.compile(r"\d{5,16}:A[A-Za-z0-9_-]{32,36}" + ED)


def _telegram(text: str, s: int, _e: int) -> Iterable[Span]:
    """``123456789:AA…`` alone or in its URL form ``api.telegram.org/bot123456789:AA…/sendMessage``."""
    a = _telegram_start(text, s)
    if a == s or not (starts_word(text, a) or text[max(0, a - 3):a] == "bot"):
        return ()
    m = _TELEGRAM.match(text, a)
    return ((m.start(), m.end(), "telegram-bot-token"),) if m else ()


RULES: list[Rule] = [
    Rule("aws-access-key", _AWS_PREFIXES, _aws, prefixed=True),
    t("aws-session-token", r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9/+=]{40,2000}", "IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE"),
    t("aws-bedrock-key", r"ABSK[A-Za-z0-9+/]{100,300}={0,2}" + E, "ABSK"),
    t("aws-bedrock-key", r"bedrock-api-key-[A-Za-z0-9+/=%-]{40,2000}", "bedrock-api-key-"),
    t("aws-mws-token", r"amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + E, "amzn.mws."),
    # Google: API keys, OAuth client secrets, access and refresh tokens.
    t("google-api-key", r"AIza[0-9A-Za-z_-]{35}" + ED, "AIza"),
    t("google-oauth-secret", r"GOCSPX-[A-Za-z0-9_-]{28}" + ED, "GOCSPX-"),
    t("google-oauth-token", r"ya29\.[0-9A-Za-z_-]{20,2000}" + ED, "ya29."),
    t("google-refresh-token", r"1//0[0-9A-Za-z_-]{40,400}" + ED, "1//0"),
    # Azure: AD client secrets (xxx8Q~…), DevOps PATs, SAS tokens are found by name (sig=).
    t("azure-ad-secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])", "Q~", back=ALNUM + "_~.", maxback=4,
      glued=True),
    t("azure-devops-pat", r"[A-Za-z0-9]{52}JQQJ9[9A-D][A-Za-z0-9]{22}AZDO[A-Za-z0-9]{4}" + E, "AZDO", back=ALNUM, maxback=80),
    t("azure-devops-pat", r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}" + E, "AZDO", back=ALNUM, maxback=76),
    t("azure-apim-key", r"Ocp-Apim-Subscription-Key:\s*([0-9a-f]{32})", "Ocp-Apim-Subscription-Key", group=1),
    # Other clouds.
    t("alibaba-key-id", rf"LTAI{B62}{{12,20}}{E}", "LTAI"),
    t("tencent-key-id", rf"AKID{B62}{{13,40}}{E}", "AKID"),
    t("scaleway-key-id", r"SCW[A-Z0-9]{17}" + E, "SCW"),
    t("yandex-key", r"AQVN[A-Za-z0-9_-]{35,38}" + ED, "AQVN"),
    t("yandex-key", r"YC[A-Za-z0-9_-]{38}" + ED, "YC", check=lambda x: v.random_like(x[2:])),
    t("yandex-token", r"t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}" + ED, "t1."),
    t("ibm-key", r"IBM_?(?:CLOUD_)?API_?KEY[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9_-]{44})", "IBM", group=1),
    t("digitalocean-token", r"do[opr]_v1_[0-9a-f]{64}" + E, "dop_v1_", "doo_v1_", "dor_v1_"),
    t("heroku-key", r"HRKU-[A-Za-z0-9_-]{40,80}" + ED, "HRKU-"),
    t("flyio-token", r"(?:FlyV1 )?(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/=_,-]{60,4000})", "fo1_", "fm1", "fm2_", "FlyV1 "),
    t("vercel-token", rf"vc[pikar]_{B62}{{24,80}}{E}", "vcp_", "vci_", "vck_", "vca_", "vcr_"),
    t("netlify-token", rf"nf[pcuo]_{B62}{{36,48}}{E}", "nfp_", "nfc_", "nfu_", "nfo_"),
    t("render-key", rf"rnd_{B62}{{28,40}}{E}", "rnd_"),
    t("cloudflare-origin-ca", r"v1\.0-[0-9a-f]{24}-[0-9a-f]{146}" + E, "v1.0-"),
    t("supabase-token", r"sbp_(?:oauth_)?[0-9a-f]{40}" + E, "sbp_"),
    t("supabase-key", r"sb_secret_[A-Za-z0-9_-]{20,80}" + ED, "sb_secret_"),
    t("planetscale-token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}" + ED, "pscale_"),
    t("neon-key", r"napi_[a-z0-9]{60,70}" + E, "napi_"),
    t("databricks-token", r"dapi[0-9a-f]{32}(?:-\d)?" + E, "dapi"),
    t("clickhouse-key", rf"4b1d{B62}{{38}}{E}", "4b1d"),
    t("mongodb-atlas-key", r"mdb_sa_sk_[A-Za-z0-9_-]{40,}", "mdb_sa_sk_"),
    t("upstash-token", rf"AX[A-Za-z0-9]{{2}}ASQgN[A-Za-z0-9_=-]{{40,}}{ED}", "AX"),
    t("salad-key", rf"salad_cloud_{B62}{{1,7}}_{B62}{{7,235}}{E}", "salad_cloud_"),
    t("defined-networking-key", r"dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}" + ED, "dnkey-"),
    # AI model APIs.
    t("anthropic-key", r"sk-ant-(?:api|admin|oat|ort|sid)\d{2}-[A-Za-z0-9_-]{40,200}" + ED, "sk-ant-"),
    t("openai-key", r"sk-(?:proj|svcacct|admin|None|service)-[A-Za-z0-9_-]{20,300}" + ED, "sk-proj-", "sk-svcacct-", "sk-admin-",
      "sk-None-", "sk-service-"),
    t("openai-key", rf"sk-{B62}{{20}}T3BlbkFJ{B62}{{20}}{E}", "sk-"),
    t("openrouter-key", r"sk-or-v1-[0-9a-f]{64}" + E, "sk-or-"),
    t("langfuse-key", r"sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + E, "sk-lf-"),
    # Classic OpenAI, DeepSeek, Stability, Moonshot and the many "sk-" + random keys.
    t("sk-key", rf"sk-{B62}{{32,164}}{E}", "sk-", check=lambda x: v.random_like(x[3:])),
    t("huggingface-token", r"(?:hf|api_org)_[A-Za-z]{30,40}" + E, "hf_", "api_org_"),
    t("groq-key", rf"gsk_{B62}{{48,60}}{E}", "gsk_"),
    t("xai-key", r"xai-[A-Za-z0-9_]{60,100}" + E, "xai-"),
    t("perplexity-key", rf"pplx-{B62}{{40,60}}{E}", "pplx-"),
    t("replicate-token", r"r8_[A-Za-z0-9_-]{30,40}" + ED, "r8_"),
    t("nvidia-key", r"nvapi-[A-Za-z0-9_-]{60,70}" + ED, "nvapi-"),
    t("langsmith-key", r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}" + E, "lsv2_"),
    t("langsmith-key", r"ls__[0-9a-f]{32}" + E, "ls__"),
    t("pinecone-key", rf"pcsk_{B62}{{4,8}}_{B62}{{50,70}}{E}", "pcsk_"),
    t("tavily-key", rf"tvly-(?:dev-|prod-)?{B62}{{32,40}}{E}", "tvly-"),
    t("firecrawl-key", r"fc-[0-9a-f]{32}" + E, "fc-"),
    t("jina-key", r"jina_[0-9a-f]{32}[A-Za-z0-9_-]{20,50}" + ED, "jina_"),
    t("e2b-key", r"e2b_[0-9a-f]{40}" + E, "e2b_"),
    t("fireworks-key", rf"fw_{B62}{{24,48}}{E}", "fw_"),
    t("voyage-key", r"pa-[A-Za-z0-9_-]{40,50}" + ED, "pa-", check=lambda x: v.random_like(x[3:])),
    t("cerebras-key", r"csk-[a-z0-9]{40,56}" + E, "csk-"),
    t("browserbase-key", r"bb_(?:live|test)_[A-Za-z0-9_-]{24,40}" + ED, "bb_live_", "bb_test_"),
    t("modal-token", rf"a[ks]-{B62}{{22}}{E}", "ak-", "as-", check=lambda x: v.random_like(x[3:])),
    t("runpod-key", r"rpa_[A-Z0-9]{40,50}" + E, "rpa_"),
    t("together-key", r"tgp_v1_[A-Za-z0-9_-]{40,50}" + ED, "tgp_v1_"),
    t("anyscale-key", r"esecret_[a-z0-9]{26,40}" + E, "esecret_"),
    t("mem0-key", rf"m0-{B62}{{40}}{E}", "m0-"),
    t("deepinfra-key", rf"di_{B62}{{32,48}}{E}", "di_", check=lambda x: v.random_like(x[3:])),
    t("elevenlabs-key", r"sk_[0-9a-f]{48}" + E, "sk_"),
    # Telegram bot tokens, also glued after "bot" in api.telegram.org/bot<token>/.
    Rule("telegram-bot-token", (":A",), _telegram, prefixed=True),
]
