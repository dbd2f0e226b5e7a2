"""Split a contract into clauses at its section headings (format: docs/DATA_MODEL.md).

The splitter works on lines. `core.ingest.headings` tests each line against the heading
styles contracts use and gives it a *rank* (smaller = shallower). Candidates then go
through filters that reject what only looks like a heading: list items, sentences, amounts,
numbers that break the numbering sequence, and table-of-contents entries. The section level
is the shallowest rank that occurs more than once; everything above or before it is the
preamble, everything deeper stays inside its clause.
"""
from __future__ import annotations

import re
import textwrap
from collections import Counter

from core.ingest.cleaning import join_broken_words, normalize_text, remove_page_furniture
from core.ingest.drafts import ClauseDraft, SplitResult
from core.ingest.headings import (Head, caps_heading, exhibit_heading, is_cjk_text,
                                  looks_like_heading, markdown_heading, plain_heading)

# ClauseDraft, SplitResult and looks_like_heading are re-exported: callers import them from here
__all__ = ["ClauseDraft", "SplitResult", "looks_like_heading", "split_contract"]

_TOC_LEADER = re.compile(r"(?:\.{3,}|…{2,}|·{3,}|\s\.\s\.\s)\s*\d{1,4}$|\t\d{1,4}$")
_TOC_ROW = re.compile(r"\s\d{1,3}(?:\.\d{1,3})+\.?\s+[A-Z]|\s\d{1,3}\.\s+[A-Z]{2}")  # "1.3 References 1.4 Interpretation"
_TOC_TRAILING_NUMBER = re.compile(r"\s\d{1,4}$")

# --------------------------------------------------------------------------- filters

def _key(head: Head) -> str:
    return re.sub(r"[\W_]+", " ", head.heading.lstrip("#").lower()).strip()


# the end of a wrapped contents entry: a few title words (no sentence) and its page number
_TOC_WRAPPED_TAIL = re.compile(r"^(?:[A-Z][\w'’,;&()-]*|and|or|of|the|to|for|in|on|a|an)"
                               r"(?:\s+(?:[A-Z][\w'’,;&()-]*|and|or|of|the|to|for|in|on|a|an)){0,7}"
                               r"(?:\s*\.{2,})?\s+\d{1,3}$")


def _drop_toc(heads: list[Head], lines: list[str]) -> list[Head]:
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
        # a line listing several numbered headings ("4.1 Fees 4.2 Taxes") is contents too, and so is
        # the rest of an entry that hard wrapping carried to the next line ("Protection ..... 23")
        return not any(lines[j].strip() and not len(_TOC_ROW.findall(" " + lines[j])) >= 2
                       and not _TOC_WRAPPED_TAIL.match(lines[j].strip())
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
    def wrapped_entry(i: int) -> bool:
        """The heading's only body line is the wrapped end of its title and its page number."""
        end = heads[i + 1].idx if i + 1 < len(heads) else len(lines)
        body = [lines[j].strip() for j in range(heads[i].idx + 1, end) if lines[j].strip()]
        return len(body) == 1 and bool(_TOC_WRAPPED_TAIL.match(body[0]))

    trailing = [h for i, h in enumerate(heads) if not h.inline and re.search(r"[^\W\d_]{2}", h.title)
                and (_TOC_TRAILING_NUMBER.search(h.title) or wrapped_entry(i))]
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


def _continued_first(h: Head, heads: list[Head], options: tuple) -> tuple:
    """The readings of an ambiguous first number ("I." is letter 9 or roman 1), the one that the
    next heading of its kind continues first."""
    nxt = next((o for o in heads if o.idx > h.idx and o.kind == h.kind and o.rank == h.rank), None)
    if nxt is None:
        return options
    follows = [o for o in options if any(_small_step(o, n) for n in (nxt.alt_numbers or (nxt.number,)))]
    return tuple(follows) + tuple(o for o in options if o not in follows)


def _enforce_sequence(heads: list[Head], lines: list[str]) -> list[Head]:
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
        # a heading introduces a paragraph; a list item is followed by the next item. A long next
        # line counts as the paragraph even when it opens with a sub-number ("1. Governance." over
        # "1.1 Joint Steering Committee. The parties ..."), and a lead-in ending in a colon opens
        # a list even when it is numbered itself ("3. The Company's Obligations:")
        has_paragraph = bool(h.inline) or len(next_line) > 80
        options = h.alt_numbers or (h.number,)
        if prev_line.endswith((":", "：")) and not has_paragraph:
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
        if prev is None and len(options) > 1:
            options = _continued_first(h, heads, options)
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


def _starts_late(heads: list[Head], lines: list[str]) -> bool:
    """More than a quarter of the text comes before the first heading."""
    before = sum(len(ln.strip()) for ln in lines[:heads[0].idx])
    return 4 * before > sum(len(ln.strip()) for ln in lines)


def _markdown_only_late(md: list[Head], plain: list[Head], lines: list[str]) -> bool:
    """Markdown headings that appear only after a quarter of the text, under plain numbered
    headings that start earlier: "/s/ Jane Roe" over a "------" signature rule in a hard-wrapped
    filing reads as a setext heading, but the numbering is the structure."""
    plain = [h for h in plain if not h.bare]
    return len(plain) >= 2 and plain[0].idx < md[0].idx and _starts_late(md, lines)


def _nest_indented(singles: list[Head]) -> None:
    """An indented "1." is a nested list item, unless it carries on the top-level numbering
    ("2." at the margin, "3." indented): unfolded EDGAR pages indent their headings unevenly."""
    base = min(h.indent for h in singles)
    prev_nested, last_top = False, None
    for h in singles:
        continues_top = not prev_nested and last_top is not None and h.number[0] == last_top + 1
        nested = h.indent > base + 1 and not continues_top
        if nested:
            h.rank += 10
        else:
            last_top = h.number[0]
        prev_nested = nested


def _detect_headings(lines: list[str]) -> tuple[list[Head], bool]:
    """All accepted headings, and whether the document uses Markdown headings."""
    md, plain = [], []
    in_fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        head = markdown_heading(line, i)
        if head:
            md.append(head)
            continue
        head = plain_heading(line, i)
        if head:
            plain.append(head)
    if len(md) >= 2:
        if not _markdown_only_late(md, plain, lines):  # a Markdown document: its '#' headings are the structure
            return _drop_toc(md, lines), True
        md = []   # underlined signature lines at the end of a numbered plain-text contract
    if sum(h.bare for h in plain) < 2:   # "12 Governing Law" style only when used throughout
        plain = [h for h in plain if not h.bare]
    if sum(h.kind != "letter" for h in plain) >= 2:   # "A. Hardware" is a list item under numbered sections
        plain = [h for h in plain if h.kind != "letter" or h.title.isupper()]
    if len(plain) < 2 or _starts_late(plain, lines):
        # no numbering at all, or numbering only in a late attachment under ALL-CAPS sections:
        # the short ALL-CAPS lines are the structure
        caps = [h for i, line in enumerate(lines) if (h := caps_heading(line, i))]
        if len(plain) < 2 or sum(h.idx < plain[0].idx for h in caps) >= max(5, len(plain)):
            plain = caps
    for h in md:
        h.rank = 0     # a lone Markdown heading sits above any numbering
    if any(h.kind == "article" for h in plain):
        for h in plain:
            if h.kind == "section":
                h.rank += 10   # "Section 1.01" under "ARTICLE I"
    singles = [h for h in plain if h.kind == "num" and len(h.number) == 1]
    # indentation means nesting only where the numbering restarts under it; one sequence
    # whose headings are indented unevenly (EDGAR exports) is one level
    if singles and any(b.number <= a.number for a, b in zip(singles, singles[1:])):
        _nest_indented(singles)
    heads = sorted(md + plain, key=lambda h: h.idx)
    heads = _enforce_sequence(_drop_toc(heads, lines), lines)
    if sum(h.bare for h in heads) < 2:   # the one "14 Quayside, Newcastle" left of a letter's address
        heads = [h for h in heads if not h.bare]
    return heads, False


# --------------------------------------------------------------------------- splitting

def _fallback_title(text: str) -> str:
    """First sentence fragment of the body, cut short: used when a heading has no words."""
    for line in text.split("\n"):
        s = re.sub(r"^\s*(?:#+\s*|[-*+]\s+|\(?[a-z0-9]{1,3}[.)]\s+)", "", line)
        s = s.replace("**", "").replace("__", "").strip()
        if not s:
            continue
        s = re.split(r"(?<=[^\s.])[.;:!?](?:\s|$)|[。；：！？]", s)[0].strip()
        if is_cjk_text(s):
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
# ... or with single spaces: "agree as follows: 1. Services. The Company ...", "... thereto.
# 12.3 Governing Law. This ...", "5. SALES AND MARKETING 5.1 The Company shall ...".
_MID_LINE_NUMBER = re.compile(
    r"(?<=[.:;)\]\"'”’A-Z]) +(?=\d{1,3}(?:\.\d{1,3})*[.)]? +[A-Z\"“'(])"
    r"|(?<=[.:;)\]]) +(?=(?:ARTICLE|Article|SECTION|Section) +(?:[-–—] *)?(?:\d|[IVXL]+\b))"
    r"|(?<=[。；;：:！？\s]) *(?=第[一二三四五六七八九十百零〇两\d]+条)|(?<=[。；！？]) *(?=[一二三四五六七八九十]+、)")
# ... where the heading's title ends in a run of spaces, not a full stop ("   3. Referral Fee   For
# each Approved Account ..."): the run is the only sign of where the title ends, and normalising
# collapses it, so the title goes on a line of its own first
_FOLDED_TITLE = re.compile(
    r"^((?:\d{1,3}(?:\.\d{1,3})*[.)]|\d{1,3}(?:\.\d{1,3})+|(?:ARTICLE|Article|SECTION|Section)[ \t]+[\dIVXL]+[.:]?)[ \t]+"
    r"[A-Z\"“'(][^\n.!?]{1,90}?)[ \t]{3,}(?=[A-Z\"“'(•][^\n]{0,40}?\b[a-z]{2,}\b)")
# ... or a run-in title that ends only where its first sub-clause starts ("4. Duties 4.1 The Executive
# shall ...", "1.0 Services 1.1. Client requires ..."): the sub-number repeating the
# section's number is the sign, so the title goes on a line of its own
_SUBNUMBERED_TITLE = re.compile(
    r"^(\d{1,3})(?:\.0)?[.)]?[ \t]+([A-Z\"“'(][^\n.!?:;]{1,90}?)[ \t]+(?=\1\.1\b\.?[ \t]+\S)")
# ... or an ALL-CAPS numbered heading glued to the end of the paragraph before it ("... mentioned
# above. 2. PARTIES OBLIGATIONS"), its body on the next line
_TRAILING_HEADING = re.compile(r"(?<=[.:;)\]]) +(?=\d{1,3}(?:\.\d{1,3})*[.)]? +[A-Z][A-Z0-9 ,&/'()-]{2,90}$)")
_PAGE_REF = re.compile(r"\s(?:\d{1,4}|[-–]?[ivxlcIVXLC]{1,6}[-–]?)(?:\s+[-–]?[ivxlc]{1,6}[-–]?)?$")   # a contents entry's page
_REFERENCE_WORD = re.compile(r"\b(?:ARTICLE|Article|SECTION|Section|CLAUSE|Clause|EXHIBIT|Exhibit|"
                             r"SCHEDULE|Schedule|PART|Part|NO|No|NUMBER|Number)$")
_RUNNING_PREFIX = re.compile(r"^([A-Z][A-Z&'-]+(?: [A-Z][A-Z&'-]+){0,3}) (?=\S)")
_PAGE_LINE = 800   # a line this long holds several paragraphs (a page of an EDGAR filing)
_PAGE_LINE_CJK = 300   # Chinese says as much in about a third of the characters


def _page_long(line: str) -> bool:
    return len(line) > (_PAGE_LINE_CJK if is_cjk_text(line[:200]) else _PAGE_LINE)


def _break_mid_line(line: str) -> str:
    """Start a new line before each number that could open a section inside a page-long line."""
    out, last = [], 0
    for m in _MID_LINE_NUMBER.finditer(line):
        if _REFERENCE_WORD.search(line[max(last, m.start() - 12):m.start()]):
            continue   # "SECTION 5 TERM", "Exhibit 10.1 SUPPLY": the number belongs to the word
        out.append(line[last:m.start()])
        last = m.end()
    out.append(line[last:])
    return "\n".join(out)


def _title_on_its_line(part: str) -> str:
    """A folded heading's title on its own line when it reads as a title (at most 12 words, no
    contents page number); the piece as it was otherwise."""
    body = part.lstrip(" \t")
    m = _FOLDED_TITLE.match(body)
    if not m or len(m.group(1).split()) > 12 or _PAGE_REF.search(m.group(1)):
        return part
    indent = part[:len(part) - len(body)]   # kept: headings indented alike stay one level
    return indent + m.group(1) + "\n" + body[m.end():]


def _subnumbered_title_on_its_line(line: str) -> str:
    """'4. Duties' on its own line before '4.1 The Executive ...' when the title reads as one
    (at most 12 words, a capital or a digit opening each word of four letters or more)."""
    m = _SUBNUMBERED_TITLE.match(line.lstrip(" \t"))
    if not m:
        return line
    words = m.group(2).split()
    if len(words) > 12 or any(len(w) > 3 and not w[0].isupper() and not w[0].isdigit() for w in words):
        return line
    head = line.lstrip(" \t")
    return line[:len(line) - len(head)] + head[:m.end()].rstrip() + "\n" + head[m.end():]


def _trailing_heading_on_its_line(line: str) -> str:
    """'2. PARTIES OBLIGATIONS' on its own line when it ends the paragraph line it was glued to."""
    m = _TRAILING_HEADING.search(line)
    if not m or _REFERENCE_WORD.search(line[:m.start()]) or len(line[m.end():].split()) > 13:
        return line
    return line[:m.start()] + "\n" + line[m.end():]


def _running_prefix(lines: list[str]) -> str | None:
    """An ALL-CAPS word or two ("CONFIDENTIAL") that opens most page-long lines: a running head."""
    long_lines = [ln.strip() for ln in lines if len(ln) > _PAGE_LINE]
    starts = Counter(m.group(1) for ln in long_lines if (m := _RUNNING_PREFIX.match(ln)))
    if not starts:
        return None
    prefix, n = starts.most_common(1)[0]
    return prefix if n >= 3 and 2 * n >= len(long_lines) else None


def _unfold(text: str) -> str:
    """Break page-long lines before what looks like a heading, so headings get own lines.

    Only lines far longer than a paragraph are touched; the heading filters still decide
    whether each piece starts a section. A running head glued to the start of each page
    line goes on a line of its own, where page-furniture removal finds it.
    """
    lines = text.splitlines()
    prefix = _running_prefix(lines)
    out = []
    for line in lines:
        if len(line) > 300:
            line = _FOLDED_HEADING.sub("\n", line)
            line = "\n".join(_title_on_its_line(part) for part in line.split("\n"))
        if _page_long(line):
            if prefix and line.lstrip().startswith(prefix + " "):
                line = prefix + "\n\n" + line.lstrip()[len(prefix) + 1:]
            broken = "\n".join(_break_mid_line(part) if _page_long(part) else part
                               for part in line.split("\n"))
            if "\n" in broken:   # a page cut into pieces: its indentation is noise, not nesting
                line = "\n".join(part.strip() for part in broken.split("\n"))
        out.append("\n".join(_subnumbered_title_on_its_line(_trailing_heading_on_its_line(part))
                             for part in line.split("\n")))
    return "\n".join(out)


_SETEXT_RULE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_OR_QUOTE = re.compile(r"^(?:[-*+>|#]|\d+[.)]\s)")   # a line a setext rule cannot underline


def _setext_to_atx(lines: list[str]) -> list[str]:
    """'Services' underlined with '====' or '----' (a Markdown setext heading) as '# Services' /
    '## Services'; a rule under a blank line or under a sentence stays as it is."""
    out: list[str] = []
    for line in lines:
        m = _SETEXT_RULE.match(line)
        prev = out[-1].strip() if out else ""
        if (m and len(m.group(1)) >= 3 and prev and len(prev) <= 80 and not prev.endswith((".", ",", ";"))
                and not _LIST_OR_QUOTE.match(prev)):
            out[-1] = ("# " if m.group(1)[0] == "=" else "## ") + prev
            out.append("")
            continue
        out.append(line)
    return out


_LONE_NUMBER = re.compile(r"^\s*\d{1,3}(?:\.\d{1,3})*[.)]\s*$")


def _join_lone_numbers(lines: list[str]) -> list[str]:
    """'1.' on a line of its own and its title on the next, as text pulled out of a PDF often has
    numbered headings, as one heading line '1. Definitions' (only where the two read as one)."""
    out = list(lines)
    for i, line in enumerate(out[:-1]):
        if not _LONE_NUMBER.match(line):
            continue
        j = i + 2 if not out[i + 1].strip() and i + 2 < len(out) else i + 1
        joined = line.rstrip() + " " + out[j].strip()
        if out[j].strip() and plain_heading(joined) is not None:
            out[i], out[j] = joined, ""
    return out


def split_contract(text: str) -> SplitResult:
    """Clean a contract and split it into clauses; see the module docstring for the rules.

    A contract whose headings cannot be found, or whose headings would leave most of its
    text outside any clause, is split into paragraph blocks instead and flagged
    (`segmentation="paragraphs"`), so that it is still searchable clause by clause.
    """
    cleaned, furniture = remove_page_furniture(normalize_text(_unfold(text)))
    cleaned = join_broken_words(cleaned)
    lines = _join_lone_numbers(_setext_to_atx(cleaned.split("\n")))
    heads, is_markdown = _detect_headings(lines)
    result = _split_at_headings(lines, heads, is_markdown, furniture) if heads else None
    why = _why_not_headings(result, cleaned)
    if why:
        return _split_paragraphs(lines, furniture, why)
    return result


def _why_not_headings(result: SplitResult | None, cleaned: str) -> str | None:
    """Why the headings found do not make a usable split (None when they do)."""
    if result is None or not result.clauses:
        return "no section headings found"
    size = len(re.sub(r"\s", "", cleaned))
    covered = sum(len(re.sub(r"\s", "", c.title + c.text)) for c in result.clauses)
    if size > 3000 and covered < 0.5 * size:
        return f"the headings found cover only {covered / size:.0%} of the text"
    if size > 8000 and len(result.clauses) < 3:
        return f"only {len(result.clauses)} section heading(s) found in a long text"
    return None


def _split_at_headings(lines: list[str], heads: list[Head], is_markdown: bool,
                       furniture: list[str]) -> SplitResult:
    """The split at the section level; clauses may come out empty (the caller falls back)."""
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
        # unnumbered ALL-CAPS headings: the first one, on top of the text, names the document
        caps_title = first.kind == "caps" and len(others) >= 2
        if first.rank < shallowest or caps_title or (unnumbered and first.rank == shallowest
                                                     and no_body and others[0].rank > first.rank):
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
    if not is_markdown:
        bounds = _with_exhibits(bounds, lines)

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


def _with_exhibits(bounds: list[Head], lines: list[str]) -> list[Head]:
    """Exhibits and schedules after the first section end the clause before them.

    Without this, an exhibit (price list, specifications) would be read as the tail of the
    last section. Exhibit lines before the first section (a filing's "Exhibit 10.1" label,
    a list of exhibits) and exhibit lines with nothing under them (a list) are not bounds.
    """
    taken = {h.idx for h in bounds}
    exhibits = [e for i, line in enumerate(lines[bounds[0].idx + 1:], start=bounds[0].idx + 1)
                if i not in taken and (e := exhibit_heading(line, i))]
    if not exhibits:
        return bounds
    merged = sorted(bounds + exhibits, key=lambda h: h.idx)
    ends = [h.idx for h in merged[1:]] + [len(lines)]
    empty = [not any(lines[j].strip() for j in range(h.idx + 1, end)) for h, end in zip(merged, ends)]
    kept = []
    for n, h in enumerate(merged):
        if h.kind == "exhibit":
            listed = n > 0 and merged[n - 1].kind == "exhibit" and empty[n - 1]
            if empty[n] or listed:
                continue   # "Exhibit A" / "Exhibit B" lines in a row: a list of exhibits
            h.rank = bounds[0].rank
        kept.append(h)
    return kept


# --------------------------------------------------------------------------- paragraph fallback

_PARA_MIN, _PARA_TARGET, _PARA_MAX = 250, 1200, 2500
# a paragraph that opens with a top-level number ("1. We will ...", "12) The Supplier ..."): in a text
# without headings such paragraphs are its provisions, so two of them are never joined
_NUMBERED_ITEM = re.compile(r"\s*\d{1,3}[.)]\s+\S")
# a short block that is itself a provision: one or more whole sentences of some length ("Provider will
# respond to a reported outage within 30 minutes and restore service within 4 hours."), not a signature
# line, a stray heading or a caption, which are joined to the block after them
_A_PROVISION = re.compile(r"^(?=(?:\S+\s+){7,}\S).*[a-z0-9)\]\"'’][.;!?]\W{0,2}$|^.{12,}[。；！？]\W{0,2}$", re.S)
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]\"'][.;!?])\s+(?=[A-Z0-9\"'(\[])|(?<=[。；！？])")


def _sentence_chunks(block: str) -> list[str]:
    """A block longer than _PARA_MAX cut at sentence ends into pieces of about _PARA_TARGET."""
    if len(block) <= _PARA_MAX:
        return [block]
    chunks, current = [], ""
    for sentence in _SENTENCE_END.split(block):
        if current and len(current) + len(sentence) > _PARA_TARGET:
            chunks.append(current)
            current = ""
        current = f"{current} {sentence}".strip() if current else sentence.strip()
    if current:
        chunks.append(current)
    return chunks


def _paragraph_blocks(lines: list[str]) -> list[str]:
    """Blank-line blocks, long ones cut at sentences, short ones (signature lines, stray
    headings) joined to the block after them."""
    blocks, current = [], []
    for line in lines + [""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            blocks.extend(_sentence_chunks("\n".join(current)))
            current = []
    merged: list[str] = []
    pending = ""
    for block in blocks:
        if pending and _NUMBERED_ITEM.match(block) and _NUMBERED_ITEM.match(pending.rsplit("\n\n", 1)[-1]):
            merged.append(pending)      # "1. We will ..." / "2. ...": each numbered provision stays apart
            pending = ""
        pending = f"{pending}\n\n{block}" if pending else block
        if len(pending) >= _PARA_MIN or _A_PROVISION.match(block):
            merged.append(pending)
            pending = ""
    if pending:
        last_item = merged[-1].rsplit("\n\n", 1)[-1] if merged else ""
        if merged and len(merged[-1]) + len(pending) <= _PARA_MAX and not (
                _NUMBERED_ITEM.match(pending) and _NUMBERED_ITEM.match(last_item)):
            merged[-1] = f"{merged[-1]}\n\n{pending}"
        else:
            merged.append(pending)
    return merged


def _split_paragraphs(lines: list[str], furniture: list[str], why: str) -> SplitResult:
    """Clauses from paragraph blocks, titled by their first words, for unstructured texts."""
    title = _guess_title(lines)
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if title and first is not None and lines[first].strip().replace("**", "").strip() == title:
        lines = lines[:first] + lines[first + 1:]
    clauses = [ClauseDraft(i, _fallback_title(block), block, "", 1)
               for i, block in enumerate(_paragraph_blocks(lines), start=1)]
    warning = (f"{why}; split into {len(clauses)} paragraph block(s), titled by their first "
               "words (expected headings such as '1. Scope', 'Section 2', 'ARTICLE III', '## Fees')")
    return SplitResult(title, "", clauses, furniture, segmentation="paragraphs", warning=warning)


def _guess_title(preamble: list[str]) -> str | None:
    """Without a title heading, a short first preamble line without a full stop is the title."""
    first = next((ln.strip() for ln in preamble if ln.strip()), "")
    first = first.replace("**", "").strip()
    if first and len(first) <= 80 and len(first.split()) <= 10 and not first.endswith((".", ",", ";", ":", "。")):
        return first
    return None
