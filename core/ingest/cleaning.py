"""Text cleaning for contracts before they are split into clauses.

Contracts arrive from Word exports, PDFs and EDGAR filings: full-width characters, curly
quotes, non-breaking spaces and running heads/footers ("Page 2 of 5", "Confidential") would
otherwise end up in clause text, embeddings and the full-text index, and make the same
clause look different in two agreements.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from rapidfuzz import fuzz

from core.ingest.drafts import ClauseDraft
from core.ingest.headings import looks_like_heading
from core.words import known_words

# --------------------------------------------------------------------------- normalization

_SPACE_LIKE = dict.fromkeys(
    map(ord, "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
             "\u200a\u202f\u205f\u3000\t\v"), " ")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_QUOTES = {ord(c): "'" for c in "\u2018\u2019\u201a\u201b\u2032\uff07"}
_QUOTES.update({ord(c): '"' for c in "\u201c\u201d\u201e\u201f\u2033\uff02"})
_LIGATURES = {ord("\ufb00"): "ff", ord("\ufb01"): "fi", ord("\ufb02"): "fl",
              ord("\ufb03"): "ffi", ord("\ufb04"): "ffl"}
_TABLE = str.maketrans({**_INVISIBLE, **_SPACE_LIKE, **_QUOTES, **_LIGATURES})
# Full-width punctuation that is normal in Chinese prose: kept next to CJK text, converted
# to ASCII only between non-CJK characters (e.g. "Fees（USD）" -> "Fees(USD)").
_CJK_PUNCT = set("，：；！？（）")


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x3000 <= o <= 0x303F
            or 0xFF00 <= o <= 0xFFEF or 0x3040 <= o <= 0x30FF or 0xAC00 <= o <= 0xD7AF
            or 0x20000 <= o <= 0x2FFFF)


def _cjk_neighbour(ch: str) -> bool:
    """CJK context, not counting full-width ASCII forms (those become ASCII themselves)."""
    return bool(ch) and _is_cjk(ch) and not 0xFF01 <= ord(ch) <= 0xFF5E


_FULLWIDTH = re.compile(r"[\uff01-\uff5e]")


def _halfwidth(line: str) -> str:
    if not _FULLWIDTH.search(line):
        return line
    out = []
    for i, ch in enumerate(line):
        o = ord(ch)
        if 0xFF01 <= o <= 0xFF5E:
            if ch in _CJK_PUNCT:
                prev = line[i - 1] if i else ""
                nxt = line[i + 1] if i + 1 < len(line) else ""
                if _cjk_neighbour(prev) or _cjk_neighbour(nxt) or not (prev or nxt):
                    out.append(ch)
                    continue
            out.append(chr(o - 0xFEE0))
        else:
            out.append(ch)
    return "".join(out)


def normalize_text(text: str) -> str:
    """Make equivalent spellings of the same text identical, keeping the line structure.

    Leading indentation is kept (it carries list nesting in Markdown); runs of spaces
    inside a line collapse to one; form feeds stay on a line of their own so that
    `remove_page_furniture` can see page boundaries.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n\n").replace("\x85", "\n")
    text = text.replace("\f", "\n\f\n")
    text = text.translate(_TABLE)
    lines = []
    for raw in text.split("\n"):
        line = _halfwidth(raw)
        indent = len(line) - len(line.lstrip(" "))
        body = re.sub(r" {2,}", " ", line.strip(" "))
        lines.append((" " * indent + body) if body else "")
    out = "\n".join(lines)
    out = re.sub(r"\n{3,}", "\n\n", out)  # at most one blank line in a row
    return out.strip("\n") + ("\n" if out.strip() else "")


# --------------------------------------------------------------------------- broken words

# "termi-" at a line's end, "nation of ..." on the next (after at most one blank line, where a page
# break was): text pulled out of a PDF or typeset filing breaks long words so
_BROKEN_WORD = re.compile(r"(?<![\w-])([A-Za-z]+)-[ \t]*\n(\s*\n)?[ \t]*([a-z]+)(?![\w-])(\S*)[ \t]*")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


def join_broken_words(text: str) -> str:
    """Join a word that a line end broke with a hyphen, and keep a hyphenated compound's hyphen.

    The document itself decides first (it spells "termination" or "sub-processor" elsewhere), then
    the word list: a join that makes a known word is taken; halves that are both words
    ("non" / "exclusive") keep their hyphen; anything else ("indemni" / "fication") is joined.
    The joined word stays on the first line, so the line structure the splitter reads is kept.
    """
    if "-" not in text:
        return text
    seen = Counter(w.lower() for w in _WORD.findall(text))
    known = known_words()

    def joined(m: re.Match) -> str:
        left, right = m.group(1), m.group(3)
        whole, compound = (left + right).lower(), f"{left}-{right}".lower()
        if seen[whole] != seen[compound]:
            keep = seen[compound] > seen[whole]
        elif whole in known:
            keep = False
        else:
            keep = left.lower() in known and right in known
        rest = m.string[m.end():m.end() + 1]
        line_end = "" if rest in ("", "\n") else "\n" + (m.group(2) or "")
        return (f"{left}-{right}" if keep else left + right) + m.group(4) + line_end

    return _BROKEN_WORD.sub(joined, text)


# --------------------------------------------------------------------------- page furniture

_PAGE_NUMBER = re.compile(
    r"""^(?:
        (?:page|p\.|pg\.?)\s*\d+(?:\s*(?:of|/)\s*\d+)?       # Page 2 / Page 2 of 5 / p. 3
      | \d+\s*(?:of|/)\s*\d+                                   # 2 of 5, 2/5
      | [-–—]\s*\d+\s*[-–—]                                    # - 3 -
      | [\[(]\s*\d+\s*[\])]                                    # [3] (3) alone
      | .{0,40}\s(?:page|p\.)\s*\d+\s*of\s*\d+                   # 1/14199 Page 13 of 14
      | 第\s*\d+\s*页(?:\s*[,，/]?\s*共\s*\d+\s*页)?            # 第 2 页 共 5 页
      | 共\s*\d+\s*页\s*[,，/]?\s*第\s*\d+\s*页                 # 共 5 页 第 2 页
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
_BARE_NUMBER = re.compile(r"^\d{1,4}$")
# "[***]" alone on a line: a redaction marker (EDGAR confidential treatment) or a "* * *" rule;
# inside a sentence the marker stays, it tells the reader that something was left out
_MARKER_LINE = re.compile(r"^[\[(]?\s*\*[\s*]*[\])]?$")
_LIST_OR_TABLE = re.compile(r"^(?:[|>]|[-*+]\s|\(?[0-9a-z]{1,3}[.)]\s|#)", re.IGNORECASE)


def _furniture_key(line: str) -> str:
    """Running heads differ only in their page number: compare them with digits masked."""
    return re.sub(r"\d+", "#", line.strip().lower())


def _looks_like_running_line(line: str) -> bool:
    """A repeated line is furniture only if it is short and not structure or prose."""
    s = line.strip()
    if len(s) > 90 or len(s.split()) > 14 or len(re.findall(r"[^\W\d_]", s)) < 2:
        return False
    if s[-1] in ",;:" or _LIST_OR_TABLE.match(s):
        return False
    return not looks_like_heading(s)


def remove_page_furniture(text: str) -> tuple[str, list[str]]:
    """Drop page numbers, running heads/footers, "[***]" lines and form feeds; return the removed lines.

    A line counts as a running head/footer when (with digits masked) it occurs at least three
    times, spread over the document, and is short and not a heading, list item or table row.
    Page-number lines ("Page 2 of 5", "- 3 -", "第 2 页 共 5 页") go wherever they are; bare
    numbers only when there are several of them or they sit at a page break.
    """
    lines = text.split("\n")
    n = len(lines)
    stripped = [ln.strip() for ln in lines]
    remove = [False] * n

    # Lines adjacent to a form feed are page edges.
    edge = [False] * n
    for i, s in enumerate(stripped):
        if s == "\f":
            remove[i] = True
            for step in (-1, 1):
                j = i + step
                while 0 <= j < n and not stripped[j]:
                    j += step
                if 0 <= j < n:
                    edge[j] = True

    bare = [i for i, s in enumerate(stripped) if _BARE_NUMBER.match(s)]
    for i, s in enumerate(stripped):
        if not s or remove[i]:
            continue
        if _PAGE_NUMBER.match(s) or _MARKER_LINE.match(s):
            remove[i] = True
        elif _BARE_NUMBER.match(s) and (len(bare) >= 2 or edge[i]):
            # a number alone between blank lines / at a page edge, not a list marker
            prev_blank = i == 0 or not stripped[i - 1]
            next_blank = i + 1 >= n or not stripped[i + 1]
            if edge[i] or (prev_blank or next_blank):
                remove[i] = True

    keys = Counter(_furniture_key(s) for s in stripped if s)
    positions: dict[str, list[int]] = {}
    for i, s in enumerate(stripped):
        if s and not remove[i]:
            positions.setdefault(_furniture_key(s), []).append(i)
    # Without page evidence (form feeds, page numbers) a line must repeat more often: three
    # copies of an address block in a Markdown contract are content, not a running head.
    page_evidence = (any(s == "\f" for s in stripped)
                     or sum(r and not _MARKER_LINE.match(s) for r, s in zip(remove, stripped)) >= 2)
    min_repeats = 3 if page_evidence else 4

    def isolated(i: int) -> bool:
        """Running heads stand alone; a repeated address or table line has neighbours."""
        return all(not (0 <= j < n) or not stripped[j] or remove[j] or stripped[j] == "\f"
                   for j in (i - 1, i + 1))

    for key, idx in positions.items():
        spread = idx[-1] - idx[0] >= max(10, n // 5)
        alone = sum(isolated(i) or edge[i] for i in idx) * 3 >= 2 * len(idx)
        candidate = keys[key] >= min_repeats and spread and alone
        edge_pair = keys[key] >= 2 and sum(edge[i] for i in idx) >= 2
        if (candidate or edge_pair) and _looks_like_running_line(stripped[idx[0]]):
            for i in idx:
                remove[i] = True

    removed = [stripped[i] for i in range(n) if remove[i] and stripped[i] != "\f"]
    kept = [ln for i, ln in enumerate(lines) if not remove[i]]
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(kept))
    return out, removed


# --------------------------------------------------------------------------- dedupe

def _dedupe_key(draft: ClauseDraft) -> str:
    return re.sub(r"\s+", " ", f"{draft.title}\n{draft.text}").strip().lower()


def dedupe_clauses(drafts: list[ClauseDraft], threshold: float = 0.95
                   ) -> tuple[list[ClauseDraft], list[tuple[int, int, float]]]:
    """Drop clauses that repeat an earlier clause of the same agreement (title and text).

    Repeated clauses come from pasted-in duplicates and double exports; they would show up
    twice in every search. Returns the kept clauses renumbered 1..n and, per dropped
    clause, (kept_position, dropped_position, similarity) with the original positions.
    """
    kept: list[tuple[ClauseDraft, str]] = []
    dropped: list[tuple[int, int, float]] = []
    for draft in drafts:
        key = _dedupe_key(draft)
        match = None
        for other, other_key in kept:
            shorter, longer = sorted((len(key), len(other_key)))
            if longer and 2 * shorter / (shorter + longer) < threshold:
                continue  # lengths alone rule out the threshold; skip the costly ratio
            score = fuzz.ratio(key, other_key, score_cutoff=threshold * 100) / 100
            if key == other_key:
                score = 1.0
            if score >= threshold:
                match = (other.position, draft.position, round(score, 4))
                break
        if match:
            dropped.append(match)
        else:
            kept.append((draft, key))
    renumbered = [replace(d, position=i) for i, (d, _) in enumerate(kept, start=1)]
    return renumbered, dropped
