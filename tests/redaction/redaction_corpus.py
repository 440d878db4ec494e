"""The labelled redaction corpus, generated deterministically (seeded) each time it is imported.

``secret_cases(split)``: every format of ``corpus_formats`` (DEV or HELDOUT) in several
placements of ``corpus_placements``, some JSON-escaped in a Claude Code transcript line, split
over lines or URL-encoded. ``ordinary_lines(split)``: text that looks secret and is not. A case
is caught when no 8-character piece of any form of the secret is left (``leak``).

The splits differ in seed, formats, providers and placements: the rules were written against
DEV; HELDOUT was measured, then its misses fixed by mechanism; FRESH (a third set of phrasings
and providers, written after that) is the estimate for text nobody tuned to. Nothing here is a real
secret: every body is random. Used by tests/redaction and bench/capture_redaction.py.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import quote

import corpus_formats as cf
import corpus_ordinary as co
import corpus_placements as cp
import corpus_placements_fresh as cpf
import corpus_placements_heldout as cph

DATA = Path(__file__).parent / "data"
SEEDS = {"dev": 20261201, "heldout": 4242, "fresh": 9090}
BUILDERS = {"dev": cp.PLAIN, "heldout": cph.PLAIN, "fresh": cpf.PLAIN}
PIECE = 8


@dataclass(frozen=True)
class Case:
    provider: str
    format: str
    prefixed: bool
    category: str  # where it was placed: prompt, bash, heredoc, tool-output, diff, assistant, jsonl, split, urlencoded
    placement: str
    text: str
    forms: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.provider} {self.format} [{self.category}]"


def _forms(parts: list[str], how: str) -> tuple[str, ...]:
    if how == "jsonl":
        return tuple(cp.escaped(p) for p in parts)
    if how == "urlencoded":
        return tuple(quote(p, safe="") for p in parts)
    return tuple(parts)


@cache
def secret_cases(split: str = "dev") -> tuple[Case, ...]:
    """Every secret placement of ``split`` ("dev", "heldout" or "fresh")."""
    rng = random.Random(SEEDS[split])
    if split == "fresh":
        plain = [f for f in cf.DEV + cf.HELDOUT if f.kind not in ("pem", "webhook", "dsn", "url")]
        formats = cpf.FORMATS + rng.sample(plain, 60)
    else:
        formats = cf.DEV if split == "dev" else cf.HELDOUT
    cases: list[Case] = []

    def add(fmt: cf.Format, category: str, text: str, forms: tuple[str, ...], placement: str = "") -> None:
        cases.append(Case(fmt.provider, fmt.name, fmt.prefixed, category, placement or category, text, forms))

    for i, fmt in enumerate(formats):
        def value(fmt: cf.Format = fmt) -> tuple[str, list[str]]:
            return cf.make(rng, fmt)

        if fmt.kind == "pem":
            s, parts = value()
            placed = cp.pem_placements(rng, fmt, s)
            for category, text in placed:
                add(fmt, category, text, tuple(parts))
            s, parts = value()
            category, text = rng.choice(cp.pem_placements(rng, fmt, s))
            add(fmt, "jsonl", cp.wrap_jsonl(category, text, rng), _forms(parts, "jsonl"), f"jsonl/{category}")
            s, parts = value()
            got = cp.kubectl_secret(rng, fmt, s)
            if got:
                add(fmt, got[0], got[1], (got[2],), "kubectl-secret")
            continue
        if fmt.kind in ("webhook", "dsn", "url"):
            s, parts = value()
            placed = cp.url_placements(rng, fmt, s)
            for category, text in rng.sample(placed, 3):
                add(fmt, category, text, tuple(parts))
            s, parts = value()
            category, text = rng.choice(cp.url_placements(rng, fmt, s))
            add(fmt, "jsonl", cp.wrap_jsonl(category, text, rng), _forms(parts, "jsonl"), f"jsonl/{category}")
            continue
        builders = list(BUILDERS[split])
        rng.shuffle(builders)
        used = 0
        for build in builders:
            s, parts = value()
            got = build(rng, fmt, s)
            if got is None:
                continue
            category, text = got
            if used < 3:
                add(fmt, category, text, tuple(parts))
            else:
                add(fmt, "jsonl", cp.wrap_jsonl(category, text, rng), _forms(parts, "jsonl"), f"jsonl/{category}")
                break
            used += 1
        extras = [(cp.wrapped, "split"), (cp.url_encoded, "urlencoded")]
        for build, how in extras:
            if (i + len(how)) % 2:
                continue
            s, parts = value()
            got = build(rng, fmt, s)
            if got is not None:
                add(fmt, got[0], got[1], _forms(parts, how))
        if i % 4 == 0:
            s, parts = value()
            k8s = cp.kubectl_secret(rng, fmt, s)
            if k8s:
                add(fmt, k8s[0], k8s[1], (k8s[2],), "kubectl-secret")
        if i % 4 == 2:
            s, parts = value()
            docker = cp.docker_auth(rng, fmt, s)
            if docker:
                add(fmt, docker[0], docker[1], (docker[2],), "docker-config")
    return tuple(cases)


@cache
def ordinary_lines(split: str = "dev") -> tuple[str, ...]:
    """Ordinary lines for ``split``: DEV adds the real text of ``data/ordinary.txt``."""
    rng = random.Random(SEEDS[split] + 1)
    out: list[str] = []
    if split == "dev":
        out += (DATA / "ordinary.txt").read_text(encoding="utf-8").splitlines()
    out += co.lines(rng, 3000) if split == "dev" else co.lines(rng, 1500, heldout=True, fresh=split == "fresh")
    return tuple(line for line in out if line.strip())


@cache
def ordinary_documents(split: str = "dev") -> tuple[str, ...]:
    """Multi-line look-alike documents (lock files, configs, transcript lines)."""
    return tuple(co.documents(random.Random(SEEDS[split] + 2), 200 if split == "dev" else 100, heldout=split != "dev",
                              fresh=split == "fresh"))


def leak(output: str, forms: tuple[str, ...]) -> str | None:
    """The first 8-character piece of a form of the secret still in ``output``, if any."""
    for form in forms:
        if len(form) < PIECE:
            if form in output:
                return form
            continue
        for i in range(len(form) - PIECE + 1):
            piece = form[i:i + PIECE]
            if piece in output:
                return piece
    return None


def changed_lines(before: str, after: str) -> int:
    """How many of ``before``'s lines redaction changed."""
    old, new = before.split("\n"), after.split("\n")
    if len(old) != len(new):
        return len(old)
    return sum(a != b for a, b in zip(old, new, strict=True))
