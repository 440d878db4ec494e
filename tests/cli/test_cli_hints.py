"""Every hint that tells a person to run `kenning …` names a command that exists.

The hints are read from the source: every ``fix=`` argument, and every other string that
says to run a kenning command (in backticks, or after "run", "with", "see", "try", "use",
"Add one:", "Write one:"). Each named command is resolved through the CLI's own tree (a 0.1
name that moved does not count) and its ``--help`` must run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kenning.cli.lazy import LazyGroup
from kenning.cli.main import cli

SRC = Path(__file__).resolve().parents[2] / "src" / "kenning"
WORD = re.compile(r"[a-z][a-z-]*")
LEAD = re.compile(r"(?:`|\b(?:run|with|see|try|use|one):?\s+)kenning((?:\s+[a-z][a-z-]*)+)", re.I)


def _text(node: ast.AST) -> str:
    """The literal text of a string, f-string or concatenation ({…} parts become {})."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return ""


def hints() -> dict[str, set[str]]:
    """command words after `kenning` -> the files whose hints name them."""
    found: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        texts: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "fix":
                texts += [m.group(1) for m in re.finditer(r"kenning((?:\s+[a-z][a-z-]*)+)", _text(node.value))]
            elif isinstance(node, ast.Constant | ast.JoinedStr) and id(node) not in docstrings:
                texts += [m.group(1) for m in LEAD.finditer(_text(node))]
        for words in texts:
            found.setdefault(" ".join(words.split()), set()).add(str(path.relative_to(SRC)))
    return found


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring nodes (help text: its examples are checked by test_cli_tree)."""
    found = set()
    for owner in ast.walk(tree):
        body = getattr(owner, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            found.add(id(body[0].value))
    return found


def resolve(words: str) -> list[str]:
    """The longest prefix of ``words`` that names a visible command (not a moved 0.1 name)."""
    path: list[str] = []
    group: click.Command = cli
    ctx = click.Context(cli)
    for word in words.split():
        if not isinstance(group, click.Group) or not WORD.fullmatch(word):
            break
        entry = group.entries.get(word) if isinstance(group, LazyGroup) else None
        if entry is not None and entry.hidden:
            break
        command = group.get_command(ctx, word)
        if command is None or command.hidden:
            break
        path.append(word)
        group = command
    return path


HINTS = hints()


def test_the_hints_were_found() -> None:
    # A reader that finds nothing would pass every check below.
    assert len(HINTS) >= 15, HINTS
    assert any(h.startswith("sessions sync") for h in HINTS), HINTS


@pytest.mark.parametrize("words", sorted(HINTS))
def test_every_hint_names_a_real_command(words: str) -> None:
    path = resolve(words)
    assert path, f"`kenning {words}` in {sorted(HINTS[words])} names no command (or a moved 0.1 name)"
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output


DOCS = [SRC.parents[1] / "README.md", *sorted((SRC.parents[1] / "docs").glob("*.md"))]
_INLINE = re.compile(r"`kenning((?:\s+[a-z][a-z-]*)+)")
_BLOCK_LINE = re.compile(r"^\s*kenning((?:\s+[a-z][a-z-]*)+)")
# docs/cli.md lists the 0.1 names on purpose, under this heading.
_OLD_NAMES = "## Names from kenning 0.1"


def doc_commands() -> dict[str, set[str]]:
    """`kenning …` in inline code, and lines of code blocks that start with it."""
    found: dict[str, set[str]] = {}
    for path in DOCS:
        fenced, skipping = False, False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("## "):
                skipping = line.strip() == _OLD_NAMES
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if skipping:
                continue
            hits = [m.group(1) for m in _INLINE.finditer(line)]
            if fenced and (m := _BLOCK_LINE.match(line)):
                hits.append(m.group(1))
            for words in hits:
                found.setdefault(" ".join(words.split()), set()).add(path.name)
    return found


DOC_COMMANDS = doc_commands()


def test_the_docs_name_commands() -> None:
    assert len(DOC_COMMANDS) >= 30, DOC_COMMANDS


@pytest.mark.parametrize("words", sorted(DOC_COMMANDS))
def test_every_command_the_docs_show_exists(words: str) -> None:
    assert resolve(words), f"`kenning {words}` in {sorted(DOC_COMMANDS[words])} names no command (or a moved 0.1 name)"
