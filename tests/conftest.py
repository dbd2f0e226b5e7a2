"""Shared fixtures. Every test talks to a real Neo4j; a missing database fails, never skips.

`make test` starts a dedicated local Neo4j (var/neo4j-test, port 7688). Run bare `pytest`
and this file starts it too (and stops it afterwards).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("CLAUSEGRAPH_NEO4J_HOME", str(ROOT / "var" / "neo4j-test"))
os.environ.setdefault("CLAUSEGRAPH_NEO4J_PORT", "7688")
os.environ.setdefault("CLAUSEGRAPH_LOG_DIR", str(ROOT / "var" / "test-log"))
os.environ.setdefault("CLAUSEGRAPH_SECRETS", str(ROOT / "tests" / "no-secrets.toml"))
for _name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE",
              "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
    os.environ.pop(_name, None)


@pytest.fixture(scope="session")
def local_neo4j():
    from core.graph.local_server import LocalNeo4j

    local = LocalNeo4j()
    started_here = not local.status().running
    local.start()  # raises (test error) when it cannot run: never a skip
    yield local
    if started_here:
        local.stop()


@pytest.fixture(scope="session")
def db(local_neo4j):
    from core.graph.db import Database, set_database

    database = Database()
    database.verify()
    set_database(database)
    yield database
    database.close()


@pytest.fixture()
def empty_db(db):
    """The graph emptied (schema kept) for a test that loads its own data."""
    from core.graph.queries.admin import WIPE_BATCH

    while db.write(WIPE_BATCH)[0]["deleted"]:
        pass
    return db


@pytest.fixture(scope="session")
def embedder():
    from core.embeddings import get_embedder

    return get_embedder()


def load_corpus(db, path, embedder=None):
    """Load exactly one corpus: the graph is wiped first, so modules never see each other's data."""
    from core.graph import vocabulary as graph_cache
    from core.ingest.pipeline import ingest_corpus

    report = ingest_corpus(path, db=db, reset=True, embedder=embedder)
    graph_cache.invalidate()
    return report


def corpus_graph(path):
    """A module fixture with exactly this corpus loaded (every row valid): `msa = corpus_graph(MSA)`."""
    @pytest.fixture(scope="module")
    def graph(db, embedder):
        report = load_corpus(db, path, embedder)
        assert report.ok, report.errors
        return db

    return graph


demo_graph = corpus_graph(ROOT / "data" / "demo")
