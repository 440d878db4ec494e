"""Tokens with a distinctive prefix: messaging and chat, e-mail, payments, e-commerce, social
networks and webhooks that carry their secret in the URL; and JSON Web Tokens.

Formats learned from gitleaks' rules (MIT), trufflehog's detectors (formats only), Nosey Parker's
rules (Apache-2.0) and the providers' documentation; the regexes are written here. Publishable
keys meant for browsers (Stripe ``pk_``, Mapbox ``pk.``, PostHog ``phc_``) are public and left
alone.
"""

from __future__ import annotations

from kenning.redaction import values as v
from kenning.redaction.engine import Rule, token_rule

E = r"(?![A-Za-z0-9_])"
ED = r"(?![A-Za-z0-9_-])"
B62 = "[A-Za-z0-9]"
HEX = "0123456789abcdefABCDEF"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def t(label: str, pattern: str, *needles: str, **kw: object) -> Rule:
    return token_rule(label, pattern, needles, **kw)  # type: ignore[arg-type]


def _random_tail(n: int) -> object:
    return lambda x: v.random_like(x[n:])


RULES: list[Rule] = [
    # Slack: bot/user/app/config tokens, and webhook URLs (the path is the secret).
    t("slack-token", r"xox[abposre]-[0-9A-Za-z-]{10,250}" + ED, "xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"),
    t("slack-token", r"xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,200}" + E, "xoxe."),
    t("slack-token", r"xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]+" + E, "xapp-"),
    t("slack-webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,120})", "hooks.slack.com", group=1,
      glued=True),
    # Discord bot tokens (base64 of the bot's id, a timestamp, an HMAC) and webhook URLs.
    t("discord-bot-token", r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}" + ED,
      "MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"),
    t("discord-webhook", r"/api/webhooks/(\d{5,25}/[A-Za-z0-9_-]{60,80})" + ED, "/api/webhooks/", group=1, glued=True),
    # Microsoft Teams, Google Chat, Zapier, IFTTT, Feishu/Lark, WeCom, Mattermost webhooks.
    t("teams-webhook", r"webhook\.office\.com/webhookb2/(" + UUID + "@" + UUID + r"/IncomingWebhook/[0-9a-f]{32}/" + UUID + ")",
      "webhook.office.com", group=1, glued=True),
    t("teams-webhook", r"/workflows/[0-9a-f]{32}/triggers/manual/paths/invoke\?[^\s\"']*sig=([A-Za-z0-9_%-]{20,})",
      "/workflows/", group=1, glued=True),
    t("teams-webhook", r"outlook\.office(?:365)?\.com/webhook/(" + UUID + "@" + UUID + r"/IncomingWebhook/[0-9a-f]{32}/" + UUID + ")",
      "outlook.office.com/webhook/", "outlook.office365.com/webhook/", group=1, glued=True),
    t("thingsboard-token", r"thingsboard[\w.:-]*/api/v1/([A-Za-z0-9]{20})/(?:telemetry|attributes|rpc|claim|provision)",
      "thingsboard",
      group=1, glued=True, check=_random_tail(0)),
    t("zapier-webhook", r"hooks\.zapier\.com/hooks/catch/\d+/([A-Za-z0-9]{5,12})", "hooks.zapier.com", group=1, glued=True),
    t("ifttt-webhook", r"maker\.ifttt\.com/trigger/[^/\s]+/(?:json/)?with/key/([A-Za-z0-9_-]{20,})", "maker.ifttt.com", group=1,
      glued=True),
    t("lark-webhook", r"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/([0-9a-f-]{36})", "open.feishu.cn",
      "open.larksuite.com", group=1, glued=True),
    t("wecom-webhook", r"qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=([0-9a-f-]{36})", "qyapi.weixin.qq.com", group=1,
      glued=True),
    t("mattermost-webhook", r"/hooks/([a-z0-9]{26})" + E, "/hooks/", group=1, glued=True, check=_random_tail(0)),
    # Messaging platforms.
    t("twilio-key", r"SK[0-9a-fA-F]{32}" + E, "SK"),
    t("sendgrid-key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + ED, "SG."),
    t("mailgun-key", r"key-[0-9a-zA-Z]{32}" + E, "key-", check=_random_tail(4)),
    t("mailchimp-key", r"[0-9a-f]{32}-us\d{1,2}" + E, "-us", back="0123456789abcdef", maxback=32),
    t("brevo-key", r"x(?:key|smtp)sib-[0-9a-f]{64}-[A-Za-z0-9]{16}" + E, "xkeysib-", "xsmtpsib-"),
    t("resend-key", rf"re_{B62}{{8,12}}_{B62}{{20,32}}{E}", "re_"),
    t("mailersend-key", r"mlsn\.[0-9a-f]{64}" + E, "mlsn."),
    t("pubnub-key", rf"(?:sec|pub|sub)-c-(?:{UUID}|[A-Za-z0-9_-]{{40,}})" + ED, "sec-c-", "pub-c-", "sub-c-"),
    t("sendbird-token", r"SENDBIRD_(?:API_)?TOKEN=([0-9a-f]{40})", "SENDBIRD_", group=1),
    # Payments and commerce.
    t("stripe-key", rf"(?:sk|rk)_(?:live|test|prod)_{B62}{{10,247}}{E}", "sk_live_", "sk_test_", "sk_prod_", "rk_live_",
      "rk_test_", "rk_prod_"),
    t("stripe-webhook-secret", rf"whsec_{B62}{{24,64}}{E}", "whsec_"),
    t("stripe-client-secret", rf"(?:pi|seti)_{B62}{{24}}_secret_{B62}{{20,30}}{E}", "_secret_", back=B62[1:-1] + "_ipset",
      maxback=32, glued=True),
    # Other "sk_…" secret keys: ElevenLabs, Checkout.com, Clerk, RevenueCat, WorkOS, Clearbit.
    t("sk-key", r"sk_(?:sbox_|live_|test_)?[A-Za-z0-9_]{24,100}" + E, "sk_", check=_random_tail(3)),
    t("square-token", r"(?:EAAA[A-Za-z0-9_-]{56,100}|sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,43})" + ED, "EAAA", "sq0atp-", "sq0csp-"),
    t("square-token", r"sqco_[A-Za-z0-9]{59}" + E, "sqco_"),
    t("braintree-token", r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}", "access_token$"),
    t("razorpay-key", rf"rzp_(?:live|test)_{B62}{{14,32}}{E}", "rzp_"),
    t("flutterwave-key", r"FLWSECK(?:_TEST)?-[0-9a-fA-F]{32}-X" + E, "FLWSECK"),
    t("flutterwave-key", r"FLWSECK_TEST[0-9a-fA-F]{12}" + E, "FLWSECK_TEST"),
    t("plaid-token", r"access-(?:sandbox|development|production)-" + UUID + E, "access-sandbox-", "access-development-",
      "access-production-"),
    t("easypost-key", rf"EZ[AT]K{B62}{{54}}{E}", "EZAK", "EZTK"),
    t("shippo-token", r"shippo_(?:live|test)_[0-9a-fA-F]{40}" + E, "shippo_"),
    t("duffel-token", r"duffel_(?:live|test)_[A-Za-z0-9_=-]{43}" + ED, "duffel_"),
    # live_/test_ + random: Lob, GoCardless, Mollie, Checkout and others.
    t("live-test-key", r"(?:live|test)_(?:pub_)?[A-Za-z0-9_=-]{30,64}" + ED, "live_", "test_", check=_random_tail(5)),
    t("adyen-key", r"AQE[A-Za-z0-9]{3}[A-Za-z0-9+/=._-]{100,300}" + ED, "AQE", check=_random_tail(3)),
    t("klaviyo-key", r"pk_[0-9a-f]{34}" + E, "pk_"),
    t("paddle-key", r"pdl_(?:live|sdbx)_apikey_[a-z0-9]{26}_[A-Za-z0-9]{22}_[A-Za-z0-9]{3}" + E, "pdl_"),
    t("shopify-token", r"shp(?:at|ca|pa|ss|tka)_[a-fA-F0-9]{32}" + E, "shpat_", "shpca_", "shppa_", "shpss_", "shptka_"),
    t("woocommerce-key", r"c[ks]_[0-9a-f]{40}" + E, "ck_", "cs_"),
    t("coinbase-key", r"organizations/[0-9a-f-]{36}/apiKeys/[0-9a-f-]{36}", "organizations/"),
    t("posthog-key", r"phx_[A-Za-z0-9_]{35,60}" + E, "phx_"),
    t("stytch-secret", r"secret-(?:live|test)-[A-Za-z0-9_=-]{36}" + ED, "secret-live-", "secret-test-"),
    t("ramp-key", rf"ramp_(?:id|sec)_{B62}{{40,48}}{E}", "ramp_"),
    t("maxmind-key", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk" + E, "_mmk", back=B62[1:-1] + "_", maxback=36, glued=True),
    # Social networks.
    t("twitter-bearer", r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,120}" + E, "AAAAAAAAAAAAAAAAAAAAA"),
    t("facebook-token", rf"EAA[A-Za-z0-9]{{80,400}}{E}", "EAA"),
    t("instagram-token", r"IG(?:QV|AA)[A-Za-z0-9_-]{100,400}" + ED, "IGQV", "IGAA"),
    t("mapbox-token", r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}" + ED, "sk.eyJ"),
    t("firebase-fcm-key", r"AAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{140}" + ED, "AAAA"),
    t("gitalk-secret", r"clientSecret:\s*['\"]([0-9a-f]{40})['\"]", "clientSecret", group=1),
    # Password hashes (bcrypt, crypt(3) SHA-256/512, Cisco): crackable, so kept out like a password.
    t("password-hash", r"\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}" + E, "$2a$", "$2b$", "$2y$", "$2x$", "$2$", glued=True),
    t("password-hash", r"\$[1568]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}" + E, "$1$", "$5$", "$6$", "$8$",
      glued=True),
    t("sonarqube-token", r"sonar\.(?:login|token)['\"]?\s*[=:,]\s*['\"]?([0-9a-f]{40})" + E, "sonar.login", "sonar.token",
      group=1, glued=True),
    # Any JSON Web Token (header.payload.signature, base64url JSON): a bearer credential.
    t("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.(?:[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]{8,}){0,2})?" + ED, "eyJ"),
    t("django-secret-key", r"django-insecure-[A-Za-z0-9!@#$%^&*(\-_=+)]{30,60}", "django-insecure-"),
]
