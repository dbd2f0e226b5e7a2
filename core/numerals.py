"""Numbers as contracts and questions write them: Chinese numerals (第十二条, 五十万) and Roman
numerals (ARTICLE IV), read and written, for the splitter's headings and the planner alike."""
from __future__ import annotations


def zh_number(s: str) -> int:
    """A Chinese (or Arabic) numeral's value: 第十二条 -> 12; 0 for none."""
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


def roman_value(s: str) -> int | None:
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    s = s.upper()
    if not s or any(c not in values for c in s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = values[a]
        total += -v if b != " " and values[b] > v else v
    return total


def zh_numeral(n: int) -> str:
    """n as a Chinese numeral, as 第…条 headings write it: 四, 十, 十二, 二十一 (from 100 on, in digits)."""
    if n >= 100:
        return str(n)
    tens, ones = divmod(n, 10)
    return (("" if tens == 1 else "一二三四五六七八九"[tens - 1]) + "十" if tens else "") + \
        ("一二三四五六七八九"[ones - 1] if ones else "")


def roman_numeral(n: int) -> str:
    out = ""
    for value, letters in ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + letters, n - value
    return out


_EN_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
             "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_EN_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_EN_ORDINAL_UNITS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                     "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                     "seventeenth", "eighteenth", "nineteenth"]


def english_cardinals() -> dict[str, int]:
    """The English number words that combine into any count to 99: "one" ... "nineteen" and the tens."""
    return {w: i for i, w in enumerate(_EN_UNITS) if i} | {w: 10 * i for i, w in enumerate(_EN_TENS) if w}


def english_number(word: str) -> int | None:
    """A number written out in English, cardinal or ordinal, 1-99 ("ONE", "Twenty-One", "third",
    "TWENTY-FIRST"), as some contracts number their articles; None for any other word."""
    w = word.lower().replace(" ", "-")
    for names in (_EN_UNITS, _EN_ORDINAL_UNITS):
        if w in names:
            return names.index(w) or None
    tens, _, unit = w.partition("-")
    for ti, name in enumerate(_EN_TENS):
        if name and (tens == name or tens == name[:-1] + "ieth"):
            if not unit:
                return 10 * ti
            for names in (_EN_UNITS, _EN_ORDINAL_UNITS):
                if unit in names[1:10]:
                    return 10 * ti + names.index(unit)
    return None
