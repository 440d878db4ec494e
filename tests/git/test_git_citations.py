"""Citations: parsing, fingerprints, and the four states, on real files in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo_helper import Repo

from kenning.core.citations import Checker, check, fingerprint, looks_like_path, parse_ref
from kenning.model import Citation

SAME, CHANGED, GONE, UNCHECKED = Citation.SAME, Citation.CHANGED, Citation.GONE, Citation.UNCHECKED

CODE = """\
import os


def parse(text):
    value = text.strip()
    return value


class Core:
    def remember(self, text):
        return text.upper()

    def recall(self, query):
        return []
"""


@pytest.mark.parametrize(
    ("ref", "kind", "path", "start", "end", "symbol"),
    [
        ("src/app.py", "file", "src/app.py", 0, 0, ""),
        ("src/app.py:12", "lines", "src/app.py", 12, 12, ""),
        ("src/app.py:12-20", "lines", "src/app.py", 12, 20, ""),
        ("src/app.py:20-12", "lines", "src/app.py", 12, 20, ""),
        ("src/app.py#L3-L5", "lines", "src/app.py", 3, 5, ""),
        ("./src/app.py:parse", "symbol", "src/app.py", 0, 0, "parse"),
        ("src/app.py:Core.remember", "symbol", "src/app.py", 0, 0, "Core.remember"),
        ("src/lib.rs:store::open", "symbol", "src/lib.rs", 0, 0, "store::open"),
        ("Makefile", "file", "Makefile", 0, 0, ""),
        (".github/workflows/ci.yml", "file", ".github/workflows/ci.yml", 0, 0, ""),
    ],
)
def test_parse_paths(ref: str, kind: str, path: str, start: int, end: int, symbol: str) -> None:
    parsed = parse_ref(ref)
    assert (parsed.kind, parsed.path, parsed.start, parsed.end, parsed.symbol) == (kind, path, start, end, symbol)


@pytest.mark.parametrize(
    "ref", ["Node 24.14", "24.14", "v1.2.3", "RFC 7231", "RFC7231", "stripe.com", "docs.stripe.com",
            "https://example.com/a.py", "github.com/acme/widget", "", "C:\\x\\y.py", "the billing team"],
)
def test_things_that_are_not_paths_are_never_judged(ref: str, repo: Repo) -> None:
    assert parse_ref(ref).kind == "none"
    assert check(repo.root, ref, "v1:abc") is UNCHECKED
    assert fingerprint(repo.root, ref) == ""


def test_path_heuristics() -> None:
    assert looks_like_path("src/main.go") and looks_like_path("setup.py") and looks_like_path("Dockerfile")
    assert not looks_like_path("example.org") and not looks_like_path("1.2")


def test_commit_ref(repo: Repo) -> None:
    sha = repo.commit("init", a="1\n")
    assert parse_ref(sha[:10]).kind == "commit"
    digest = fingerprint(repo.root, sha[:10])
    assert digest == f"commit:{sha[:10]}"
    assert check(repo.root, sha[:10], digest) is SAME
    # A commit this clone lacks (shallow, another fork) is not judged.
    assert fingerprint(repo.root, "deadbeefdeadbeef") == ""
    assert check(repo.root, "deadbeefdeadbeef", "commit:deadbeefdeadbeef") is UNCHECKED


def test_bare_file_whole_file_fingerprint(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    digest = fingerprint(repo.root, "src/app.py")
    assert digest.startswith("v1:")
    assert check(repo.root, "src/app.py", digest) is SAME
    repo.write("src/app.py", CODE.replace("\n", "   \r\n"))  # CRLF checkout, trailing blanks
    assert check(repo.root, "src/app.py", digest) is SAME
    repo.write("src/app.py", CODE + "x = 1\n")
    assert check(repo.root, "src/app.py", digest) is CHANGED


def test_cited_lines_survive_an_edit_above_them(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    digest = fingerprint(repo.root, "src/app.py:4-6")
    repo.write("src/app.py", "# a new header\n# two lines\n" + CODE)
    assert check(repo.root, "src/app.py:4-6", digest) is SAME
    repo.write("src/app.py", CODE.replace("text.strip()", "text.lower()"))
    assert check(repo.root, "src/app.py:4-6", digest) is CHANGED


def test_an_edit_elsewhere_leaves_cited_lines_same(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    digest = fingerprint(repo.root, "src/app.py:5")
    repo.write("src/app.py", CODE.replace("return []", "return [query]"))
    assert check(repo.root, "src/app.py:5", digest) is SAME


def test_cited_line_past_the_end_is_changed_even_without_a_hash(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    assert check(repo.root, "src/app.py:400", "") is CHANGED
    assert check(repo.root, "src/app.py:4", "") is UNCHECKED  # nothing to compare
    digest = fingerprint(repo.root, "src/app.py:14-15")
    repo.write("src/app.py", "\n".join(CODE.splitlines()[:12]) + "\n")
    assert check(repo.root, "src/app.py:14-15", digest) is CHANGED


def test_symbol_block_fingerprint_and_rename(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    digest = fingerprint(repo.root, "src/app.py:Core.remember")
    assert digest
    # Moving the whole class down keeps it the same.
    repo.write("src/app.py", "import sys\n\n\n" + CODE)
    assert check(repo.root, "src/app.py:Core.remember", digest) is SAME
    # A change inside another method does not touch this one.
    repo.write("src/app.py", CODE.replace("return []", "return None"))
    assert check(repo.root, "src/app.py:Core.remember", digest) is SAME
    # A change inside its body does.
    repo.write("src/app.py", CODE.replace("text.upper()", "text.lower()"))
    assert check(repo.root, "src/app.py:Core.remember", digest) is CHANGED
    # A renamed symbol is changed, hash or no hash.
    repo.write("src/app.py", CODE.replace("def remember", "def store"))
    assert check(repo.root, "src/app.py:Core.remember", digest) is CHANGED
    assert check(repo.root, "src/app.py:remember", "") is CHANGED
    repo.write("src/app.py", CODE.replace("class Core", "class Service"))
    assert check(repo.root, "src/app.py:Core.remember", digest) is CHANGED


def test_symbols_in_brace_languages(repo: Repo) -> None:
    ts = "export function total(items) {\n  return items.length;\n}\n\nconst other = 1;\n"
    repo.write("web/cart.ts", ts)
    digest = fingerprint(repo.root, "web/cart.ts:total")
    repo.write("web/cart.ts", ts.replace("const other = 1", "const other = 2"))
    assert check(repo.root, "web/cart.ts:total", digest) is SAME
    repo.write("web/cart.ts", ts.replace("items.length", "items.length + 1"))
    assert check(repo.root, "web/cart.ts:total", digest) is CHANGED
    go = "package x\n\nfunc (s *Store) Open(p string) error {\n\treturn nil\n}\n"
    repo.write("store.go", go)
    assert fingerprint(repo.root, "store.go:Store.Open")


def test_deleted_file_is_gone(repo: Repo) -> None:
    path = repo.write("src/app.py", CODE)
    digest = fingerprint(repo.root, "src/app.py:4-6")
    path.unlink()
    assert check(repo.root, "src/app.py:4-6", digest) is GONE
    assert check(repo.root, "src/app.py", "") is GONE
    assert check(repo.root, "src/app.py:parse", "") is GONE


def test_project_not_on_this_machine_is_never_judged(tmp_path: Path) -> None:
    assert check(None, "src/app.py:4", "v1:abc") is UNCHECKED
    assert check(tmp_path / "elsewhere", "src/app.py", "v1:abc") is UNCHECKED
    assert check(None, "/no/such/folder/app.py", "v1:abc") is UNCHECKED


def test_absolute_path_inside_the_root(repo: Repo) -> None:
    path = repo.write("src/app.py", CODE)
    digest = fingerprint(repo.root, str(path))
    assert check(repo.root, str(path), digest) is SAME
    path.unlink()
    assert check(repo.root, str(path), digest) is GONE


def test_a_cited_folder_is_not_compared(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    assert check(repo.root, "src/", "") is UNCHECKED


def test_restating_takes_a_fresh_reading(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    old = fingerprint(repo.root, "src/app.py:5")
    repo.write("src/app.py", CODE.replace("text.strip()", "text.casefold()"))
    assert check(repo.root, "src/app.py:5", old) is CHANGED
    fresh = fingerprint(repo.root, "src/app.py:5")
    assert fresh != old and check(repo.root, "src/app.py:5", fresh) is SAME


def test_batch_checker_reads_each_file_once(repo: Repo) -> None:
    repo.write("src/app.py", CODE)
    checker = Checker(repo.root)
    refs = [f"src/app.py:{n}" for n in range(1, 15)]
    digests = [checker.fingerprint(r) for r in refs]
    (repo.root / "src" / "app.py").write_text("")  # the cache still holds the first reading
    assert [checker.check(r, d) for r, d in zip(refs, digests, strict=True)] == [SAME] * len(refs)


def test_a_call_before_the_definition_does_not_stand_in_for_it(repo: Repo) -> None:
    text = "setup(1)\n\n\ndef setup(n):\n    return n + 1\n"
    repo.write("boot.py", text)
    digest = fingerprint(repo.root, "boot.py:setup")
    repo.write("boot.py", text.replace("n + 1", "n + 2"))
    assert check(repo.root, "boot.py:setup", digest) is CHANGED
