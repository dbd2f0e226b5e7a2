"""Evaluation harness shared by `python -m core eval ...` (ACORD, CUAD, questions).

Evaluations must never change the user's graph, so benchmark corpora are loaded into a
separate local Neo4j (`eval_database`), on labels of their own. Metrics here are plain
functions of a ranking and graded judgements so that they can be checked by hand.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import subprocess
from pathlib import Path
from typing import Mapping, Sequence

from core.config import PROJECT_ROOT, LocalNeo4jSettings, eval_results_dir, settings

EVAL_HOME_ENV = "CLAUSEGRAPH_EVAL_NEO4J_HOME"
EVAL_PORT_ENV = "CLAUSEGRAPH_EVAL_NEO4J_PORT"
EVAL_CACHE_ENV = "CLAUSEGRAPH_EVAL_CACHE_DIR"
DEFAULT_EVAL_PORT = 7689


# --------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------

def dcg_at_k(gains: Sequence[float], k: int) -> float:
    """Sum of gain_i / log2(i + 1) over the first k positions (i is 1-based)."""
    return sum(float(g) / math.log2(i + 1) for i, g in enumerate(list(gains)[:k], start=1))


def ndcg_at_k(ranking: Sequence[str], judgements: Mapping[str, float], k: int) -> float:
    """NDCG@k with graded (linear) gains; the ideal ranks all judged docs of the query.

    Unjudged documents have gain 0. A query with no positive judgement scores 0.
    """
    gains = [float(judgements.get(doc, 0.0)) for doc in list(ranking)[:k]]
    ideal = dcg_at_k(sorted((float(v) for v in judgements.values() if v > 0), reverse=True), k)
    return dcg_at_k(gains, k) / ideal if ideal > 0 else 0.0


def precision_at_k(ranking: Sequence[str], judgements: Mapping[str, float], k: int, min_score: float) -> float:
    """Fraction of the first k positions holding a document judged >= min_score (missing = miss)."""
    if k <= 0:
        return 0.0
    return sum(1 for doc in list(ranking)[:k] if judgements.get(doc, 0.0) >= min_score) / k


# --------------------------------------------------------------------------------------
# The evaluation database and files
# --------------------------------------------------------------------------------------

def eval_neo4j_settings() -> LocalNeo4jSettings:
    """The evaluation's own local Neo4j: `<project>/var/neo4j-eval`, port 7689 (env overrides)."""
    base = settings().local
    home = Path(os.environ.get(EVAL_HOME_ENV) or PROJECT_ROOT / "var" / "neo4j-eval").resolve()
    port = int(os.environ.get(EVAL_PORT_ENV) or DEFAULT_EVAL_PORT)
    return LocalNeo4jSettings(home=home, bolt_port=port, heap=base.heap, pagecache=base.pagecache,
                              lib_dir=base.lib_dir)


def eval_database(log=print):
    """Start the evaluation Neo4j when it is not running (it is left running) and connect.

    Returns (Database, LocalNeo4j, started_now).
    """
    from core.graph.db import Connection, Database
    from core.graph.local_server import LocalNeo4j

    cfg = eval_neo4j_settings()
    local = LocalNeo4j(cfg)
    started = not local.status().running
    if started:
        log(f"starting the evaluation Neo4j in {cfg.home} on port {cfg.bolt_port} (left running; "
            f"stop it with CLAUSEGRAPH_NEO4J_HOME={cfg.home} CLAUSEGRAPH_NEO4J_PORT={cfg.bolt_port} "
            f"python -m core neo4j stop)")
        local.start()
    db = Database(Connection(cfg.uri, "neo4j", local.password(), "neo4j"), timeout_s=120)
    db.verify()
    return db, local, started


def cache_dir() -> Path:
    path = Path(os.environ.get(EVAL_CACHE_ENV) or PROJECT_ROOT / "var" / "cache")
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_dir() -> Path:
    return eval_results_dir()


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def git_revision() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def utc_date() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d")


def write_results(name: str, payload: dict) -> Path:
    """Write `eval/results/<name>-<UTC date>.json` with the date and git revision added."""
    date = utc_date()
    record = dict(payload)
    record.setdefault("date", date)
    record.setdefault("git_revision", git_revision())
    out_dir = results_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{date}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
