"""The playbook: the company's standard positions on contract terms (`data/playbook.json`), strictly
validated like the taxonomy, and the one place that decides whether an agreement's term meets one.

A position reads one term field (core/ingest/terms.py FIELDS) and states a rule: `min` / `max` (in
the field's unit: days for notice and payment periods, months of fees for a liability cap, percent
for uptime), `one_of` (a governing law among `values`) or `is` (auto_renewal). A term below the
review confidence is "uncertain", never a silent pass or fail."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from core.errors import ClauseGraphError
from core.term_values import TERM_FIELDS, TERM_REVIEW_CONFIDENCE as REVIEW_CONFIDENCE

PLAYBOOK_PATH = Path(__file__).resolve().parent.parent / "data" / "playbook.json"
RULES = ("min", "max", "one_of", "is")
NUMERIC_FIELDS = ("initial_term", "renewal_term", "renewal_notice", "convenience_notice", "liability_cap", "uptime",
                  "payment_days")
SEVERITIES = ("high", "medium", "low")
MEETS, DEVIATES, NOT_STATED, UNCERTAIN = "meets", "deviates", "not stated", "uncertain"


class PlaybookError(ClauseGraphError, ValueError):
    pass


@dataclass(frozen=True)
class Position:
    id: str
    field: str
    rule: str
    title: str
    value: float | bool | None = None
    values: tuple[str, ...] = ()
    title_zh: str = ""
    severity: str = "medium"
    if_missing: str = "ignore"


@dataclass
class Playbook:
    positions: list[Position] = field(default_factory=list)
    source: str = ""


def term_measure(term: dict) -> float | None:
    """The number a position compares: days of a duration, months of fees of a cap (a multiple of
    fees is 12 months each; an uncapped liability is infinite; a fixed amount is not comparable)."""
    if term.get("field") == "liability_cap":
        unit = term.get("unit")
        if unit == "uncapped":
            return float("inf")
        if unit == "months_of_fees":
            return term.get("number")
        if unit == "multiple_of_fees":
            return (term.get("number") or 0) * 12
        return None
    if term.get("days") is not None and term.get("field") != "payment_days":
        return float(term["days"])
    return term.get("number") if term.get("number") is not None else term.get("days")


def check(position: Position, term: dict | None) -> tuple[str, str]:
    """(status, why) of one agreement's term against one position."""
    if term is None:
        return (DEVIATES if position.if_missing == "deviation" else NOT_STATED), "the agreement does not state it"
    shown = term.get("value")
    if (term.get("confidence") or 0) < REVIEW_CONFIDENCE and term.get("method") != "manual":
        return UNCERTAIN, f"read as {shown}, with low confidence: check it in the review queue"
    if position.rule == "one_of":
        ok = _place(shown) in {_place(v) for v in position.values}
        return (MEETS if ok else DEVIATES), f"{shown}" + ("" if ok else " is not among the approved")
    if position.rule == "is":
        ok = bool(term.get("flag")) == bool(position.value)
        return (MEETS if ok else DEVIATES), f"{shown}"
    measure = term_measure(term)
    if measure is None:
        return UNCERTAIN, f"{shown}: not comparable with {position.value:g}"
    ok = measure >= position.value if position.rule == "min" else measure <= position.value
    return (MEETS if ok else DEVIATES), f"{shown}"


def _place(value: str | None) -> str:
    return " ".join((value or "").lower().replace("the ", "").split())


def load_playbook(path: Path | str | None = None) -> Playbook:
    path = Path(path) if path else PLAYBOOK_PATH
    return _load(str(path), path.stat().st_mtime if path.exists() else 0)


@lru_cache(maxsize=4)
def _load(path: str, _mtime: float) -> Playbook:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlaybookError(f"{path}: playbook file not found") from None
    except json.JSONDecodeError as exc:
        raise PlaybookError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("positions"), list):
        raise PlaybookError(f"{path}: expected an object with a list 'positions'")
    positions, seen = [], set()
    for i, raw in enumerate(data["positions"], 1):
        p = _position(raw, f"{path}: position {i}")
        if p.id in seen:
            raise PlaybookError(f"{path}: position {i}: id {p.id!r} is used twice")
        seen.add(p.id)
        positions.append(p)
    return Playbook(positions, path)


def _position(raw, where: str) -> Position:
    if not isinstance(raw, dict):
        raise PlaybookError(f"{where}: expected an object")
    unknown = set(raw) - {"id", "field", "rule", "value", "values", "title", "title_zh", "severity", "if_missing"}
    if unknown:
        raise PlaybookError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    for key in ("id", "field", "rule", "title"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise PlaybookError(f"{where}: {key!r} must be a non-empty string")
    if raw["field"] not in TERM_FIELDS:
        raise PlaybookError(f"{where}: unknown field {raw['field']!r}; choose one of {', '.join(TERM_FIELDS)}")
    if raw["rule"] not in RULES:
        raise PlaybookError(f"{where}: unknown rule {raw['rule']!r}; choose one of {', '.join(RULES)}")
    if raw["rule"] in ("min", "max"):
        if raw["field"] not in NUMERIC_FIELDS:
            raise PlaybookError(f"{where}: rule {raw['rule']!r} needs a numeric field, not {raw['field']!r}")
        if isinstance(raw.get("value"), bool) or not isinstance(raw.get("value"), (int, float)):
            raise PlaybookError(f"{where}: rule {raw['rule']!r} needs a number 'value'")
    if raw["rule"] == "one_of" and (not isinstance(raw.get("values"), list) or not raw["values"]
                                    or not all(isinstance(v, str) and v.strip() for v in raw["values"])):
        raise PlaybookError(f"{where}: rule 'one_of' needs a non-empty list of strings 'values'")
    if raw["rule"] == "is" and not isinstance(raw.get("value"), bool):
        raise PlaybookError(f"{where}: rule 'is' needs true or false as 'value'")
    severity = raw.get("severity", "medium")
    if severity not in SEVERITIES:
        raise PlaybookError(f"{where}: severity must be one of {', '.join(SEVERITIES)}")
    if_missing = raw.get("if_missing", "ignore")
    if if_missing not in ("deviation", "ignore"):
        raise PlaybookError(f"{where}: if_missing must be 'deviation' or 'ignore'")
    return Position(raw["id"], raw["field"], raw["rule"], raw["title"], raw.get("value"),
                    tuple(raw.get("values") or ()), raw.get("title_zh", ""), severity, if_missing)
