"""Ingestion of a corpus the project has never seen (tests/fixtures/heldout_corpus)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.ingest.pipeline import graph_counts, ingest_corpus, low_confidence_clauses, set_clause_type
from core.graph.schema import schema_state

HELDOUT = Path(__file__).parent / "fixtures" / "heldout_corpus"
FINGERPRINT = """
MATCH (n)
OPTIONAL MATCH (n)-[r]->(m)
WITH n, r, m ORDER BY elementId(n)
RETURN count(DISTINCT n) AS nodes, count(r) AS rels,
       collect(DISTINCT coalesce(n.id, n.name) + ':' + coalesce(toString(n.version), '') + ':' +
               coalesce(n.text_hash, '') + ':' + coalesce(toString(n.spend_latest), '')) AS keys
"""


def expected() -> dict:
    return json.loads((HELDOUT / "expected.json").read_text(encoding="utf-8"))


def agreements_of(exp: dict) -> dict:
    return {k: v for k, v in exp.items() if isinstance(v, list)}


@pytest.fixture(scope="module")
def loaded(db, embedder):
    from core.ingest.pipeline import reset_graph

    reset_graph(db)
    report = ingest_corpus(HELDOUT, db=db, embedder=embedder)
    return report


def test_ingest_loads_exactly_the_expected_agreements_and_clauses(loaded, db):
    exp = expected()
    agreements = agreements_of(exp)
    rows = db.read("MATCH (s:SLA)-[:HAS_CLAUSE]->(c:Clause) RETURN s.id AS sla, c.id AS id, c.title AS title, "
                   "c.position AS pos, c.text AS text ORDER BY sla, pos")
    got: dict[str, list] = {}
    for r in rows:
        got.setdefault(r["sla"], []).append(r)
    assert sorted(got) == sorted(agreements)
    for sla, clauses in agreements.items():
        titles = [c["title"] for c in clauses]
        assert [r["title"] for r in got[sla]] == titles, sla
        assert [r["id"] for r in got[sla]] == [f"{sla}#{i}" for i in range(1, len(titles) + 1)]
        for r in got[sla]:
            assert r["text"].strip(), r["id"]
            assert "Page " not in r["text"] or " of " not in r["text"].split("Page ", 1)[1][:12], r["id"]
    assert graph_counts(db)["next_edges"] == exp["next_edges"]
    assert loaded.ok or all(p.severity == "warning" for p in loaded.problems)


def test_next_chain_follows_positions(loaded, db):
    rows = db.read("MATCH (a:Clause)-[:NEXT]->(b:Clause) RETURN a.id AS a, b.id AS b, a.position AS pa, "
                   "b.position AS pb, split(a.id, '#')[0] AS sa, split(b.id, '#')[0] AS sb")
    assert rows
    for r in rows:
        assert r["sa"] == r["sb"] and r["pb"] == r["pa"] + 1


def test_business_data_and_spend(loaded, db):
    exp = expected()
    for company, years in exp["spend"].items():
        row = db.read("MATCH (c:Company {name: $n}) RETURN properties(c) AS p", {"n": company})
        assert row, company
        props = row[0]["p"]
        for year, amount in years.items():
            assert props[f"spend_{year}"] == pytest.approx(float(amount)), (company, year)
    companies = db.read("MATCH (c:Company) RETURN count(c) AS n")[0]["n"]
    addresses = db.read("MATCH (:Company)-[:LOCATED_AT]->(a:Address) RETURN count(DISTINCT a) AS n")[0]["n"]
    assert companies >= 6 and addresses >= 1


def test_indexes_online_embeddings_and_constraints(loaded, db, embedder):
    st = schema_state(db)
    for name in ("clause_embeddings", "sla_embeddings", "clause_text"):
        assert st.online(name), name
    for name in ("company_name", "sla_id", "clause_id", "clausetype_name", "address_id"):
        assert name in st.constraints
    assert graph_counts(db)["clauses_without_embedding"] == 0
    dims = st.indexes["clause_embeddings"]["options"]["indexConfig"]["vector.dimensions"]
    assert int(dims) == embedder.dimension


def test_default_classifier_types_match_expected(loaded, db):
    exp = agreements_of(expected())
    # a clause may carry several types (issue 14); its primary one is the section's type
    rows = db.read("MATCH (c:Clause)-[r:OF_TYPE {primary: true}]->(t:ClauseType) RETURN c.id AS id, t.name AS type, "
                   "r.confidence AS conf, r.method AS method")
    got = {r["id"]: r for r in rows}
    total = right = 0
    for sla, clauses in exp.items():
        for i, c in enumerate(clauses, 1):
            total += 1
            right += got[f"{sla}#{i}"]["type"] == c["type"]
            assert 0.0 <= got[f"{sla}#{i}"]["conf"] <= 1.0
            assert got[f"{sla}#{i}"]["method"]
    assert right / total >= 0.9, f"{right}/{total}"


def test_reingest_changes_nothing(loaded, db, embedder):
    before = db.read(FINGERPRINT)[0]
    report = ingest_corpus(HELDOUT, db=db, embedder=embedder)
    after = db.read(FINGERPRINT)[0]
    assert report.count("unchanged") == len(agreements_of(expected()))
    assert report.clauses_written == 0
    assert before["nodes"] == after["nodes"] and before["rels"] == after["rels"]
    assert sorted(before["keys"]) == sorted(after["keys"])


def test_changed_agreement_is_replaced_and_manual_type_kept(db, embedder, tmp_path):
    from core.ingest.pipeline import reset_graph

    corpus = tmp_path / "corpus"
    shutil.copytree(HELDOUT, corpus)
    reset_graph(db)
    ingest_corpus(corpus, db=db, embedder=embedder)
    sla = "AGR-07"  # Markdown with '## n. Title' sections
    first = db.read("MATCH (s:SLA {id: $id})-[:HAS_CLAUSE]->(c) RETURN c.id AS id, c.title AS t ORDER BY c.position",
                    {"id": sla})
    # a reviewer corrects the type of the first clause
    set_clause_type(first[0]["id"], "Other", db=db)
    agreements = (corpus / "agreements.csv").read_text(encoding="utf-8").splitlines()
    file = next(line.split(",")[2] for line in agreements[1:] if line.startswith(sla + ","))
    path = corpus / "contracts" / file
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
        enc = "utf-8"
    except UnicodeDecodeError:
        pytest.fail(f"expected the first held-out agreement ({file}) to be UTF-8 for this test")
    path.write_text(text.rstrip() + "\n\n## 99. Notices\n\nAll notices shall be in writing and sent to the addresses "
                    "given in the order form.\n", encoding=enc)
    report = ingest_corpus(corpus, db=db, embedder=embedder)
    assert report.count("replaced") == 1
    after = db.read("MATCH (s:SLA {id: $id})-[:HAS_CLAUSE]->(c)-[r:OF_TYPE {primary: true}]->(t) RETURN c.id AS id, c.title AS t, "
                    "t.name AS type, r.method AS method, s.version AS v ORDER BY c.position", {"id": sla})
    assert len(after) == len(first) + 1
    assert after[-1]["t"] == "Notices"
    assert after[0]["type"] == "Other" and after[0]["method"] == "manual"
    assert after[0]["v"] == 2
    nexts = db.read("MATCH (a:Clause)-[:NEXT]->(b:Clause) WHERE a.id STARTS WITH $p RETURN count(*) AS n",
                    {"p": sla + "#"})[0]["n"]
    assert nexts == len(after) - 1


def test_review_queue_lists_low_confidence(loaded, db):
    rows = low_confidence_clauses(threshold=1.01, limit=1000, db=db)
    assert rows and all(r["confidence"] <= 1.01 for r in rows)
    strict = low_confidence_clauses(threshold=0.0, db=db)
    assert strict == []


def test_cli_ingest_reports_throughput_and_problems(local_neo4j, tmp_path):
    corpus = tmp_path / "c"
    shutil.copytree(HELDOUT, corpus)
    with (corpus / "agreements.csv").open("a", encoding="utf-8") as fh:
        fh.write("SLA-X99,Nobody Ltd,missing.md,2024-01-01,Ghost service,England\n")
    out = subprocess.run([sys.executable, "-m", "core", "ingest", str(corpus)], capture_output=True, text=True)
    assert out.returncode == 1, out.stderr
    assert "agreements.csv:" in out.stderr and "Nobody Ltd" in out.stderr
    assert "clauses/s" in out.stdout and "embed" in out.stdout and "write" in out.stdout
    # stderr is a pipe here, as in CI and logs: plain progress lines, no redrawn bars, no model-load bar
    assert "\r" not in out.stderr and "Loading weights" not in out.stderr, out.stderr[-2000:]
    assert any(line.startswith("write: ") and line.endswith("(100%)") for line in out.stderr.splitlines()), out.stderr
