"""`eval sentences`: labelled provision sentences read one at a time (core.evaluation.sentences)."""
import json

import pytest

from core.evaluation.sentences import SentencesFormatError, evaluate, format_table, load_sentences


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_bad_rows_are_named_by_file_and_line(tmp_path):
    names = {"Exclusivity", "Warranty"}
    with pytest.raises(SentencesFormatError, match=r"x.jsonl:2: unknown clause type 'Exclusive'"):
        load_sentences(_write(tmp_path / "x.jsonl", [
            {"id": "a", "type": "Exclusivity", "label": True, "text": "Acme is the sole supplier."},
            {"id": "b", "type": "Exclusive", "label": True, "text": "Acme is the sole supplier."}]), names)
    with pytest.raises(SentencesFormatError, match=r"y.jsonl:1: 'label' must be true or false"):
        load_sentences(_write(tmp_path / "y.jsonl", [
            {"id": "a", "type": "Warranty", "label": "yes", "text": "The warranty runs for one year."}]), names)
    with pytest.raises(SentencesFormatError, match="not found"):
        load_sentences(tmp_path / "missing.jsonl", names)


def test_positives_and_negatives_are_counted_per_reading(tmp_path):
    path = _write(tmp_path / "s.jsonl", [
        {"id": "p1", "type": "Exclusivity", "label": True,
         "text": "The Brewery appoints Fjordline AS as its exclusive importer of the Beers in Norway."},
        {"id": "n1", "type": "Exclusivity", "label": False,
         "text": "The courts of Oslo shall have exclusive jurisdiction over any dispute."},
        {"id": "p2", "type": "Warranty", "label": True,
         "text": "Seller warrants that the Pumps will be free from defects in materials and workmanship for "
                 "twenty-four (24) months after installation."},
    ])
    result = evaluate(path, log=lambda _m: None, write=False)
    ex, wa = result["per_type"]["Exclusivity"], result["per_type"]["Warranty"]
    assert (ex["positives"], ex["negatives"], wa["positives"]) == (1, 1, 1)
    assert ex["readers_found"] == 1 and ex["default_found"] == 1 and ex["default_false"] == 0
    assert wa["default_found"] == 1
    assert result["recall"]["default"] == 1.0 and result["missed"] == [] and result["false_alarms"] == []
    assert "Exclusivity" in format_table(result)
