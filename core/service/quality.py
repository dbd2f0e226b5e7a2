"""What the Quality and Query-log pages show: the request log and evaluation results over time.

Every number and aggregation is computed here (percentiles, per-stage latency, mode mix,
warning rates, metric series), so the pages only lay out and draw what they are given.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.config import eval_results_dir
from core.request_log import read_log

# ---------------------------------------------------------------------------------------
# the request log
# ---------------------------------------------------------------------------------------


def request_log(limit: int = 200, search: str | None = None, mode: str | None = None) -> list[dict]:
    """Logged requests, newest first: the newest `limit` matching `search` (any text in the
    entry), then only those answered in `mode` ("none": nothing ran) when one is given."""
    entries = read_log(limit=limit, search=search or None)
    if mode is not None:
        entries = [e for e in entries if (e.get("mode") or "none") == mode]
    return entries


def percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between the two nearest ranks (numpy's and pandas' default)."""
    data = sorted(values)
    if not data:
        return None
    pos = (len(data) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


@dataclass
class RequestLogSummary:
    requests: list[dict]                 # one row per request: ts, mode, intent, rows, warnings, tokens, retries
    p50_total_ms: float | None
    p95_total_ms: float | None
    warned_share: float                  # requests with at least one warning
    empty_share: float                   # requests that returned no rows
    stage_latency: list[dict] = field(default_factory=list)   # {stage, percentile: P50|P95, ms}
    mode_mix: list[dict] = field(default_factory=list)        # {mode, requests}, most first
    warning_rate: list[dict] = field(default_factory=list)    # {mode, warned}: share with warnings
    llm_usage: list[dict] = field(default_factory=list)       # per mode: tokens and retries, sum and mean
    cold_count: int = 0                  # requests that paid the one-time model load, kept out of the above
    cold_p50_total_ms: float | None = None

    @property
    def count(self) -> int:
        return len(self.requests)

    @property
    def has_llm_usage(self) -> bool:
        return any(r["tokens"] or r["retries"] for r in self.requests)


def _request_row(e: dict) -> dict:
    return {"ts": e.get("ts"), "mode": e.get("mode") or "none", "intent": (e.get("plan") or {}).get("intent"),
            "rows": e.get("row_count") or 0, "warnings": len(e.get("warnings") or []),
            "tokens": sum(v for v in (e.get("tokens") or {}).values() if isinstance(v, (int, float))),
            "retries": e.get("retries") or 0}


def _by_mode(rows: list[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["mode"], []).append(r)
    return dict(sorted(groups.items()))


def _stage_latency(entries: list[dict]) -> list[dict]:
    stages: dict[str, list[float]] = {}
    for e in entries:
        for k, v in (e.get("timings_ms") or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                stages.setdefault(k, []).append(float(v))
    return [{"stage": stage, "percentile": name, "ms": percentile(values, q)}
            for name, q in (("P50", .5), ("P95", .95)) for stage, values in sorted(stages.items())]


COLD_LOAD_MS = 500.0   # log lines written before the "cold" flag: a model load this long was one


def is_cold(entry: dict) -> bool:
    """A request that loaded the model (the first question of a process, e.g. a one-shot CLI
    `ask`): seconds of one-time cost that would swamp the latency a warm server gives."""
    if "cold" in entry:
        return bool(entry["cold"])
    return float((entry.get("timings_ms") or {}).get("load_models") or 0) >= COLD_LOAD_MS


def _total(entry: dict) -> float | None:
    return (entry.get("timings_ms") or {}).get("total")


def request_log_summary(limit: int = 1000) -> RequestLogSummary:
    """The engineering view of the newest `limit` requests; latency figures are warm requests
    only, cold ones are counted apart."""
    entries = read_log(limit=limit)
    rows = [_request_row(e) for e in entries]
    warm = [e for e in entries if not is_cold(e)]
    totals = [t for e in warm if (t := _total(e))]
    cold_totals = [t for e in entries if is_cold(e) and (t := _total(e))]
    n = len(rows) or 1
    groups = _by_mode(rows)
    mix = sorted(((m, len(g)) for m, g in groups.items()), key=lambda kv: -kv[1])
    return RequestLogSummary(
        requests=rows, p50_total_ms=percentile(totals, .5), p95_total_ms=percentile(totals, .95),
        warned_share=sum(r["warnings"] > 0 for r in rows) / n, empty_share=sum(r["rows"] == 0 for r in rows) / n,
        stage_latency=_stage_latency(warm),
        cold_count=len(entries) - len(warm), cold_p50_total_ms=percentile(cold_totals, .5),
        mode_mix=[{"mode": m, "requests": c} for m, c in mix],
        warning_rate=[{"mode": m, "warned": sum(r["warnings"] > 0 for r in g) / len(g)} for m, g in groups.items()],
        llm_usage=[{"mode": m, "tokens (sum)": sum(r["tokens"] for r in g), "tokens (mean)": sum(r["tokens"] for r in g) / len(g),
                    "retries (sum)": sum(r["retries"] for r in g), "retries (mean)": sum(r["retries"] for r in g) / len(g)}
                   for m, g in groups.items()])


# ---------------------------------------------------------------------------------------
# evaluation results
# ---------------------------------------------------------------------------------------

@dataclass
class EvaluationRun:
    file: str
    name: str                    # file stem without the date, e.g. "acord-test"
    date: str | None             # date / generated_at as written by the harness
    metrics: dict[str, float]    # flattened numeric leaves, e.g. {"methods.hybrid.ndcg@10": 0.61}
    meta: dict[str, Any]         # top-level scalar fields that are not metrics (split, git_revision, ...)
    error: str | None = None     # why the file could not be read, when it could not


_EVAL_SKIP_KEYS = {"per_query", "per_question", "details", "items", "cases", "hybrid_config", "config"}
_DATE_IN_NAME = re.compile(r"^(?P<name>.*?)-(?P<date>\d{4}-\d{2}-\d{2})$")
# metrics a reader looks at first when a run has many
HEADLINE_METRICS = ("ndcg", "recall", "precision", "accuracy", "f1", "mrr", "hit")


def _flatten_metrics(value: Any, prefix: str, out: dict[str, float], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        if prefix:
            out[prefix] = float(value)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if str(k) in _EVAL_SKIP_KEYS:
                continue
            _flatten_metrics(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)


def _read_run(path: Path) -> EvaluationRun:
    m = _DATE_IN_NAME.match(path.stem)
    name, file_date = (m.group("name"), m.group("date")) if m else (path.stem, None)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return EvaluationRun(path.name, name, file_date, {}, {}, f"{exc.__class__.__name__}: {exc}")
    if not isinstance(data, dict):
        return EvaluationRun(path.name, name, file_date, {}, {}, "not a JSON object")
    date = data.get("generated_at") or data.get("date") or file_date
    metrics: dict[str, float] = {}
    _flatten_metrics({k: v for k, v in data.items() if k not in {"date", "generated_at"}}, "", metrics)
    meta = {k: v for k, v in data.items() if isinstance(v, (str, bool)) or v is None}
    return EvaluationRun(path.name, name, str(date) if date is not None else None, metrics, meta)


def evaluation_results(folder: Path | str | None = None) -> list[EvaluationRun]:
    """Every `eval/results/*.json` the harness wrote, oldest first, tolerant of unknown shapes.

    Numbers nested in dicts become dotted metric names; lists (per-query detail) are skipped;
    an unreadable file is returned with `error` set rather than hiding the rest.
    """
    folder = Path(folder) if folder is not None else eval_results_dir()
    if not folder.is_dir():
        return []
    runs = [_read_run(path) for path in sorted(folder.glob("*.json"))]
    runs.sort(key=lambda r: (r.date or "", r.file))
    return runs


@dataclass
class LatestRun:
    date: str | None
    file: str
    values: list[dict]           # {metric, value}


@dataclass
class EvaluationOverview:
    """The evaluation results arranged for charting: one series per evaluation and metric."""

    runs: list[EvaluationRun]

    @property
    def unreadable(self) -> list[EvaluationRun]:
        return [r for r in self.runs if r.error]

    @property
    def usable(self) -> list[EvaluationRun]:
        return [r for r in self.runs if not r.error and r.metrics]

    def names(self) -> list[str]:
        return sorted({r.name for r in self.usable})

    def points(self, name: str, metrics: list[str] | None = None) -> list[dict]:
        """{run, date, file, metric, value} for one evaluation, oldest first."""
        pts = [{"run": r.name, "date": r.date, "file": r.file, "metric": k, "value": v}
               for r in self.usable if r.name == name for k, v in r.metrics.items()
               if metrics is None or k in metrics]
        return sorted(pts, key=lambda p: (p["date"] is None, p["date"] or ""))

    def metrics(self, name: str) -> list[str]:
        return sorted({p["metric"] for p in self.points(name)})

    def default_metrics(self, name: str, limit: int = 6) -> list[str]:
        metrics = self.metrics(name)
        return [m for m in metrics if any(s in m.lower() for s in HEADLINE_METRICS)][:limit] or metrics[:limit]

    def latest(self, name: str) -> LatestRun | None:
        pts = [p for r in self.usable if r.name == name
               for p in ({"date": r.date, "file": r.file, "metric": k, "value": v} for k, v in r.metrics.items())]
        if not pts:
            return None
        dates = [p["date"] for p in pts if p["date"] is not None]
        newest = max(dates) if dates else None
        at = [p for p in pts if p["date"] == newest]
        return LatestRun(newest, at[0]["file"], [{"metric": p["metric"], "value": p["value"]} for p in at])

    def meta(self, name: str) -> dict[str, Any]:
        return next((r.meta for r in reversed(self.usable) if r.name == name), {})


def evaluation_overview(folder: Path | str | None = None) -> EvaluationOverview:
    return EvaluationOverview(evaluation_results(folder))
