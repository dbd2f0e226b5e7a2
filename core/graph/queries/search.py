"""Clause search: full-text (BM25), vector (cosine) and exact re-scoring of candidates.

Index names travel as `$index` parameters (the procedures take them as strings), so the same
queries serve the product's `clause_text` / `clause_embeddings` and the evaluation's own
indexes on another label. Every node in these indexes is expected to carry an `id`.
"""

FULLTEXT = (
    "CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node, score "
    "RETURN node.id AS id, score ORDER BY score DESC, id LIMIT $k"
)

# The agreement filter walks the graph (SLA)-[:HAS_CLAUSE]->(Clause) instead of trusting the id
# prefix, and it has to run before the limit, so Lucene is asked for every match.
FULLTEXT_IN_AGREEMENTS = (
    "CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score "
    "WHERE EXISTS { MATCH (s:SLA)-[:HAS_CLAUSE]->(node) WHERE s.id IN $sla_ids } "
    "RETURN node.id AS id, score ORDER BY score DESC, id LIMIT $k"
)

VECTOR = (
    "CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score "
    "RETURN node.id AS id, score ORDER BY score DESC, id"
)

# Both candidate lists and the exact cosine of every candidate in one round trip (the linear
# fusion of `core.search.hybrid_search`); the caller ranks each list by (score desc, id).
HYBRID_CANDIDATES = (
    "CALL () { "
    "CALL db.index.fulltext.queryNodes($ft_index, $query, {limit: $k}) YIELD node, score "
    "RETURN node, score, 'fulltext' AS source "
    "UNION ALL "
    "CALL db.index.vector.queryNodes($vector_index, $k, $vector) YIELD node, score "
    "RETURN node, score, 'vector' AS source } "
    "RETURN node.id AS id, source, score, "
    "CASE WHEN node.embedding IS NULL THEN null ELSE vector.similarity.cosine(node.embedding, $vector) END AS cosine"
)
VECTOR_CANDIDATES = (
    "CALL db.index.vector.queryNodes($vector_index, $k, $vector) YIELD node, score "
    "RETURN node.id AS id, 'vector' AS source, score, vector.similarity.cosine(node.embedding, $vector) AS cosine"
)

# Exact cosine (Neo4j's normalized form (1 + cos) / 2, the same scale as the vector index
# score) for a set of candidate ids of one label; `label` is chosen by code, never by a user.
_COSINE_FOR_IDS = (
    "UNWIND $ids AS cid MATCH (n:{label} {{id: cid}}) WHERE n.embedding IS NOT NULL "
    "RETURN n.id AS id, vector.similarity.cosine(n.embedding, $vector) AS score"
)
SEARCHABLE_LABELS = {"Clause", "AcordClause"}


def cosine_for_ids(label: str) -> str:
    if label not in SEARCHABLE_LABELS:
        raise ValueError(f"not a searchable label: {label!r}")
    return _COSINE_FOR_IDS.format(label=label)
