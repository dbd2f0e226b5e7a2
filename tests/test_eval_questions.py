"""`eval questions` end to end (the scoring and the summary by hand are in
tests/unit/test_eval_scoring.py: no database is needed to score).

The end-to-end run ingests a 3-company corpus into this test session's own Neo4j (env override)
and wipes it afterwards, since the evaluation resets the graph it runs on.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


COMPANIES = """name,country,industry,aliases
Acme Cloud GmbH,Germany,Technology,Acme
Borealis Data Oy,Finland,Technology,Borealis
Cedar Health Ltd,United Kingdom,Healthcare,Cedar
"""
AGREEMENTS = """sla_id,company,file,effective_date,service_name,governing_law
ACME-1,Acme Cloud GmbH,acme.md,2024-01-01,Cloud Hosting,Germany
BOR-1,Borealis Data Oy,borealis.md,2024-02-01,Data Platform,Finland
CED-1,Cedar Health Ltd,cedar.md,2024-03-01,Clinical Records,United Kingdom
"""
SPEND = """company,year,amount,currency,category
Acme Cloud GmbH,2024,300000,EUR,IT
Borealis Data Oy,2024,150000,EUR,IT
Cedar Health Ltd,2024,500000,EUR,Health
"""
CONTRACTS = {
    "acme.md": "# Cloud Hosting SLA\n\n## 1. Availability\nThe service is available 99.9% of each month.\n\n"
               "## 2. Support\nThe help desk answers tickets within four business hours.\n\n"
               "## 3. Termination\nEither party may terminate this agreement on ninety days' written notice.\n",
    "borealis.md": "# Data Platform SLA\n\n## 1. Availability\nUptime is at least 99.5% per month.\n\n"
                   "## 2. Data Protection\nPersonal data is processed only on the customer's instructions.\n\n"
                   "## 3. Payment\nInvoices are payable within thirty days.\n",
    "cedar.md": "# Clinical Records SLA\n\n## 1. Support\nSupport requests are answered within one hour.\n\n"
                "## 2. Termination\nThe customer may terminate for cause after a material breach.\n\n"
                "## 3. Confidentiality\nEach party keeps the other's confidential information secret.\n",
}
QUESTIONS = [
    {"id": "t1", "question": "Which suppliers lack a termination clause?", "lang": "en", "intent": "gap",
     "mode": "attribute", "expected": {"companies": ["Borealis Data Oy"]}},
    {"id": "t2", "question": "How many suppliers lack a termination clause?", "lang": "en", "intent": "count",
     "mode": "attribute", "expected": {"number": 1}},
    {"id": "t3", "question": "Compare the termination clauses of all suppliers.", "lang": "en",
     "intent": "clause_type", "mode": "clause_type", "expected": {"clause_ids": ["ACME-1#3", "CED-1#2"]}},
    {"id": "t4", "question": "What does Acme's agreement say about support?", "lang": "en", "intent": "document_type",
     "mode": "document", "expected": {"clause_ids": ["ACME-1#2"]}},
]


def write_corpus(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    (root / "companies.csv").write_text(COMPANIES, encoding="utf-8")
    (root / "agreements.csv").write_text(AGREEMENTS, encoding="utf-8")
    (root / "spend.csv").write_text(SPEND, encoding="utf-8")
    (root / "addresses.csv").write_text("company,street,city,postal_code,country\n", encoding="utf-8")
    for name, text in CONTRACTS.items():
        (root / "contracts" / name).write_text(text, encoding="utf-8")
    return root


def test_eval_questions_end_to_end(db, tmp_path):
    from core.graph.queries.admin import WIPE_BATCH

    corpus = write_corpus(tmp_path / "tiny-corpus")
    qfile = tmp_path / "questions.jsonl"
    qfile.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    env = dict(os.environ,
               CLAUSEGRAPH_EVAL_NEO4J_HOME=os.environ["CLAUSEGRAPH_NEO4J_HOME"],  # this session's own instance
               CLAUSEGRAPH_EVAL_NEO4J_PORT=os.environ["CLAUSEGRAPH_NEO4J_PORT"],
               CLAUSEGRAPH_EVAL_RESULTS_DIR=str(tmp_path / "results"))
    run = lambda *args: subprocess.run([sys.executable, "-m", "core", "eval", "questions", *args],  # noqa: E731
                                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    try:
        out = run(str(corpus), str(qfile), "--json")
        assert out.returncode == 0, out.stderr
        s = json.loads(out.stdout)
        assert {"questions", "accuracy", "routing_accuracy", "mode_accuracy", "by_intent", "by_language",
                "failures", "corpus", "ingest_problems"} <= set(s)
        assert s["questions"] == 4 and s["ingest_problems"] == 0
        assert set(s["by_intent"]) == {"gap", "count", "clause_type", "document_type"}
        assert s["by_language"].keys() == {"en"}
        wrong = [f for f in s["failures"] if not f["correct"]]
        assert s["accuracy"] == pytest.approx((4 - len(wrong)) / 4)
        for f in s["failures"]:
            assert f["id"] in {"t1", "t2", "t3", "t4"} and isinstance(f["checks"], dict)
        # the corpus was really loaded into the evaluation database
        assert db.read("MATCH (c:Clause) RETURN count(c) AS n")[0]["n"] == 9
        files = list((tmp_path / "results").glob("questions-tiny-corpus-*.json"))
        assert len(files) == 1 and json.loads(files[0].read_text())["questions"] == 4

        table = run(str(corpus), str(qfile))
        assert table.returncode == 0, table.stderr
        assert "questions: 4" in table.stdout and "intent" in table.stdout

        bad = run(str(corpus), str(tmp_path / "nope.jsonl"))
        assert bad.returncode == 2 and "nope.jsonl" in bad.stderr
    finally:
        while db.write(WIPE_BATCH)[0]["deleted"]:
            pass
