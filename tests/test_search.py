"""Clause search on a real graph: full-text, vector and hybrid search over a few seeded clauses.

The pure parts (safe Lucene queries, fusion maths) need no database: tests/unit/test_search_primitives.py.
"""
from __future__ import annotations

import pytest

from core.retrieval.search import fulltext_search, hybrid_search, vector_search

# Test fixture only: a few agreements and clauses written straight into the test database.
SEED = ("UNWIND $rows AS r MERGE (s:SLA {id: r.sla}) "
        "CREATE (c:Clause {id: r.id, title: r.title, text: r.text, position: r.pos, embedding: r.embedding}) "
        "CREATE (s)-[:HAS_CLAUSE]->(c)")

CLAUSES = [
    ("SLA-001", 1, "Termination", "Either party may terminate this agreement on ninety days written notice."),
    ("SLA-001", 2, "Termination for cause", "The customer may terminate the agreement immediately upon material breach."),
    ("SLA-001", 3, "Effect of termination", "On termination of the agreement the supplier refunds prepaid fees."),
    ("SLA-002", 1, "Payment", "Invoices are payable within thirty days; late fees accrue monthly."),
    ("SLA-002", 2, "Liability", "Liability is capped at the fees paid in the previous twelve months."),
    ("SLA-003", 1, "合同解除", "任何一方可提前九十天书面通知解除本合同。"),
    ("SLA-003", 2, "数据保护", "供应商应保护个人信息并遵守适用的数据保护法律。"),
]


# -- against a real graph ----------------------------------------------------------------

@pytest.fixture()
def clause_graph(empty_db, embedder):
    from core.graph.schema import ensure_schema

    ensure_schema(empty_db, embedder.dimension)
    vecs = embedder.encode([f"{title}\n{text}" for _, _, title, text in CLAUSES])
    rows = [{"sla": sla, "id": f"{sla}#{pos}", "pos": pos, "title": title, "text": text, "embedding": vec.tolist()}
            for (sla, pos, title, text), vec in zip(CLAUSES, vecs)]
    empty_db.write(SEED, {"rows": rows})
    empty_db.write("CALL db.awaitIndexes(120)")
    return empty_db


def test_fulltext_search_ranks_matching_clauses(clause_graph):
    hits = fulltext_search(clause_graph, "How can the customer terminate?", k=5)
    assert hits and hits[0].clause_id.startswith("SLA-001#")
    assert {h.clause_id for h in hits} <= {"SLA-001#1", "SLA-001#2", "SLA-001#3"}
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    assert all(set(h.sources) == {"fulltext"} for h in hits)


def test_fulltext_search_chinese_and_odd_input(clause_graph):
    hits = fulltext_search(clause_graph, "合同解除需要提前多久通知？", k=3)
    assert hits[0].clause_id == "SLA-003#1"
    assert fulltext_search(clause_graph, "数据保护", k=3)[0].clause_id == "SLA-003#2"
    assert fulltext_search(clause_graph, '((( AND "', k=3) == []
    assert fulltext_search(clause_graph, "terminate: (agreement)! [now]", k=3)  # specials escaped, still matches


def test_fulltext_search_filters_by_agreement(clause_graph):
    hits = fulltext_search(clause_graph, "fees", k=10, filter_sla_ids=["SLA-002"])
    assert {h.clause_id for h in hits} == {"SLA-002#1", "SLA-002#2"}
    assert fulltext_search(clause_graph, "fees", k=10, filter_sla_ids=[]) == []


def test_vector_search_finds_by_meaning(clause_graph, embedder):
    hits = vector_search(clause_graph, embedder.encode_one("when do bills have to be paid"), k=3)
    assert hits[0].clause_id == "SLA-002#1"  # "Invoices are payable": no word in common
    assert len(hits) == 3 and all(0.0 <= h.score <= 1.0 for h in hits)
    assert vector_search(clause_graph, None) == []


def test_hybrid_search_fuses_and_caps_per_agreement(clause_graph, embedder):
    text = "terminate the agreement"
    hits = hybrid_search(clause_graph, text, embedder.encode_one(text), k=5, per_agreement_cap=2)
    ids = [h.clause_id for h in hits]
    assert ids[0].startswith("SLA-001#")
    assert sum(cid.startswith("SLA-001#") for cid in ids) == 2
    assert "SLA-003#1" in ids  # the Chinese termination clause comes in by meaning
    assert set(hits[0].sources) == {"fulltext", "vector"}
    uncapped = hybrid_search(clause_graph, text, embedder.encode_one(text), k=5, per_agreement_cap=None)
    assert sum(h.clause_id.startswith("SLA-001#") for h in uncapped) == 3


def test_hybrid_search_rrf_and_default_vector(clause_graph):
    rrf = hybrid_search(clause_graph, "liability cap", k=3, fusion="rrf")  # embeds the text itself
    assert rrf[0].clause_id == "SLA-002#2"
    assert rrf[0].score == pytest.approx(1 / 61 + 1 / 61)  # first in both lists, weights 1 and 1
    only = hybrid_search(clause_graph, "fees", k=5, filter_sla_ids=["SLA-002"])
    assert {h.clause_id for h in only} == {"SLA-002#1", "SLA-002#2"}
    with pytest.raises(ValueError):
        hybrid_search(clause_graph, "fees", k=3, fusion="magic")


def test_question_embeddings_equal_the_library_encode(embedder):
    """A question's few texts skip sentence-transformers' batching bookkeeping (the direct
    tokenizer -> transformer -> mean pooling path); the vectors must be the library's own, in
    English and Chinese, alone and padded beside longer texts, and batches still go through it."""
    import numpy as np

    from core.embeddings import DIRECT_MAX_TEXTS

    assert embedder._direct is not None, "the default model should take the direct path (its self-check failed)"
    texts = ["ending the contract early on notice", "供应商应保护个人信息", "Liability is capped at the fees paid in "
             "the previous twelve months, save for death, personal injury or fraud."]
    library = embedder.model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert np.allclose(embedder.encode(texts), library, atol=1e-5)
    for text, expected in zip(texts, library):
        assert np.allclose(embedder.encode_one(text), expected, atol=1e-5)
    batch = texts * (DIRECT_MAX_TEXTS // len(texts) + 1)   # over the limit: the library's batching
    assert len(batch) > DIRECT_MAX_TEXTS
    assert np.allclose(embedder.encode(batch), np.vstack([library] * (len(batch) // len(texts))), atol=1e-5)


def test_question_embedding_runs_on_one_thread_and_restores_the_count(embedder):
    """A question's embedding runs on DIRECT_THREADS intra-op threads (torch's spinning workers
    slowed the query after it); the count is restored after, so ingest batches keep every core."""
    import torch

    from core.embeddings import DIRECT_THREADS

    seen = []
    record = lambda *_: seen.append(torch.get_num_threads())  # noqa: E731
    # the direct path calls the transformer itself; the library's batches go through its module
    hooks = [embedder.model[0].auto_model.register_forward_pre_hook(record),
             embedder.model[0].register_forward_pre_hook(record)]
    before = torch.get_num_threads()
    try:
        embedder.encode(["which suppliers can we not terminate for convenience?"])
        assert seen == [min(DIRECT_THREADS, before)]
        assert torch.get_num_threads() == before
        seen.clear()
        embedder.encode([f"clause {i}" for i in range(20)])    # a batch: the library's path, every thread
        assert seen and all(n == before for n in seen)
    finally:
        for hook in hooks:
            hook.remove()
