"""`eval routing`: the clause types the planner reads into labelled questions (core.evaluation.routing), and the
second reading of a question's meaning by the provision model (core.retrieval.conditions.type_by_two_readings)."""
import json
from pathlib import Path

import pytest

from core.evaluation.routing import RoutingFormatError, corpus_vocabulary, evaluate, format_table, load_questions
from core.retrieval import conditions as cond
from core.retrieval.planner import plan_question
from core.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[2]
TYPES = {t.name for t in load_taxonomy()}


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_bad_rows_are_named_by_file_and_line(tmp_path):
    with pytest.raises(RoutingFormatError, match=r"x.jsonl:2: unknown clause type 'Exclusive'"):
        load_questions(_write(tmp_path / "x.jsonl", [
            {"id": "a", "question": "Which suppliers are exclusive?", "types": ["Exclusivity"]},
            {"id": "b", "question": "Which suppliers are sole sources?", "types": ["Exclusive"]}]), TYPES)
    with pytest.raises(RoutingFormatError, match=r"y.jsonl:1: 'types' must be a list"):
        load_questions(_write(tmp_path / "y.jsonl", [{"id": "a", "question": "Who?", "types": "Warranty"}]), TYPES)
    with pytest.raises(RoutingFormatError, match=r"z.jsonl:1: expected an object"):
        load_questions(_write(tmp_path / "z.jsonl", [{"id": "a", "types": []}]), TYPES)
    with pytest.raises(RoutingFormatError, match=r"w.jsonl:1: 'companies' must be a list"):
        load_questions(_write(tmp_path / "w.jsonl", [{"id": "a", "question": "Who?", "types": [], "companies": "Acme"}]),
                       TYPES)
    with pytest.raises(RoutingFormatError, match="not found"):
        load_questions(tmp_path / "missing.jsonl", TYPES)


def test_the_suppliers_a_question_names_are_known_to_the_planner(tmp_path):
    row = {"id": "c1", "question": "Does Brightwater Logistics have a termination clause?", "types": ["Termination"]}
    unnamed = evaluate(_write(tmp_path / "a.jsonl", [row]), log=lambda _m: None, write=False)
    named = evaluate(_write(tmp_path / "b.jsonl", [dict(row, companies=["Brightwater Logistics"])]),
                     log=lambda _m: None, write=False)
    assert named["totals"]["typed_right"] == 1
    vocab = corpus_vocabulary(ROOT / "data" / "demo", ["Brightwater Logistics"])
    assert "Brightwater Logistics" in [c["name"] for c in vocab.companies]
    assert any(a["company"] == "Brightwater Logistics" for a in vocab.agreements)
    assert unnamed["questions"] == named["questions"] == 1


def test_the_shipped_question_sets_are_well_formed():
    for path in sorted((ROOT / "eval" / "routing").glob("*.jsonl")):
        rows = load_questions(path, TYPES)
        assert len(rows) == 100 and sum(not r["types"] for r in rows) == 20, path.name


def test_the_vocabulary_is_the_corpus_folders():
    vocab = corpus_vocabulary(ROOT / "data" / "demo")
    assert len(vocab.companies) >= 10 and len(vocab.agreements) >= len(vocab.companies)
    assert "Germany" in vocab.countries and vocab.spend_years
    assert "Termination for Convenience" in vocab.clause_types and "Other" not in vocab.clause_types


def test_typed_and_untyped_questions_are_counted_apart(tmp_path):
    path = _write(tmp_path / "r.jsonl", [
        {"id": "t1", "question": "Which suppliers lack a termination clause?", "types": ["Termination"]},
        {"id": "t2", "question": "Which suppliers have an insurance clause?", "types": ["Liability"]},
        {"id": "u1", "question": "Which suppliers are based in Germany?", "types": []},
    ])
    result = evaluate(path, log=lambda _m: None, write=False)
    assert result["totals"] == {"typed": 2, "typed_right": 1, "typed_missed": 0, "typed_wrong": 1,
                                "untyped": 1, "untyped_right": 1}
    assert result["accuracy"] == round(2 / 3, 4)
    assert result["per_type"]["Insurance"]["wrong"] == 1 and result["per_type"]["Liability"]["linked"] == 0
    assert [e["id"] for e in result["errors"]] == ["t2"]
    assert "t2: Which suppliers have an insurance clause?" in format_table(result)


VOCAB = corpus_vocabulary(ROOT / "data" / "demo")


@pytest.mark.parametrize("question, expected", [
    # neither reading is sure alone: the meaning puts the type first but near others, or second or third
    ("Which vendors must defend us if someone sues us over their product?", "Indemnification"),
    ("Which suppliers get to keep the rights in the designs we paid for?", "IP Ownership"),
    ("Which suppliers are barred from hiring away our engineers?", "Non-Solicitation"),
    ("Which suppliers have given us the right to use their logo?", "License Grant"),
])
def test_a_provision_described_in_the_askers_words_is_linked_when_both_readings_agree(question, expected):
    plan = plan_question(question, VOCAB)
    assert plan.params.types == [expected]
    # by the question reader, or where it hesitated by the two readings of the rules
    assert "question reader" in plan.linked["clause_types"][expected] or \
        "provision model" in plan.linked["clause_types"][expected]


@pytest.mark.parametrize("question", [
    "Which suppliers do we spend the most with?",
    "How many agreements did we sign in 2023?",
    "Which suppliers are based in Germany?",
    # (the question reader reads "What happens if power is lost at the data centre?" as Data Protection: a known miss,
    # docs/EVALUATION.md)
])
def test_questions_about_no_provision_link_none(question):
    assert plan_question(question, VOCAB).params.types == []


def test_the_provision_reading_keeps_a_provisions_small_words_and_drops_the_question():
    text = cond.provision_text("Which German suppliers promised to buy all of it from no other source?", ["German"])
    assert text == "promised to buy all of from other source"
