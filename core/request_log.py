"""Structured request log: one JSON line per question, in any mode.

Vectors are dropped and nothing secret is ever written (the result object carries none;
`scrub` also masks anything that looks like a credential as a second line of defence).
"""
from __future__ import annotations

import json
import re
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from core.config import settings

_lock = threading.Lock()
SECRET_PATTERNS = [re.compile(r"sk-[A-Za-z0-9_\-]{8,}"), re.compile(r"(?i)(password|api[_-]?key|secret)\s*[=:]\s*\S+")]


def log_dir() -> Path:
    return settings().log_dir


def scrub(text: str) -> str:
    for pat in SECRET_PATTERNS:
        text = pat.sub("[redacted]", text)
    cfg = settings()
    for secret in (cfg.neo4j_password, cfg.openai_api_key):
        if secret and len(secret) >= 6:
            text = text.replace(secret, "[redacted]")
    # the local server's generated password, read from its file here (not through
    # core.graph.local_server, which sits above this module); reading never creates one
    local = cfg.local.stored_password()
    if local:
        text = text.replace(local, "[redacted]")
    return text


def _compact_params(params: dict) -> dict:
    out = {}
    for k, v in (params or {}).items():
        if isinstance(v, list) and len(v) > 32 and all(isinstance(x, (int, float)) for x in v[:8]):
            out[k] = f"<vector of {len(v)} floats>"
        else:
            out[k] = v
    return out


def _tokens(result, extra: dict | None) -> dict:
    if (extra or {}).get("tokens"):
        return extra["tokens"]
    usage = getattr(result, "usage", None) or {}
    keys = ("prompt_tokens", "completion_tokens", "total_tokens", "llm_calls", "per_call")
    return {k: usage[k] for k in keys if k in usage}


def log_result(result, extra: dict | None = None) -> None:
    """One JSON line; tokens and retries come from `extra` or else from `result.usage` (Text2Cypher)."""
    usage = getattr(result, "usage", None) or {}
    entry = {
        "ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "question": result.question, "session": result.session, "mode": result.mode,
        "plan": result.plan_dict, "cypher": result.cypher, "params": _compact_params(result.params),
        "row_count": len(result.rows), "answer": result.answer,
        "evidence": [{"ref": e.ref, "company": e.company, "clause_id": e.clause_id} for e in result.evidence],
        "timings_ms": result.timings_ms, "cold": bool(getattr(result, "cold_start", False)), "warnings": result.warnings,
        "tokens": _tokens(result, extra), "retries": (extra or {}).get("retries", usage.get("retries", 0)),
        "trace": result.trace,
    }
    for key, value in (extra or {}).items():
        entry.setdefault(key, value)
    line = scrub(json.dumps(entry, ensure_ascii=False, default=str))
    path = log_dir() / f"requests-{time.strftime('%Y%m%d')}.jsonl"
    with _lock:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def read_log(limit: int = 200, search: str | None = None) -> list[dict]:
    """Newest first."""
    files = sorted(log_dir().glob("requests-*.jsonl"), reverse=True)
    out: list[dict] = []
    for f in files:
        lines = f.read_text(encoding="utf-8").splitlines()
        for line in reversed(lines):
            if search and search.lower() not in line.lower():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
            if len(out) >= limit:
                return out
    return out
