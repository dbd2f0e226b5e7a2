"""Regular expressions that match the numbers written in digits on one side of a bound.

A question that compares a quantity ("an availability of at least 99.9%", "paid within 30 days or
less") asks for clauses stating any number on that side of it. Clauses are filtered by a Cypher
`=~` pattern (`core.graph.queries.retrieval.DETAILS`), and Cypher cannot read a number out of a
text, so the bound becomes a pattern that matches exactly the digit strings on its side: 99.95 and
100 for "at least 99.9", not 99.5 or 98. Decimal digits are compared place by place, as written, so
no rounding enters.
"""
from __future__ import annotations

# a number is whole: no digit, point or thousands comma glued to it on either side
_BEFORE = r"(?<![\d.,])"
_AFTER = r"(?![\d]|[.,]\d)"


def _alternation(ways: list[str]) -> str:
    return "(?:" + "|".join(ways) + ")"


def _digits_compared(t: str, greater: bool, or_equal: bool) -> list[str]:
    """Digit strings of len(t) above (`greater`) or below t, place by place; t itself if `or_equal`.
    The first place is free here; callers that forbid a leading zero say so."""
    ways = [t] if or_equal else []
    for i, ch in enumerate(t):
        d = int(ch)
        lo, hi = (d + 1, 9) if greater else (0, d - 1)
        if lo > hi:
            continue
        rest = len(t) - i - 1
        ways.append(t[:i] + (f"[{lo}-{hi}]" if lo < hi else str(lo)) + (f"\\d{{{rest}}}" if rest else ""))
    return ways


def _whole_numbers(n: int, greater: bool, or_equal: bool) -> str:
    """Whole numbers (no leading zero) above or below n."""
    t = str(n)
    ways = []
    for w in _digits_compared(t, greater, or_equal):
        if len(t) > 1 and w.startswith("[0-"):     # a leading zero is no way to write a number
            w = "[1-" + w[3:]
        elif len(t) > 1 and w.startswith("0"):
            continue
        ways.append(w)
    if greater:
        ways.append(f"[1-9]\\d{{{len(t)},}}")          # more digits
    elif len(t) > 1:
        ways.append("0|[1-9]" + (f"\\d{{0,{len(t) - 2}}}" if len(t) > 2 else ""))   # fewer digits
    return _alternation(ways) if ways else "(?!)"


def _fractions(f: str, greater: bool) -> str:
    """Digits after the point whose value is at least (`greater`) or at most 0.f, as written."""
    if not f:
        return r"\d+" if greater else r"0+"
    ways = []
    if greater:
        ways.append(_alternation(_digits_compared(f, True, True)) + r"\d*")     # as many places or more
        ways += [_alternation(_digits_compared(f[:k], True, False)) for k in range(1, len(f))
                 if _digits_compared(f[:k], True, False)]                       # fewer places, above its prefix
    else:
        ways.append(_alternation(_digits_compared(f, False, False)) + r"\d*" if _digits_compared(f, False, False)
                    else "(?!)")
        ways.append(f + "0*")
        ways += [_alternation(_digits_compared(f[:k], False, True)) for k in range(1, len(f))]
    return _alternation([w for w in ways if w != "(?!)"] or ["(?!)"])


def bound_pattern(value: float, greater: bool, strict: bool = False) -> str:
    """A pattern matching the whole numbers and decimals written in digits that are at least (at
    most, `greater=False`) `value`, or strictly so; negative numbers are never meant."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    whole, _, frac = text.partition(".")
    n = int(whole)
    beyond = _whole_numbers(n, greater, False)
    # the same whole number: with places on the bound's side; bare, when that is on its side too
    same = f"{n}(?:\\.{_fractions(frac, greater)})" + ("" if frac and greater else "?")
    if not greater and n == 0 and not frac:
        beyond = "(?!)"
    beyond = "(?!)" if beyond == "(?!)" else f"{beyond}(?:\\.\\d+)?"
    body = _alternation([w for w in (beyond, same) if w != "(?!)"])
    if strict:   # not the value itself, however many zeros follow it
        exact = f"{n}" + (f"\\.{frac}0*" if frac else r"(?:\.0+)?")
        body = f"(?!{exact}{_AFTER}){body}"
    return f"{_BEFORE}{body}{_AFTER}"
