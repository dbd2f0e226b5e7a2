"""`eval acord`: metrics by hand, the ACORD folder format, and a tiny end-to-end run.

The end-to-end run points the evaluation Neo4j at this test session's own instance (env
override), so CI starts nothing extra and never touches var/neo4j-eval.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.evaluation import dcg_at_k, ndcg_at_k, precision_at_k
from core.evaluation.acord import AcordFormatError, drop_acord_graph, load_acord, read_qrels, score_ranking

ROOT = Path(__file__).resolve().parent.parent

# Test fixture only: one product-graph clause that the evaluation must leave alone.
USER_CLAUSE = "CREATE (:Clause {id: 'USER#1', text: 'the user graph'})"
COUNT_USER_CLAUSE = "MATCH (c:Clause {id: 'USER#1'}) RETURN count(c) AS n"


def test_ndcg_by_hand():
    judgements = {"a": 3, "b": 2, "c": 0, "d": 1}
    ranking = ["c", "a", "x", "b"]  # x is unjudged: gain 0
    dcg = 0 / math.log2(2) + 3 / math.log2(3) + 0 / math.log2(4) + 2 / math.log2(5)
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(ranking, judgements, 5) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(ranking, judgements, 5) == pytest.approx(0.578375, abs=1e-6)
    assert ndcg_at_k(["a", "b", "d"], judgements, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["c", "x"], judgements, 5) == 0.0
    assert ndcg_at_k(["a"], {"a": 0, "b": 0}, 5) == 0.0  # nothing relevant: 0, not a division error
    # the ideal is cut at k as well
    assert ndcg_at_k(["b"], judgements, 1) == pytest.approx(2 / 3)
    assert dcg_at_k([4, 4], 1) == 4.0


def test_star_precision_by_hand():
    judgements = {"a": 4, "b": 3, "c": 2, "d": 1, "e": 0}
    ranking = ["a", "b", "c", "d", "x", "e"]
    assert precision_at_k(ranking, judgements, 5, 2) == pytest.approx(3 / 5)  # >= 3 stars
    assert precision_at_k(ranking, judgements, 5, 3) == pytest.approx(2 / 5)  # >= 4 stars
    assert precision_at_k(ranking, judgements, 5, 4) == pytest.approx(1 / 5)  # 5 stars
    assert precision_at_k(["a"], judgements, 5, 4) == pytest.approx(1 / 5)  # short list: still /5
    scores = score_ranking(ranking, judgements)
    assert set(scores) == {"ndcg@5", "ndcg@10", "p@5_3star", "p@5_4star", "p@5_5star"}
    assert scores["p@5_4star"] == pytest.approx(0.4)


CORPUS = {
    "gl01": "This Agreement shall be governed by the laws of the State of New York.",
    "gl02": "This Agreement is governed by the laws of Delaware, without regard to conflict of laws.",
    "gl03": "The laws of England and Wales govern this Agreement.",
    "tc01": "Either party may terminate this Agreement for convenience on thirty days notice.",
    "tc02": "Customer may terminate for convenience at any time without penalty.",
    "tc03": "This Agreement renews automatically unless a party gives notice of non-renewal.",
    "li01": "In no event shall either party's liability exceed the fees paid in the prior twelve months.",
    "li02": "Neither party is liable for indirect, incidental or consequential damages or lost profits.",
    "li03": "The liability cap does not apply to fraud, gross negligence or willful misconduct.",
    "cf01": "Each party shall keep the other party's Confidential Information secret.",
    "cf02": "Confidential Information excludes information that is publicly available.",
    "cf03": "The receiving party may disclose Confidential Information when required by law.",
}
QUERIES = [
    {"_id": "New York governing law", "split": "valid", "category": "Governing Law"},
    {"_id": "Termination for Convenience", "split": "valid", "category": "Term"},
    {"_id": '"as is" cap on liability', "split": "valid", "category": "Limitation of Liability"},
    {"_id": "Confidentiality carveouts", "split": "train", "category": "Confidentiality"},
]
QRELS = [  # (query, doc, score); only gl01 is relevant for the first query -> NDCG@5 = 1 when it ranks first
    ("New York governing law", "gl01", 4), ("New York governing law", "gl02", 0), ("New York governing law", "gl03", 0),
    ("Termination for Convenience", "tc01", 4), ("Termination for Convenience", "tc02", 3),
    ("Termination for Convenience", "tc03", 1),
    ('"as is" cap on liability', "li01", 3), ('"as is" cap on liability', "li03", 2), ('"as is" cap on liability', "li02", 1),
]


def _write_acord(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for cid, text in CORPUS.items():
            fh.write(json.dumps({"_id": cid, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for q in QUERIES:
            fh.write(json.dumps({"_id": q["_id"], "text": q["_id"], "metadata": {
                "category": q["category"], "parent_query_id": "", "type": "cuad1", "split": q["split"]}}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"]
    for qid, doc, score in QRELS:
        quoted = '"' + qid.replace('"', '""') + '"' if '"' in qid else qid
        lines.append(f"{quoted}\t{doc}\t{score}")
    (root / "qrels" / "valid.tsv").write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    (root / "qrels" / "train.tsv").write_bytes(b"query-id\tcorpus-id\tscore\r\nConfidentiality carveouts\tcf02\t4\r\n")
    return root


def test_reading_the_folder(tmp_path):
    root = _write_acord(tmp_path / "acord")
    qrels = read_qrels(root / "qrels" / "valid.tsv")
    assert qrels['"as is" cap on liability'] == {"li01": 3, "li03": 2, "li02": 1}  # CSV-quoted id, CRLF
    data = load_acord(root, "valid")
    assert [q.id for q in data.queries] == [q["_id"] for q in QUERIES[:3]]  # split filter
    assert len(data.corpus_ids) == 12 and len(data.corpus_hash) == 16
    assert [q.id for q in load_acord(root, "train").queries] == ["Confidentiality carveouts"]
    with pytest.raises(AcordFormatError, match="test.tsv"):
        load_acord(root, "test")
    (root / "qrels" / "valid.tsv").write_text("query-id\tcorpus-id\tscore\nq\tgl01\tfour\n", encoding="utf-8")
    with pytest.raises(AcordFormatError, match=r"valid.tsv:2"):
        read_qrels(root / "qrels" / "valid.tsv")


def _run_eval(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "eval", "acord", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600)


def test_eval_acord_end_to_end(db, tmp_path):
    root = _write_acord(tmp_path / "acord")
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
        assert set(result) == {"split", "queries", "default", "methods"}
        assert result["split"] == "valid" and result["queries"] == 3 and result["default"] == "hybrid"
        assert set(result["methods"]) == {"fulltext", "vector", "hybrid"}
        for metrics in result["methods"].values():
            assert set(metrics) == {"ndcg@5", "ndcg@10", "p@5_3star", "p@5_4star", "p@5_5star"}
            assert all(0.0 <= v <= 1.0 for v in metrics.values())
        assert "loading 12 clauses" in out.stderr
        assert list((tmp_path / "cache").glob("acord-*.npy"))

        files = list((tmp_path / "results").glob("acord-valid-*.json"))
        assert len(files) == 1
        record = json.loads(files[0].read_text())
        assert record["date"] in files[0].name and "git_revision" in record
        per_query = {row["query"]: row for row in record["per_query"]}
        # hand-checked case: the only relevant clause quotes the query, so BM25 ranks it first
        assert per_query["New York governing law"]["fulltext"]["ndcg@5"] == 1.0
        assert per_query["New York governing law"]["fulltext"]["p@5_5star"] == pytest.approx(0.2)

        # second run: corpus already loaded (hash matches), readable table, --limit-queries
        again = _run_eval(env, str(root), "--split", "valid", "--limit-queries", "1")
        assert again.returncode == 0, again.stderr
        assert "loading" not in again.stderr and "embedding" not in again.stderr
        assert "ndcg@5" in again.stdout and "hybrid*" in again.stdout and "1 queries" in again.stdout

        bad = _run_eval(env, str(tmp_path / "missing"), "--split", "valid")
        assert bad.returncode == 2 and "missing" in bad.stderr
        assert db.read(COUNT_USER_CLAUSE)[0]["n"] == 1  # the product graph's clause is untouched
    finally:
        drop_acord_graph(db)
        db.write("MATCH (c:Clause {id: 'USER#1'}) DELETE c")
