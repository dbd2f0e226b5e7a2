"""The Cypher guard against a real Neo4j: hostile queries never change the graph, honest reads pass.

The lexer, the offline gates (1-2) and the schema check on a hand-written schema need no
database: they are tested in tests/unit/test_guard_lexical.py.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.guard.gates import CypherGuard, GraphSchema, GuardRefused
from core.graph.queries.admin import WIPE_BATCH

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ATTACKS = FIXTURES / "guard_attacks.jsonl"
LEGIT = FIXTURES / "guard_legit.jsonl"

logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)

# --- a tiny graph in the shape of docs/DATA_MODEL.md (test data, so its Cypher lives here) ---------------
DIM = 384  # the default embedding model's dimension; the test adapts to an existing index

COMPANIES = [
    {"name": "Acme", "country": "Germany", "industry": "Technology", "spend_2024": 300000, "aliases": ["ACME GmbH"]},
    {"name": "Beta", "country": "China", "industry": "Healthcare", "spend_2024": 50000, "aliases": []},
    {"name": "Gamma", "country": "United States", "industry": "Finance", "spend_2024": 250000, "aliases": []},
]
ADDRESSES = [
    {"company": "Acme", "id": "A1", "street": "Hauptstr. 1", "city": "Berlin", "postal_code": "10115", "country": "Germany"},
    {"company": "Beta", "id": "A2", "street": "Nanjing Rd 2", "city": "Shanghai", "postal_code": "200000", "country": "China"},
]
SLAS = [
    {"company": "Acme", "id": "SLA-001", "service_name": "Cloud hosting", "effective_date": "2023-03-01", "created_at": "2023-02-20"},
    {"company": "Beta", "id": "SLA-002", "service_name": "Lab systems", "effective_date": "2024-06-01", "created_at": "2024-05-02"},
    {"company": "Gamma", "id": "SLA-003", "service_name": "Payments", "effective_date": "2022-01-15", "created_at": "2021-12-01"},
]
CLAUSES = [  # sla, position, title, text, type
    ("SLA-001", 1, "Availability", "The service is available 99.9% of each month.", "Availability"),
    ("SLA-001", 2, "Termination", "Either party may terminate on ninety days notice; supplier will DELETE customer data.", "Termination"),
    ("SLA-001", 3, "Data Protection", "Personal data is processed under the GDPR. 合同解除 后删除数据。", "Data Protection"),
    ("SLA-002", 1, "Availability", "Uptime of 99.5% measured monthly.", "Availability"),
    ("SLA-002", 2, "Payment", "Invoices are payable within thirty days.", "Payment"),
    ("SLA-003", 1, "Liability", "Liability is capped at the annual fees.", "Liability"),
]
SETUP = [
    ("UNWIND $rows AS r CREATE (:Company {name: r.name, country: r.country, industry: r.industry, "
     "spend_2024: r.spend_2024, aliases: r.aliases})", "companies"),
    ("UNWIND $rows AS r MATCH (c:Company {name: r.company}) CREATE (c)-[:LOCATED_AT]->(:Address {id: r.id, "
     "street: r.street, city: r.city, postal_code: r.postal_code, country: r.country})", "addresses"),
    ("UNWIND $rows AS r MATCH (c:Company {name: r.company}) CREATE (c)-[:HAS_SLA]->(:SLA {id: r.id, "
     "service_name: r.service_name, effective_date: r.effective_date, created_at: r.created_at, governing_law: 'Germany', "
     "version: 1, source_file: r.id + '.md', summary: 'summary', embedding: r.embedding})", "slas"),
    ("UNWIND $types AS t CREATE (:ClauseType {name: t, description: 'about ' + t})", "types"),
    ("UNWIND $rows AS r MATCH (s:SLA {id: r.sla}), (t:ClauseType {name: r.type}) "
     "CREATE (s)-[:HAS_CLAUSE]->(k:Clause {id: r.sla + '#' + r.position, title: r.title, text: r.text, "
     "position: r.position, summary: r.title, embedding: r.embedding, type_confidence: 0.9})"
     "-[:OF_TYPE {confidence: 0.9, method: 'keyword'}]->(t)", "clauses"),
    ("MATCH (a:Clause), (b:Clause) WHERE a.id STARTS WITH split(b.id, '#')[0] + '#' "
     "AND b.position = a.position + 1 CREATE (a)-[:NEXT]->(b)", None),
]
NODE_SNAPSHOT = "MATCH (n) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props"
REL_SNAPSHOT = ("MATCH (a)-[r]->(b) RETURN elementId(r) AS id, type(r) AS type, elementId(a) AS a, "
                "elementId(b) AS b, properties(r) AS props")
INDEX_SNAPSHOT = "SHOW INDEXES YIELD name, type, labelsOrTypes, properties RETURN name, type, labelsOrTypes, properties"
CONSTRAINT_SNAPSHOT = "SHOW CONSTRAINTS YIELD name RETURN name"
LABEL_TOKENS = "CALL db.labels() YIELD label RETURN collect(label) AS labels"


def _vector(seed: int, dim: int) -> list[float]:
    raw = [((seed * 7919 + i * 104729) % 1000) / 1000.0 - 0.5 for i in range(dim)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


@pytest.fixture(scope="module")
def graph(db):
    """The graph wiped and loaded with the tiny model-shaped corpus; the schema ensured."""
    from core.graph.schema import ensure_schema

    indexes = {row["name"]: row for row in db.read("SHOW INDEXES YIELD name, options RETURN name, options")}
    dims = ((indexes.get("clause_embeddings") or {}).get("options") or {}).get("indexConfig", {}).get("vector.dimensions")
    dim = int(dims) if dims else DIM
    while db.write(WIPE_BATCH)[0]["deleted"]:
        pass
    ensure_schema(db, dim, spend_years=[2024])
    data = {
        "companies": COMPANIES, "addresses": ADDRESSES,
        "slas": [dict(s, embedding=_vector(i, dim)) for i, s in enumerate(SLAS)],
        "clauses": [{"sla": s, "position": p, "title": t, "text": x, "type": ty, "embedding": _vector(10 + i, dim)}
                    for i, (s, p, t, x, ty) in enumerate(CLAUSES)],
    }
    types = sorted({c[4] for c in CLAUSES} | {"Force Majeure"})
    for cypher, key in SETUP:
        params = {"rows": data[key]} if key in data else {"types": types} if key == "types" else {}
        db.write(cypher, params)
    db.write("CALL db.awaitIndexes(120)", timeout=130)
    return {"dim": dim, "vector": _vector(10, dim)}


@pytest.fixture()
def guard(db, graph):
    return CypherGuard(db, max_limit=200)


def _snapshot(db) -> dict:
    nodes = sorted(db.read(NODE_SNAPSHOT), key=lambda r: r["id"])
    rels = sorted(db.read(REL_SNAPSHOT), key=lambda r: r["id"])
    digest = hashlib.sha256(json.dumps([nodes, rels], sort_keys=True, default=str).encode()).hexdigest()
    return {"nodes": len(nodes), "rels": len(rels), "checksum": digest,
            "indexes": sorted(json.dumps(r, sort_keys=True) for r in db.read(INDEX_SNAPSHOT)),
            "constraints": sorted(r["name"] for r in db.read(CONSTRAINT_SNAPSHOT)),
            "labels": sorted(db.read(LABEL_TOKENS)[0]["labels"])}


def _load(path: Path) -> list[dict]:
    # split on "\n" only: a query may hold U+2028, which splitlines() would treat as a line end
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def _params(item: dict, graph: dict) -> dict:
    return {k: (graph["vector"] if v == "__VEC__" else v) for k, v in (item.get("params") or {}).items()}


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "cypher", *args], capture_output=True, text=True,
                          env=dict(os.environ), cwd=cwd, timeout=300)


# --- hostile queries ---------------------------------------------------------------------------

def test_every_attack_is_refused_with_a_reason_and_changes_nothing(db, guard):
    before = _snapshot(db)
    for item in _load(ATTACKS):
        verdict = guard.check(item["cypher"], item.get("params"))
        assert not verdict.allowed, f"{item['why']}: {item['cypher']!r} was allowed"
        assert len(verdict.reason) > 10, item
        ran = guard.run(item["cypher"], item.get("params"))
        assert not ran.allowed and ran.rows == [] and ran.reason == verdict.reason, item
        with pytest.raises(GuardRefused) as info:
            guard.ensure(item["cypher"])
        assert info.value.result.reason == verdict.reason
    assert _snapshot(db) == before


def test_attack_reasons_name_the_problem(guard):
    cases = {
        "MATCH (n) /* */ DETACH DELETE n": "DETACH DELETE",
        "MATCH (n) // read\nDETACH DELETE n": "DETACH DELETE",
        "MATCH (n) RETURN n; MATCH (m) DELETE m": "multiple statements",
        "MATCH (n) ＤＥＬＥＴＥ n": "imitates the keyword DELETE",
        "MATCH (n) DЕLETE n": "imitates the keyword DELETE",
        "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l": "LOAD CSV",
        "CALL apoc.load.json('x') YIELD value RETURN value": "procedure apoc.load.json is not allowed",
        "RETURN apoc.text.join(['a'], ',')": "function apoc.text.join() is not allowed",
        "CALL db.createLabel('X')": "procedure db.createLabel is not allowed",
        "USE system MATCH (n) RETURN n": "USE",
        "SHOW USERS": "SHOW",
        "DROP CONSTRAINT company_name": "DROP",
        "MATCH (n) CALL { WITH n DELETE n } IN TRANSACTIONS": "not read-only",
        "MATCH (n RETURN n": "syntax error",
    }
    for cypher, expected in cases.items():
        verdict = guard.check(cypher)
        assert not verdict.allowed and expected in verdict.reason, (cypher, verdict.reason)


def test_cli_run_batch_of_attacks_leaves_the_graph_unchanged(db, graph, tmp_path):
    before = _snapshot(db)
    out = _cli("run", "--batch", str(ATTACKS))
    assert out.returncode == 1, out.stderr
    lines = [json.loads(line) for line in out.stdout.split("\n") if line.strip()]
    assert len(lines) == len(_load(ATTACKS))
    for line in lines:
        assert set(line) == {"allowed", "reason", "cypher", "rows", "error"}
        assert line["allowed"] is False and line["reason"] and line["rows"] == []
    assert _snapshot(db) == before


def test_server_gates_catch_writes_even_without_the_lexical_pass(db, guard, monkeypatch):
    """Defence in depth: with gate 2 switched off, EXPLAIN's query type and plan still refuse."""
    monkeypatch.setattr(CypherGuard, "_lexical", lambda self, tokens: None)
    before = _snapshot(db)
    cases = {
        "MATCH (c:Company) SET c.name = 'x' RETURN c.name": "classifies the query as 'rw'",
        "MATCH (n:Company) DETACH DELETE n": "classifies the query as 'w'",
        "CREATE INDEX evil FOR (n:Company) ON (n.secret)": "classifies the query as 's'",
        "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l": "operator LoadCSV",
        "SHOW INDEXES": "operator ShowIndexes",
        "CALL db.schema.visualization()": "procedure db.schema.visualization is not allowed",
    }
    for cypher, expected in cases.items():
        verdict = guard.run(cypher)
        assert not verdict.allowed and expected in verdict.reason, (cypher, verdict.reason)
    assert _snapshot(db) == before


def test_read_transaction_is_the_last_backstop(db, guard, monkeypatch):
    """Even a query that slipped through every gate meets a READ transaction and cannot write."""
    from core.guard.gates import GuardResult

    monkeypatch.setattr(CypherGuard, "check", lambda self, c, p=None: GuardResult(True, "ok", c))
    before = _snapshot(db)
    ran = guard.run("CREATE (n:Evil {x: 1}) RETURN n")
    assert ran.allowed and ran.rows == []
    assert "AccessMode" in ran.error and "read access mode" in ran.error
    assert _snapshot(db) == before


# --- honest queries ----------------------------------------------------------------------------

def test_every_legit_read_passes_and_runs(db, guard, graph):
    before = _snapshot(db)
    for item in _load(LEGIT):
        params = _params(item, graph)
        verdict = guard.check(item["cypher"], params)
        assert verdict.allowed, f"{item['why']}: {verdict.reason}"
        assert verdict.query_type == "r"
        ran = guard.run(item["cypher"], params)
        assert ran.allowed and ran.error is None, f"{item['why']}: {ran.error}"
        assert len(ran.rows) <= 200
    assert _snapshot(db) == before


def test_legit_reads_return_the_right_rows(guard, graph):
    legit = {item["why"]: item for item in _load(LEGIT)}

    def rows(why):
        item = legit[why]
        return guard.run(item["cypher"], _params(item, graph)).rows

    assert [r["supplier"] for r in rows("gap query")] == ["Gamma"]           # high spend, no Termination clause
    assert [r["k.id"] for r in rows("string with DELETE")] == ["SLA-001#2"]
    assert rows("vector relay")[0]["node.id"] == "SLA-001#1"                # its own embedding is the query
    assert {r["id"] for r in rows("full-text")} == {"SLA-001#2"}
    assert [r["node.id"] for r in rows("full-text Chinese")] == ["SLA-001#3"]
    assert [r["b.id"] for r in sorted(rows("variable length NEXT"), key=lambda r: r["b.position"])] == ["SLA-001#2", "SLA-001#3"]
    assert sorted(r["c.name"] for r in rows("EXISTS subquery")) == ["Acme"]
    assert [r["c.name"] for r in rows("comments and trailing semicolon")] == ["Acme"]


# --- rewriting ---------------------------------------------------------------------------------

def test_wrong_relationship_direction_is_fixed(guard):
    wrong = "MATCH (c:Clause)-[:HAS_CLAUSE]->(s:SLA {id: $id}) RETURN c.id AS id ORDER BY id"
    verdict = guard.check(wrong, {"id": "SLA-001"})
    assert verdict.allowed
    assert "(c:Clause)<-[:HAS_CLAUSE]-(s:SLA {id: $id})" in verdict.cypher
    assert any("direction" in f and "(:SLA)-[:HAS_CLAUSE]->(:Clause)" in f for f in verdict.fixes)
    assert [r["id"] for r in guard.run(wrong, {"id": "SLA-001"}).rows] == ["SLA-001#1", "SLA-001#2", "SLA-001#3"]

    reverse = "MATCH (s:SLA)<-[:HAS_SLA]-(c:Company) RETURN c.name"   # already right: untouched
    assert guard.check(reverse).fixes == ["LIMIT 200 added"]
    backwards = "MATCH (s:SLA)-[:HAS_SLA]->(c:Company) RETURN c.name"
    fixed = guard.check(backwards)
    assert "(s:SLA)<-[:HAS_SLA]-(c:Company)" in fixed.cypher

    # One end labelled only through its variable, a multi-hop chain, and an untouched NEXT.
    chain = ("MATCH (t:ClauseType {name: 'Termination'}) "
             "MATCH (t)-[:OF_TYPE]->(k)<-[:HAS_CLAUSE]-(s:SLA)-[:NEXT]->(x) RETURN k.id")
    fixed = guard.check(chain)
    assert "(t)<-[:OF_TYPE]-(k)<-[:HAS_CLAUSE]-(s:SLA)" in fixed.cypher
    assert sum("direction" in f for f in fixed.fixes) == 1
    nxt = "MATCH (a:Clause)-[:NEXT]->(b:Clause) RETURN a.id"
    assert guard.check(nxt).cypher == nxt + " LIMIT 200"


def test_limit_is_added_or_capped(guard):
    assert guard.check("MATCH (c:Company) RETURN c.name").cypher == "MATCH (c:Company) RETURN c.name LIMIT 200"
    v = guard.check("MATCH (c:Company) RETURN c.name LIMIT 5000")
    assert v.cypher.endswith("LIMIT 200") and v.fixes == ["LIMIT 5000 capped at 200"]
    v = guard.check("MATCH (c:Company) RETURN c.name LIMIT 7")
    assert v.cypher.endswith("LIMIT 7") and v.fixes == []
    v = guard.check("MATCH (c:Company) RETURN c.name LIMIT $n", {"n": 10_000})
    assert v.cypher.endswith("LIMIT 200") and "capped" in v.fixes[0]
    v = guard.check("MATCH (c:Company) RETURN c.name LIMIT $n", {"n": 3})
    assert v.cypher.endswith("LIMIT $n") and v.fixes == []
    v = guard.check("MATCH (c:Company) RETURN c.name // done\n")
    assert v.cypher == "MATCH (c:Company) RETURN c.name LIMIT 200 // done\n"
    v = guard.check("MATCH (c:Company) RETURN c.name;")
    assert v.cypher == "MATCH (c:Company) RETURN c.name LIMIT 200"
    v = guard.check("MATCH (c:Company) WITH c LIMIT 1000 RETURN c.name")     # only the final RETURN counts
    assert v.cypher == "MATCH (c:Company) WITH c LIMIT 1000 RETURN c.name LIMIT 200"
    v = guard.check("MATCH (c:Company) RETURN c.name AS n UNION MATCH (s:SLA) RETURN s.id AS n LIMIT 999")
    assert v.cypher == "MATCH (c:Company) RETURN c.name AS n LIMIT 200 UNION MATCH (s:SLA) RETURN s.id AS n LIMIT 200"
    v = guard.check("MATCH (c:Company) RETURN c.name LIMIT 10 * 1000")
    assert not v.allowed and "LIMIT must be an integer literal or a $parameter" in v.reason
    small = CypherGuard(guard.db, max_limit=2)
    assert len(small.run("UNWIND range(1, 50) AS x RETURN x").rows) == 2
    assert len(small.run("UNWIND range(1, 50) AS x RETURN x LIMIT $n", {"n": 40}).rows) == 2


def test_unknown_names_are_refused_with_the_known_ones(guard):
    v = guard.check("MATCH (c:Supplier) RETURN c.name")
    assert not v.allowed
    assert v.reason.startswith("unknown label :Supplier (known: ")
    assert "Company" in v.reason and "ClauseType" in v.reason
    v = guard.check("MATCH (c:Company)-[:SUPPLIES]->(s:SLA) RETURN c")
    assert not v.allowed and v.reason.startswith("unknown relationship type :SUPPLIES (known: ") and "HAS_SLA" in v.reason
    v = guard.check("MATCH (c:Company) WHERE c.start_date > 2023 RETURN c.name")
    assert not v.allowed and v.reason.startswith("unknown property Company.start_date (known: ") and "spend_2024" in v.reason
    v = guard.check("MATCH (c:Company {headquarters: 'x'}) RETURN c")
    assert not v.allowed and "unknown property Company.headquarters" in v.reason
    v = guard.check("MATCH (k:Clause)-[r:OF_TYPE]->(t:ClauseType) WHERE r.score > 1 RETURN k")
    assert not v.allowed and "unknown property OF_TYPE.score" in v.reason
    v = guard.check("MATCH (n) WHERE n:Vendor RETURN n")                 # outside a pattern: the server's warning
    assert not v.allowed and "unknown label :Vendor" in v.reason
    # A name that is a property of another label, and map keys, are not mistaken.
    assert guard.check("MATCH (c:Company) WITH {city: c.country} AS m RETURN m.city").allowed
    assert not guard.check("MATCH (c:Company) RETURN c.city").allowed       # city is an Address property


def test_schema_is_read_from_the_live_graph_and_refreshed(db, guard, graph):
    schema = guard.schema
    assert {"Company", "Address", "SLA", "Clause", "ClauseType"} <= schema.labels
    assert ("SLA", "HAS_CLAUSE", "Clause") in schema.patterns
    assert ("Clause", "HAS_CLAUSE", "SLA") not in schema.patterns
    assert ("Company", "LOCATED_AT", "Address") in schema.patterns and ("Clause", "NEXT", "Clause") in schema.patterns
    assert "created_at" in schema.node_properties["SLA"] and "method" in schema.rel_properties["OF_TYPE"]
    db.write("CREATE (:GuardScratch {note: 'x'})")
    try:
        assert not guard.check("MATCH (g:GuardScratch) RETURN g.note").allowed     # cached schema
        guard.refresh_schema()
        assert guard.check("MATCH (g:GuardScratch) RETURN g.note").allowed
    finally:
        db.write("MATCH (g:GuardScratch) DELETE g")
        guard.refresh_schema()
    fixed = CypherGuard(db, schema=GraphSchema.from_patterns([("SLA", "HAS_CLAUSE", "Clause")],
                                                             {"SLA": ["id"], "Clause": ["id"]}))
    assert not fixed.check("MATCH (c:Company) RETURN c").allowed
    assert "<-[:HAS_CLAUSE]-" in fixed.check("MATCH (c:Clause)-[:HAS_CLAUSE]->(s:SLA) RETURN c.id").cypher


def test_long_query_is_stopped_by_the_timeout(guard):
    slow = "UNWIND range(1, 100000000) AS a UNWIND range(1, 100000000) AS b RETURN count(*) AS n"
    ran = guard.run(slow, timeout_s=1)
    assert ran.allowed and ran.rows == []
    assert ran.error == "query stopped: it ran longer than the 1 s timeout"
    assert ran.elapsed_ms < 30000


# --- command line ------------------------------------------------------------------------------

def test_cli_check_and_run_single_queries(graph):
    out = _cli("check", "MATCH (c:Clause)-[:HAS_CLAUSE]->(s:SLA) RETURN c.id")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert set(res) == {"allowed", "reason", "cypher"} and res["allowed"] is True
    assert res["cypher"] == "MATCH (c:Clause)<-[:HAS_CLAUSE]-(s:SLA) RETURN c.id LIMIT 200"

    out = _cli("check", "MATCH (n) DETACH DELETE n")
    assert out.returncode == 1 and json.loads(out.stdout)["allowed"] is False

    out = _cli("run", "MATCH (c:Company {name: $name}) RETURN c.country AS country", "--params", '{"name": "Acme"}')
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["rows"] == [{"country": "Germany"}] and res["error"] is None and res["allowed"] is True


def test_cli_batch_of_legit_queries(graph, tmp_path):
    batch = tmp_path / "legit.jsonl"
    items = _load(LEGIT)
    batch.write_text("\n".join(json.dumps({"cypher": i["cypher"], "params": _params(i, graph)}) for i in items) + "\n")
    out = _cli("run", "--batch", str(batch))
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == len(items) and all(line["allowed"] and line["error"] is None for line in lines)

    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps({"cypher": "MATCH (c:Company) RETURN c.name"}) + "\n\n"
                     + json.dumps({"cypher": "MATCH (c:Company) SET c.x = 1"}) + "\n")
    out = _cli("check", "--batch", str(mixed))
    assert out.returncode == 1
    assert [json.loads(line)["allowed"] for line in out.stdout.splitlines()] == [True, False]


def test_cli_usage_errors_exit_2(tmp_path):
    assert _cli("check").returncode == 2
    out = _cli("check", "RETURN 1", "--params", "{not json")
    assert out.returncode == 2 and "--params" in out.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"cypher": "RETURN 1"}\n{oops\n')
    out = _cli("check", "--batch", str(bad))
    assert out.returncode == 2 and "bad.jsonl, line 2" in out.stderr
    out = _cli("check", "--batch", str(tmp_path / "missing.jsonl"))
    assert out.returncode == 2 and "cannot read" in out.stderr
    assert _cli("frobnicate", "RETURN 1").returncode == 2
