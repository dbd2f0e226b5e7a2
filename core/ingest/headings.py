"""Recognize one line as a section heading of a contract (format: docs/DATA_MODEL.md).

Each line is tested against the heading styles contracts use (Markdown `#`, "1." / "2.3" /
"12 Title" numbering, Article/Section/Clause keywords, Chinese 第X条 / 一、 / （一）, lettered
and unnumbered ALL-CAPS headings, exhibits and schedules) and gets a *rank* (smaller =
shallower). This module judges lines one at a time; the splitter decides, from the whole
document, which candidates are real section boundaries. It is separate from the splitter so
that page-furniture removal can ask "is this line a heading?" without an import cycle.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.numerals import english_number, roman_value, zh_number

_ZH_DIGITS = "一二三四五六七八九十百千零〇两"
_MD = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ZH_CHAPTER = re.compile(rf"^第\s*([{_ZH_DIGITS}\d]+)\s*(章|编|部分|节)\s*(.*)$")
_ZH_ARTICLE = re.compile(rf"^第\s*([{_ZH_DIGITS}\d]+)\s*条\s*(.*)$")
_ZH_LIST = re.compile(r"^([一二三四五六七八九十百]+)\s*[、.．]\s*(.*)$")
_ZH_SUB = re.compile(r"^[（(]\s*([一二三四五六七八九十]+)\s*[）)]\s*(.*)$")
# "Section 8.3(a) or Section 8.4." opening a hard-wrapped line is a cross-reference: a heading's
# number is never glued to a parenthesised sub-division
_KEYWORD = re.compile(
    r"^(ARTICLE|Article|SECTION|Section|CLAUSE|Clause|PART|Part|CHAPTER|Chapter|SEC\.|Sec\.|ART\.|Art\.|§)"
    r"(?:\s+|(?<=[§.]))(?:[-–—]\s*)?"
    r"(\d{1,3}(?:\.\d{1,3})*|[IVXLC]{1,7}|[ivxlc]{1,7}|[A-Z]|[A-Za-z]{3,}(?:-[A-Za-z]{3,})?)(?![\w(]|\.\d)\.?\s*(.*)$")
_ABBREVIATED = {"sec.": "section", "art.": "article"}
_NUMBERED = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)(?:([.)、])(?:\s+|(?=[A-Z\u4e00-\u9fff]))|\s+)(.+)$")
_LETTERED = re.compile(r"^([A-Z]|[IVXLC]{1,6})[.)]\s+(.+)$")
_SEPARATORS = re.compile(r"^[\s.:\-–—]+")
_SENTENCE_WORDS = re.compile(
    r"\b(shall|will|may|must|agrees?|is|are|was|were|means|has|have)\b", re.IGNORECASE)
_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on",
                "or", "per", "the", "to", "upon", "with", "without", "vs", "&"}
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "inc", "ltd", "co", "no", "st", "vs", "corp",
                  "e.g", "i.e", "u.s", "jr", "sr", "art", "sec", "approx"}
RANK = {"chapter": 10, "zh_section": 15, "letter": 15, "article": 20, "section": 20,
         "clause": 20, "num": 20, "zh_article": 20, "zh_list": 20, "zh_sub": 30}


@dataclass
class Head:
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
    bare: bool = False       # "12 Governing Law": a number without "." or ")"


def is_cjk_text(s: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", s))


def _words(s: str) -> list[str]:
    return re.findall(r"[A-Za-z][\w'’\-]*", s)


def _title_case(phrase: str) -> bool:
    """All significant words capitalized (or the phrase is ALL CAPS / Chinese)."""
    if is_cjk_text(phrase):
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
                        or is_cjk_text(s[0]))


def _clean_title(s: str) -> str:
    s = s.replace("**", "").replace("__", "").strip()
    s = re.sub(r"\s*[.:：。;；]+$", "", s)
    return s.strip(" -–—").strip()


def short_title(text: str) -> bool:
    """A whole Title Case heading of at most eight words ("Governing Law", "A. Services"'s title)."""
    text = text.strip()
    return _is_title_line(text) and _title_case(text) and len(text.split()) <= 8


def _is_title_line(rest: str) -> bool:
    """Could `rest` (the text after a number) be a whole heading title on its own line?"""
    if is_cjk_text(rest):
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


# Words that open a sentence; a capitalised one after a Title-Case run starts the body
_SENTENCE_OPENERS = {"the", "this", "these", "each", "either", "neither", "any", "all", "no", "in", "if",
                     "upon", "subject", "notwithstanding", "unless", "except", "during", "within", "both",
                     "for", "without", "where", "when", "following", "prior", "after", "nothing", "save"}


def _split_run_in_title(rest: str) -> tuple[str, str] | None:
    """'Term The term of this Agreement shall ...' -> ('Term', 'The term of ...'): a run-in title
    with no full stop, told from its body by the body's sentence opener or by the body's first
    word repeating a title word ('Business of Distributor Distributor is ...')."""
    words = rest.split()
    if len(words) < 12 or not _SENTENCE_WORDS.search(rest) or not re.fullmatch(r"[A-Z][\w'’/&-]*", words[0]):
        return None
    for k, w in enumerate(words[1:9], start=1):
        title = words[:k]
        if not re.fullmatch(r"[A-Z][\w'’/&-]*|[a-z]+", w) or not _title_case(" ".join(title + [w])):
            return None   # the Title-Case run ended without a recognisable body start
        if title[-1].lower() in _SMALL_WORDS or not w[0].isupper() or (len(w) > 1 and w.isupper()):
            continue   # an ALL-CAPS word belongs to the title ("CHANGE IN CIRCUMSTANCES")
        if sum(bool(re.fullmatch(r"[a-z][a-z'’-]*[,;.]?", x)) for x in words[k + 1:k + 6]) < 2:
            continue   # the body reads as a sentence, not an ALL-CAPS disclaimer
        repeats = w.lower() in {t.lower() for t in title} and words[k + 1][:1].islower()
        if w.lower() in _SENTENCE_OPENERS or repeats:
            return " ".join(title), " ".join(words[k:])
    return None


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


def _keyword_number(num: str) -> tuple[int, ...] | None:
    """The number after ARTICLE / Section: 12.3, IV, B, ONE, Twenty-First; None for a word that is
    not one ("Section Headings", "Part Time")."""
    if num.replace(".", "").isdigit():
        return tuple(int(p) for p in num.split("."))
    if len(num) <= 2 or ((num.isupper() or num.islower()) and roman_value(num) and len(num) <= 7):
        return (roman_value(num) or (ord(num.upper()) - 64),)
    value = english_number(num)
    return (value,) if value else None


def plain_heading(line: str, idx: int = 0) -> Head | None:
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
        number = (zh_number(m.group(1)),)
        marker = s[: len(s) - len(rest)].strip() if rest else s
        return Head(idx, kind, RANK[kind], number, _clean_title(title), inline,
                     (marker + " " + title).strip() if inline else s, indent)

    m = _KEYWORD.match(s)
    number = _keyword_number(m.group(2)) if m else None
    if number:
        word, rest = m.group(1).lower(), _SEPARATORS.sub("", m.group(3))
        word = _ABBREVIATED.get(word, word)
        kind = "chapter" if word in ("part", "chapter") else "section" if word == "§" else word
        rank = RANK[kind] + 10 * (len(number) - 1)
        title, inline = rest, ""
        split = _split_inline(rest) if rest and not is_cjk_text(rest) else None
        if split:
            title, inline = split
        elif rest and not _is_title_line(rest):
            if is_cjk_text(rest):
                title, inline = _zh_title(rest)
            else:
                split = _split_inline(rest)
                if not split:
                    return None  # "Section 4.2 of the Agreement is amended ..."
                title, inline = split
        head = s if not inline else s[: len(s) - len(inline)].strip()
        return Head(idx, kind, rank, number, _clean_title(title), inline, head, indent)

    m = _NUMBERED.match(s)
    if m:
        return _numbered_heading(m, s, idx, indent)

    m = _LETTERED.match(s)
    if m:
        marker, rest = m.group(1), m.group(2).strip()
        letters = re.sub(r"[^A-Za-z]", "", rest)
        if len(letters) < 3 or len(rest) > 80 or rest[-1] in ",;":
            return None
        if not letters.isupper() and not short_title(rest):
            return None   # "A. Services" (Title Case) may head a section; "A. The Company is ..." does not
        options = []
        if len(marker) == 1:
            options.append((ord(marker) - 64,))
        if roman_value(marker):
            options.append((roman_value(marker),))
        return Head(idx, "letter", RANK["letter"], options[0], _clean_title(rest), "", s,
                     indent, tuple(options))
    return None


def _bare_title(rest: str) -> bool:
    """After a number without "." or ")": only a short Title Case line makes a heading.

    "1 Supply of Goods" in a filing is a heading; "30 days", "2 business days after
    notice" and "5 Units" inside a sentence are not (the splitter also wants at least two).
    """
    rest = rest[:-1] if rest.endswith(".") else rest   # "5 Governance."
    if is_cjk_text(rest[:1]):   # "1 服务范围": a short Chinese title, no sentence punctuation or digits
        return 2 <= len(rest) <= 20 and is_cjk_text(rest) and not re.search(r"[\d，。；：、,;:!?！？]", rest)
    words = rest.split()
    return (len(rest) <= 60 and 1 <= len(words) <= 8 and rest[-1] not in ".,;:"
            and bool(re.search(r"[A-Za-z]{3}", rest)) and _starts_well(rest)
            and _title_case(rest) and not _sentence_like(rest))


def _numbered_heading(m: re.Match, s: str, idx: int, indent: int) -> Head | None:
    """"7. Termination", "2.1 Fees", "12 Governing Law", "7. Termination. Either party ..."."""
    num, terminator, rest = m.group(1), m.group(2), m.group(3).strip()
    parts = tuple(int(p) for p in num.split("."))
    bare = len(parts) == 1 and not terminator
    if len(parts) == 2 and parts[1] == 0:
        parts = parts[:1]   # "3.0 PAYMENT" numbers section 3 itself, like "3."
    if parts[0] == 0 or parts[0] > 200 or any(p > 200 for p in parts):
        return None
    if re.match(r"^[%$€£¥]|^(?:am|pm|a\.m|p\.m)\b", rest, re.IGNORECASE):
        return None
    if bare:
        if not _bare_title(rest):
            return None  # "30 days", "2024 revenue": a bare number needs "1." or "1)" ...
        return Head(idx, "num", RANK["num"], parts, _clean_title(rest), "", s, indent, bare=True)
    title, inline = rest, ""
    split = None if is_cjk_text(rest[:1]) else _split_inline(rest)
    if split:
        title, inline = split   # "7. Termination. Either party may ..."
    elif is_cjk_text(rest[:1]) or (is_cjk_text(rest) and not re.match(r"[A-Za-z]", rest)):
        if len(rest) > 40 or rest[-1] in "，,；;、。":
            z_title, z_inline = _zh_title(rest)
            if not z_title or not z_inline:
                return None
            title, inline = z_title, z_inline
    elif (run_in := _split_run_in_title(rest)) and terminator:
        title, inline = run_in   # "3. Term The term of this Agreement shall ..."
    elif not _is_title_line(rest):
        return None
    head = s if not inline else s[: len(s) - len(inline)].strip()
    return Head(idx, "num", RANK["num"] + 10 * (len(parts) - 1), parts,
                _clean_title(title), inline, head, indent)


_NOT_CAPS_HEADINGS = re.compile(r"^(IN WITNESS|WITNESS|WHEREAS|NOW,? THEREFORE|BY:|NAME:|TITLE:|DATE:)")


_ZH_BRACKET_LINE = re.compile(r"^【([^【】]{1,30})】[:：]?$")
_BOLD_LINE = re.compile(r"^(\*\*|__)([^*_]{2,80}?)\1:?$")


def caps_heading(line: str, idx: int) -> Head | None:
    """An unnumbered ALL-CAPS line ("PRODUCTS, QUANTITY, PRICE") or a line that is all bold Title
    Case ("**Governing Law**", Word exported to Markdown), for unnumbered contracts."""
    bold = _BOLD_LINE.match(line.strip())
    if bold and short_title(bold.group(2)):
        return Head(idx, "caps", RANK["article"], None, _clean_title(bold.group(2)), "", line.strip())
    bracket = _ZH_BRACKET_LINE.match(line.strip())
    if bracket:   # "【服务内容】": Chinese online agreements set their headings in lenticular brackets
        return Head(idx, "caps", RANK["article"], None, bracket.group(1).strip(), "", line.strip())
    s = line.strip().replace("**", "").rstrip(":").strip()
    letters = re.sub(r"[^A-Za-z]", "", s)
    if (len(letters) < 4 or not letters.isupper() or len(s) > 60 or len(s.split()) > 8
            or s[-1] in ".,;" or _NOT_CAPS_HEADINGS.match(s) or re.search(r"\d{2,}", s)):
        return None
    return Head(idx, "caps", RANK["article"], None, _clean_title(s), "", line.strip())


def markdown_heading(line: str, idx: int = 0) -> Head | None:
    m = _MD.match(line)
    if not m or not m.group(2).strip():
        return None
    inner = m.group(2).replace("**", "").replace("__", "").strip()
    plain = plain_heading(inner)
    # "## 3. Fees" is one heading titled "Fees"; "##### Clause 1" has no words (title from body)
    title = inner
    if plain:
        title = plain.title if not plain.inline else f"{plain.title}. {plain.inline}"
    elif m_num := re.match(r"^\d{1,3}(?:\.\d{1,3})*\s+(\S.*)$", inner):
        title = m_num.group(1)   # "## 1 Services": in a heading a bare number is numbering
        plain = m_num
    return Head(idx, "md", 10 * len(m.group(1)), None, _clean_title(title), "", line.strip(),
                 numbered=plain is not None)


def looks_like_heading(line: str) -> bool:
    """True when a line would be taken as a section heading (used by furniture removal)."""
    return markdown_heading(line) is not None or plain_heading(line) is not None


_EXHIBIT = re.compile(
    r"^(EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment"
    r"|ADDENDUM|Addendum)\s+([A-Z]{1,2}(?:-\d{1,2})?|\d{1,2}(?:\.\d{1,2})?|[IVX]{1,5})(?![\w-])"
    r"[.:)]?\s*[-–—:]?\s*(.*)$")


def exhibit_heading(line: str, idx: int = 0) -> Head | None:
    """ "EXHIBIT A", "Schedule 2 – Prices", "ANNEX III: SECURITY MEASURES" on a line of its own.

    Not part of `looks_like_heading`: a repeated "Exhibit 10.1" at the top of every page is a
    running head, and page-furniture removal must still be free to drop it.
    """
    s = line.strip().replace("**", "").replace("__", "").strip()
    m = _EXHIBIT.match(s)
    if not m or len(s) > 100:
        return None
    rest = m.group(3).strip()
    if rest and (len(rest.split()) > 10 or not (_is_title_line(rest) or rest.isupper())):
        return None   # "Exhibit A attached hereto sets out the prices."
    title = f"{m.group(1)} {m.group(2)}" + (f" {rest}" if rest else "")
    return Head(idx, "exhibit", 0, None, _clean_title(title), "", s)
