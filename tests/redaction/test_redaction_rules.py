"""Each rule family in the contexts its secrets turn up in, and each kind of miss and false
positive issue 11 reported (fixed as a mechanism, tested here by kind)."""

from __future__ import annotations

import base64
import json

import pytest
from redaction_helpers import B62, B64, HEX, UP, URL, Tokens, assert_kept, assert_masked

from kenning.redact import MASK, find_secrets, redact, redact_count

# --- tokens with a prefix -------------------------------------------------------------------


@pytest.mark.parametrize(("prefix", "alphabet", "n"), [
    ("ghp_", B62, 36), ("github_pat_11", B62 + "_", 80), ("glpat-", URL, 20), ("npm_", B62, 36), ("dckr_pat_", URL, 27),
    ("xoxb-7305918264-", B62, 40), ("sk_live_", B62, 24), ("SG.KrQ3pLx9mZtW2vN8yH4bFc.", URL, 43), ("AIza", URL, 35), ("hf_", B62[:52], 34),
    ("sk-ant-api03-", URL, 95), ("sk-proj-", URL, 120), ("gsk_", B62, 52), ("dop_v1_", HEX, 64), ("hvs.", URL, 90),
    ("lin_api_", B62, 40), ("shpat_", HEX, 32), ("pul-", HEX, 40), ("sntryu_", HEX, 64), ("NRAK-", UP, 27),
])
def test_prefixed_tokens_in_env_json_and_prose(tok: Tokens, prefix: str, alphabet: str, n: int) -> None:
    secret = prefix + tok(alphabet, n)
    for text in (f"export TOKEN={secret}", f'{{"token": "{secret}"}}', f"I pasted {secret} by mistake",
                 f"curl -H 'Authorization: Bearer {secret}' https://api.example.com"):
        assert_masked(text, secret)


def test_only_the_secret_is_replaced(tok: Tokens) -> None:
    key_id = "AKIA" + tok(UP, 16)
    password = "Sunset" + tok(B62, 10)
    text = f"DATABASE_URL=postgres://shop:{password}@db.internal:5432/shop and AWS_ACCESS_KEY_ID={key_id}"
    assert redact(text) == f"DATABASE_URL=postgres://shop:{MASK}@db.internal:5432/shop and AWS_ACCESS_KEY_ID={MASK}"
    assert [label for _s, _e, label in find_secrets(text)] == ["url-password", "aws-access-key"]
    assert redact_count(text)[1] == 2


def test_aws_secret_key_next_to_its_key_id_in_one_pass(tok: Tokens) -> None:
    key_id, secret = "AKIA" + tok(UP, 16), tok(B64, 40)
    for text in (f"{key_id} {secret}", f"User name,Access key ID,Secret access key\nci,{key_id},{secret}",
                 f"keys: {key_id} / {secret}"):
        assert_masked(text, key_id, secret)


def test_telegram_token_alone_and_in_its_url(tok: Tokens) -> None:
    token = "7" + tok("0123456789", 9) + ":AA" + tok(URL, 33)
    assert_masked(f"TELEGRAM_BOT_TOKEN={token}", token)
    assert_masked(f"curl https://api.telegram.org/bot{token}/sendMessage -d chat_id=42", token)


def test_urls_with_their_secret_inside(tok: Tokens) -> None:
    key = tok(HEX, 32)
    assert_masked(f"SENTRY_DSN=https://{key}@o{tok('0123456789', 6)}.ingest.sentry.io/42", key)
    sig = tok(B64, 43).replace("/", "%2F").replace("+", "%2B") + "%3D"
    sas = f"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sp=r&se=2027-01-01T00:00:00Z&sig={sig}"
    assert redact(sas).endswith(f"sig={MASK}")
    hook = f"https://hooks.slack.com/services/T{tok(UP, 8)}/B{tok(UP, 10)}/{tok(B62, 24)}"
    assert_masked(f"curl -X POST {hook} -d @payload.json", hook.rsplit("/", 1)[1])
    password = "p@ss/" + tok(B62, 12)  # '@' and '/' pasted unencoded
    assert_masked(f"mongodb+srv://admin:{password}@cluster0.ab1cd.mongodb.net/prod", password)


def test_private_keys_raw_escaped_indented_truncated_and_base64(tok: Tokens) -> None:
    body = [tok(B64, 64) for _ in range(8)]
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END OPENSSH PRIVATE KEY-----"
    assert_masked(pem, *body)
    assert_masked(json.dumps({"private_key": pem + "\n"}), *body)
    assert_masked("tls:\n  key: |\n" + "\n".join("    " + line for line in pem.splitlines()), *body)
    assert_masked(pem.split("-----END")[0][:300], *body[:3])  # cut off before its END line
    b64 = base64.b64encode(pem.encode()).decode()
    assert_masked(f"client-key-data: {b64}", b64)
    cert = base64.b64encode(b"-----BEGIN CERTIFICATE-----\n" + tok(B64, 200).encode()).decode()
    assert_kept(f"client-certificate-data: {cert}")


def test_kubernetes_secret_values_whatever_their_names(tok: Tokens) -> None:
    values = [base64.b64encode(tok(B62, 20).encode()).decode() for _ in range(2)]
    text = (f"apiVersion: v1\ndata:\n  DATABASE_URL: {values[0]}\n  worker-config: {values[1]}\nkind: Secret\n"
            "metadata:\n  name: shop\ntype: Opaque")
    assert_masked(text, *values)
    assert "DATABASE_URL: [secret]" in redact(text) and "name: shop" in redact(text)


def test_tokens_wrapped_over_lines(tok: Tokens) -> None:
    token = "ghp_" + tok(B62, 36)
    folded = "\n".join(token[i:i + 20] for i in range(0, len(token), 20))
    assert_masked(f"$ gh auth token | fold -w 20\n{folded}\n", token[4:])
    secret = tok(B64, 88)
    wrapped = "\n".join(("SECRET_KEY_BASE=" + secret)[i:i + 64] for i in range(0, len(secret) + 16, 64))
    assert_masked(f"$ env\n{wrapped}\nLANG=C.UTF-8", secret)
    escaped = json.dumps({"output": "token:\n" + "\n".join(token[i:i + 32] for i in range(0, 40, 32))})
    assert_masked(escaped, token[4:])


# --- names and values -------------------------------------------------------------------------


@pytest.mark.parametrize("template", [
    "API_KEY={s}", "export STRIPE_API_KEY='{s}'", '"apiKey": "{s}"', "api_key: {s}", "apiKey := \"{s}\"",
    "'api_key' => '{s}',", "<add key=\"ApiKey\" value=\"{s}\" />", "<apiKey>{s}</apiKey>", "--api-key={s}",
    "--api-key {s}", "X-API-Key: {s}", "https://api.example.com/v1?api_key={s}&page=2", "ApiKey={s};Region=eu",
    "client = Client(api_key=\"{s}\")", "env:\n  - name: SERVICE_API_KEY\n    value: \"{s}\"",
    "heroku config:set API_KEY={s}", "gh secret set API_KEY --body \"{s}\"", "[service]\napi_key = {s}",
    "os.environ[\"API_KEY\"] = \"{s}\"", "Set `API_KEY` to `{s}` and restart",
])
def test_a_value_next_to_a_secret_name_in_every_syntax(tok: Tokens, template: str) -> None:
    secret = tok(B62, 32)
    assert_masked(template.format(s=secret), secret)


def test_json_escaped_values_as_aws_secretsmanager_prints_them(tok: Tokens) -> None:
    password = "Xk3!" + tok(B62, 12)
    inner = json.dumps({"username": "shop", "password": password, "host": "db.internal"})
    printed = json.dumps({"Name": "prod/shop/db", "SecretString": inner}, indent=4)
    out = assert_masked(printed, password)
    assert '\\"username\\": \\"shop\\"' in out and "prod/shop/db" in out
    assert_masked(json.dumps({"content": printed}), password)  # one level deeper, in a transcript line


@pytest.mark.parametrize("template", [
    "sshpass -p '{s}' ssh deploy@10.0.4.12", "docker login -u deploy -p {s} registry.example.com",
    "az login -u ops@example.com -p '{s}'", "mysql -h db -u root -p{s} shop", "redis-cli -h cache -a {s} ping",
    "openssl pkcs12 -export -in c.pem -passout pass:{s} -out c.p12", "keytool -list -keystore k.jks -storepass {s}",
    "curl -u deploy:{s} https://api.example.com", "echo '{s}' | docker login -u deploy --password-stdin",
    "PGPASSWORD={s} psql -h db -U shop", "machine api.example.com login deploy password {s}",
])
def test_passwords_given_to_commands(tok: Tokens, template: str) -> None:
    secret = "Sunset" + tok(B62, 8) + "!"
    assert_masked(template.format(s=secret), secret)


@pytest.mark.parametrize("text", [
    "Authorization: SSWS {t}", "Authorization: key={t}", "X-Auth-Key: {h}", "Authorization: Basic {b}",
    "Cookie: theme=dark; sessionid={t}", '{{"auths": {{"registry.example.com": {{"auth": "{b}"}}}}}}',
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={b}",
    "Server=tcp:db,1433;Database=shop;User ID=shop;Password={t};Encrypt=True",
    "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={b};EndpointSuffix=core.windows.net",
])
def test_header_and_connection_string_schemes(tok: Tokens, text: str) -> None:
    t, h = tok(B62, 40), tok(HEX, 37)
    b = base64.b64encode(("deploy:" + tok(B62, 16)).encode()).decode()
    secret = t if "{t}" in text else h if "{h}" in text else b
    out = assert_masked(text.format(t=t, h=h, b=b), secret)
    assert "theme=dark" in out or "theme" not in text


def test_heroku_keys_shaped_like_uuids_count_by_their_name(tok: Tokens) -> None:
    key = tok.uuid()
    assert_masked(f"HEROKU_API_KEY={key}", key)
    assert_masked(f"here's the heroku api key for staging: {key}", key)
    assert_kept(f"request_id={key} status=200")
    assert_kept(f'"idempotency_key": "{key}"')


def test_django_keys_are_not_placeholders(tok: Tokens) -> None:
    for lead in ("$", "%", "*", "(", "<", "{", "["):
        key = lead + tok("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)", 49)
        assert_masked(f"SECRET_KEY = '{key}'", key)


def test_secrets_in_sentences(tok: Tokens) -> None:
    for text, secret in [
        ("the staging password is {s} btw", "Sunset42!" + tok(B62, 4)),
        ("here's my datadog api key: {s}", tok(HEX, 32)),
        ("New token:\n\n    {s}\n\nThanks", tok(B62, 40)),
        ("I've added `CLOUDFLARE_API_TOKEN` to your `.env` with the value `{s}`.", tok(URL, 40)),
        ("$ printenv SUMO_ACCESS_KEY\n{s}\n$ ", tok(B62, 64)),
    ]:
        assert_masked(text.format(s=secret), secret)


def test_a_token_cut_off_is_still_masked(tok: Tokens) -> None:
    """Text that was shortened before it was redacted (what earlier versions stored) ends in a
    piece of a token: too short for its format, still a secret."""
    for prefix, alphabet in (("ghp_", B62), ("sk-ant-api03-", URL), ("xoxb-", B62), ("sk_live_", B62), ("glpat-", URL)):
        piece = prefix + tok(alphabet, 9)
        assert redact(f"use token {piece}…") == f"use token {MASK}…"
        assert redact(f"curl -H 'x: {piece}...' done") == f"curl -H 'x: {MASK}...' done"
    for text in ("install sk-learn…", "the ghp_ prefix…", "see AKIA…", "npm_config_cache...", "xoxb-12345678…",
                 f"short ghp_{tok(B62, 4)}… piece", "keys look like sk_live_xxxxxxxx…"):
        assert_kept(text)


def test_secrets_handed_over_without_a_secret_word(tok: Tokens) -> None:
    """Context-only secrets in prose: no name says "password" or "token", the sentence says how
    the value was given (a provider's one-time display, a colleague handing it over)."""
    symbols = "!#%&*@^~-"
    for text, secret in [
        ("Artifactory just handed us one: {s} and I saved it in 1password", tok(B62, 28)),
        ("copy it now: {s}", tok(URL, 40)),
        ("{s} <- this is what the console showed, and it says I can't see it again", tok(B62, 20) + "9a"),
        ("the wizard generated: {s}", "Q" + tok(B62 + symbols, 13) + "z7!"),
        ("Here it is = {s}", tok(B62, 16) + "Zq3"),
        ("our admin sent me this one: {s}. Rotate it after the demo", "M" + tok(B62 + symbols, 11) + "k2#"),
        ("{s} (shown once, per the Grafana page)", tok(HEX, 32)),
    ]:
        assert_masked(text.format(s=secret), secret)


def test_handover_phrases_keep_ordinary_values(tok: Tokens) -> None:
    for text in (f"docker gave me this: sha256:{tok(HEX, 64)}", "the linter gave me: ERR_PNPM_OUTDATED_LOCKFILE",
                 "It generated: build-2024-12-01-a8f3 and src/gen/api_client.py",
                 "Prisma generated: PrismaClient v5.2.0", "Here you go: MyComponent.tsx",
                 f"git gave me this commit: {tok(HEX, 40)}", "That gave me the idea: refactor parseConfig into two",
                 "I copied it somewhere safe: ~/.config/app/creds.json",
                 f"cargo generated: target/debug/deps/libserde-{tok(HEX, 16)}.rlib",
                 "copy it now, the page is https://github.com/settings/tokens?type=beta",
                 f"It gave me a new id: {tok(B62, 20)}", "the job generated 12 files: report_2026-12-01.csv, …"):
        assert_kept(text)


def test_commands_that_print_a_named_secret(tok: Tokens) -> None:
    for command in ("$ printenv STRIPE_API_KEY", "$ kubectl get secret db -o jsonpath='{.data.password}'",
                    "$ gcloud secrets versions access latest --secret=db-password",
                    "$ aws ssm get-parameter --name /prod/db/password --with-decryption --query Parameter.Value",
                    "$ heroku config:get SENTRY_AUTH_TOKEN"):
        secret = tok(B62, 24) + "x1"
        assert_masked(f"{command}\n{secret}\n$ ", secret)
    assert_kept("const password = form.get('password')\ngit@github.com:acme/shop.git")


def test_tables_with_a_secret_column(tok: Tokens) -> None:
    keys = [tok(HEX, 32) for _ in range(3)]
    out = assert_masked("service,api_key,region\n" + "\n".join(f"svc{i},{k},eu" for i, k in enumerate(keys)), *keys)
    assert "svc0,[secret],eu" in out
    secret = tok(B62, 20)
    assert_masked(f"name\tpassword\tnote\nci\t{secret}\trotated", secret)
    assert_kept("id,token_count,cost\n1,4096,0.02\n2,8192,0.04")
    assert_kept("name,key,value\nsort,created_at,asc")


def test_pgpass_lines_and_recovery_phrases(tok: Tokens) -> None:
    password = tok(B62, 18)
    assert_masked(f"$ cat ~/.pgpass\ndb.internal:5432:shop:shop:{password}\n*:*:*:ro:{password}x", password)
    words = ["abandon", "ability", "able", "about", "above", "absent", "absorb", "abstract", "absurd", "abuse"]
    phrase = " ".join(tok.rng.choice(words) for _ in range(12))
    assert redact(f'MNEMONIC="{phrase}"') == f'MNEMONIC="{MASK}"'
    assert_kept('description = "the deploy failed because the cache was cold and we retried it twice"')


def test_cookies_are_judged_one_by_one(tok: Tokens) -> None:
    session = tok(B62, 32)
    out = assert_masked(f"Cookie: _ga=GA1.1.{tok('0123456789', 9)}.1732058270; theme=dark; sessionid={session}", session)
    assert "_ga=GA1.1." in out and "theme=dark" in out


def test_more_shapes_from_other_rule_sets(tok: Tokens) -> None:
    """Shapes found by running other scanners' published examples (Nosey Parker, gitleaks)."""
    bcrypt = "$2b$12$" + tok(B62 + "./", 53)
    assert redact(f"admin:{bcrypt}") == f"admin:{MASK}"
    crypt = "$6$" + tok(B62, 8) + "$" + tok(B62 + "./", 86)
    assert_masked(f"root:{crypt}:19000:0:99999:7:::", crypt)
    hook = f"https://outlook.office.com/webhook/{tok.uuid()}@{tok.uuid()}/IncomingWebhook/{tok(HEX, 32)}/{tok.uuid()}"
    assert_masked(f"webhooks: {hook}", hook.split("/webhook/")[1])
    key = tok(B64, 44)
    assert_masked(f"vault operator unseal {key}", key)
    password = tok(B62, 10) + "9"
    assert_masked(f"PsExec.exe \\\\10.0.0.5 -u Administrator -p {password} cmd", password)
    assert redact("REACT_APP_AUTH_PASSWORD=whiteduke") == f"REACT_APP_AUTH_PASSWORD={MASK}"
    token = "00" + tok(URL, 40)
    assert_masked(f'variable "corp_okta_api_token" {{\n  default = "{token}"\n}}', token)


@pytest.mark.parametrize("text", [
    'usernameLabel:"Username or email:",passwordLabel:"Password:",rememberMeLabel:"Remember me:"',
    'this.addPassword = "#add-password";', 'IAMUserChangePassword = "arn:aws:iam::aws:policy/IAMUserChangePassword"',
    '"password": "&lt;YOURPASSWORD&gt;"', "PASSWORD=$($(dirname $0)/../bin/get-setting DB_PASSWORD)",
    "PASSWORD_HASHER=argon2", "password: required", "DB_PASSWORD=changeme", "MYSQL_ALLOW_EMPTY_PASSWORD=yes",
    "const validKeyChars = \"0123456789abcdefghijklmnopqrstuvwxyz_-.\"",
])
def test_shapes_other_scanners_flag_wrongly(text: str) -> None:
    assert_kept(text)


# --- what must be left alone --------------------------------------------------------------------


@pytest.mark.parametrize("template", [
    "the token refresh fix landed in {sha}", "token: fix the refresh in {sha7}", "commit {sha}",
    "Merge: {sha7} {sha7}", "fixed the password rotation bug in {sha7}", "secret scanning passed for {sha}",
])
def test_git_shas_after_secret_words(tok: Tokens, template: str) -> None:
    sha = tok(HEX, 40)
    assert_kept(template.format(sha=sha, sha7=sha[:7]))


@pytest.mark.parametrize("text", [
    'secret_name = "prod/shop/db"', 'token_url = "https://auth.example.com/oauth/token"', "PASSWORD_MIN_LENGTH = 12",
    "max_tokens: 4096", 'SECRET_KEY = env("SECRET_KEY")', "password = getpass.getpass()", "API_TOKEN=<your-token>",
    "NPM_TOKEN=${NPM_TOKEN}", "token: ${{ secrets.GITHUB_TOKEN }}", "password: changeme", "DB_PASSWORD=********",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "Authorization: Bearer <token>", "sort_key = 'created_at'",
    "GOOGLE_APPLICATION_CREDENTIALS=/run/secrets/gcp-sa.json", "DATABASE_URL=postgres://user:password@localhost/db",
    "key=lambda item: item[1]", "The access token expires after one hour.", "bypass=True",
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/shop/db-AbCdEf", "op://Private/Stripe/credential",
])
def test_names_without_secrets(text: str) -> None:
    assert_kept(text)


def test_lock_files_for_packages_named_like_secrets(tok: Tokens) -> None:
    integrity = "sha512-" + base64.b64encode(tok(B62, 64).encode()).decode()
    assert_kept(f'jsonwebtoken@^9.0.0:\n  version "9.0.2"\n  resolved "https://registry.yarnpkg.com/jsonwebtoken/-/'
                f'jsonwebtoken-9.0.2.tgz#{tok(HEX, 40)}"\n  integrity {integrity}')
    assert_kept(f'"node_modules/password-validator": {{\n  "integrity": "{integrity}"\n}}')
    assert_kept(f"github.com/golang-jwt/jwt/v5 v5.2.1 h1:{base64.b64encode(tok(B62, 32).encode()).decode()}")
    assert_kept(f'[[package]]\nname = "keyring"\nchecksum = "{tok(HEX, 64)}"')


def test_hashes_ids_images_and_code(tok: Tokens) -> None:
    for text in (f"{tok(HEX, 64)}  dist/shop.tar.gz", f"Digest: sha256:{tok(HEX, 64)}", f"trace_id={tok(HEX, 32)}",
                 f'<img src="data:image/png;base64,{tok(B64, 200)}">', f'"id": "toolu_01{tok(B62, 22)}"',
                 f"customer cus_{tok(B62, 14)} paid", f".Button_primary__{tok(B62, 5)} {{ color: #{tok(HEX, 6)}; }}",
                 f"TOKEN_CONTRACT_ADDRESS=0x{tok(HEX, 40)}", "def verify_token(token: str) -> bool:"):
        assert_kept(text)


def test_published_example_keys_are_redacted_like_any_key() -> None:
    """Policy (docs/capture.md): a key-shaped value is masked whoever published it; people test
    redaction with AWS's example keys, and an allowlist would let a real key hide behind one."""
    assert redact("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE") == f"AWS_ACCESS_KEY_ID={MASK}"
    assert redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") == f"aws_secret_access_key = {MASK}"
    assert redact("curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:").count(MASK) == 1


@pytest.mark.parametrize("bait", [
    "password = " * 20_000, "token " * 50_000, "key," * 50_000, "a,key\n" * 20_000, "token:\n" * 50_000,
    "sshpass -p " * 20_000, "kind: Secret\ndata:\n" * 20_000, "- name: TOKEN\n  value: x\n" * 10_000,
    "http://" * 40_000, "eyJ." * 50_000, " -u a:b" * 30_000, ".pgpass\n" * 30_000, "ghp_" * 50_000,
    "copy it now " * 30_000, "gave me: " * 30_000, "shown once Sunset42! " * 15_000,
])
def test_bait_comes_back_in_linear_time(bait: str) -> None:
    """Many needles and nothing to mask: every rule bounds its look-around (a quadratic rule
    would hit the test timeout on these ~300 kB)."""
    out = redact(bait)
    assert len(out) <= len(bait) + 8 * out.count(MASK)


def test_linear_time_on_bait() -> None:
    bait = "-----BEGIN RSA PRIVATE KEY-----" + "A" * 200_000
    assert redact(bait).startswith(MASK)
    many = "password = " * 20_000
    assert redact(many) == many
    assert redact("token " * 50_000) == "token " * 50_000
