"""The learned re-ranker (core.retrieval.rerank) and the optional LLM re-ranker, without a database.

The LLM re-ranker talks HTTP to the scripted OpenAI-compatible test server (tests/llm_server.py).
"""
from __future__ import annotations

import json

import pytest

from core.retrieval import rerank
from core.taxonomy import load_taxonomy
from core.text2cypher.rerank_llm import RERANK_TAG, llm_rerank, parse_ratings
from support import llm, server  # noqa: F401 - fixtures shared with tests/test_text2cypher.py

CLAUSES = [
    "The Supplier's total liability under this Agreement shall not exceed the fees paid in the prior twelve months.",
    "This Agreement is governed by the laws of the State of New York.",
    "The cap on liability shall not apply to liability for fraud, gross negligence or willful misconduct.",
    "Either party may terminate this Agreement for convenience on thirty days' notice.",
]


def test_committed_model_loads_and_matches_the_features():
    model = rerank.load_model()
    assert model.feature_names == list(rerank.FEATURES)
    assert len(model.weights) == len(rerank.FEATURES) and model.candidates >= 6  # at least the k shown
    info = model.info["within_pool_ndcg@10"]
    assert set(info) == {"train", "valid"}, "trained and chosen on train and valid only"
    assert info["valid"]["reranked"] > info["valid"]["hybrid"]


def test_features_are_relative_to_the_candidate_list():
    rows = rerank.features("fraud carveout to cap on liability", CLAUSES, [0.9, 0.5, 0.8, 0.4])
    assert len(rows) == 4 and all(len(r) == len(rerank.FEATURES) for r in rows)
    f = {name: [r[i] for r in rows] for i, name in enumerate(rerank.FEATURES)}
    assert f["stage_norm"][0] == 1.0 and f["rank_gain"][0] == 1.0
    # "fraud", "cap" and "liability" are in clause 3 only: full coverage of the rarest terms
    assert f["idf_coverage"][2] == max(f["idf_coverage"]) and f["coverage"][1] == 0.0
    assert f["cue_x_query"][2] > 0 and f["cue_x_query"][1] == 0.0, "exception cues count when the query asks for one"
    assert rerank.features("anything", [], []) == []
    assert rerank.stem("indemnification") == rerank.stem("indemnify")[: len(rerank.stem("indemnification"))]


def test_type_agreement_compares_taxonomy_profiles_of_query_and_clause():
    """Issue 16: the clause-type feature is computed from text on both sides (the taxonomy's
    keywords and related wording), so a clause in the query's type's other words scores."""
    at = rerank.FEATURES.index("type_agreement")
    texts = ["The Supplier shall not be liable for indirect or consequential damages.",
             "This Agreement is governed by the laws of the State of New York.",
             "The parties met on Tuesday."]
    f = [r[at] for r in rerank.features("cap on liability", texts, [0.9, 0.8, 0.7])]
    assert f[0] > 0.9 and f[1] == 0.0 and f[2] == 0.0, "'liable', 'indirect', 'damages' are Liability words"
    # a phrase of the taxonomy counts, and a starred term matches the words it starts
    lex = rerank.type_lexicon()
    names = [t.name for t in load_taxonomy() if not t.is_catch_all]
    words = "the act of god clause and the indemnification and indemnities".split()
    profile = lex.profile(words, " ".join(words))
    assert profile[names.index("Force Majeure")] == 1.0
    assert profile[names.index("Indemnification")] >= 2.0
    # a query with no clause-type words leaves the feature at zero; Chinese terms match as substrings
    assert all(r[at] == 0.0 for r in rerank.features("the meeting", texts, [0.9, 0.8, 0.7]))
    zh_words = "乙方应遵守数据保护法律。"
    assert lex.profile([zh_words], zh_words)[names.index("Data Protection")] >= 1.0
    # ... but a Chinese query leaves it at zero: the weight was learned on English judgements only
    zh = [r[at] for r in rerank.features("数据保护", [zh_words, "甲方按月支付服务费用。"], [0.6, 0.7])]
    assert zh == [0.0, 0.0]


def test_rerank_order_follows_the_weights_and_keeps_rows_untouched():
    n = len(rerank.FEATURES)
    cov = rerank.FEATURES.index("idf_coverage")
    model = rerank.RerankModel([1.0 if i == cov else 0.0 for i in range(n)], [0.0] * n, [1.0] * n)
    order = rerank.rerank_order("fraud carveout to cap on liability", CLAUSES, [0.9, 0.5, 0.8, 0.4], model)
    assert order[0] == 2 and sorted(order) == [0, 1, 2, 3]
    rows = [{"clause_id": f"C{i}", "text": t, "score": s} for i, (t, s) in enumerate(zip(CLAUSES, [0.9, 0.5, 0.8, 0.4]))]
    before = json.dumps(rows)
    out = rerank.rerank_rows("fraud carveout to cap on liability", rows, 2, model)
    assert out.applied and [r["clause_id"] for r in out.rows] == ["C2", "C0"] and out.candidates == 4
    assert json.dumps(rows) == before, "the query's rows are not reordered in place"


def test_bad_model_files_name_the_file(tmp_path, monkeypatch):
    missing = tmp_path / "none.json"
    with pytest.raises(rerank.RerankError, match="none.json"):
        rerank.load_model(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{\n  not json", encoding="utf-8")
    with pytest.raises(rerank.RerankError, match=r"broken.json:2"):
        rerank.load_model(broken)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"features": ["x"], "weights": [1], "mean": [0], "scale": [1]}), encoding="utf-8")
    with pytest.raises(rerank.RerankError, match="other.json.*retrain"):
        rerank.load_model(other)
    # a broken model never breaks a question: the first stage's order is kept, and the trace says why
    monkeypatch.setenv(rerank.RERANK_MODEL_ENV, str(missing))
    rows = [{"clause_id": "A", "text": "x", "score": 1.0}, {"clause_id": "B", "text": "y", "score": 0.5}]
    out = rerank.rerank_rows("x", rows, 1)
    assert not out.applied and out.rows == rows[:1] and "none.json" in out.note


def test_settings_switch_reranking_and_candidates(monkeypatch):
    monkeypatch.delenv(rerank.RERANK_ENV, raising=False)
    assert rerank.rerank_enabled()
    monkeypatch.setenv(rerank.RERANK_ENV, "off")
    assert not rerank.rerank_enabled()
    monkeypatch.setenv(rerank.RERANK_CANDIDATES_ENV, "12")
    assert rerank.rerank_candidates() == 12
    monkeypatch.setenv(rerank.RERANK_CANDIDATES_ENV, "many")
    with pytest.raises(rerank.RerankError, match=rerank.RERANK_CANDIDATES_ENV):
        rerank.rerank_candidates()


def test_parse_ratings_needs_one_rating_per_clause():
    assert parse_ratings('```json\n{"ratings": [5, 1, 3]}\n```', 3) == [5.0, 1.0, 3.0]
    for bad in ("no json", '{"ratings": [5, 1]}', '{"ratings": [9, 1, 1]}'):
        with pytest.raises(ValueError):
            parse_ratings(bad, 3)


def test_llm_rerank_orders_by_stars_and_falls_back_on_any_failure(llm):
    rows = [{"clause_id": f"C{i}", "text": t} for i, t in enumerate(CLAUSES)]
    llm.on(lambda req: RERANK_TAG in req.system, '{"ratings": [2, 1, 5, 1]}')
    out = llm_rerank("fraud carveout to cap on liability", rows, candidates=4)
    assert out.applied and [r["clause_id"] for r in out.rows] == ["C2", "C0", "C1", "C3"] and out.tokens > 0
    request = llm.requests[-1]
    assert RERANK_TAG in request.system and "[3] The cap on liability" in request.last_user
    # only the first `candidates` are rated; the rest keep their place after them
    llm.on(lambda req: RERANK_TAG in req.system, '{"ratings": [1, 4]}')
    out = llm_rerank("governing law", rows, candidates=2)
    assert [r["clause_id"] for r in out.rows] == ["C1", "C0", "C2", "C3"]
    for failure in ('{"ratings": [1]}', "I cannot rate these", {"status": 500}):
        llm.on(lambda req: RERANK_TAG in req.system, failure)
        out = llm_rerank("anything", rows, candidates=4)
        assert not out.applied and out.rows == rows and "kept the offline order" in out.note


def test_chinese_candidates_are_matched_word_by_word():
    """A Chinese clause is one regex word; the term features must see its words (issue 15)."""
    texts = ["乙方每日对甲方云数据库进行全量备份，备份数据保存在不同的可用区。",
             "甲方按月向乙方支付服务费用，并在收到发票后三十日内付款。"]
    rows = rerank.features("数据备份", texts, [0.60, 0.70])
    f = {name: [r[i] for r in rows] for i, name in enumerate(rerank.FEATURES)}
    assert f["coverage"][0] > 0.5 and f["coverage"][1] == 0.0
    assert f["idf_coverage"][0] > f["idf_coverage"][1]
    # an English query's terms are unchanged by the Chinese segmentation
    assert rerank.features("late delivery penalty", ["Late delivery costs a penalty."], [0.7])[0][3] == 1.0


def test_the_shown_cap_per_agreement_applies_after_reranking():
    rows = [{"clause_id": f"C{i}", "sla_id": sla} for i, sla in enumerate(["A", "A", "A", "B", "A", "C", "B", "B"])]
    shown = rerank.cap_per_agreement(rows, 2, 6)
    assert [r["clause_id"] for r in shown] == ["C0", "C1", "C3", "C5", "C6"]
    assert [r["clause_id"] for r in rerank.cap_per_agreement(rows, 2, 3)] == ["C0", "C1", "C3"]
    # the cap spreads k over the agreements present; it does not hide candidates when few are
    one = [{"clause_id": f"D{i}", "sla_id": "A"} for i in range(5)]
    assert len(rerank.cap_per_agreement(one, 2, 6)) == 5
    two = one + [{"clause_id": "E0", "sla_id": "B"}]
    assert [r["clause_id"] for r in rerank.cap_per_agreement(two, 2, 6)] == ["D0", "D1", "D2", "E0"]
