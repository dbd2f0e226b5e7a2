"""The benchmark harness end to end on tiny inputs (`python -m bench --quick`).

It runs against the test instance (pointed at through CLAUSEGRAPH_BENCH_NEO4J_HOME/_PORT),
which is shared with the other tests: the graph is emptied before and after. Only the
shape of the results and that the figures are positive are checked; timings are never
asserted (targets are reported by the harness, not tested). The corpus generator alone needs
no database: tests/unit/test_bench_generator.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from core.graph.queries.admin import WIPE_BATCH

ROOT = Path(__file__).resolve().parent.parent


def _wipe(db) -> None:
    from core.graph import vocabulary as graph_cache

    while db.write(WIPE_BATCH)[0]["deleted"]:
        pass
    graph_cache.invalidate()


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and value > 0


def test_bench_quick_run(local_neo4j, db, tmp_path):
    env = dict(os.environ)
    env["CLAUSEGRAPH_BENCH_NEO4J_HOME"] = str(local_neo4j.home)
    env["CLAUSEGRAPH_BENCH_NEO4J_PORT"] = str(local_neo4j.cfg.bolt_port)
    out = tmp_path / "results"
    _wipe(db)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "bench", "--quick", "--cleanup", "--out", str(out),
             "--work-dir", str(tmp_path / "work"), "--cache-dir", str(tmp_path / "cache")],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert local_neo4j.status().running, "the bench must not stop an instance it did not start"
        res = json.loads((out / "latest.json").read_text(encoding="utf-8"))
        md = (out / "latest.md").read_text(encoding="utf-8")
    finally:
        _wipe(db)

    assert res["quick"] is True
    assert res["neo4j"]["port"] == local_neo4j.cfg.bolt_port
    assert res["corpus"]["suppliers"] == 30 and res["corpus"]["clauses"] == 300

    ing = res["ingest"]
    assert _positive(ing["embed"]["stage_texts_per_s"]) and _positive(ing["embed"]["raw_texts_per_s"])
    assert _positive(ing["embed"]["ratio"])
    for stage in ("parse", "embed", "classify", "write", "total"):
        assert _positive(ing["sample"]["clauses_per_s"][stage]), stage
    for stage in ("parse", "write", "total"):
        assert _positive(ing["large"]["clauses_per_s"][stage]), stage
    assert ing["large"]["graph_clauses"] == 300
    w = ing["write_vs_naive"]
    assert w["clauses"] > 0 and _positive(w["naive_clauses_per_s"]) and _positive(w["batched_clauses_per_s"])
    assert _positive(w["ratio"])
    assert ing["embedding_cache"]["real_vectors"] > 0
    assert list((tmp_path / "cache").glob("bench-*.npy")), "sample embeddings are cached"

    q = res["queries"]
    assert set(q) == {"document", "clause_type", "attribute_gap", "attribute_clauses", "relay", "hybrid"}
    for mode, entry in q.items():
        for k in ("p50", "p95", "p99"):
            assert _positive(entry["ours"][k]), (mode, k)
        assert entry["ours"]["p50"] <= entry["ours"]["p95"] <= entry["ours"]["p99"]
    for mode in ("relay", "hybrid"):
        assert _positive(q[mode]["peer"]["p95"]) and _positive(q[mode]["ratio_p95"])
        assert _positive(q[mode]["first_stage"]["p95"]) and _positive(q[mode]["ratio_p95_reranked"])
    # the structured modes were answered in the mode asked, with evidence
    for mode in ("document", "clause_type", "attribute_clauses"):
        assert q[mode]["ours_mean_evidence"] > 0, mode
    assert res["gap_report"]["companies"] == 30 and _positive(res["gap_report"]["latency_ms"]["p95"])

    c = res["concurrency"]
    assert c["errors"] == 0 and _positive(c["throughput_qps"]) and _positive(c["latency_ms"]["p95"])
    # two ceilings from the single-client run: cores / wall time and cores / CPU time (Python + Neo4j)
    assert all(_positive(e["ours_cpu_ms"]["total"]) and e["ours_cpu_ms"]["neo4j"] is not None for e in q.values())
    ce = c["ceilings"]
    assert _positive(ce["ceiling_qps"]) and _positive(ce["cpu_ceiling_qps"]) and _positive(ce["cpu_ms_per_question"])
    assert _positive(c["share_of_ceiling"]) and _positive(c["share_of_cpu_ceiling"])
    assert _positive(c["cpu_ms_per_question"]["python"]) and c["cpu_ms_per_question"]["neo4j"] is not None
    s = res["soak"]
    assert s["errors"] == 0 and s["questions"] == 24 and _positive(s["throughput_qps"])
    assert all(_positive(s["rss_mb"][k]) for k in ("start", "middle", "end"))
    assert s["pool"]["in_use"] >= 1 and s["pool"]["max_size"] >= s["pool"]["open"] >= 1
    assert _positive(res["memory"]["overall"]["python_mb"]) and _positive(res["memory"]["overall"]["neo4j_mb"])

    names = {t["name"] for t in res["targets"]}
    assert "write stage vs naive MERGE-per-row" in names and all(isinstance(t["pass"], bool) for t in res["targets"])
    assert "## Query latency" in md and "| relay |" in md and "## Targets" in md and "from CPU time" in md
