"""The documentation is checked against the code, so it cannot silently go stale.

In the manner of Datasette's tests/test_docs.py: docs/ARCHITECTURE.md must name every package and
module of core/, every command the CLI registers must appear in README.md, and every file path
and `make` target the docs mention must exist. Read from files and the argument parser only.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from core.cli import COMMAND_MODULES, build_parser

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
README = ROOT / "README.md"
CONTRIBUTING = ROOT / "docs" / "CONTRIBUTING.md"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _sub_packages() -> list[str]:
    return sorted(p.parent.relative_to(ROOT).as_posix() for p in CORE.rglob("__init__.py")
                  if p.parent != CORE and "__pycache__" not in p.parts)


def _modules() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py")
                  if p.name not in {"__init__.py", "__main__.py"} and "__pycache__" not in p.parts)


def _commands() -> list[str]:
    parser = build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(subs) == 1, "the CLI has one level of commands under `python -m core`"
    return sorted(subs[0].choices)


def test_the_structure_is_found():
    assert len(_sub_packages()) >= 8 and len(_modules()) >= 40
    assert len(_commands()) >= len(COMMAND_MODULES)


@pytest.mark.parametrize("package", _sub_packages())
def test_architecture_names_every_core_package(package):
    assert f"`{package}`" in _text(ARCHITECTURE) or f"`{package}/`" in _text(ARCHITECTURE), \
        f"docs/ARCHITECTURE.md does not describe {package}: add it to the layers and the module list"


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_architecture_names_every_core_module(module):
    assert f"`{module.name}`" in _text(ARCHITECTURE), \
        f"docs/ARCHITECTURE.md has no line for {module.relative_to(ROOT)}: say in one line what it is for"


@pytest.mark.parametrize("command", _commands())
def test_readme_documents_every_cli_command(command):
    assert re.search(rf"python -m core {re.escape(command)}\b", _text(README)), \
        f"`python -m core {command}` is not in README.md: add it to the command-line section"


def _generated(path: str) -> bool:
    """A folder the runs write and git ignores (screenshots, caches): absent in a fresh clone."""
    ignored = [line.strip().rstrip("/") for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#") and "*" not in line]
    return any(path == g or path.startswith(g + "/") for g in ignored)


@pytest.mark.parametrize("doc", [ARCHITECTURE, CONTRIBUTING, README], ids=lambda p: p.name)
def test_paths_the_docs_name_exist(doc):
    named = set(re.findall(r"(?<![\w/.])((?:core|tests|pages|data|docs)/[\w./-]*\w)(?![\w<-]|[./]\w)", _text(doc)))
    assert named, doc
    missing = sorted(p for p in named if not (ROOT / p).exists() and not _generated(p))
    assert not missing, f"{doc.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", [ARCHITECTURE, CONTRIBUTING, README], ids=lambda p: p.name)
def test_make_targets_the_docs_name_exist(doc):
    targets = set(re.findall(r"^([\w-]+):", _text(ROOT / "Makefile"), re.M))
    named = set(re.findall(r"`make ([\w-]+)", _text(doc)))
    assert named - targets == set(), f"{doc.name} names make targets the Makefile lacks"
