"""The unit tier: tests that never open a database, so they run anywhere in seconds.

`make test-fast` runs this folder alone; `make test` runs it with everything else. Two
guards keep it honest. The database fixtures of tests/conftest.py are replaced by ones that
fail at once with an instruction (a test that needs the graph belongs in tests/, against the
real Neo4j). And every unit test runs with the Neo4j settings pointed at a closed loopback
port, so a code path that reaches for the database by accident gets a refused connection
within moments instead of starting, or quietly using, a local server.

tests/unit is a package so that this file is imported as `unit.conftest`: the database tier's
test modules import helpers with `from conftest import ...`, which must stay tests/conftest.py.
"""
from __future__ import annotations

import pytest

NO_DATABASE = "unit tests never open a database; move this test to tests/"
# Port 1 on loopback: nothing listens there, so a connection is refused immediately.
UNREACHABLE_URI = "bolt://127.0.0.1:1"


def _refuse(name: str):
    pytest.fail(f"fixture {name!r} needs Neo4j: {NO_DATABASE}", pytrace=False)


@pytest.fixture(scope="session")
def local_neo4j():
    _refuse("local_neo4j")


@pytest.fixture(scope="session")
def db():
    _refuse("db")


@pytest.fixture()
def empty_db():
    _refuse("empty_db")


@pytest.fixture(scope="module")
def demo_graph():
    _refuse("demo_graph")


@pytest.fixture(autouse=True)
def no_database(monkeypatch, tmp_path_factory):
    """Per test, not at import: under `make test` the same process runs the database tiers,
    whose settings and process-wide Database must come back unchanged afterwards."""
    from core.config import settings
    from core.graph import db as graph_db

    monkeypatch.setenv("NEO4J_URI", UNREACHABLE_URI)
    monkeypatch.setenv("NEO4J_USER", "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", "unit-tests-never-connect")
    monkeypatch.setenv("CLAUSEGRAPH_NEO4J_HOME", str(tmp_path_factory.getbasetemp() / "no-neo4j-here"))
    settings.cache_clear()
    # the process-wide database (get_database) is one that can only refuse
    monkeypatch.setattr(graph_db, "_default", graph_db.Database(timeout_s=1))
    yield
    settings.cache_clear()
