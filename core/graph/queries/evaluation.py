"""Cypher of the evaluation harness. It only ever runs against the evaluation's own Neo4j and
only touches its own labels (`AcordClause`, `AcordMeta`), never the product graph's.
"""

ACORD_LABEL = "AcordClause"
ACORD_VECTOR_INDEX = "acord_embeddings"
ACORD_TEXT_INDEX = "acord_text"
# Analyzers the ACORD full-text index may be built with (code-chosen, interpolated below).
ACORD_ANALYZERS = {"english", "standard-no-stop-words", "standard", "classic", "cjk"}

ACORD_CONSTRAINT = ("CREATE CONSTRAINT acord_clause_id IF NOT EXISTS "
                    "FOR (n:AcordClause) REQUIRE n.id IS UNIQUE")


def acord_vector_index(dimension: int) -> str:
    dimension = int(dimension)
    return (f"CREATE VECTOR INDEX {ACORD_VECTOR_INDEX} IF NOT EXISTS FOR (n:AcordClause) ON (n.embedding) "
            f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dimension}, "
            f"`vector.similarity_function`: 'cosine'}}}}")


def acord_text_index(analyzer: str, name: str = ACORD_TEXT_INDEX) -> str:
    if analyzer not in ACORD_ANALYZERS:
        raise ValueError(f"unsupported analyzer {analyzer!r}")
    if not name.startswith("acord_text"):
        raise ValueError(f"not an ACORD text index name: {name!r}")
    return (f"CREATE FULLTEXT INDEX {name} IF NOT EXISTS FOR (n:AcordClause) ON EACH [n.text] "
            f"OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{analyzer}'}}}}")


def drop_index(name: str) -> str:
    if not name.startswith("acord_"):
        raise ValueError(f"not an ACORD index: {name!r}")
    return f"DROP INDEX {name} IF EXISTS"


ACORD_INDEXES = ("SHOW INDEXES YIELD name, type, state, labelsOrTypes, options "
                 "WHERE name STARTS WITH 'acord_' RETURN name, type, state, labelsOrTypes, options")
DROP_ACORD_CONSTRAINT = "DROP CONSTRAINT acord_clause_id IF EXISTS"

ACORD_META = "MATCH (m:AcordMeta) RETURN m.hash AS hash, m.count AS count, m.model AS model"
ACORD_CLAUSE_COUNT = "MATCH (n:AcordClause) RETURN count(n) AS n"
ACORD_WIPE_BATCH = ("MATCH (n) WHERE n:AcordClause OR n:AcordMeta WITH n LIMIT 5000 "
                    "DETACH DELETE n RETURN count(*) AS deleted")
ACORD_LOAD_BATCH = ("UNWIND $rows AS r "
                    "CREATE (n:AcordClause {id: r.id, text: r.text, embedding: r.embedding})")
ACORD_SET_META = ("MERGE (m:AcordMeta {key: 'acord'}) "
                  "SET m.hash = $hash, m.count = $count, m.model = $model, m.loaded_at = datetime()")
AWAIT_INDEXES = "CALL db.awaitIndexes($timeout)"
