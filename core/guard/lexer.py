"""A small Cypher tokenizer for the guard (core/guard/gates.py and its gates).

Keyword checks on raw text are fooled by comments, string literals and Unicode look-alikes
(`'DELETE'` in a string is harmless, `/* */ DETACH DELETE` is not, `ＤＥＬＥＴＥ` is neither a
keyword nor an honest identifier). The guard therefore reasons on tokens: comments and
whitespace dropped, strings and backticked names decoded, every token keeping its offsets so
that rewrites (LIMIT, relationship direction) edit the original text and keep its comments.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from core.errors import ClauseGraphError

IDENT = "ident"      # unquoted name or keyword: MATCH, c, created_at
QUOTED = "quoted"    # `backticked name` (never a keyword)
STRING = "string"    # 'text' or "text"
NUMBER = "number"    # 12, 0x1F, 1.5e3
PARAM = "param"      # $name, $0, $`odd name`
PUNCT = "punct"      # one character: ( ) [ ] { } - < > : . , ; = | & ! * + / % ^ ...


class CypherLexError(ClauseGraphError, ValueError):
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


def name_of(tok: Token) -> str | None:
    """The name a token spells when it can stand for a variable, label or key (plain or backticked)."""
    return tok.value if tok.kind in (IDENT, QUOTED) else None


def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, replacement) applied; edits use the original offsets, so
    they are applied from the end backwards and everything between them (comments) is kept."""
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + new + text[end:]
    return text


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
    i = _skip_blanks(text, 0)
    while i < len(text):
        tok = _read_token(text, i)
        tokens.append(tok)
        i = _skip_blanks(text, tok.end)
    return tokens


def _skip_blanks(text: str, i: int) -> int:
    """The offset of the next token: past whitespace and comments."""
    n = len(text)
    while i < n:
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            # End at any character some reader might take for a line break: ending too early
            # only exposes more text to the checks, ending too late could hide a clause.
            i += 2
            while i < n and text[i] not in _LINE_BREAKS:
                i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise CypherLexError("unterminated /* comment", i, text)
            i = j + 2
        else:
            break
    return i


def _read_token(text: str, i: int) -> Token:
    """The token starting at `i` (never whitespace or a comment); its kind is decided by its first character."""
    ch = text[i]
    if ch in "'\"":
        return _string(text, i)
    if ch == "`":
        return _backticked(text, i)
    if ch == "$":
        return _param(text, i)
    if ch.isdigit():
        return _number(text, i)
    if _ident_start(ch):
        j = i + 1
        while j < len(text) and _ident_part(text[j]):
            j += 1
        return Token(IDENT, text[i:j], i, j, text[i:j])
    return Token(PUNCT, ch, i, i + 1, ch)


def _string(text: str, start: int) -> Token:
    quote, j, out, n = text[start], start + 1, [], len(text)
    while True:
        if j >= n:
            raise CypherLexError("unterminated string literal", start, text)
        c = text[j]
        if c == "\\" and j + 1 < n:
            decoded, j = _escape(text, j)
            out.append(decoded)
            continue
        if c == quote:
            return Token(STRING, text[start:j + 1], start, j + 1, "".join(out))
        out.append(c)
        j += 1


def _escape(text: str, j: int) -> tuple[str, int]:
    """The character a backslash escape at `j` stands for, and the offset after it.

    An unknown escape keeps its backslash, so the decoded value never hides a character."""
    nxt = text[j + 1]
    if nxt == "u" and j + 6 <= len(text):
        try:
            return chr(int(text[j + 2:j + 6], 16)), j + 6
        except ValueError:
            pass
    return _ESCAPES.get(nxt, "\\" + nxt), j + 2


def _param(text: str, start: int) -> Token:
    """$name, $0 or $`odd name`; a lone "$" is punctuation."""
    j, n = start + 1, len(text)
    if j < n and text[j] == "`":
        sub = _backticked(text, j)
        return Token(PARAM, text[start:sub.end], start, sub.end, sub.value)
    while j < n and _ident_part(text[j]):
        j += 1
    if j > start + 1:
        return Token(PARAM, text[start:j], start, j, text[start + 1:j])
    return Token(PUNCT, "$", start, start + 1, "$")


def _number(text: str, start: int) -> Token:
    """12, 1_000, 0x1F, 0o17, 1.5, 1e3, 1.5e-3; "1..3" stays 1, "..", 3 (a range)."""
    j, n = start + 1, len(text)
    if text[start] == "0" and j < n and text[j] in "xXoO":
        j += 1
        while j < n and (text[j].isalnum() or text[j] == "_"):
            j += 1
    else:
        while j < n and (text[j].isdigit() or text[j] == "_"):
            j += 1
        if j + 1 < n and text[j] == "." and text[j + 1].isdigit():
            j = _digits_end(text, j + 1)
        if j < n and text[j] in "eE":
            k = j + 1
            if k < n and text[k] in "+-":
                k += 1
            if k < n and text[k].isdigit():
                j = _digits_end(text, k)
    return Token(NUMBER, text[start:j], start, j, text[start:j])


def _digits_end(text: str, j: int) -> int:
    while j < len(text) and text[j].isdigit():
        j += 1
    return j


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
