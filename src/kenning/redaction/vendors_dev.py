"""Tokens with a distinctive prefix: code hosting, package registries, CI/CD, infrastructure,
observability and work tools.

Formats learned from gitleaks' rules (MIT), trufflehog's detectors (AGPL: formats only, no code),
Nosey Parker's rules (Apache-2.0) and each provider's own token documentation; the regexes are
written here. Lengths are given as ranges a little wider than documented, so a provider that
lengthens its tokens is still caught.
"""

from __future__ import annotations

from kenning.redaction.engine import Rule, token_rule

E = r"(?![A-Za-z0-9_])"  # end of a token: no word character after it
ED = r"(?![A-Za-z0-9_-])"  # same, for alphabets with '-'
B62 = "[A-Za-z0-9]"
URLSAFE = "[A-Za-z0-9_-]"


def t(label: str, pattern: str, *needles: str, **kw: object) -> Rule:
    return token_rule(label, pattern, needles, **kw)  # type: ignore[arg-type]


RULES: list[Rule] = [
    # GitHub: classic, OAuth, user-to-server, server-to-server, refresh; fine-grained PATs.
    t("github-token", rf"gh[pousr]_{B62}{{36,251}}{E}", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    t("github-token", r"github_pat_[A-Za-z0-9_]{40,255}" + E, "github_pat_"),
    t("github-token", r"v1\.[0-9a-f]{40}" + E, "v1."),  # installation tokens, old style
    # GitLab: PATs (also routable), deploy, runner, CI job, trigger, feed, mail, agent, OAuth, SCIM.
    t("gitlab-token", rf"glpat-{URLSAFE}{{20,300}}(?:\.[0-9a-z]{{2,12}})?{ED}", "glpat-"),
    t("gitlab-token", rf"gl(?:dt|rt|cbt|ptt|ft|imt|agent|oas|soat|ffct|wt)-{URLSAFE}{{20,300}}{ED}",
      "gldt-", "glrt-", "glcbt-", "glptt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "glffct-", "glwt-"),
    t("gitlab-token", rf"GR1348941{URLSAFE}{{20,}}{ED}", "GR1348941"),
    t("gitlab-session", r"_gitlab_session=([0-9a-z]{32})", "_gitlab_session=", group=1, glued=True),
    # Bitbucket app passwords and Data Center tokens; Atlassian API tokens.
    t("bitbucket-token", rf"ATBB{B62}{{28,40}}{E}", "ATBB"),
    t("bitbucket-token", r"BBDC-[A-Za-z0-9+/@_-]{40,50}" + ED, "BBDC-"),
    t("atlassian-token", r"AT(?:ATT|CTT|OA)3[A-Za-z0-9_\-=]{80,300}" + ED, "ATATT3", "ATCTT3", "ATOA3"),
    # Package registries.
    t("npm-token", rf"npm_{B62}{{36,40}}{E}", "npm_"),
    t("pypi-token", r"pypi-AgE[A-Za-z0-9_-]{50,1000}" + ED, "pypi-AgE"),
    t("pypi-token", r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{50,1000}" + ED, "pypi-AgEN"),
    t("rubygems-token", r"rubygems_[0-9a-f]{48}" + E, "rubygems_"),
    t("nuget-key", r"oy2[a-z0-9]{43}" + E, "oy2"),
    t("cratesio-token", rf"cio{B62}{{32}}{E}", "cio"),
    t("clojars-token", r"CLOJARS_[a-z0-9]{60}" + E, "CLOJARS_"),
    t("dockerhub-token", rf"dckr_(?:pat|oat)_{URLSAFE}{{27,40}}{ED}", "dckr_pat_", "dckr_oat_"),
    t("jfrog-token", rf"AKCp{B62}{{60,80}}{E}", "AKCp"),
    t("jfrog-token", rf"cmVmd[A-Za-z0-9]{{55,70}}{E}", "cmVmd"),
    t("hex-token", r"hex_[0-9a-f]{32,64}" + E, "hex_"),
    t("pub-dev-token", rf"pub_{B62}{{40,64}}{E}", "pub_"),
    # CI/CD and code quality.
    t("databricks-secret", r"dose[0-9a-f]{32}" + E, "dose"),
    t("circleci-token", r"CCIPAT_[A-Za-z0-9]{22}_[0-9a-f]{40}" + E, "CCIPAT_"),
    t("circleci-token", r"CCIPRJ_[A-Za-z0-9]{22}_[0-9a-f]{40}" + E, "CCIPRJ_"),
    t("buildkite-token", r"bk(?:ua|ct)_[a-z0-9]{40}" + E, "bkua_", "bkct_"),
    t("sonarqube-token", r"sq[upa]_[0-9a-f]{40}" + E, "squ_", "sqp_", "sqa_"),
    t("sourcegraph-token", r"sgp_(?:[0-9a-f]{16}_|local_)?[0-9a-f]{40}" + E, "sgp_"),
    t("sourcegraph-token", r"sgph_[0-9a-f]{16}_[0-9a-f]{40}" + E, "sgph_"),
    t("octopus-key", r"API-[A-Z0-9]{25,32}" + E, "API-"),
    t("harness-token", r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}" + E, "pat.", "sat."),
    t("codecov-token", r"CODECOV_TOKEN=([0-9a-f-]{36})", "CODECOV_TOKEN=", group=1),
    t("travis-token", r"travis_[A-Za-z0-9]{22}" + E, "travis_"),
    t("drone-token", r"drone_[A-Za-z0-9]{32}" + E, "drone_"),
    t("chromatic-token", r"chpt_[0-9a-f]{14,40}" + E, "chpt_"),
    t("depfu-token", rf"dependabot_{B62}{{36,64}}{E}", "dependabot_"),
    t("dependency-track-key", rf"odt_{B62}{{32,255}}{E}", "odt_"),
    t("infracost-key", rf"ico-{B62}{{32}}{E}", "ico-"),
    t("scalingo-token", r"tk-us-[A-Za-z0-9_-]{48}" + ED, "tk-us-"),
    t("prefect-key", rf"pnu_{B62}{{36}}{E}", "pnu_"),
    t("dbt-token", r"dbt[cu]_[A-Za-z0-9_-]{40,80}" + ED, "dbtc_", "dbtu_"),
    t("readme-key", r"rdme_[a-z0-9]{70}" + E, "rdme_"),
    t("postman-key", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}" + E, "PMAK-"),
    # Infrastructure as code, secrets managers.
    t("terraform-token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,100}" + ED, ".atlasv1.", back="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", maxback=14),
    t("pulumi-token", r"pul-[0-9a-f]{40}" + E, "pul-"),
    t("vault-token", r"hv[sbr]\.[A-Za-z0-9_-]{24,400}" + ED, "hvs.", "hvb.", "hvr."),
    t("doppler-token", rf"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{{1,40}}\.)?{B62}{{40,50}}{E}", "dp.pt.", "dp.st.", "dp.sa.", "dp.ct.",
      "dp.scim.", "dp.audit."),
    t("infisical-token", r"st\.[0-9a-f-]{36}\.[0-9a-f]{32}\.[0-9a-f]{32}" + E, "st."),
    t("onepassword-token", r"ops_eyJ[A-Za-z0-9+/=_-]{100,}" + ED, "ops_eyJ"),
    t("onepassword-secret-key", r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}" + E, "A3-"),
    t("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + E, "AGE-SECRET-KEY-1"),
    t("age-plugin-key", r"AGE-PLUGIN-[A-Z0-9-]+-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{30,}" + E, "AGE-PLUGIN-"),
    t("tailscale-key", rf"tskey-(?:auth|api|client|scim|webhook)-{B62}{{6,20}}-{B62}{{20,64}}{E}", "tskey-"),
    t("twingate-key", rf"twingate_{B62}{{40,}}{E}", "twingate_"),
    t("teleport-token", r"tpt_[0-9a-f]{32,64}" + E, "tpt_"),
    # Observability.
    t("sentry-token", r"sntry[su]_[A-Za-z0-9+/=_]{40,400}" + E, "sntrys_", "sntryu_"),
    t("grafana-token", r"glc_[A-Za-z0-9+/]{32,400}={0,3}" + E, "glc_"),
    t("grafana-token", r"glsa_[A-Za-z0-9]{32}_[0-9a-fA-F]{8}" + E, "glsa_"),
    t("grafana-token", r"eyJrIjoi[A-Za-z0-9+/=]{50,400}" + E, "eyJrIjoi"),
    t("newrelic-key", r"NR(?:AK|II|JS|AA|BR|IQ|RA|SP)-[A-Za-z0-9_-]{19,42}" + ED, "NRAK-", "NRII-", "NRJS-", "NRAA-", "NRBR-",
      "NRIQ-", "NRRA-", "NRSP-"),
    t("newrelic-license", r"[0-9a-f]{36}NRAL" + E, "NRAL", back="0123456789abcdef", maxback=36),
    t("dynatrace-token", r"dt0[a-zA-Z][0-9]{2}\.[A-Z0-9]{24}\.[A-Za-z0-9]{64}" + E, "dt0"),
    t("honeycomb-key", r"hc[a-z]{2}k_[a-z0-9]{50,80}" + E, "hcaik_", "hcxik_", "hcaek_", "hcxek_", "hcamk_"),
    t("rollbar-token", r"ROLLBAR_(?:ACCESS_)?TOKEN[=:]\s*([0-9a-f]{32})", "ROLLBAR_", group=1),
    t("launchdarkly-key", r"(?:api|sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + E, "api-", "sdk-", "mob-"),
    t("rootly-key", r"rootly_[0-9a-f]{64}" + E, "rootly_"),
    t("checkly-key", r"cu_[0-9a-f]{32}" + E, "cu_"),
    t("betterstack-token", rf"bst_{B62}{{24,40}}{E}", "bst_"),
    # Work tools.
    t("linear-key", rf"lin_(?:api|oauth)_{B62}{{40,64}}{E}", "lin_api_", "lin_oauth_"),
    t("notion-token", rf"(?:secret_{B62}{{43}}|ntn_{B62}{{40,50}}){E}", "secret_", "ntn_"),
    t("figma-token", r"fig[dur]_[A-Za-z0-9_-]{36,60}" + ED, "figd_", "figu_", "figr_"),
    t("airtable-token", rf"pat{B62}{{14}}\.[0-9a-f]{{64}}{E}", "pat"),
    t("asana-token", r"[12]/[0-9]{10,20}(?:/[0-9]{10,20})?:[0-9a-f]{32}" + E, "1/", "2/"),
    t("clickup-token", r"pk_[0-9]{6,12}_[0-9A-Z]{32}" + E, "pk_"),
    t("monday-token", r"eyJhbGciOiJIUzI1NiJ9\.eyJ0aWQiOj[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}" + ED, "eyJhbGciOiJIUzI1NiJ9.eyJ0aWQiOj"),
    t("trello-token", r"ATTA[0-9a-f]{64}[0-9A-F]{8}" + E, "ATTA"),
    t("youtrack-token", r"perm[:-][A-Za-z0-9=+/]{4,}\.[A-Za-z0-9=+/._-]{4,}\.[A-Za-z0-9]{22}" + E, "perm:", "perm-"),
    t("typeform-token", r"tfp_[A-Za-z0-9_.=-]{40,70}" + ED, "tfp_"),
    t("frameio-token", r"fio-u-[A-Za-z0-9_=-]{60,70}" + ED, "fio-u-"),
    t("contentful-token", r"CFPAT-[A-Za-z0-9_-]{43}" + ED, "CFPAT-"),
    t("adobe-secret", r"p8e-[A-Za-z0-9_-]{32}" + ED, "p8e-"),
    t("hubspot-token", r"pat-(?:na|eu|ap)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + E, "pat-na", "pat-eu", "pat-ap"),
    t("intercom-token", r"dG9rO[A-Za-z0-9+/]{40,80}={0,2}" + E, "dG9rO"),
    t("zendesk-token", rf"ZENDESK_(?:API_)?TOKEN=({B62}{{40}})", "ZENDESK_", group=1),
    t("salesforce-token", r"00D[0-9A-Za-z]{12,15}![A-Za-z0-9._]{80,120}" + E, "00D"),
    t("dropbox-token", r"sl\.(?:u\.)?[A-Za-z0-9_-]{130,1200}" + ED, "sl."),
    t("box-token", rf"BOX_(?:DEVELOPER_)?TOKEN=({B62}{{32}})", "BOX_", group=1),
    t("gitter-token", rf"GITTER_TOKEN=({B62}{{40}})", "GITTER_", group=1),
    t("mattermost-token", r"MM_(?:ACCESS_)?TOKEN=([a-z0-9]{26})", "MM_", group=1),
]
