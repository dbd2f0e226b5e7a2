"""`eval acord`: a tiny end-to-end run on the test database.

The end-to-end run points the evaluation Neo4j at this test session's own instance (env
override), so CI starts nothing extra and never touches var/neo4j-eval. The metrics and the
folder format need no database: tests/unit/test_acord_metrics.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.evaluation.acord import drop_acord_graph
from support import write_acord

ROOT = Path(__file__).resolve().parent.parent

# Test fixture only: one product-graph clause that the evaluation must leave alone.
USER_CLAUSE = "CREATE (:Clause {id: 'USER#1', text: 'the user graph'})"
COUNT_USER_CLAUSE = "MATCH (c:Clause {id: 'USER#1'}) RETURN count(c) AS n"


def _run_eval(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "eval", "acord", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)


def test_eval_acord_end_to_end(db, tmp_path):
    root = write_acord(tmp_path / "acord")
    db.write(USER_CLAUSE)
    env = dict(os.environ,
               CLAUSEGRAPH_EVAL_NEO4J_HOME=os.environ["CLAUSEGRAPH_NEO4J_HOME"],  # this session's own instance
               CLAUSEGRAPH_EVAL_NEO4J_PORT=os.environ["CLAUSEGRAPH_NEO4J_PORT"],
               CLAUSEGRAPH_EVAL_CACHE_DIR=str(tmp_path / "cache"),
               CLAUSEGRAPH_EVAL_RESULTS_DIR=str(tmp_path / "results"))
    try:
        out = _run_eval(env, str(root), "--split", "valid", "--json")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert set(result) == {"split", "protocol", "queries", "default", "methods"}
        assert result["split"] == "valid" and result["queries"] == 3 and result["protocol"] == "pool"
        assert result["default"] == "reranked", "the product's default ranking is the re-ranked hybrid"
        assert set(result["methods"]) == {"fulltext", "vector", "hybrid", "reranked"}
        for metrics in result["methods"].values():
            assert set(metrics) == {"ndcg@5", "ndcg@10", "p@5_3star", "p@5_4star", "p@5_5star"}
            assert all(0.0 <= v <= 1.0 for v in metrics.values())
        assert "loading 12 clauses" in out.stderr
        assert list((tmp_path / "cache").glob("acord-*.npy"))

        files = list((tmp_path / "results").glob("acord-pool-valid-*.json"))
        assert len(files) == 1
        record = json.loads(files[0].read_text())
        assert record["date"] in files[0].name and "git_revision" in record and record["protocol"] == "pool"
        assert record["reranker"]["candidates"] >= 6
        per_query = {row["query"]: row for row in record["per_query"]}
        # hand-checked case: the only relevant clause quotes the query, so BM25 ranks it first
        assert per_query["New York governing law"]["fulltext"]["ndcg@5"] == 1.0
        assert per_query["New York governing law"]["fulltext"]["p@5_5star"] == pytest.approx(0.2)
        # the whole-corpus protocol: same shape, its own file; unjudged clauses count as misses
        corpus = _run_eval(env, str(root), "--split", "valid", "--protocol", "corpus", "--json")
        assert corpus.returncode == 0, corpus.stderr
        whole = json.loads(corpus.stdout)
        assert whole["protocol"] == "corpus" and set(whole["methods"]) == set(result["methods"])
        assert len(list((tmp_path / "results").glob("acord-corpus-valid-*.json"))) == 1
        # a fixed score ranks the pool as it ranks the corpus minus the unjudged clauses, which only
        # move judged ones up: the pool protocol can never score lower for those methods
        for method in ("fulltext", "vector"):
            assert result["methods"][method]["ndcg@10"] >= whole["methods"][method]["ndcg@10"] - 1e-9, method

        # second run: corpus already loaded (hash matches), readable table, --limit-queries
        again = _run_eval(env, str(root), "--split", "valid", "--limit-queries", "1")
        assert again.returncode == 0, again.stderr
        assert "loading" not in again.stderr and "embedding" not in again.stderr
        assert "ndcg@5" in again.stdout and "reranked*" in again.stdout and "1 queries" in again.stdout
        assert "pool protocol" in again.stdout
        off = _run_eval(dict(env, CLAUSEGRAPH_RERANK="off"), str(root), "--split", "valid", "--json")
        assert json.loads(off.stdout)["default"] == "hybrid" and "reranked" not in json.loads(off.stdout)["methods"]

        bad = _run_eval(env, str(tmp_path / "missing"), "--split", "valid")
        assert bad.returncode == 2 and "missing" in bad.stderr
        assert db.read(COUNT_USER_CLAUSE)[0]["n"] == 1  # the product graph's clause is untouched
    finally:
        drop_acord_graph(db)
        db.write("MATCH (c:Clause {id: 'USER#1'}) DELETE c")
