"""The unit tier's own guard (tests/unit/conftest.py) does what it promises.

A test here that asked for the graph must fail with an instruction, and code that reaches for
the database anyway must be refused quickly, without a local server being started for it.
"""
from __future__ import annotations

import time

import pytest

from .conftest import NO_DATABASE, UNREACHABLE_URI
from core.config import settings
from core.graph.db import DatabaseUnavailable, get_database


@pytest.mark.parametrize("fixture", ["local_neo4j", "db", "empty_db", "demo_graph"])
def test_database_fixtures_fail_with_an_instruction(request, fixture):
    with pytest.raises(pytest.fail.Exception, match=NO_DATABASE.replace("/", ".")):
        request.getfixturevalue(fixture)


def test_an_accidental_connection_is_refused_without_starting_a_server():
    cfg = settings()
    assert cfg.neo4j_uri == UNREACHABLE_URI and not cfg.uses_local_neo4j
    t0 = time.monotonic()
    with pytest.raises(DatabaseUnavailable, match="not reachable"):
        get_database().verify()      # a query would fail the same way, after the driver's retries
    assert time.monotonic() - t0 < 10, "a refused connection must not wait like a slow server"
    assert not cfg.local.home.exists(), "no local Neo4j was set up for the unit tier"
