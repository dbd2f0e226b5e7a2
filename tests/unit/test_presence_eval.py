"""Agreement-level presence scoring (`eval classify DIR --presence FILE`, core/evaluation/presence.py).

The scoring is plain arithmetic over a reader's labels and is checked by hand-made cases; the
end-to-end run types two small agreements with the real embedder and provision model, so what
it counts is what ingestion would store."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.evaluation.classify import evaluate, format_table
from core.evaluation.presence import PresenceFormatError, load_presence, score_presence

TYPES = ["Governing Law", "Insurance", "Warranty", "Assignment"]


def _write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_labels_file_errors_name_the_file_and_line(tmp_path):
    bad_type = _write(tmp_path / "a.jsonl", [{"file": "x.md", "present": {}},
                                             {"file": "y.md", "present": {"Gouverning Law": "q"}}])
    with pytest.raises(PresenceFormatError, match=r"a\.jsonl:2: unknown clause type 'Gouverning Law'"):
        load_presence(bad_type, TYPES)
    not_a_map = _write(tmp_path / "b.jsonl", [{"file": "x.md", "present": ["Insurance"]}])
    with pytest.raises(PresenceFormatError, match=r"b\.jsonl:1: 'present' \(required\)"):
        load_presence(not_a_map, TYPES)
    no_file = _write(tmp_path / "c.jsonl", ['{"present": {}}'])
    with pytest.raises(PresenceFormatError, match=r"c\.jsonl:1"):
        load_presence(no_file, TYPES)
    with pytest.raises(PresenceFormatError, match="not found"):
        load_presence(tmp_path / "missing.jsonl", TYPES)


def test_file_paths_are_matched_by_name(tmp_path):
    rows = load_presence(_write(tmp_path / "g.jsonl", [{"file": "data/demo/contracts/x.md", "present": {}}]), TYPES)
    assert rows[0]["file"] == "x.md" and rows[0]["borderline"] == {} and rows[0]["line"] == 1


def test_scores_count_agreements_and_leave_borderline_pairs_out():
    gold = [
        {"file": "a.md", "present": {"Governing Law": "laws of X", "Insurance": "shall maintain"},
         "borderline": {"Warranty": "as is -- disclaimer only"}, "line": 1},
        {"file": "b.md", "present": {"Governing Law": "laws of Y"}, "borderline": {}, "line": 2},
        {"file": "gone.md", "present": {}, "borderline": {}, "line": 3},
    ]
    found = {"default": {"a.md": {"Governing Law": {"Misc"}, "Warranty": {"Disclaimers"}},
                         "b.md": {"Governing Law": {"Law"}, "Assignment": {"Misc"}}}}
    out = score_presence(gold, found, TYPES)
    per = out["presence"]["default"]
    assert out["agreements"] == 2 and out["unmatched_files"] == ["gone.md"]
    assert per["Governing Law"]["f1"] == 1.0 and per["Governing Law"]["support"] == 2
    assert per["Insurance"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 1, "support": 1}
    assert "Warranty" not in per                    # a.md's pair is borderline, b.md has none either way
    assert per["Assignment"]["fp"] == 1 and per["Assignment"]["support"] == 0
    # the mean covers the types some agreement has: Governing Law 1.0, Insurance 0.0
    assert out["mean_presence_f1"]["default"] == 0.5
    errors = {(e["file"], e["type"], e["error"]) for e in out["presence_errors"]}
    assert errors == {("a.md", "Insurance", "missed"), ("b.md", "Assignment", "spurious")}
    spurious = next(e for e in out["presence_errors"] if e["error"] == "spurious")
    assert spurious["clauses"] == ["Misc"] and spurious["gold_quote"] is None


def test_eval_classify_scores_the_products_multi_label_typing(tmp_path, embedder):
    """A governing-law sentence inside a Miscellaneous section counts for the agreement, as the
    gap report would count it; both classifiers are scored on the same agreements."""
    folder = tmp_path / "agreements"
    folder.mkdir()
    (folder / "acme.md").write_text(
        "# Supply Agreement\n\n## 1. Fees\n\nCustomer shall pay each invoice within thirty days of receipt.\n\n"
        "## 2. Miscellaneous\n\nNotices shall be given in writing. This Agreement shall be governed by and "
        "construed in accordance with the laws of the State of New York. Headings are for convenience only.\n",
        encoding="utf-8")
    (folder / "bolt.md").write_text(
        "# Service Agreement\n\n## 1. Fees\n\nCustomer shall pay the monthly fee in advance.\n\n"
        "## 2. Notices\n\nNotices shall be sent by registered mail to the addresses above.\n", encoding="utf-8")
    gold = _write(tmp_path / "gold.jsonl", [
        {"file": "acme.md", "present": {"Governing Law": "governed by ... the laws of the State of New York",
                                        "Payment": "Customer shall pay each invoice within thirty days"}},
        {"file": "bolt.md", "present": {"Payment": "Customer shall pay the monthly fee in advance."}},
    ])
    result = evaluate(folder, presence_path=gold, log=lambda _m: None, write=False)
    default, keyword = result["presence"]["default"], result["presence"]["keyword"]
    assert result["agreements"] == 2
    assert default["Governing Law"]["tp"] == 1 and default["Governing Law"]["fp"] == 0
    assert keyword["Payment"]["support"] == 2
    assert default["Payment"]["recall"] == 1.0
    table = format_table(result)
    assert "agreement-level presence on 2 labelled agreements" in table and "Governing Law" in table


ROOT = Path(__file__).resolve().parents[2]
# which folder each committed labels file describes (also read by tests/test_presence_corpora.py)
CORPORA = json.loads((ROOT / "eval" / "presence" / "corpora.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("gold, folder", sorted(CORPORA.items()))
def test_the_committed_reader_labels_name_real_files_and_types(gold, folder):
    from core.evaluation.classify import read_agreements
    from core.ingest.reading import decode_bytes
    from core.taxonomy import OTHER, type_names

    rows = load_presence(ROOT / "eval" / "presence" / gold, [t for t in type_names() if t != OTHER])
    names = set(read_agreements(ROOT / folder))
    assert rows and {r["file"] for r in rows} <= names
    for r in rows:
        assert not set(r["present"]) & set(r["borderline"]), r["file"]
        text, _enc = decode_bytes((ROOT / folder / r["file"]).read_bytes())
        flat = " ".join(text.split())
        for quote in r["present"].values():     # every quote is the contract's own words
            assert " ".join(quote.split()).replace("**", "") in flat.replace("**", ""), (r["file"], quote)

