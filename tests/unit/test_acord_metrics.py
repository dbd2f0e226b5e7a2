"""`eval acord` without a database: the metrics by hand and the ACORD folder format.

The end-to-end run on the test database is in tests/test_eval_acord.py.
"""
from __future__ import annotations

import math

import pytest

from core.evaluation import dcg_at_k, ndcg_at_k, precision_at_k
from core.evaluation.acord import AcordFormatError, load_acord, read_qrels, score_ranking
from support import ACORD_QUERIES, write_acord


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


def test_reading_the_folder(tmp_path):
    root = write_acord(tmp_path / "acord")
    qrels = read_qrels(root / "qrels" / "valid.tsv")
    assert qrels['"as is" cap on liability'] == {"li01": 3, "li03": 2, "li02": 1}  # CSV-quoted id, CRLF
    data = load_acord(root, "valid")
    assert [q.id for q in data.queries] == [q["_id"] for q in ACORD_QUERIES[:3]]  # split filter
    assert len(data.corpus_ids) == 12 and len(data.corpus_hash) == 16
    assert [q.id for q in load_acord(root, "train").queries] == ["Confidentiality carveouts"]
    with pytest.raises(AcordFormatError, match="test.tsv"):
        load_acord(root, "test")
    (root / "qrels" / "valid.tsv").write_text("query-id\tcorpus-id\tscore\nq\tgl01\tfour\n", encoding="utf-8")
    with pytest.raises(AcordFormatError, match=r"valid.tsv:2"):
        read_qrels(root / "qrels" / "valid.tsv")
