"""`eval questions` without a database: the scoring of one answer and the summary by hand.

The scoring tests use real `core.types.Result` objects; the summary test passes its own `ask`
to `run_questions` so accuracies are known exactly. The end-to-end run (which ingests a tiny
corpus into the test database) is in tests/test_eval_questions.py.
"""
from __future__ import annotations

import pytest

from core.evaluation.questions import QuestionsFormatError, format_table, load_questions, run_questions, score_result
from core.types import Evidence, Plan, Result


def _result(question="q", intent="gap", mode="attribute", companies=(), clause_ids=(), answer="") -> Result:
    evidence = [Evidence(ref=f"S{i}", company=c) for i, c in enumerate(companies, 1)]
    evidence += [Evidence(ref=f"S{len(evidence) + i}", company="X", clause_id=cid)
                 for i, cid in enumerate(clause_ids, 1)]
    return Result(question=question, mode=mode, answer=answer, evidence=evidence,
                  plan=Plan(intent=intent, mode=mode))


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


def test_question_sets_on_one_corpus_get_their_own_results_file(tmp_path):
    from pathlib import Path

    from core.cli.eval_cmd import results_name

    demo = tmp_path / "demo"
    demo.mkdir()
    assert results_name(demo, Path("eval/questions/demo.jsonl")) == "demo"
    assert results_name(demo, demo / "questions.jsonl") == "demo"
    assert results_name(demo, Path("eval/questions/paraphrase-demo.jsonl")) == "demo-paraphrase-demo"
