"""Redaction quality and speed on the labelled corpus in tests/capture/data: recall over the
secrets (target 100%), false positives over the ordinary lines (target at most 0.5%), and MB/s;
beside detect-secrets (Yelp, line-based) in the same run when it is installed.

Run: .venv/bin/python bench/capture_redaction.py [--quick]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import platform
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from capture_throughput import write_section
from kenning.redact import redact

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "capture" / "data"
RESULTS = ROOT / "bench" / "results" / "capture.md"


def _detect_secrets(lines: list[str]) -> tuple[set[int], float] | None:
    """detect-secrets' own file scan (default plugins and filters) over ``lines`` written to a
    file: (numbers of the lines it flags, MB/s in CPU time), or None when it is not installed."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.txt"
        path.write_text("\n".join(lines) + "\n")
        collection = SecretsCollection()
        start = time.process_time()
        with default_settings():
            collection.scan_file(str(path))
        took = time.process_time() - start
        flagged = {s.line_number for _f, s in collection}
    return flagged, path_size(lines) / took


def path_size(lines: list[str]) -> float:
    return sum(len(x) + 1 for x in lines) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="speed measured on 2 MB instead of 8 MB")
    args = parser.parse_args()
    secrets = [json.loads(base64.b64decode(line)) for line in (DATA / "secrets.b64").read_text().split()]
    ordinary = (DATA / "ordinary.txt").read_text().splitlines()
    providers = len({s["provider"] for s in secrets})

    caught = sum(1 for s in secrets if s["secret"] not in redact(s["line"]))
    false_pos = [line for line in ordinary if redact(line) != line]
    corpus = "\n".join(ordinary + [s["line"] for s in secrets])
    reps = max(1, (2 if args.quick else 8) * 1_000_000 // len(corpus))
    turns = [corpus[i:i + 2000] for i in range(0, len(corpus), 2000)] * reps
    size = sum(len(t) for t in turns) / 1e6
    start = time.process_time()
    for t in turns:
        redact(t)
    ours_speed = size / (time.process_time() - start)
    rows = [("kenning.redact", caught / len(secrets), len(false_pos) / len(ordinary), ours_speed)]

    secret_lines = [s["line"].replace("\n", " ") for s in secrets]
    ds_secrets = _detect_secrets(secret_lines)
    ds_ordinary = _detect_secrets(ordinary)
    if ds_secrets is not None and ds_ordinary is not None:
        rows.append(("detect-secrets 1.5 (default plugins, file scan)", len(ds_secrets[0]) / len(secrets),
                     len(ds_ordinary[0]) / len(ordinary), ds_ordinary[1]))

    lines = [
        "## Redaction",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{len(secrets)} secrets of {providers} providers, {len(ordinary)} ordinary lines; speed in CPU time on "
        f"{size:.1f} MB of 2,000-character turns; "
        "`.venv/bin/python bench/capture_redaction.py" + (" --quick`" if args.quick else "`"),
        "",
        "| redactor | recall | false positives | MB/s |",
        "|---|---|---|---|",
        *[f"| {name} | {r:.1%} | {fp:.2%} | {mbs:.1f} |" for name, r, fp, mbs in rows],
        "",
        "Targets: recall 100%, false positives at most 0.5% of ordinary lines.",
        "",
    ]
    if false_pos:
        lines += ["Ordinary lines changed:", "", *[f"- `{line[:120]}`" for line in false_pos[:10]], ""]
    text = "\n".join(lines)
    print(text)
    write_section(RESULTS, "## Redaction", text)


if __name__ == "__main__":
    main()
