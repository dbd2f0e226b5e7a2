"""Constraints and indexes (DESIGN §2). They exist before any MERGE."""

CONSTRAINTS = {
    "company_name": "CREATE CONSTRAINT company_name IF NOT EXISTS FOR (n:Company) REQUIRE n.name IS UNIQUE",
    "sla_id": "CREATE CONSTRAINT sla_id IF NOT EXISTS FOR (n:SLA) REQUIRE n.id IS UNIQUE",
    "clause_id": "CREATE CONSTRAINT clause_id IF NOT EXISTS FOR (n:Clause) REQUIRE n.id IS UNIQUE",
    "clausetype_name": "CREATE CONSTRAINT clausetype_name IF NOT EXISTS FOR (n:ClauseType) REQUIRE n.name IS UNIQUE",
    "address_id": "CREATE CONSTRAINT address_id IF NOT EXISTS FOR (n:Address) REQUIRE n.id IS UNIQUE",
    "spendcategory_name": ("CREATE CONSTRAINT spendcategory_name IF NOT EXISTS FOR (n:SpendCategory) "
                           "REQUIRE n.name IS UNIQUE"),
    "term_id": "CREATE CONSTRAINT term_id IF NOT EXISTS FOR (n:Term) REQUIRE n.id IS UNIQUE",
}

RANGE_INDEXES = {
    "company_country": "CREATE INDEX company_country IF NOT EXISTS FOR (n:Company) ON (n.country)",
    "company_industry": "CREATE INDEX company_industry IF NOT EXISTS FOR (n:Company) ON (n.industry)",
    "company_spend_latest": "CREATE INDEX company_spend_latest IF NOT EXISTS FOR (n:Company) ON (n.spend_latest)",
    "address_city": "CREATE INDEX address_city IF NOT EXISTS FOR (n:Address) ON (n.city)",
    "sla_governing_law": "CREATE INDEX sla_governing_law IF NOT EXISTS FOR (n:SLA) ON (n.governing_law)",
    "sla_effective_date": "CREATE INDEX sla_effective_date IF NOT EXISTS FOR (n:SLA) ON (n.effective_date)",
    "term_field_date": "CREATE INDEX term_field_date IF NOT EXISTS FOR (n:Term) ON (n.field, n.date)",
    "term_field_days": "CREATE INDEX term_field_days IF NOT EXISTS FOR (n:Term) ON (n.field, n.days)",
    "term_field_number": "CREATE INDEX term_field_number IF NOT EXISTS FOR (n:Term) ON (n.field, n.number)",
}


def spend_index(year: int) -> tuple[str, str]:
    """Range index on one `spend_<year>` property; `year` is an int checked by the caller."""
    year = int(year)
    name = f"company_spend_{year}"
    return name, f"CREATE INDEX {name} IF NOT EXISTS FOR (n:Company) ON (n.spend_{year})"


def vector_index(name: str, label: str, dimension: int) -> str:
    assert name in {"clause_embeddings", "sla_embeddings"} and label in {"Clause", "SLA"}
    dimension = int(dimension)
    return (f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) "
            f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dimension}, "
            f"`vector.similarity_function`: 'cosine'}}}}")


# The CJK analyzer tokenizes Chinese into bigrams and English by words, so one index serves both.
CLAUSE_TEXT_INDEX = ("CREATE FULLTEXT INDEX clause_text IF NOT EXISTS FOR (n:Clause) ON EACH [n.title, n.text] "
                     "OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}")
COMPANY_NAME_INDEX = ("CREATE FULLTEXT INDEX company_names IF NOT EXISTS FOR (n:Company) ON EACH [n.name, n.aliases_text] "
                      "OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}")

SHOW_INDEXES = ("SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties, options "
                "RETURN name, type, state, labelsOrTypes, properties, options")
SHOW_CONSTRAINTS = "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties RETURN name, type, labelsOrTypes, properties"
DROP_INDEX = {  # only used when the embedding dimension changes
    "clause_embeddings": "DROP INDEX clause_embeddings IF EXISTS",
    "sla_embeddings": "DROP INDEX sla_embeddings IF EXISTS",
}
AWAIT_INDEXES = "CALL db.awaitIndexes($timeout)"
AVAILABLE_ANALYZERS = "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer RETURN analyzer"

# A scratch label to prove the database's features (`python -m core neo4j start`, tests).
PROBE_SETUP = [
    "CREATE CONSTRAINT cg_probe_id IF NOT EXISTS FOR (n:CGProbe) REQUIRE n.id IS UNIQUE",
    "CREATE VECTOR INDEX cg_probe_vec IF NOT EXISTS FOR (n:CGProbe) ON (n.vec) "
    "OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}",
    "CREATE FULLTEXT INDEX cg_probe_text IF NOT EXISTS FOR (n:CGProbe) ON EACH [n.text] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}",
]
PROBE_TEARDOWN = [
    "DROP CONSTRAINT cg_probe_id IF EXISTS",
    "DROP INDEX cg_probe_vec IF EXISTS",
    "DROP INDEX cg_probe_text IF EXISTS",
]
PROBE_INSERT = "CREATE (n:CGProbe {id: $id, text: $text, vec: $vec})"
PROBE_VECTOR = ("CALL db.index.vector.queryNodes('cg_probe_vec', 1, $vec) YIELD node, score "
                "RETURN node.id AS id, score")
PROBE_FULLTEXT = ("CALL db.index.fulltext.queryNodes('cg_probe_text', $q) YIELD node, score "
                  "RETURN node.id AS id, score")
PROBE_CLEAN = "MATCH (n:CGProbe) DETACH DELETE n"
