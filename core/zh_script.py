"""Traditional Chinese read as Simplified.

The taxonomy's and the lexicon's Chinese words are Simplified; an analyst in Hong Kong or Taipei
types 終止條款, a contract may be written 個人資料. Both are read through one character map so
a keyword, a type name or a Chinese alias matches in either script. Text is only ever *read*
this way (matching, features); what is stored and shown keeps its own characters.

The map is OpenCC's Traditional-to-Simplified character table (Apache-2.0, shipped in the
pinned `opencc-python-reimplemented` package), first candidate per character, leaving out every
character that is itself in use in Simplified text (a source of the Simplified-to-Traditional
table, such as 么 or 干), so Simplified input is never changed.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")   # CJK ideographs, extension A and compatibility


def cjk_share(text: str) -> float:
    """The share of CJK ideographs among a text's letters: which reader (English or Chinese) a
    clause or heading is for."""
    letters = [ch for ch in text or "" if ch.isalpha()]
    return sum(1 for ch in letters if CJK.match(ch)) / len(letters) if letters else 0.0


def _table(name: str) -> dict[str, str]:
    text = resources.files("opencc").joinpath("dictionary", name).read_text(encoding="utf-8")
    out = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and len(parts[0]) == 1:
            out[parts[0]] = parts[1].split()[0]
    return out


@lru_cache(maxsize=1)
def _map() -> dict[int, str]:
    simplified_in_use = set(_table("STCharacters.txt"))
    return {ord(t): s for t, s in _table("TSCharacters.txt").items()
            if t not in simplified_in_use and len(s) == 1 and s != t}


def to_simplified(text: str) -> str:
    """`text` with Traditional characters replaced one for one (same length, same offsets)."""
    if not text or not CJK.search(text):
        return text
    return text.translate(_map())
