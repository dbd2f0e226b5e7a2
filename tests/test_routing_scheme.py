"""The product through the routing scheme (`neo4j://`), as it would run against a cluster or Aura.

A Neo4j cluster is reached with `neo4j://`: the driver fetches a routing table and sends READ
transactions to followers / read replicas and writes to the leader. Every read the product
issues runs in a READ transaction, so nothing but the URI has to change; this test proves it
on the local server (a single instance serves its own routing table): ingest writes through
the router, and questions and the gap report read through it with exactly the answers the
direct `bolt://` connection gives.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import Neo4jDriver

from core.graph import vocabulary
from core.graph.db import Connection, Database
from core.ingest.pipeline import ingest_corpus
from core.service import ask, gap_report

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"
QUESTIONS = [
    "Which suppliers lack a termination clause?",
    "Show me data protection clauses of German healthcare companies",
    "How many liability clauses are there?",
    "哪些供应商缺少终止条款？",
]


@pytest.fixture(scope="module")
def routed(db, embedder):
    conn = db.conn
    assert conn.uri.startswith("bolt://"), conn.uri
    routing = Database(Connection(conn.uri.replace("bolt://", "neo4j://", 1), conn.user, conn.password,
                                  conn.database))
    routing.verify()
    report = ingest_corpus(DEMO, db=routing, reset=True, embedder=embedder)   # writes through the router
    vocabulary.invalidate()
    assert report.ok, report.errors
    yield routing
    routing.close()


def test_the_driver_really_routes(routed):
    assert isinstance(routed.driver(), Neo4jDriver)
    assert routed.read("MATCH (s:SLA) RETURN count(s) AS n")[0]["n"] > 0


@pytest.mark.parametrize("question", QUESTIONS)
def test_questions_read_through_the_router_as_through_bolt(routed, db, question):
    via_router = ask(question, db=routed, log=False)
    vocabulary.invalidate()
    direct = ask(question, db=db, log=False)
    assert via_router.mode == direct.mode and via_router.mode != "none", via_router.answer
    assert via_router.answer == direct.answer
    assert [e.clause_id for e in via_router.evidence] == [e.clause_id for e in direct.evidence]
    assert via_router.answer.strip()


def test_gap_report_reads_through_the_router(routed, db):
    via_router = gap_report(db=routed)
    direct = gap_report(db=db)
    assert via_router.rows
    assert [(r.company, r.missing) for r in via_router.rows] == [(r.company, r.missing) for r in direct.rows]
