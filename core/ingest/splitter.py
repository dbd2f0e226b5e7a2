"""Split a contract into clauses at its section headings (DESIGN §3).

The splitter works on lines. Each line is tested against the heading styles contracts use
(Markdown `#`, "1." / "2.3" numbering, Article/Section/Clause keywords, Chinese 第X条 / 一、 /
（一）, lettered ALL-CAPS headings) and gets a *rank* (smaller = shallower). Candidates then go
through filters that reject what only looks like a heading: list items, sentences, amounts,
numbers that break the numbering sequence, and table-of-contents entries. The section level
is the shallowest rank that occurs more than once; everything above or before it is the
preamble, everything deeper stays inside its clause.
"""
from __future__ import annotations

import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field

from core.ingest.cleaning import normalize_text, remove_page_furniture


@dataclass
class ClauseDraft:
    position: int   # 1-based, document order
    title: str      # heading text without its number/marker
    text: str       # clause body (sub-headings included), without the heading line
    heading: str    # the heading as written, e.g. "## 3. Fees" or "第一条 服务可用性"
    level: int      # Markdown: number of '#'; otherwise depth among this document's heading kinds


@dataclass
class SplitResult:
    title: str | None
    preamble: str
    clauses: list[ClauseDraft]
    furniture_removed: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- heading parsing

_ZH_DIGITS = "一二三四五六七八九十百千零〇两"
_MD = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ZH_CHAPTER = re.compile(rf"^第\s*([{_ZH_DIGITS}\d]+)\s*(章|编|部分|节)\s*(.*)$")
_ZH_ARTICLE = re.compile(rf"^第\s*([{_ZH_DIGITS}\d]+)\s*条\s*(.*)$")
_ZH_LIST = re.compile(r"^([一二三四五六七八九十百]+)\s*[、.．]\s*(.*)$")
_ZH_SUB = re.compile(r"^[（(]\s*([一二三四五六七八九十]+)\s*[）)]\s*(.*)$")
_KEYWORD = re.compile(
    r"^(ARTICLE|Article|SECTION|Section|CLAUSE|Clause|PART|Part|CHAPTER|Chapter)\s+"
    r"(\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,7}|[ivxlc]{1,7}|[A-Z])(?![\w])\.?\s*(.*)$")
_NUMBERED = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)(?:([.)、])(?:\s+|(?=[A-Z\u4e00-\u9fff]))|\s+)(.+)$")
_LETTERED = re.compile(r"^([A-Z]|[IVXLC]{1,6})[.)]\s+(.+)$")
_SEPARATORS = re.compile(r"^[\s.:\-–—]+")
_TOC_LEADER = re.compile(r"(?:\.{3,}|…{2,}|·{3,}|\s\.\s\.\s)\s*\d{1,4}$|\t\d{1,4}$")
_TOC_ROW = re.compile(r"\s\d{1,3}(?:\.\d{1,3})+\.?\s+[A-Z]|\s\d{1,3}\.\s+[A-Z]{2}")  # "1.3 References 1.4 Interpretation"
_TOC_TRAILING_NUMBER = re.compile(r"\s\d{1,4}$")
_SENTENCE_WORDS = re.compile(
    r"\b(shall|will|may|must|agrees?|is|are|was|were|means|has|have)\b", re.IGNORECASE)
_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on",
                "or", "per", "the", "to", "upon", "with", "without", "vs", "&"}
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "inc", "ltd", "co", "no", "st", "vs", "corp",
                  "e.g", "i.e", "u.s", "jr", "sr", "art", "sec", "approx"}
_RANK = {"chapter": 10, "zh_section": 15, "letter": 15, "article": 20, "section": 20,
         "clause": 20, "num": 20, "zh_article": 20, "zh_list": 20, "zh_sub": 30}


@dataclass
class _Head:
    idx: int                 # line index
    kind: str
    rank: int
    number: tuple[int, ...] | None
    title: str
    inline: str              # body text that followed the title on the heading line
    heading: str
    indent: int = 0
    alt_numbers: tuple[tuple[int, ...], ...] = ()   # e.g. "I." may be letter 9 or roman 1
    numbered: bool = False   # a Markdown heading whose text carries a number ("## 3. Fees")


def _zh_number(s: str) -> int:
    if s.isdigit():
        return int(s)
    values = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
    total, current = 0, 0
    for ch in s:
        if ch in values:
            current = values[ch]
        elif ch in "十百千":
            unit = {"十": 10, "百": 100, "千": 1000}[ch]
            total += (current or 1) * unit
            current = 0
    return total + current


def _roman(s: str) -> int | None:
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    s = s.upper()
    if not s or any(c not in values for c in s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = values[a]
        total += -v if b != " " and values[b] > v else v
    return total


def _is_cjk_text(s: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", s))


def _words(s: str) -> list[str]:
    return re.findall(r"[A-Za-z][\w'’\-]*", s)


def _title_case(phrase: str) -> bool:
    """All significant words capitalized (or the phrase is ALL CAPS / Chinese)."""
    if _is_cjk_text(phrase):
        return True
    words = _words(phrase)
    return bool(words) and all(w[0].isupper() or w.lower() in _SMALL_WORDS for w in words)


def _sentence_like(s: str) -> bool:
    letters = re.sub(r"[^A-Za-z]", "", s)
    if letters and letters.isupper():
        return False
    return bool(_SENTENCE_WORDS.search(s))


def _starts_well(s: str) -> bool:
    return bool(s) and (s[0].isupper() or s[0].isdigit() or s[0] in "\"'“(["
                        or _is_cjk_text(s[0]))


def _clean_title(s: str) -> str:
    s = s.replace("**", "").replace("__", "").strip()
    s = re.sub(r"\s*[.:：。;；]+$", "", s)
    return s.strip(" -–—").strip()


def _is_title_line(rest: str) -> bool:
    """Could `rest` (the text after a number) be a whole heading title on its own line?"""
    if _is_cjk_text(rest):
        return len(rest) <= 40 and rest[-1] not in "，,；;、。"
    words = rest.split()
    if not _starts_well(rest) or len(rest) > 100 or len(words) > 14:
        return False
    if rest[-1] in ",;" or words[-1].lower() in {"and", "or", "the", "of", "to"}:
        return False
    if rest[-1] == ":" and len(words) > 6:
        return False
    return not (_sentence_like(rest) and not _title_case(rest))


def _split_inline(rest: str) -> tuple[str, str] | None:
    """'Termination. Either party may ...' -> ('Termination', 'Either party may ...')."""
    m = re.match(r"^(?P<t>[^.:;。：]{1,80}?)(?P<sep>[.:。：])\s+(?P<body>\S.*)$", rest)
    if not m:
        return None
    phrase = m.group("t").strip()
    words = phrase.split()
    if not phrase or len(words) > 10 or not _starts_well(phrase):
        return None
    if words[-1].lower().rstrip(".") in _ABBREVIATIONS or re.fullmatch(r"[A-Z]", words[-1]):
        return None
    if _sentence_like(phrase) or not (_title_case(phrase) or len(words) <= 3):
        return None
    return phrase, m.group("body").strip()


def _zh_title(rest: str) -> tuple[str, str]:
    """Chinese heading rest -> (title, inline body)."""
    rest = rest.strip(" :：.、")
    if not rest:
        return "", ""
    m = re.match(r"^([^：:。；;，,]{1,20})[：:]\s*(.+)$", rest)
    if m:
        return m.group(1).strip(), m.group(2).strip()
    if len(rest) <= 25 and rest[-1] not in "。；;":
        return rest, ""
    m = re.match(r"^(\S{1,20})\s+(.+)$", rest)
    if m and not re.search(r"[。，,；;]", m.group(1)):
        return m.group(1), m.group(2)
    return "", rest


def _plain_heading(line: str, idx: int = 0) -> _Head | None:
    """Recognize a non-Markdown heading line, or None."""
    indent = len(line) - len(line.lstrip())
    s = line.strip().replace("**", "").replace("__", "").strip()
    if not s or len(s) > 50000:
        return None

    for pattern, kind in ((_ZH_CHAPTER, "chapter"), (_ZH_ARTICLE, "zh_article"),
                          (_ZH_SUB, "zh_sub"), (_ZH_LIST, "zh_list")):
        m = pattern.match(s)
        if not m:
            continue
        if kind == "chapter" and m.group(2) == "节":
            kind = "zh_section"
        rest = m.groups()[-1]
        if rest and not re.match(r"^[\s:：.、]|[\u4e00-\u9fff]", rest) and kind != "zh_sub":
            return None  # "第5条款" etc.
        title, inline = _zh_title(rest)
        if kind in ("zh_list", "zh_sub") and not title:
            return None  # "一、" lists are headings only when they carry a short title
        number = (_zh_number(m.group(1)),)
        marker = s[: len(s) - len(rest)].strip() if rest else s
        return _Head(idx, kind, _RANK[kind], number, _clean_title(title), inline,
                     (marker + " " + title).strip() if inline else s, indent)

    m = _KEYWORD.match(s)
    if m:
        word, num, rest = m.group(1).lower(), m.group(2), _SEPARATORS.sub("", m.group(3))
        kind = "chapter" if word in ("part", "chapter") else word
        if num.replace(".", "").isdigit():
            number = tuple(int(p) for p in num.split("."))
        else:
            number = (_roman(num) or (ord(num.upper()) - 64),)
        rank = _RANK[kind] + 10 * (len(number) - 1)
        title, inline = rest, ""
        split = _split_inline(rest) if rest and not _is_cjk_text(rest) else None
        if split:
            title, inline = split
        elif rest and not _is_title_line(rest):
            if _is_cjk_text(rest):
                title, inline = _zh_title(rest)
            else:
                split = _split_inline(rest)
                if not split:
                    return None  # "Section 4.2 of the Agreement is amended ..."
                title, inline = split
        head = s if not inline else s[: len(s) - len(inline)].strip()
        return _Head(idx, kind, rank, number, _clean_title(title), inline, head, indent)

    m = _NUMBERED.match(s)
    if m:
        num, terminator, rest = m.group(1), m.group(2), m.group(3).strip()
        parts = tuple(int(p) for p in num.split("."))
        if len(parts) == 1 and not terminator:
            return None  # "30 days", "2024 revenue": a bare number needs "1." or "1)"
        if parts[0] == 0 or parts[0] > 200 or any(p > 200 for p in parts):
            return None
        if re.match(r"^[%$€£¥]|^(?:am|pm|a\.m|p\.m)\b", rest, re.IGNORECASE):
            return None
        title, inline = rest, ""
        split = None if _is_cjk_text(rest[:1]) else _split_inline(rest)
        if split:
            title, inline = split   # "7. Termination. Either party may ..."
        elif _is_cjk_text(rest[:1]) or (_is_cjk_text(rest) and not re.match(r"[A-Za-z]", rest)):
            if len(rest) > 40 or rest[-1] in "，,；;、。":
                z_title, z_inline = _zh_title(rest)
                if not z_title or not z_inline:
                    return None
                title, inline = z_title, z_inline
        elif not _is_title_line(rest):
            return None
        head = s if not inline else s[: len(s) - len(inline)].strip()
        return _Head(idx, "num", _RANK["num"] + 10 * (len(parts) - 1), parts,
                     _clean_title(title), inline, head, indent)

    m = _LETTERED.match(s)
    if m:
        marker, rest = m.group(1), m.group(2).strip()
        letters = re.sub(r"[^A-Za-z]", "", rest)
        if len(letters) < 3 or not letters.isupper() or len(rest) > 80 or rest[-1] in ",;":
            return None
        options = []
        if len(marker) == 1:
            options.append((ord(marker) - 64,))
        if _roman(marker):
            options.append((_roman(marker),))
        return _Head(idx, "letter", _RANK["letter"], options[0], _clean_title(rest), "", s,
                     indent, tuple(options))
    return None


_NOT_CAPS_HEADINGS = re.compile(r"^(IN WITNESS|WITNESS|WHEREAS|NOW,? THEREFORE|BY:|NAME:|TITLE:|DATE:)")


def _caps_heading(line: str, idx: int) -> _Head | None:
    """An unnumbered ALL-CAPS line ("PRODUCTS, QUANTITY, PRICE"), for unnumbered contracts."""
    s = line.strip().replace("**", "").rstrip(":").strip()
    letters = re.sub(r"[^A-Za-z]", "", s)
    if (len(letters) < 4 or not letters.isupper() or len(s) > 60 or len(s.split()) > 8
            or s[-1] in ".,;" or _NOT_CAPS_HEADINGS.match(s) or re.search(r"\d{2,}", s)):
        return None
    return _Head(idx, "caps", _RANK["article"], None, _clean_title(s), "", line.strip())


def _markdown_heading(line: str, idx: int = 0) -> _Head | None:
    m = _MD.match(line)
    if not m or not m.group(2).strip():
        return None
    inner = m.group(2).replace("**", "").replace("__", "").strip()
    plain = _plain_heading(inner)
    # "## 3. Fees" is one heading titled "Fees"; "##### Clause 1" has no words (title from body)
    title = inner
    if plain:
        title = plain.title if not plain.inline else f"{plain.title}. {plain.inline}"
    elif m_num := re.match(r"^\d{1,3}(?:\.\d{1,3})*\s+(\S.*)$", inner):
        title = m_num.group(1)   # "## 1 Services": in a heading a bare number is numbering
        plain = m_num
    return _Head(idx, "md", 10 * len(m.group(1)), None, _clean_title(title), "", line.strip(),
                 numbered=plain is not None)


def looks_like_heading(line: str) -> bool:
    """True when a line would be taken as a section heading (used by furniture removal)."""
    return _markdown_heading(line) is not None or _plain_heading(line) is not None


# --------------------------------------------------------------------------- filters

def _key(head: _Head) -> str:
    return re.sub(r"[\W_]+", " ", head.heading.lstrip("#").lower()).strip()


def _drop_toc(heads: list[_Head], lines: list[str]) -> list[_Head]:
    """Remove table-of-contents entries so they don't become empty clauses.

    A TOC entry is a heading line ending in a page number (dot leaders always; a bare
    trailing number only when several heading lines do it), or a heading whose body is
    empty and which occurs again later in the document.
    """
    def body_empty(i: int) -> bool:
        h = heads[i]
        if h.inline:
            return False
        end = heads[i + 1].idx if i + 1 < len(heads) else len(lines)
        # a line listing several numbered headings ("4.1 Fees 4.2 Taxes") is contents too
        return not any(lines[j].strip() and not len(_TOC_ROW.findall(" " + lines[j])) >= 2
                       for j in range(h.idx + 1, end))

    empty = [body_empty(i) for i in range(len(heads))]
    in_run = set()   # four or more heading lines in a row with no text between: a contents list
    i = 0
    while i < len(heads):
        j = i
        while j < len(heads) and empty[j]:
            j += 1
        if j - i >= 4:
            in_run.update(range(i, j))
        i = j + 1
    trailing = [h for h in heads if not h.inline and re.search(r"[^\W\d_]{2}", h.title)
                and _TOC_TRAILING_NUMBER.search(h.title)]
    toc = set()
    for i, h in enumerate(heads):
        line = lines[h.idx].rstrip()
        row = h.title + (" " + h.inline if len(h.inline) < 120 else "")
        if i in in_run or _TOC_LEADER.search(line) or _TOC_ROW.search(" " + row) or (len(trailing) >= 3 and h in trailing and body_empty(i)):
            toc.add(i)
        elif body_empty(i) and any(_key(o) == _key(h) for o in heads[i + 1:]):
            toc.add(i)
    return [h for i, h in enumerate(heads) if i not in toc]


def _small_step(prev: tuple[int, ...], cur: tuple[int, ...]) -> bool:
    """cur may follow prev in one numbering sequence (gaps of up to 2 numbers allowed)."""
    if len(prev) != len(cur) or cur <= prev:
        return False
    k = next(i for i, (a, b) in enumerate(zip(prev, cur)) if a != b)
    return 1 <= cur[k] - prev[k] <= 3 and all(c <= 2 for c in cur[k + 1:])


def _enforce_sequence(heads: list[_Head], lines: list[str]) -> list[_Head]:
    """Keep weak (plain-numbered) headings only where they continue their numbering.

    A list inside a clause restarts at 1, a year or amount jumps: neither continues the
    sequence of the headings at its rank. A numbered line right after a line ending in ':'
    opens a list, so it and the items that follow it are not headings.
    """
    weak = {"num", "letter", "zh_list", "zh_sub"}
    last: dict[int, tuple[int, ...]] = {}
    list_mode: dict[int, tuple[int, int]] = {}   # rank -> (last item value, line index)
    kept = []
    for h in heads:
        if h.kind not in weak:
            kept.append(h)
            for r in [r for r in last if r > h.rank]:
                del last[r]
            if h.number:
                last[h.rank] = h.number
            continue
        prev_line = next((lines[j].strip() for j in range(h.idx - 1, -1, -1)
                          if lines[j].strip()), "")
        next_line = next((lines[j].strip() for j in range(h.idx + 1, len(lines))
                          if lines[j].strip()), "")
        # a heading introduces a paragraph; a list item is followed by the next item
        has_paragraph = bool(h.inline) or (len(next_line) > 80 and not looks_like_heading(next_line))
        options = h.alt_numbers or (h.number,)
        if prev_line.endswith((":", "：")) and not has_paragraph and not looks_like_heading(prev_line):
            list_mode[h.rank] = (options[0][-1], h.idx)
            continue
        if h.rank in list_mode:
            value, at = list_mode[h.rank]
            if options[0][-1] == value + 1 and h.idx - at <= 6 and not has_paragraph:
                list_mode[h.rank] = (value + 1, h.idx)
                continue
            del list_mode[h.rank]
        prev = last.get(h.rank)
        parent = max((r for r in last if r < h.rank), default=None)
        ok_number = None
        for number in options:
            if prev is None:
                if parent is not None and len(number) > 1 and len(last[parent]) == len(number) - 1:
                    if number[:-1] != last[parent] or number[-1] > 3:
                        continue
                ok_number = number
            elif _small_step(prev, number):
                ok_number = number
            if ok_number:
                break
        if ok_number is None:
            continue
        h.number = ok_number
        kept.append(h)
        last[h.rank] = ok_number
        for r in [r for r in last if r > h.rank]:
            del last[r]
    return kept


def _detect_headings(lines: list[str]) -> tuple[list[_Head], bool]:
    """All accepted headings, and whether the document uses Markdown headings."""
    md, plain = [], []
    in_fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        head = _markdown_heading(line, i)
        if head:
            md.append(head)
            continue
        head = _plain_heading(line, i)
        if head:
            plain.append(head)
    if len(md) >= 2:  # a Markdown document: its '#' headings are the structure
        return _drop_toc(md, lines), True
    if len(plain) < 2:  # no numbering at all: fall back to short ALL-CAPS lines
        plain = [h for i, line in enumerate(lines) if (h := _caps_heading(line, i))]
    for h in md:
        h.rank = 0     # a lone Markdown heading sits above any numbering
    if any(h.kind == "article" for h in plain):
        for h in plain:
            if h.kind == "section":
                h.rank += 10   # "Section 1.01" under "ARTICLE I"
    singles = [h.indent for h in plain if h.kind == "num" and len(h.number) == 1]
    if singles:
        base = min(singles)
        for h in plain:
            if h.kind == "num" and len(h.number) == 1 and h.indent > base + 1:
                h.rank += 10   # an indented "1." is a nested list item
    heads = sorted(md + plain, key=lambda h: h.idx)
    heads = _drop_toc(heads, lines)
    return _enforce_sequence(heads, lines), False


# --------------------------------------------------------------------------- splitting

def _fallback_title(text: str) -> str:
    """First sentence fragment of the body, cut short: used when a heading has no words."""
    for line in text.split("\n"):
        s = re.sub(r"^\s*(?:#+\s*|[-*+]\s+|\(?[a-z0-9]{1,3}[.)]\s+)", "", line)
        s = s.replace("**", "").replace("__", "").strip()
        if not s:
            continue
        s = re.split(r"(?<=[^\s.])[.;:!?](?:\s|$)|[。；：！？]", s)[0].strip()
        if _is_cjk_text(s):
            return s[:20] + ("…" if len(s) > 20 else "")
        if len(s) > 60:
            s = s[:60].rsplit(" ", 1)[0] + "…"
        return s
    return ""


def _body(lines: list[str]) -> str:
    return textwrap.dedent("\n".join(lines)).strip("\n").strip()


# EDGAR text often holds a whole page on one line, paragraphs separated by runs of spaces.
_FOLDED_HEADING = re.compile(
    r"[ \t]{3,}(?=(?:\d{1,3}(?:\.\d{1,3})*[.)]?[ \t]+[A-Z\"“']|(?:ARTICLE|Article|SECTION|Section)"
    r"[ \t]+[\dIVXL]|第[一二三四五六七八九十百\d]+[条章]))")


# ... or runs whole sections together: "agree as follows: 1. Services. The Company ...".
_RUN_IN_HEADING = re.compile(
    r"(?<=[.:;]) (?=\d{1,2}(?:\.\d{1,2})*[.)]? [A-Z][A-Za-z&,'/ -]{1,50}[.:] [A-Z\"“])")


def _unfold(text: str) -> str:
    """Break very long lines before what looks like a heading, so headings get own lines.

    Only lines far longer than a paragraph are touched; the heading filters still decide
    whether each piece starts a section.
    """
    out = []
    for line in text.splitlines():
        if len(line) > 300:
            line = _FOLDED_HEADING.sub("\n", line)
        if len(line) > 1500:
            line = _RUN_IN_HEADING.sub("\n", line)
        out.append(line)
    return "\n".join(out)


def split_contract(text: str) -> SplitResult:
    """Clean a contract and split it into clauses; see the module docstring for the rules."""
    cleaned, furniture = remove_page_furniture(normalize_text(_unfold(text)))
    lines = cleaned.split("\n")
    heads, is_markdown = _detect_headings(lines)
    if not heads:
        return SplitResult(None, _body(lines), [], furniture)

    # The first heading is the document title when nothing precedes it and it sits above
    # the rest, or (e.g. "# Title" then "## Introduction" ... "# Appendix A") when it is
    # directly followed by a deeper heading.
    first, others = heads[0], heads[1:]
    at_start = not any(lines[j].strip() for j in range(first.idx))
    title_head = None
    if at_start and not first.inline:
        shallowest = min((h.rank for h in others), default=first.rank + 1)
        no_body = bool(others) and not any(
            lines[j].strip() for j in range(first.idx + 1, others[0].idx))
        unnumbered = first.number is None and not first.numbered
        if first.rank < shallowest or (unnumbered and first.rank == shallowest and no_body
                                       and others[0].rank > first.rank):
            title_head = first
    sections = [h for h in heads if h is not title_head]
    if not sections:
        preamble = _body([ln for i, ln in enumerate(lines) if i != title_head.idx])
        return SplitResult(title_head.title or None, preamble, [], furniture)

    def own_text(i: int) -> int:
        end = sections[i + 1].idx if i + 1 < len(sections) else len(lines)
        return len(sections[i].inline) + sum(len(lines[j].strip()) for j in range(sections[i].idx + 1, end))

    counts = Counter(h.rank for h in sections)
    level = None
    for rank in sorted(r for r, c in counts.items() if c >= 2):
        first_at = next(i for i, h in enumerate(sections) if h.rank == rank)
        # A level whose first heading comes after several real sections (e.g. "# Appendix A"
        # after "## Introduction" ...) would push them all into the preamble: go deeper.
        if sum(own_text(i) >= 200 for i in range(first_at)) < 2:
            level = rank
            break
    if level is None:
        level = min(counts)
    start = next(i for i, h in enumerate(sections) if h.rank == level)
    bounds = [h for h in sections[start:] if h.rank <= level]

    ranks = sorted({h.rank for h in sections})
    preamble_lines = [ln for i, ln in enumerate(lines[: bounds[0].idx])
                      if not (title_head and i == title_head.idx)]
    clauses: list[ClauseDraft] = []
    for n, h in enumerate(bounds):
        end = bounds[n + 1].idx if n + 1 < len(bounds) else len(lines)
        body = _body(([h.inline] if h.inline else []) + lines[h.idx + 1: end])
        title = h.title or _fallback_title(body)
        if not title and not body:
            continue
        level_out = h.rank // 10 if is_markdown else ranks.index(h.rank) + 1
        clauses.append(ClauseDraft(0, title, body, h.heading, level_out))

    # An empty section whose title comes back later is a leftover contents entry.
    clauses = [c for i, c in enumerate(clauses)
               if c.text or not any(o.title.lower() == c.title.lower() for o in clauses[i + 1:])]
    for i, c in enumerate(clauses, start=1):
        c.position = i
    doc_title = title_head.title if title_head else _guess_title(preamble_lines)
    return SplitResult(doc_title or None, _body(preamble_lines), clauses, furniture)


def _guess_title(preamble: list[str]) -> str | None:
    """Without a title heading, a short first preamble line without a full stop is the title."""
    first = next((ln.strip() for ln in preamble if ln.strip()), "")
    first = first.replace("**", "").strip()
    if first and len(first) <= 80 and len(first.split()) <= 10 and not first.endswith((".", ",", ";", ":", "。")):
        return first
    return None
