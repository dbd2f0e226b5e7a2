"""`eval questions`: the scoring of one answer, the summary by hand, and an end-to-end run.

The scoring tests use real `core.result.Result` objects (no database needed to score); the
summary test passes its own `ask` to `run_questions` so accuracies are known exactly; the
end-to-end run ingests a 3-company corpus into this test session's own Neo4j (env override)
and wipes it afterwards, since the evaluation resets the graph it runs on.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.evaluation.questions import QuestionsFormatError, format_table, load_questions, run_questions, score_result
from core.types import Evidence, Result

ROOT = Path(__file__).resolve().parent.parent


def _result(question="q", intent="gap", mode="attribute", companies=(), clause_ids=(), answer="") -> Result:
    evidence = [Evidence(ref=f"S{i}", company=c) for i, c in enumerate(companies, 1)]
    evidence += [Evidence(ref=f"S{len(evidence) + i}", company="X", clause_id=cid)
                 for i, cid in enumerate(clause_ids, 1)]
    return Result(question=question, mode=mode, answer=answer, evidence=evidence,
                  plan={"intent": intent, "mode": mode})


def test_score_companies_exact_for_structured_and_subset_for_ranked():
    item = {"id": "a", "question": "q", "intent": "gap", "mode": "attribute",
            "expected": {"companies": ["A", "B"]}}
    ok = score_result(_result(companies=["B", "A"]), item)
    assert ok["correct"] and ok["routed"] and ok["mode_ok"] and ok["checks"] == {"companies": True}
    extra = score_result(_result(companies=["A", "B", "C"]), item)
    assert not extra["correct"] and extra["companies"] == {"missing": [], "extra": ["C"]}
    missing = score_result(_result(companies=["A"], intent="count", mode="document"), item)
    assert not missing["correct"] and missing["companies"] == {"missing": ["B"], "extra": []}
    assert not missing["routed"] and not missing["mode_ok"]
    # an empty expected set is answered correctly only by no company at all
    none = {"id": "n", "question": "q", "intent": "gap", "expected": {"companies": []}}
    assert score_result(_result(), none)["correct"]
    assert not score_result(_result(companies=["A"]), none)["correct"]
    # ranked intents (relay/hybrid): the expected set must be among the results, extras are fine
    ranked = dict(item, intent="relay", mode="relay")
    assert score_result(_result(intent="relay", mode="relay", companies=["A", "B", "C"]), ranked)["correct"]


def test_score_clause_ids_and_numbers():
    item = {"id": "c", "question": "q", "intent": "clause_type", "expected": {"clause_ids": ["S-1#2", "S-2#1"]}}
    assert score_result(_result(intent="clause_type", clause_ids=["S-2#1", "S-1#2"]), item)["correct"]
    wrong = score_result(_result(intent="clause_type", clause_ids=["S-1#2", "S-3#4"]), item)
    assert wrong["clause_ids"] == {"missing": ["S-2#1"], "extra": ["S-3#4"]} and not wrong["correct"]
    relay = {"id": "r", "question": "q", "intent": "relay", "expected": {"clause_ids": ["S-1#2"]}}
    assert score_result(_result(intent="relay", clause_ids=["S-9#9", "S-1#2"]), relay)["correct"]

    num = {"id": "n", "question": "q", "intent": "count", "expected": {"number": 1250000}}
    assert score_result(_result(intent="count", answer="Total spend is 1,250,000 EUR [S1]."), num)["correct"]
    assert score_result(_result(intent="count", answer="About 1250000.2 in total"), num)["correct"]
    assert not score_result(_result(intent="count", answer="Total spend is 1,250,001 EUR."), num)["correct"]
    assert not score_result(_result(intent="count", answer="No supplier matches."), num)["correct"]
    # every check must pass: right number, wrong companies -> wrong
    both = {"id": "b", "question": "q", "intent": "count", "expected": {"number": 2, "companies": ["A", "B"]}}
    r = score_result(_result(intent="count", companies=["A"], answer="2 suppliers"), both)
    assert r["checks"] == {"number": True, "companies": False} and not r["correct"]
    # no check at all is never counted as correct
    assert not score_result(_result(), {"id": "e", "question": "q", "expected": {}})["correct"]


def test_run_questions_summary_by_hand():
    items = [
        {"id": "1", "question": "gap one", "intent": "gap", "lang": "en", "expected": {"companies": ["A"]}},
        {"id": "2", "question": "gap two", "intent": "gap", "lang": "zh", "expected": {"companies": ["B"]}},
        {"id": "3", "question": "count", "intent": "count", "lang": "en", "expected": {"number": 3}},
        {"id": "4", "question": "type", "intent": "clause_type", "lang": "en", "mode": "clause_type",
         "expected": {"clause_ids": ["S#1"]}},
    ]
    answers = {
        "gap one": _result(companies=["A"]),                                     # right
        "gap two": _result(companies=["A"]),                                     # wrong companies
        "count": _result(intent="gap", answer="3 suppliers"),                    # right number, misrouted
        "type": _result(intent="clause_type", mode="clause_type", clause_ids=["S#1"]),  # right
    }
    seen = []

    def ask(question, session=None, db=None, log=True):
        seen.append(question)
        return answers[question]

    s = run_questions(items, None, ask=ask)
    assert seen == ["gap one", "gap two", "count", "type"]
    assert s["questions"] == 4 and s["accuracy"] == 0.75 and s["routing_accuracy"] == 0.75
    assert s["mode_accuracy"] == 1.0  # only item 4 names a mode, and it is met
    assert s["by_intent"]["gap"] == {"questions": 2, "accuracy": 0.5, "routing_accuracy": 1.0}
    assert s["by_intent"]["count"]["accuracy"] == 1.0 and s["by_intent"]["count"]["routing_accuracy"] == 0.0
    assert s["by_language"] == {"en": 1.0, "zh": 0.0}
    assert [f["id"] for f in s["failures"]] == ["2", "3"]  # wrong answer, or right answer by the wrong route
    table = format_table(s)
    assert "accuracy: 75.0%" in table and "- 2 [gap→gap/attribute] gap two" in table


def test_load_questions_errors(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "a", "expected": {"number": 1}}\n\n{"question": "b"}\n', encoding="utf-8")
    with pytest.raises(QuestionsFormatError, match=r"q.jsonl:3"):
        load_questions(path)
    path.write_text('{"question": "a", "expected": {"number": 1}}\n', encoding="utf-8")
    assert load_questions(path)[0]["id"] == "line1"


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
