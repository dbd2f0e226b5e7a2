"""Clause search primitives without a database: safe Lucene queries and the fusion maths.

Searching a real graph with them (full-text, vector, hybrid) is in tests/test_search.py.
"""
from __future__ import annotations

import pytest

from core.retrieval import search
from core.retrieval.search import Hit, fulltext_query, linear_fuse, rrf_fuse

# -- fulltext_query ----------------------------------------------------------------------

def _unescaped(query: str, ch: str) -> int:
    """Occurrences of `ch` not preceded by a backslash (backslash pairs handled)."""
    count, i = 0, 0
    while i < len(query):
        if query[i] == "\\":
            i += 2
            continue
        count += query[i] == ch
        i += 1
    return count


def test_fulltext_query_drops_stopwords_and_ors_terms():
    assert fulltext_query("What does the agreement say about termination?") == "agreement OR termination"
    assert fulltext_query("Termination AND Renewal") == "termination OR renewal"  # operator word is not syntax


@pytest.mark.parametrize("text", [
    'foo:bar (baz) [x TO y] {a} b^2 c~ d* e? f!g h&&i j||k l/m \\ "quoted',
    "c++ -minus +plus", "NOT", "AND OR", "\\", '"', "((((", "*", "~~~", ":", "a/b/c",
])
def test_fulltext_query_escapes_every_lucene_special(text):
    query = fulltext_query(text)
    for ch in "()[]{}^~*?:!&|/+-":
        assert _unescaped(query, ch) == 0, (text, query)
    # the only unescaped quotes are the (balanced) ones of phrases the function adds
    assert _unescaped(query, '"') % 2 == 0
    assert " AND " not in query and not query.startswith(("NOT", "AND", "OR"))


def test_fulltext_query_keeps_escaped_terms():
    query = fulltext_query("e-mail tcp/ip AT&T")
    assert query == "e\\-mail OR tcp\\/ip OR at\\&t"
    assert fulltext_query("foo:bar") == "foo OR bar"  # a field separator splits, never selects a field


@pytest.mark.parametrize("text", ["", "   ", None, "!!!", "the of and", "的了", "\x00\u200b", "。，、"])
def test_fulltext_query_empty_for_nothing_to_search(text):
    assert fulltext_query(text) == ""


def test_fulltext_query_never_raises_on_odd_input():
    for text in [12345, 3.5, "\ud800", "a" * 100_000, "🙂 emoji", "ｆｕｌｌ－ｗｉｄｔｈ", "\t\n\r"]:
        assert isinstance(fulltext_query(text), str)
    assert fulltext_query(12345) == "12345"
    assert fulltext_query("ｆｕｌｌ－ｗｉｄｔｈ") == "full\\-width"  # NFKC first


def test_fulltext_query_segments_chinese_with_jieba():
    query = fulltext_query("合同解除的条件是什么")
    assert '"合同"' in query and '"解除"' in query and '"条件"' in query
    assert "的" not in query and "什么" not in query
    mixed = fulltext_query("SLA 服务可用性 99.9%")
    assert mixed.startswith("sla OR ") and '"可用性"' in mixed and "99.9" in mixed


def test_fulltext_query_phrase_boost_and_expansion():
    query = fulltext_query("cap on liability", phrase_boost=2.0)
    assert query == 'cap OR liability OR "cap liability"~3^2'
    expanded = fulltext_query("cap on liability", extra_terms=["Limitation of Liability"])
    assert expanded == "cap OR liability OR limitation^0.5"  # "liability" is not added twice


def test_fulltext_query_caps_the_number_of_terms():
    text = " ".join(f"word{i}" for i in range(500))
    assert fulltext_query(text, max_terms=64).count(" OR ") == 63


# -- fusion maths ------------------------------------------------------------------------

def _ranking(source: str, ids: list[str]) -> list[Hit]:
    return [Hit(cid, 10.0 - i, i + 1, {source: 10.0 - i}) for i, cid in enumerate(ids)]


def test_rrf_scores_are_sums_of_reciprocal_ranks():
    fused = rrf_fuse({"fulltext": _ranking("fulltext", ["A#1", "B#1", "C#1"]),
                      "vector": _ranking("vector", ["B#1", "D#1"])}, k=10, rrf_k=60)
    scores = {h.clause_id: h.score for h in fused}
    assert scores["B#1"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["A#1"] == pytest.approx(1 / 61)
    assert scores["D#1"] == pytest.approx(1 / 62)
    assert scores["C#1"] == pytest.approx(1 / 63)
    assert [h.clause_id for h in fused] == ["B#1", "A#1", "D#1", "C#1"]
    assert [h.rank for h in fused] == [1, 2, 3, 4]
    assert fused[0].sources == {"fulltext": 9.0, "vector": 10.0}


def test_rrf_ties_break_on_best_rank_then_id_and_weights_apply():
    fused = rrf_fuse({"a": _ranking("a", ["X#1", "Y#1"]), "b": _ranking("b", ["Y#1", "X#1"])}, k=2)
    assert [h.clause_id for h in fused] == ["X#1", "Y#1"]  # equal scores, equal best rank -> id
    fused = rrf_fuse({"a": _ranking("a", ["X#1", "Y#1"]), "b": _ranking("b", ["Y#1", "X#1"])},
                     k=2, weights={"a": 1.0, "b": 2.0}, rrf_k=10)
    assert fused[0].clause_id == "Y#1"
    assert fused[0].score == pytest.approx(1 / 12 + 2 / 11)


def test_rrf_per_agreement_cap_keeps_at_most_two_per_sla():
    ids = ["SLA-001#1", "SLA-001#2", "SLA-001#3", "SLA-002#1", "SLA-001#4", "SLA-003#7"]
    fused = rrf_fuse({"fulltext": _ranking("fulltext", ids)}, k=10, per_group_cap=2)
    assert [h.clause_id for h in fused] == ["SLA-001#1", "SLA-001#2", "SLA-002#1", "SLA-003#7"]
    assert [h.rank for h in fused] == [1, 2, 3, 4]
    capped_k = rrf_fuse({"fulltext": _ranking("fulltext", ids)}, k=3, per_group_cap=1)
    assert [h.clause_id for h in capped_k] == ["SLA-001#1", "SLA-002#1", "SLA-003#7"]
    custom = rrf_fuse({"fulltext": _ranking("fulltext", ["a1", "a2", "b1"])}, k=5, per_group_cap=1,
                      group_of=lambda cid: cid[0])
    assert [h.clause_id for h in custom] == ["a1", "b1"]
    assert search.sla_id_of("SLA-002#3") == "SLA-002" and search.sla_id_of("5f3a") == "5f3a"


def test_linear_fuse_normalizes_per_method():
    ft = [Hit("A#1", 8.0, 1, {"fulltext": 8.0}), Hit("B#1", 4.0, 2, {"fulltext": 4.0})]
    vec = [Hit("B#1", 0.9, 1, {"vector": 0.9}), Hit("A#1", 0.6, 2, {"vector": 0.6}), Hit("C#1", 0.3, 3, {"vector": 0.3})]
    fused = linear_fuse({"fulltext": ft, "vector": vec}, k=3, weights={"fulltext": 0.5, "vector": 0.5}, normalize="max")
    scores = {h.clause_id: h.score for h in fused}
    assert scores["A#1"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.6 / 0.9)
    assert scores["B#1"] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert scores["C#1"] == pytest.approx(0.5 * 0.3 / 0.9)  # missing from BM25 -> 0 there
    minmax = linear_fuse({"fulltext": ft, "vector": vec}, k=3, weights={"fulltext": 1, "vector": 1})
    assert {h.clause_id: h.score for h in minmax} == pytest.approx({"A#1": 1.5, "B#1": 1.0, "C#1": 0.0})


def test_a_mention_query_requires_every_word_as_a_prefix_and_a_chinese_word_as_a_phrase():
    from core.retrieval.search import mention_query

    assert mention_query(["period"]) == "(period*)"
    assert mention_query(["sub-processor", "notice"]) == "(sub* AND processor*) AND (notice*)"
    assert mention_query(["上海"]) == '"上海"'
    assert mention_query(["--"]) == "" and mention_query(["IT"]) == ""
    assert mention_query(["it-grundschutz"]) == "(grundschutz*)"
