"""The question bank, the learned question reader and how the planner settles between it and the wording rules."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.evaluation.bank import BankFormatError, load_bank, load_batch, settle_batch
from core.retrieval.reader import (INTENTS, POLARITIES, READER_PATH, TARGETS, QuestionReader, QuestionReading, features,
                                   question_reader, reader_text, settle_types)
from core.taxonomy import load_taxonomy
from core.text2cypher.reader_llm import reading_schema, validate_reading

TYPE_NAMES = [t.name for t in load_taxonomy() if not t.is_catch_all]


# -- the bank ------------------------------------------------------------------------------

def test_the_bank_is_large_varied_and_bilingual():
    bank = load_bank()
    writers = {q.writer for q in bank}
    zh = [q for q in bank if q.lang == "zh"]
    assert len(bank) >= 6000 and len(writers) >= 10, (len(bank), writers)
    assert len(zh) / len(bank) >= 0.35
    traditional = [q for q in zh if q.q != reader_text(q.q) and any(ch in q.q for ch in "們條約資護險這個對與無")]
    assert len(traditional) >= 300, len(traditional)
    labelled = [q for q in bank if q.intent]
    assert {q.intent for q in labelled} == set(INTENTS) and len(labelled) >= 6000
    for intent in INTENTS:   # every intent written by at least eight writers
        assert len({q.writer for q in labelled if q.intent == intent}) >= 8, intent
    for name in TYPE_NAMES:
        assert sum(name in q.types for q in bank) >= 60, name


def test_every_briefed_writer_has_a_brief_and_a_second_reader(tmp_path):
    root = Path(__file__).resolve().parents[2] / "eval" / "bank"
    for batch in sorted(root.glob("batch-*.jsonl")):
        number = batch.name.split("-")[1]
        if number in {"01", "02"}:   # the seed batches, written before the briefs
            continue
        assert (root / "briefs" / f"writer-{number}.md").is_file(), batch.name
        assert (root / "review" / f"batch-{number}.review.jsonl").is_file(), batch.name


def test_a_bad_bank_line_is_named_with_its_file_and_line(tmp_path):
    path = tmp_path / "batch-11-test.jsonl"
    path.write_text(json.dumps({"q": "which vendors lack FM", "types": ["Force Majeure"], "intent": "lacks"}) + "\n" +
                    json.dumps({"q": "who lacks audit rights", "types": ["Audit Right"]}) + "\n", encoding="utf-8")
    with pytest.raises(BankFormatError, match=r"batch-11-test.jsonl:2: types"):
        load_batch(path, set(TYPE_NAMES))
    path.write_text(json.dumps({"q": "list the German ones", "types": [], "filters": {"places": ["French"]}}) + "\n",
                    encoding="utf-8")
    with pytest.raises(BankFormatError, match=r":1: filter 'French' .*not in the question"):
        load_batch(path, set(TYPE_NAMES))


def test_a_second_readers_error_is_fixed_and_a_debatable_label_dropped(tmp_path):
    raw, review, out = tmp_path / "raw.jsonl", tmp_path / "review.jsonl", tmp_path / "batch-12-x.jsonl"
    rows = [{"id": "a", "q": "who can subcontract w/o asking us", "types": ["Subcontracting"], "polarity": "has"},
            {"id": "b", "q": "vendors that can walk away", "types": ["Termination"]},
            {"id": "c", "q": "top 5 by spend", "types": []}]
    raw.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    review.write_text(json.dumps({"id": "a", "field": "polarity", "writer": "has", "reviewer": "lacks",
                                  "verdict": "error"}) + "\n" +
                      json.dumps({"id": "b", "field": "types", "writer": ["Termination"],
                                  "reviewer": ["Termination for Convenience"], "verdict": "debatable"}) + "\n",
                      encoding="utf-8")
    assert settle_batch(raw, review, out) == {"kept": 2, "fixed": 1, "dropped": 1}
    kept = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in kept] == ["a", "c"] and kept[0]["polarity"] == "lacks"


# -- features and the artefact -------------------------------------------------------------------

def test_traditional_reads_as_simplified_digits_as_shape_and_suppliers_are_masked():
    assert features(reader_text("哪些廠商沒有終止條款")) == features(reader_text("哪些厂商没有终止条款"))
    assert reader_text("99.9% uptime in 2024") == reader_text("98.5% uptime in 2023")
    q = "Does Klinora have a force majeure clause?"
    at = q.index("Klinora")
    masked = reader_text(q, [(at, at + len("Klinora"))])
    assert "klinora" not in masked and masked == reader_text("Does Vitaro have a force majeure clause?",
                                                            [(at, at + len("Vitaro"))])


def test_the_committed_reader_is_small_and_reads_into_closed_vocabularies():
    size = READER_PATH.with_suffix(".npz").stat().st_size + READER_PATH.with_suffix(".json").stat().st_size
    assert size < 20 * 1024 * 1024
    reader = question_reader()
    assert reader.type_names == TYPE_NAMES
    for q in ("Which suppliers don't have a force majeure clause?", "哪些供应商没有不可抗力条款？",
              "Top 5 suppliers by spend in 2024", "what's the weather in Berlin"):
        r = reader.read(q)
        assert r.intent in INTENTS and r.target in TARGETS and r.polarity in POLARITIES
        assert set(r.types) <= set(TYPE_NAMES) and len(r.types) <= 3
        assert reader.read(q).type_p == r.type_p     # deterministic


def test_the_reader_reads_what_people_say_in_their_own_words():
    reader = question_reader()
    cases = [("Which suppliers don't have a force majeure clause?", "lacks", ["Force Majeure"]),
             ("whcih suppliers dont have a force majuere clause", "lacks", ["Force Majeure"]),
             ("哪些供应商的合同里没有保密条款？", "lacks", ["Confidentiality"]),
             ("Which of our vendors must tell us quickly when our personal data leaks?", "has", None),
             ("Top 5 suppliers by spend in 2024", "spend_ranking", []),
             ("Which suppliers do we not have any agreement with?", "no_agreement", [])]
    for q, intent, types in cases:
        r = reader.read(q)
        assert r.intent == intent, (q, r.intent_ranking)
        if types is not None:
            assert r.types == types, (q, r.type_p)


# -- settling between the reader and the wording rules ---------------------------------------------

def _reading(types: dict[str, float], intent: str = "has") -> QuestionReading:
    ranked = dict(sorted({**{t: 0.01 for t in TYPE_NAMES}, **types}.items(), key=lambda kv: -kv[1]))
    return QuestionReading(intent=intent, intent_p=0.9, target="suppliers", polarity="has", polarity_p=0.9,
                           types=[t for t, p in ranked.items() if p >= 0.5], type_p=ranked,
                           intent_ranking=[(intent, 0.9)])


THRESHOLDS = {t: 0.5 for t in TYPE_NAMES}


def test_a_type_named_by_its_taxonomy_name_stands_and_a_keyword_yields_only_to_a_sure_reader():
    types, why = settle_types({"Termination": "name 'termination'"}, _reading({"Liability": 0.99}), THRESHOLDS)
    assert types == ["Termination"] and "name" in why
    assert settle_types({"Availability": "keyword 'uptime'"}, _reading({"Service Credits": 0.99}),
                        THRESHOLDS)[0] == ["Service Credits"]
    assert settle_types({"Availability": "keyword 'uptime'"}, _reading({"Service Credits": 0.55}),
                        THRESHOLDS)[0] == ["Availability"]
    # the reader adds a type the words do not show: the words' set stands
    assert settle_types({"Availability": "keyword 'uptime'"}, _reading({"Availability": 0.99, "Service Credits": 0.99}),
                        THRESHOLDS)[0] == ["Availability"]


def test_several_types_named_in_words_stand_when_the_reader_drops_one():
    rules = {"Termination": "keyword '终止'", "Liability": "keyword '责任'"}
    assert set(settle_types(rules, _reading({"Termination": 0.99}), THRESHOLDS)[0]) == {"Termination", "Liability"}


def test_a_link_by_meaning_stays_when_the_reader_reads_a_typed_question_without_a_type():
    rules = {"Availability": "meaning of 'outages' (0.92, next 0.49)"}
    assert settle_types(rules, _reading({}, intent="has"), THRESHOLDS)[0] == ["Availability"]
    assert settle_types(rules, _reading({}, intent="suppliers"), THRESHOLDS)[0] == []


def test_the_reader_decides_where_the_wording_named_none_or_only_by_meaning():
    assert settle_types({}, _reading({"Force Majeure": 0.9}), THRESHOLDS)[0] == ["Force Majeure"]
    # by meaning and the reader sure of another: the reader's
    assert settle_types({"Liability": "meaning of 'who pays' (0.41)"}, _reading({"Indemnification": 0.95}),
                        THRESHOLDS)[0] == ["Indemnification"]
    # by meaning and the reader hesitating: the rules' link stands
    assert settle_types({"Liability": "meaning of 'who pays' (0.41)"}, _reading({"Indemnification": 0.55}),
                        THRESHOLDS)[0] == ["Liability"]


def test_no_type_is_added_where_the_reader_itself_asks_about_none_or_the_words_name_something_else():
    assert settle_types({}, _reading({"Insurance": 0.9}, intent="suppliers"), THRESHOLDS)[0] == []
    assert settle_types({}, _reading({"Maintenance": 0.9}), THRESHOLDS, may_add=False)[0] == []


def test_a_narrower_type_read_beside_its_general_one_is_the_one_asked():
    types, _ = settle_types({}, _reading({"Termination for Convenience": 0.9, "Termination": 0.8}), THRESHOLDS)
    assert types == ["Termination for Convenience"]


# -- the LLM reader's reply is validated like a plan -------------------------------------------------

def test_an_llm_reading_is_validated_against_the_schema():
    schema = reading_schema(TYPE_NAMES)
    assert schema["properties"]["types"]["items"]["enum"] == TYPE_NAMES
    ok = validate_reading(json.dumps({"intent": "lacks", "target": "suppliers", "polarity": "lacks",
                                      "types": ["Force Majeure"]}), TYPE_NAMES)
    assert (ok.intent, ok.types, ok.unsure) == ("lacks", ["Force Majeure"], False)
    assert validate_reading('```json\n{"intent": "count", "target": "suppliers", "polarity": "none", "types": []}\n```',
                            TYPE_NAMES).intent == "count"
    for bad, message in ((("not json"), "not JSON"), ('["lacks"]', "not a JSON object"),
                         ('{"intent": "delete", "target": "suppliers", "polarity": "has", "types": []}', "intent"),
                         ('{"intent": "has", "target": "suppliers", "polarity": "has", "types": ["Acts of God"]}', "types"),
                         ('{"intent": "has", "target": "suppliers", "polarity": "has", "types": [], "cypher": "x"}',
                          "unexpected")):
        with pytest.raises(ValueError, match=message):
            validate_reading(bad, TYPE_NAMES)


def test_training_is_deterministic_on_a_small_bank(tmp_path):
    from core.evaluation.reader_training import examples_from_bank, fit_reader

    bank = [q for q in load_bank() if q.writer in {"w03", "w09"}][:300]
    rows = examples_from_bank(bank)
    vectors = np.zeros((len(rows), 0), dtype=np.float32)
    a, meta_a = fit_reader(rows, vectors, TYPE_NAMES, log=lambda m: None)
    b, meta_b = fit_reader(rows, vectors, TYPE_NAMES, log=lambda m: None)
    assert meta_a["vocabulary"] == meta_b["vocabulary"]
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    reader = QuestionReader(a, {**meta_a, "embedding_model": None})
    assert reader.read("which vendors lack an audit clause").intent in INTENTS
