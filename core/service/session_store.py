"""Conversation sessions: what a follow-up question ("and their liability clause?") inherits.

Kept on disk as one JSON file per session id, so the CLI's `--session` works across
processes, with an in-memory copy for the dashboard.
"""
from __future__ import annotations

import json
import re
import threading
from pathlib import Path

from core.config import settings
from core.retrieval.follow_up import SessionContext
from core.types import Intent, Plan, Result

_SESSION_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")


class SessionStore:
    def __init__(self, folder: Path | None = None):
        self.folder = folder or settings().log_dir.parent / "sessions"
        self._mem: dict[str, SessionContext] = {}
        self._lock = threading.Lock()

    def _path(self, sid: str) -> Path:
        if not _SESSION_ID.match(sid):
            raise ValueError("a session id may only contain letters, digits, '.', '_' and '-' (at most 64)")
        return self.folder / f"{sid}.json"

    def get(self, sid: str | None) -> SessionContext | None:
        if not sid:
            return None
        with self._lock:
            if sid in self._mem:
                return self._mem[sid]
            path = self._path(sid)
            ctx = SessionContext()
            if path.is_file():
                try:
                    ctx = SessionContext.from_dict(json.loads(path.read_text(encoding="utf-8")))
                except (ValueError, TypeError):
                    ctx = SessionContext()
            self._mem[sid] = ctx
            return ctx

    def update(self, sid: str | None, plan: Plan, result: Result | None = None) -> None:
        if not sid or plan.intent == Intent.UNKNOWN:
            return
        ctx = self.get(sid)
        p = plan.params
        with self._lock:
            # the context is what the last answered turn was about (its plan already holds what
            # it inherited), so a new topic replaces the old one instead of mixing with it
            if p.companies or p.sla_ids:
                ctx.companies, ctx.sla_ids = list(p.companies or []), list(p.sla_ids or [])
            elif result is not None:
                ctx.companies, ctx.sla_ids = result.evidence_companies, []
            ctx.clause_types = list(p.types or [])
            ctx.filters = {k: getattr(p, k) for k in ("countries", "industries", "cities", "spend_min", "spend_max")
                           if getattr(p, k) not in (None, [], "")}
            if result is not None:
                ctx.clause_ids = result.evidence_clause_ids[:5]
            ctx.last_intent = str(plan.intent)
            ctx.turns += 1
            path = self._path(sid)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(ctx.to_dict(), ensure_ascii=False), encoding="utf-8")

    def reset(self, sid: str) -> None:
        with self._lock:
            self._mem.pop(sid, None)
            self._path(sid).unlink(missing_ok=True)


_sessions: SessionStore | None = None


def sessions() -> SessionStore:
    global _sessions
    if _sessions is None:
        _sessions = SessionStore()
    return _sessions
