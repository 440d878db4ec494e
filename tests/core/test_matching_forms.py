"""Trigger and citation matching on the shapes bench/lessons.py found missed: a citation of a
dotted folder (`.github/…`), `**/` standing for no folder, and a shell trigger on a chained
command line — in the one matching module and in the hook's fast pre-filter, which must never
say "no" where the matcher says "yes"."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.domain import matching
from kenning.hooks import fast


@pytest.mark.parametrize(("source_ref", "path"), [
    (".github/workflows/release.yml", ".github/workflows/release.yml"),
    ("./src/app.py:12", "src/app.py"), ("././.env.example", ".env.example"), ("/abs/x.py#L3", "/abs/x.py"),
])  # fmt: skip
def test_cited_path_keeps_a_leading_dot(source_ref: str, path: str) -> None:
    assert matching.cited_path(source_ref) == path


def test_a_dotted_folder_citation_names_the_file() -> None:
    cited = matching.cited_path(".github/workflows/release.yml")
    assert matching.names_file(cited, ".github/workflows/release.yml")
    assert not matching.names_file(cited, "github/workflows/release.yml")


@pytest.mark.parametrize(("glob", "path", "hit"), [
    ("templates/**/*.html", "templates/base.html", True),
    ("templates/**/*.html", "templates/blog/post.html", True),
    ("templates/**/*.html", "templates/a/b/c.html", True),
    ("templates/**/*.html", "other/base.html", False),
    ("**/*.py", "a.py", True),
    ("a/**/b/**/c.txt", "a/b/c.txt", True),
    ("a/**/b/**/c.txt", "a/x/b/c.txt", True),
    ("a/**/b/**/c.txt", "a/b/y/c.txt", True),
    ("a/**/b/**/c.txt", "a/c.txt", False),
    ("db/migrations/*.sql", "db/migrations/001.sql", True),
    ("db/migrations/*.sql", "db/seeds.sql", False),
    (".github/**/*.yml", ".github/release.yml", True),
    ("*.tfvars", "terraform/prod.tfvars", True),
])  # fmt: skip
def test_glob_forms(glob: str, path: str, hit: bool) -> None:
    assert matching.glob_matches(glob, path) is hit
    data = fast.compile_rows([("m:00000001", f"read:{glob}", "", "lesson", "local", "p", "2026-03-01", 1)])
    found = fast.candidates(data, "read", "", (f"/home/dev/src/shop/{path}",))
    if hit:  # the pre-filter never says "no" where the matcher says "yes"
        assert [e[1] for e in found] == ["m:00000001"]


@pytest.mark.parametrize(("pattern", "command", "hit"), [
    (r"^npm publish\b", "cd web && npm publish", True),
    (r"^npm publish\b", "(cd web; npm publish --tag next)", True),
    (r"^npm publish\b", "npm ci\nnpm publish", True),
    (r"(?i)^NPM publish\b", "cd web && npm publish", True),
    (r"^npm publish\b", "echo npm publish", False),
    (r"^npm publish\b", "grep -rn 'npm publish' docs/", False),
    (r"^npm publish\b", "npm run publish-docs", False),
    (r"^terraform apply\b", "cat plan.txt | grep 'terraform apply'", False),
    (r"--dry-run$", "npm publish --dry-run && echo ok", True),
    (r"^git push\b.*--force(?:\s|$)", "git fetch && git push origin main --force", True),
    (r"^git push\b.*--force(?:\s|$)", "git push --force-with-lease", False),
])  # fmt: skip
def test_shell_triggers_on_chained_commands(pattern: str, command: str, hit: bool) -> None:
    assert matching.shell_fires(pattern, command) is hit
    data = fast.compile_rows([("m:00000002", f"shell:{pattern}", "", "lesson", "local", "p", "2026-03-01", 2)])
    assert bool(fast.candidates(data, "shell", command, ())) is hit


@given(st.lists(st.sampled_from(["a", "b", "**", "*", "x.py"]), min_size=1, max_size=5),
       st.lists(st.sampled_from(["a", "b", "c", "x.py"]), min_size=1, max_size=5))  # fmt: skip
def test_the_fast_filter_never_refuses_what_the_matcher_takes(glob_parts: list[str], path_parts: list[str]) -> None:
    glob, path = "/".join(glob_parts), "/".join(path_parts)
    if not matching.glob_matches(glob, path):
        return
    data = fast.compile_rows([("m:00000003", f"edit:{glob}", "", "lesson", "local", "p", "2026-03-01", 3)])
    assert fast.candidates(data, "edit", "", (f"/home/dev/src/shop/{path}",)), (glob, path)
