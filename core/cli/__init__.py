"""Command-line interface (`python -m core ...`), one module per command group.

Each module defines `register(subparsers)`; its handlers return an exit status.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from core.errors import ClauseGraphError

# Modules that add sub-commands. Append new command groups here.
COMMAND_MODULES = [
    "core.cli.neo4j_cmd",
    "core.cli.cypher_cmd",
    "core.cli.eval_cmd",
    "core.cli.ingest_cmd",
    "core.cli.ask_cmd",
    "core.cli.auth_cmd",
    "core.cli.log_cmd",
    "core.cli.train_cmd",
    "core.cli.terms_cmd",
]


class UserError(ClauseGraphError):
    """An error with a message for the user (printed to stderr, exit status 2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="ClauseGraph: hybrid graph-vector search over contracts")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from core.graph.db import DatabaseUnavailable
    from core.graph.local_server import LocalNeo4jError

    try:
        return int(args.func(args) or 0)
    except (UserError, DatabaseUnavailable, LocalNeo4jError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader left early (`... --format csv | head`): stop quietly, as Unix tools do; stdout
        # goes to devnull so the interpreter's final flush does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
