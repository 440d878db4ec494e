"""A clone with nothing beside it passes `make test`: no test reads the project's shared folder
beside the repository. Recorded fixtures are vendored under tests/fixtures/ (its README says where they
came from); only benchmarks may use the shared data, and they skip when it is absent."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures"

# Ways a path to the sibling `shared` folder gets written: a path up one folder to it or
# `/work/shared`, a pathlib join onto "shared", an os.path.join argument, or a string that
# starts inside it ("shared/fixtures/...").
_SHARED_PATH = re.compile(
    r"""\.\./shared\b"""
    r"""|/work/shared\b"""
    r"""|/\s*["']shared["']"""
    r"""|,\s*["']shared["']\s*[,)]"""
    r"""|["']shared/(?:fixtures|bench|seeds|research|hooks)\b"""
)


def refers_to_shared(source: str) -> list[str]:
    """The lines of ``source`` that build a path into the sibling shared folder."""
    return [line.strip() for line in source.splitlines() if _SHARED_PATH.search(line)]


def test_no_test_file_reads_the_shared_folder() -> None:
    offenders = {
        str(path.relative_to(TESTS)): found
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name and (found := refers_to_shared(path.read_text(encoding="utf-8")))
    }
    assert not offenders, f"tests must use tests/fixtures/, not the shared folder beside the repository: {offenders}"


def test_the_guard_catches_every_spelling_of_the_shared_folder() -> None:
    spelled = [
        'FIXTURE = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "x.jsonl"',
        "base = REPO.parent / 'shared'",
        'os.path.join(root, "..", "shared", "bench")',
        'open("../shared/fixtures/claude-code-2.1.328/session.jsonl")',
        'Path("/work/shared/bench/locomo")',
        'ROOT / "shared/fixtures/claude-code-2.1.328"',
    ]
    assert [s for s in spelled if not refers_to_shared(s)] == []
    harmless = [
        'say("the CI image is shared with other teams")',
        "# Helpers shared by the MCP tests",
        '(group / name / "src" / "shared.py").write_text("x = 1")',
    ]
    assert [s for s in harmless if refers_to_shared(s)] == []


def test_vendored_fixtures_are_the_recorded_ones_the_readme_names() -> None:
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    listed = dict(reversed(m) for m in re.findall(r"^([0-9a-f]{64})  (\S+)$", readme, flags=re.M))
    recorded = FIXTURES / "claude-code-2.1.328"
    on_disk = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(recorded.iterdir())}
    assert on_disk == listed
