"""The root of ClauseGraph's own exceptions.

One base class lets a caller (the CLI, a page, an embedding program) tell "ClauseGraph said
no, with a message meant for a person" apart from a bug, with a single `except`. Each error
keeps its older built-in base too (ValueError, RuntimeError), so existing handlers still work.
"""
from __future__ import annotations


class ClauseGraphError(Exception):
    """Base of every error ClauseGraph raises on purpose."""
