"""The local Neo4j is real, authenticated, and has the features the product needs."""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

from core.graph.schema import probe_capabilities


def test_local_neo4j_is_526_community_over_bolt(local_neo4j, db):
    st = local_neo4j.status()
    assert st.running
    assert st.edition == "community"
    assert st.version.startswith("5.26.")
    assert db.uri.startswith("bolt://127.0.0.1:")
    assert db.read("RETURN 1 AS one") == [{"one": 1}]


def test_wrong_password_is_refused(local_neo4j):
    with GraphDatabase.driver(local_neo4j.cfg.uri, auth=("neo4j", "definitely-wrong")) as drv:
        with pytest.raises(AuthError):
            drv.verify_connectivity()
    with GraphDatabase.driver(local_neo4j.cfg.uri, auth=("neo4j", "neo4j")) as drv:
        with pytest.raises(AuthError):
            drv.verify_connectivity()


def test_password_file_is_private(local_neo4j):
    mode = stat.S_IMODE(os.stat(local_neo4j.cfg.password_file).st_mode)
    assert mode == 0o600


def test_vector_fulltext_and_uniqueness_work(db):
    assert probe_capabilities(db) == {"vector_index": True, "fulltext_cjk": True, "uniqueness_constraint": True}


def test_start_is_idempotent_and_listens_on_loopback_only(local_neo4j):
    pid = local_neo4j.status().pid
    again = local_neo4j.start()
    assert again.running and again.pid == pid
    conf = (local_neo4j.home / "conf" / "neo4j.conf").read_text()
    assert "server.default_listen_address=127.0.0.1" in conf
    assert "dbms.security.auth_enabled=true" in conf


def test_cli_status_and_env(local_neo4j):
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-m", "core", "neo4j", "status"], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "running" in out.stdout and "5.26." in out.stdout
    out = subprocess.run([sys.executable, "-m", "core", "neo4j", "env"], capture_output=True, text=True, env=env)
    assert out.returncode == 0
    lines = dict(line.removeprefix("export ").split("=", 1) for line in out.stdout.splitlines())
    assert lines["NEO4J_URI"] == local_neo4j.cfg.uri
    assert lines["NEO4J_PASSWORD"] == local_neo4j.password()
    with GraphDatabase.driver(lines["NEO4J_URI"], auth=(lines["NEO4J_USER"], lines["NEO4J_PASSWORD"])) as drv:
        drv.verify_connectivity()


def test_external_uri_is_used_instead_of_local(local_neo4j, tmp_path):
    """With NEO4J_URI set the project never starts its own database."""
    env = dict(os.environ, NEO4J_URI=local_neo4j.cfg.uri, NEO4J_USER="neo4j",
               NEO4J_PASSWORD=local_neo4j.password(), CLAUSEGRAPH_NEO4J_HOME=str(tmp_path / "never"))
    out = subprocess.run([sys.executable, "-m", "core", "neo4j", "start"], capture_output=True, text=True, env=env)
    assert out.returncode == 0
    assert "does not start a local one" in out.stderr
    assert not (tmp_path / "never").exists()
    out = subprocess.run([sys.executable, "-m", "core", "neo4j", "status"], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "reachable" in out.stdout
