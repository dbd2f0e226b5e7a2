"""A small Cypher tokenizer for the guard (core/guard.py).

Keyword checks on raw text are fooled by comments, string literals and Unicode look-alikes
(`'DELETE'` in a string is harmless, `/* */ DETACH DELETE` is not, `ＤＥＬＥＴＥ` is neither a
keyword nor an honest identifier). The guard therefore reasons on tokens: comments and
whitespace dropped, strings and backticked names decoded, every token keeping its offsets so
that rewrites (LIMIT, relationship direction) edit the original text and keep its comments.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

IDENT = "ident"      # unquoted name or keyword: MATCH, c, created_at
QUOTED = "quoted"    # `backticked name` (never a keyword)
STRING = "string"    # 'text' or "text"
NUMBER = "number"    # 12, 0x1F, 1.5e3
PARAM = "param"      # $name, $0, $`odd name`
PUNCT = "punct"      # one character: ( ) [ ] { } - < > : . , ; = | & ! * + / % ^ ...


class CypherLexError(ValueError):
    """The text cannot be tokenized (unterminated string, comment or backtick)."""

    def __init__(self, message: str, offset: int, text: str):
        line, col = line_col(text, offset)
        super().__init__(f"{message} at line {line}, column {col}")
        self.offset = offset


@dataclass(frozen=True)
class Token:
    kind: str
    text: str      # the source text of the token
    start: int     # offset of the first character in the source
    end: int       # offset after the last character
    value: str     # decoded: string contents, backticked name, parameter name; else == text

    @property
    def upper(self) -> str:
        return self.value.upper() if self.kind == IDENT else ""

    def is_kw(self, *words: str) -> bool:
        """An unquoted identifier spelled like one of `words` (case-insensitive)."""
        return self.kind == IDENT and self.value.upper() in words

    def is_punct(self, chars: str) -> bool:
        return self.kind == PUNCT and self.text in chars


def line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", "'": "'", '"': '"'}


def _ident_start(ch: str) -> bool:
    return ch == "_" or ch.isalpha()


def _ident_part(ch: str) -> bool:
    return ch == "_" or ch.isalnum() or unicodedata.category(ch) in ("Mn", "Mc", "Pc", "Cf")


def tokenize(text: str) -> list[Token]:
    """Split Cypher into tokens; comments and whitespace are dropped."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if text.startswith("//", i):
            # End at any character some reader might take for a line break: ending too early
            # only exposes more text to the checks, ending too late could hide a clause.
            j = i + 2
            while j < n and text[j] not in _LINE_BREAKS:
                j += 1
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise CypherLexError("unterminated /* comment", i, text)
            i = j + 2
            continue
        if ch in "'\"":
            j, out = i + 1, []
            while True:
                if j >= n:
                    raise CypherLexError("unterminated string literal", i, text)
                c = text[j]
                if c == "\\" and j + 1 < n:
                    nxt = text[j + 1]
                    if nxt == "u" and j + 6 <= n:
                        try:
                            out.append(chr(int(text[j + 2:j + 6], 16)))
                            j += 6
                            continue
                        except ValueError:
                            pass
                    out.append(_ESCAPES.get(nxt, "\\" + nxt))
                    j += 2
                    continue
                if c == ch:
                    break
                out.append(c)
                j += 1
            tokens.append(Token(STRING, text[i:j + 1], i, j + 1, "".join(out)))
            i = j + 1
            continue
        if ch == "`":
            tok = _backticked(text, i)
            tokens.append(tok)
            i = tok.end
            continue
        if ch == "$":
            j = i + 1
            if j < n and text[j] == "`":
                sub = _backticked(text, j)
                tokens.append(Token(PARAM, text[i:sub.end], i, sub.end, sub.value))
                i = sub.end
                continue
            while j < n and _ident_part(text[j]):
                j += 1
            if j > i + 1:
                tokens.append(Token(PARAM, text[i:j], i, j, text[i + 1:j]))
                i = j
                continue
            tokens.append(Token(PUNCT, "$", i, i + 1, "$"))
            i += 1
            continue
        if ch.isdigit():
            j = i + 1
            if ch == "0" and j < n and text[j] in "xXoO":
                j += 1
                while j < n and (text[j].isalnum() or text[j] == "_"):
                    j += 1
            else:
                while j < n and (text[j].isdigit() or text[j] == "_"):
                    j += 1
                if j + 1 < n and text[j] == "." and text[j + 1].isdigit():
                    j += 1
                    while j < n and text[j].isdigit():
                        j += 1
                if j < n and text[j] in "eE":
                    k = j + 1
                    if k < n and text[k] in "+-":
                        k += 1
                    if k < n and text[k].isdigit():
                        j = k
                        while j < n and text[j].isdigit():
                            j += 1
            tokens.append(Token(NUMBER, text[i:j], i, j, text[i:j]))
            i = j
            continue
        if _ident_start(ch):
            j = i + 1
            while j < n and _ident_part(text[j]):
                j += 1
            tokens.append(Token(IDENT, text[i:j], i, j, text[i:j]))
            i = j
            continue
        tokens.append(Token(PUNCT, ch, i, i + 1, ch))
        i += 1
    return tokens


def _backticked(text: str, start: int) -> Token:
    j, out, n = start + 1, [], len(text)
    while True:
        if j >= n:
            raise CypherLexError("unterminated backtick identifier", start, text)
        if text[j] == "`":
            if j + 1 < n and text[j + 1] == "`":
                out.append("`")
                j += 2
                continue
            return Token(QUOTED, text[start:j + 1], start, j + 1, "".join(out))
        out.append(text[j])
        j += 1


# Letters from other scripts that render like Latin ones (a subset of Unicode's confusables:
# Cyrillic and Greek capitals and lower-case letters that pass for ASCII in common fonts).
_CONFUSABLES = str.maketrans({
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M",
    "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ԁ": "D",
    "а": "a", "с": "c", "е": "e", "і": "i", "ј": "j", "о": "o", "р": "p", "ѕ": "s", "х": "x",
    "у": "y", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y", "к": "k", "м": "m",
    "т": "t", "н": "h", "в": "b", "г": "r",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v", "ι": "i", "α": "a",
    "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
})


def skeleton(name: str) -> str:
    """What a name looks like to a reader: NFKC (full-width → ASCII), look-alikes mapped, upper-cased."""
    folded = unicodedata.normalize("NFKC", name).translate(_CONFUSABLES)
    return "".join(ch for ch in folded if unicodedata.category(ch) not in ("Cf", "Mn")).upper()


def matching_brackets(tokens: list[Token]) -> dict[int, int]:
    """Index of each opening ( [ { to its closing partner and back; unbalanced ones are left out."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    closers = {")": "(", "]": "[", "}": "{"}
    for idx, tok in enumerate(tokens):
        if tok.kind != PUNCT:
            continue
        if tok.text in "([{":
            stack.append(idx)
        elif tok.text in closers:
            if stack and tokens[stack[-1]].text == closers[tok.text]:
                open_idx = stack.pop()
                pairs[open_idx] = idx
                pairs[idx] = open_idx
    return pairs


def depths(tokens: list[Token]) -> list[int]:
    """Bracket nesting depth of each token (an opening bracket has the outer depth)."""
    out, depth = [], 0
    for tok in tokens:
        if tok.kind == PUNCT and tok.text in ")]}":
            depth = max(0, depth - 1)
        out.append(depth)
        if tok.kind == PUNCT and tok.text in "([{":
            depth += 1
    return out
