"""Whether the database and the LLM are there, for the sidebar and `python -m core status`."""
from __future__ import annotations

from dataclasses import dataclass, field

from core.config import settings
from core.graph.db import Database, DatabaseUnavailable, get_database
from core.service.explore import graph_stats


@dataclass
class Status:
    ok: bool
    message: str
    detail: dict = field(default_factory=dict)


def database_status(db: Database | None = None) -> Status:
    try:
        db = db or get_database()
        db.verify()
        counts = graph_stats(db)
        return Status(True, f"Neo4j at {db.uri}", counts)
    except DatabaseUnavailable as exc:
        return Status(False, str(exc))


def llm_status() -> Status:
    cfg = settings()
    if not cfg.llm_configured:
        return Status(False, "No LLM configured: questions are answered by the offline planner.")
    return Status(True, f"LLM {cfg.openai_model} at {cfg.openai_base_url or 'api.openai.com'}")
