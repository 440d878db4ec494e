"""Classify a chunk as decision, preference, milestone, problem or discovery, with an
importance 0-5, by fixed text patterns (no model).

A type needs a strong marker ("we decided to", "I prefer", "root cause"); weak topic words only
add weight to a type a strong marker set. Importance measures the strength of the evidence:
none 0; weak markers only 1; 4 or 5 needs a strong marker (a decision needs a committed marker
and a concrete object). Changes from chat-recall's classifier (its known faults): snake_case,
dotted or hyphenated tokens are not a decision object by themselves, generic words ("default",
"pattern", "configure") are not markers, and ``RULES_VERSION`` is stored on every chunk so a
change reclassifies old chunks (capture.sync runs the sweep).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import ahocorasick_rs

# Bump whenever a rule below changes: chunks with another version are classified again.
RULES_VERSION = 1

TYPES = ("decision", "preference", "milestone", "problem", "discovery")


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    # The regex runs only when one of these occurs in the lower-cased text: a substring test
    # is ~100x cheaper than a case-insensitive regex scan, and most chunks hold no marker.
    needles: tuple[str, ...]


def _c(*specs: tuple[str, str], flags: int = re.IGNORECASE) -> list[_Rule]:
    return [_Rule(re.compile(p, flags), tuple(n.split("|"))) for p, n in specs]


_COMMITTED = _c(
    (r"\bwe(?:'ve| have)? (?:decided|chose|went with|picked|settled on|agreed on|agreed to)\b",
     "decided|chose|went with|picked|settled|agreed"),
    (r"\b(?:i'm|i am|we're|we are) going (?:to use|with)\b", "going to use|going with"),
    (r"\bdecided (?:to|on|against)\b", "decided"),
    (r"\bwe(?:'ll| will) (?:use|go with|stick with|keep)\b", "we'll|we will"),
    (r"\bchose \S+(?: \S+)? over\b", "chose"),
    (r"\bthe decision (?:is|was)\b", "decision"),
    (r"\bdecision:\s", "decision:"),
)
_TENTATIVE = _c(
    (r"\blet'?s (?:use|go with|try|pick|choose|switch to)\b", "let's |lets "),
    (r"\bwe should\b", "we should"),
    (r"\bswitch(?:ed|ing)? (?:to|from)\b", "switch"),
)
_STRONG: dict[str, list[_Rule]] = {
    "decision": _COMMITTED + _TENTATIVE,
    "preference": _c(
        (r"\bi (?:really |strongly )?prefer\b", "prefer"), (r"\balways use\b", "always use"),
        (r"\bnever use\b", "never use"), (r"\bdon'?t ever (?:use|do|mock|stub|import)\b", "ever"),
        (r"\bplease (?:always|never|don'?t)\b", "please always|please never|please don"), (r"\bmy (?:rule|preference|style|convention) is\b", "my "),
        (r"\bwe (?:always|never)\b", "we always|we never"),
    ),
    "milestone": _c(
        (r"\bit works\b", "it works"), (r"\bgot it working\b", "got it working"), (r"\bbreakthrough\b", "breakthrough"),
        (r"\bfigured (?:it )?out\b", "figured"), (r"\bnailed it\b", "nailed it"),
        (r"\b(?:shipped|launched|deployed|released)\b", "shipped|launched|deployed|released"),
        (r"\ball (?:\d+ )?tests (?:now )?pass", "tests"),
        (r"\b\d+(?:\.\d+)?x (?:faster|slower|better|compression|improvement|reduction)\b",
         "x faster|x slower|x better|x compression|x improvement|x reduction"),
        (r"\b\d+(?:\.\d+)?% (?:reduction|improvement|faster|better|smaller)\b", "% "),
    ),
    "problem": _c(
        (r"\broot cause\b", "root cause"), (r"\bthe (?:problem|issue|bug) (?:is|was)\b", "problem|issue|bug"),
        (r"\bthe fix (?:is|was)\b", "the fix"), (r"\bkeeps? (?:failing|crashing|breaking|erroring)\b", "keep"),
        (r"\bdoes(?:n'?t| not) work\b", "t work"), (r"\bnot working\b", "not working"),
        (r"\bwon'?t(?: \w+){0,3} work\b", "won"),
    ),
    "discovery": _c(
        (r"\bfound out\b", "found out"), (r"\bfound that\b", "found that"), (r"\blearned that\b", "learned that"),
        (r"\bnow i (?:understand|see|get it)\b", "now i"), (r"\bturned out\b", "turned out"),
        (r"\bsurprising(?:ly)?\b", "surprising"), (r"\bunexpected(?:ly)?\b", "unexpected"),
    ) + _c((r"\bTIL\b", "til"), flags=0),
}
_WEAK: dict[str, list[_Rule]] = {
    "decision": _c((r"\binstead of\b", "instead of"), (r"\brather than\b", "rather than"),
                   (r"\btrade-?offs?\b", "trade"), (r"\bpros and cons\b", "pros and cons"),
                   (r"\bbetter (?:to|than|approach|option|choice)\b", "better"), (r"\barchitecture\b", "architecture"),
                   (r"\bapproach\b", "approach"), (r"\bstrategy\b", "strategy"), (r"\bstack\b", "stack"),
                   (r"\bframework\b", "framework")),
    "preference": _c((r"\bi (?:like|hate) (?:to|when|how)\b", "i like|i hate"),
                     (r"\bdon'?t (?:use|do|mock|stub|import)\b", "don't |dont "), (r"\bsnake_case\b", "snake_case"),
                     (r"\bcamelCase\b", "camelcase"), (r"\buse \S+ instead of\b", "instead of")),
    "milestone": _c((r"\bfixed\b", "fixed"), (r"\bsolved\b", "solved"), (r"\bfinally\b", "finally"),
                    (r"\bfirst time\b", "first time"), (r"\bturns out\b", "turns out"),
                    (r"\bthe key (?:is|was|insight)\b", "the key"), (r"\bthe trick (?:is|was)\b", "the trick"),
                    (r"\bimplemented\b", "implemented")),
    "problem": _c((r"\b(?:bug|error|crash(?:es|ed)?|fail(?:s|ed|ing|ure)?|broke|broken)\b", "bug|error|crash|fail|broke"),
                  (r"\bworkaround\b", "workaround"), (r"\bthat'?s why\b", "s why"),
                  (r"\bsolution (?:is|was)\b", "solution"), (r"\bresolved\b", "resolved"), (r"\bpatched\b", "patched")),
    "discovery": _c((r"\bdiscovered\b", "discovered"), (r"\brealized\b", "realized"), (r"\bnoticed\b", "noticed"),
                    (r"\binteresting\b", "interesting")),
}
_RESOLUTION = re.compile(r"\b(?:fixed|solved|resolved|got it working|it works|nailed it|figured out|"
                         r"the (?:fix|answer|solution))\b", re.IGNORECASE)
_BASE = {"decision": 3, "preference": 3, "milestone": 3, "problem": 3, "discovery": 2}

_TECH_WORDS = """
postgres postgresql mysql sqlite redis mongodb kafka rabbitmq nats elasticsearch opensearch clickhouse
duckdb react vue svelte angular nextjs next.js django flask fastapi rails express spring docker podman
kubernetes k8s helm terraform pulumi ansible nginx caddy traefik graphql grpc rest websocket websockets
pytest jest vitest mocha playwright cypress poetry uv pip npm pnpm yarn bun deno node typescript rust go
golang python java kotlin swift ruby celery airflow dagster s3 gcs lambda aws gcp azure vercel netlify
fly heroku tailwind bootstrap prisma sqlalchemy alembic drizzle pgvector ollama lancedb sentry datadog
prometheus grafana jwt oauth saml stripe webpack vite esbuild rollup turbopack click typer pydantic
"""
_TECH = frozenset(_TECH_WORDS.split())
_CAPITAL_WORDS = """
I I'm I'll I've I'd We We'll We're The A An It This That These Those It's Let's OK Okay Yes No But And
So Then Also Now Please Thanks When If For In On At To Of By With From As After Before Maybe Because
"""
_CAPITAL_STOP = frozenset(_CAPITAL_WORDS.split())
_WORD = re.compile(r"`[^`\n]{1,60}`|[A-Za-z][\w.+#-]*")
_FILE = re.compile(r"\b[\w-]+\.(?:py|toml|ya?ml|json|js|ts|tsx|rs|go|sql|md|cfg|ini|sh|lock|env)\b")
_CODE_LINE = re.compile(
    r"^\s*(?:[$#>]\s|(?:import|from|def|class|const|let|var|function|return|if|for|while|elif|else|try|except|"
    r"cd|ls|git|npm|pip|uv|make|cargo|docker|kubectl|python3?|pytest)\b|[A-Z_][A-Z0-9_]*=|\||[{}()\[\];]+\s*$)"
)


@dataclass(frozen=True)
class Classification:
    type: str  # one of TYPES, or "general"
    importance: int  # 0-5
    confidence: float  # 0-1


def prose(text: str) -> str:
    """The prose of a chunk: fenced code and lines that look like code or shell removed."""
    if "```" in text:
        text = re.sub(r"```.*?(?:```|$)", " ", text, flags=re.DOTALL)
    lines = [ln for ln in text.splitlines() if ln.strip() and not _CODE_LINE.match(ln)]
    return "\n".join(lines) if lines else text


def _has_object(text: str, start: int) -> bool:
    """A concrete thing decided on, in the words after the marker: a known technology, a
    backticked name, a file name, or a capitalised word mid-sentence."""
    window = text[start:start + 120]
    if _FILE.search(window):
        return True
    for i, m in enumerate(_WORD.finditer(window)):
        word = m.group(0)
        if word.startswith("`") or word.lower().strip(".") in _TECH:
            return True
        if i > 0 and word[0].isupper() and word not in _CAPITAL_STOP and not word.isupper() or (
                i > 0 and word.isupper() and len(word) >= 2 and word not in _CAPITAL_STOP):
            return True
    return False


def _distinct(matches: list[re.Match[str]]) -> list[re.Match[str]]:
    """One hit per phrase: "we decided to" matches two patterns but is one marker."""
    out: list[re.Match[str]] = []
    for m in sorted(matches, key=lambda m: m.start()):
        if out and m.start() < out[-1].end():
            continue
        out.append(m)
    return out


_NEEDLES = tuple(sorted({n for table in (_STRONG, _WEAK) for rules in table.values() for r in rules for n in r.needles}))
# Every needle found in one pass (Aho-Corasick, overlapping so a needle inside another counts)
# instead of ~90 substring scans of each chunk.
_FINDER = ahocorasick_rs.AhoCorasick(list(_NEEDLES))


_STRONG_NEEDLES = {t: frozenset(n for r in rules for n in r.needles) for t, rules in _STRONG.items()}


def _hits(rules: list[_Rule], body: str, present: frozenset[str]) -> list[re.Match[str]]:
    return [m for r in rules if not present.isdisjoint(r.needles) for m in r.pattern.finditer(body)]


def classify(text: str) -> Classification:
    body = prose(text)
    low = body.lower()
    # Each needle is looked for once; the rules then test set membership.
    present = frozenset(_FINDER.find_matches_as_strings(low, overlapping=True))
    if not present:
        return Classification("general", 0, 0.0)
    strong = {t: _distinct(_hits(_STRONG[t], body, present)) if not present.isdisjoint(_STRONG_NEEDLES[t]) else []
              for t in TYPES}
    if not any(strong.values()):
        weak_only = any(r.pattern.search(body) for t in TYPES for r in _WEAK[t] if not present.isdisjoint(r.needles))
        return Classification("general", 1 if weak_only else 0, 0.0)
    # Weak words count only for the types a strong marker set.
    weak = {t: len(_hits(_WEAK[t], body, present)) if strong[t] else 0 for t in TYPES}
    scores = {t: len(strong[t]) * 2 + weak[t] * 0.5 for t in TYPES if strong[t]}
    best = max(scores.values())
    kind = next(t for t in TYPES if scores.get(t) == best)
    if kind == "problem" and strong["milestone"] and _RESOLUTION.search(body):
        kind = "milestone"
    hits, weak_hits = len(strong[kind]), weak[kind]
    importance = _BASE[kind]
    if kind == "decision":
        committed = _hits(_COMMITTED, body, present)
        if any(_has_object(body, m.end()) for m in committed):
            importance = 4
    corroborated = hits >= 2 or (hits >= 1 and weak_hits >= 3)
    if corroborated and not (kind == "decision" and importance < 4):
        importance += 1
    return Classification(kind, min(5, importance), min(1.0, scores[kind] / 5))
