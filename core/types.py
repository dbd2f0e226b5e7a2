"""The typed result every question returns (DESIGN §6)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Evidence:
    ref: str
    company: str | None = None
    sla_id: str | None = None
    clause_id: str | None = None
    clause_title: str | None = None
    clause_type: str | None = None
    text: str | None = None
    score: float | None = None
    confidence: float | None = None
    position: int | None = None


@dataclass
class Plan:
    """What the planner understood: shown to the user so routing is auditable."""

    intent: str
    mode: str
    params: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    language: str = "en"
    linked: dict[str, Any] = field(default_factory=dict)  # how each entity was recognised
    suggestions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Result:
    question: str
    mode: str
    cypher: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    answer: str = ""
    rows: list[dict] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    subgraph: dict[str, list] = field(default_factory=lambda: {"nodes": [], "edges": []})
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    plan: dict[str, Any] = field(default_factory=dict)
    session: str | None = None
    trace: list[dict] = field(default_factory=list)  # text2cypher attempts, relay rounds
    usage: dict[str, Any] = field(default_factory=dict)  # LLM tokens/calls/retries of this request

    def to_dict(self) -> dict:
        d = asdict(self)
        d["params"] = _jsonable(self.params)
        d["rows"] = _jsonable(self.rows)
        return d

    @property
    def evidence_companies(self) -> list[str]:
        return list(dict.fromkeys(e.company for e in self.evidence if e.company))

    @property
    def evidence_clause_ids(self) -> list[str]:
        return [e.clause_id for e in self.evidence if e.clause_id]


def _jsonable(value):
    """Neo4j temporal values and numpy numbers as plain JSON."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            return value.item()
        except (TypeError, ValueError):
            return str(value)
    return value
