"""`eval cuad`: excerpt location, metrics by hand, and a tiny end-to-end run.

The end-to-end run points the evaluation Neo4j at this test session's own instance (env
override). The CUAD evaluation resets the graph of the database it runs on, so the test
wipes it again afterwards.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.evaluation.cuad import (MAPPING, ClauseRecord, CuadContract, CuadData, CuadExcerpt, CuadFormatError,
                                  gold_present, load_cuad, locate, normalize, prf, score, _shingles)

ROOT = Path(__file__).resolve().parent.parent
# every mapped CUAD category (load_cuad requires them, as in real CUAD) plus two unmapped ones
CATEGORY_COLUMNS = [*sorted(MAPPING), "Notice Period to Terminate Renewal", "Post-Termination Services"]

CONTRACTS = {
    # numbered sections: four clauses, one of each mapped type + definitions
    "Alpha Supply Agreement.txt": """SUPPLY AGREEMENT

This Supply Agreement is entered into by Alpha Corp. and Beta Ltd.

1. Definitions
In this Agreement, "Products" means the goods listed in Exhibit A.

2. Term and Termination
This Agreement continues for two years. Either party may terminate this Agreement
for convenience upon thirty (30) days written notice to the other party.

3. Limitation of Liability
In no event shall either party be liable for indirect or consequential damages, and each
party's total liability shall not exceed the fees paid in the prior twelve months.

4. Governing Law
This Agreement shall be governed by the laws of the State of New York.
""",
    # a name with a space, ampersand and apostrophe, like real CUAD file names
    "Gamma & Delta's Services Agreement.txt": """SERVICES AGREEMENT

1. Services
The Supplier shall deliver the consulting services described in each statement of work.

2. Payment
Customer shall pay each invoice within thirty days of receipt.

3. Governing Law
This Agreement is governed by the laws of Delaware, without regard to conflict of laws.
""",
    # no headings at all: ingestion rejects it, so it has no clause of any type
    "Epsilon Letter Agreement.txt": """Dear Sir or Madam,

this letter confirms our understanding. It is governed by the laws of the State of Texas.
Yours faithfully.
""",
}
LABELS = {
    "Alpha Supply Agreement.txt": {"Governing Law": "New York", "Termination for Convenience": "Yes",
                                   "Cap on Liability": "Yes", "Uncapped Liability": "No"},
    "Gamma & Delta's Services Agreement.txt": {"Governing Law": "Delaware", "Termination for Convenience": "No",
                                               "Cap on Liability": "No", "Uncapped Liability": "No"},
    "Epsilon Letter Agreement.txt": {"Governing Law": "Texas", "Termination for Convenience": "No",
                                     "Cap on Liability": "No", "Uncapped Liability": "No"},
}
EXCERPTS = [
    # whitespace and line breaks differ from the contract
    ("Alpha Supply Agreement.txt", "Termination for Convenience",
     "Either party may terminate this Agreement for   convenience upon thirty (30) days written notice"),
    ("Alpha Supply Agreement.txt", "Cap on Liability",
     "each party's total liability shall not exceed <omitted> the fees paid in the prior twelve months"),
    ("Alpha Supply Agreement.txt", "Governing Law", "This Agreement shall be governed by the laws of the State of New York."),
    ("Alpha Supply Agreement.txt", "Parties", "Alpha Corp."),  # not mapped: ignored
    ("Gamma & Delta's Services Agreement.txt", "Governing Law",
     "This Agreement is governed by the laws of Delaware, without regard to conflict of laws."),
    ("Epsilon Letter Agreement.txt", "Governing Law", "It is governed by the laws of the State of Texas."),
]


def write_cuad(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True)
    for name, text in CONTRACTS.items():
        (root / "contracts" / name).write_text(text, encoding="utf-8")
    with (root / "labels.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "contract_type", *CATEGORY_COLUMNS])
        for name, answers in LABELS.items():
            w.writerow([name, "Supply Agreement", *(answers.get(c, "No") if c != "Notice Period to Terminate Renewal"
                                                     else "" for c in CATEGORY_COLUMNS)])
    with (root / "excerpts.jsonl").open("w", encoding="utf-8") as fh:
        for file, category, text in EXCERPTS:
            fh.write(json.dumps({"file": file, "category": category, "text": text}) + "\n")
    return root


def _record(cid: str, title: str, text: str, default: str | set, keyword: str) -> ClauseRecord:
    labels = {"default": frozenset([default] if isinstance(default, str) else default), "keyword": frozenset([keyword])}
    rec = ClauseRecord(cid, cid.split("#")[0], title, text, labels)
    norm = normalize(f"{title} {text}")
    rec.norm, rec.shingles = f" {norm} ", _shingles(norm.split())
    return rec


def test_normalize_and_locate():
    assert normalize("The  “Laws”\nof\tNew-York.") == "the laws of new york"
    a = _record("A#1", "Term", "Either party may terminate this Agreement for convenience on notice.", "Termination", "Termination")
    b = _record("A#2", "Law", "This Agreement is governed by the laws of Delaware.", "Governing Law", "Governing Law")
    clause, how = locate("either party may  TERMINATE this\nagreement", [a, b])
    assert clause is a and how == "exact"
    clause, how = locate("foo bar <omitted> governed by the laws of Delaware", [a, b])
    assert clause is b and how == "exact"  # the longest part is matched
    assert locate("of Delaware", [a, b]) == (None, "too_short")
    assert locate("completely different words that appear in no clause at all", [a, b]) == (None, "unlocated")
    # one token changed (page furniture, a typo): found by shingles, not exactly
    long_text = " ".join(f"w{i}" for i in range(30))
    c = _record("A#3", "X", long_text, "Other", "Other")
    excerpt = long_text.replace("w15", "page 3")
    assert locate(excerpt, [a, c]) == (c, "shingles")


def test_prf_by_hand():
    gold = {"a": True, "b": True, "c": True, "d": False}
    pred = {"a": True, "b": False, "c": True, "d": True}
    m = prf(pred, gold)
    assert (m["tp"], m["fp"], m["fn"]) == (2, 1, 1)
    assert m["precision"] == pytest.approx(2 / 3, abs=1e-4) and m["recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["f1"] == pytest.approx(2 / 3, abs=1e-4)
    assert prf({"a": False}, {"a": False})["f1"] == 0.0  # nothing to find: 0, not a division error


def test_score_by_hand():
    def answers(**yes):
        out = {c: "No" for c in MAPPING}
        out["Governing Law"] = ""
        out.update({k.replace("_", " "): v for k, v in yes.items()})
        return out

    contracts = [CuadContract("A", "x", answers(Governing_Law="New York", Uncapped_Liability="Yes",
                                                **{"Termination for Convenience": "Yes"})),
                 CuadContract("B", "x", answers(**{"Cap on Liability": "Yes", "Anti-Assignment": "Yes"}))]
    excerpts = [CuadExcerpt("A", "Governing Law", "governed by the laws of the State of New York", 1),
                CuadExcerpt("A", "Termination for Convenience", "may terminate for convenience on thirty days notice", 2),
                CuadExcerpt("A", "Uncapped Liability", "the cap does not apply to gross negligence or fraud", 3),
                CuadExcerpt("B", "Cap on Liability", "total liability shall not exceed the fees paid", 4),
                CuadExcerpt("B", "Cap on Liability", "words that are nowhere in the contract text", 5),  # unlocated
                CuadExcerpt("B", "Parties", "Beta Corp", 6)]  # not mapped
    clauses = {
        "A": [_record("A#1", "Miscellaneous", "This is governed by the laws of the State of New York. Notices go by mail.",
                      {"Governing Law"}, "Governing Law"),
              _record("A#2", "Term", "Customer may terminate for convenience on thirty days notice.",
                      {"Termination", "Termination for Convenience"}, "Termination"),
              _record("A#3", "Liability", "The cap does not apply to gross negligence or fraud.",
                      {"Liability"}, "Liability")],
        "B": [_record("B#1", "Limits", "Total liability shall not exceed the fees paid.", {"Liability"}, "Payment"),
              _record("B#2", "General", "Neither party may assign. Renews unless a party gives notice.",
                      {"Assignment", "Termination"}, "Termination"),
              _record("B#3", "Courts", "Disputes go to the courts of Paris.", {"Governing Law"}, "Other")],
    }
    data = CuadData(Path("."), contracts, excerpts)
    s = score(data, clauses, classifiers=("default", "keyword"))
    assert s["excerpts"]["mapped"] == 5 and s["excerpts"]["located"] == 4
    # default (multi-label): the gold type is among each located clause's labels, 4/4; keyword: Governing
    # Law and Uncapped right, TfC (typed Termination) and Cap (Payment) wrong
    assert s["excerpt_type_accuracy"] == {"default": 1.0, "keyword": 0.5}
    assert s["per_category"]["Cap on Liability"]["located"] == 1
    # presence. Governing Law: gold A only; default finds A and B -> P 1/2, R 1; keyword A only -> P 1, R 1
    assert s["presence"]["default"]["Governing Law"]["precision"] == 0.5
    assert s["presence"]["default"]["Governing Law"]["recall"] == 1.0
    assert s["presence"]["keyword"]["Governing Law"]["f1"] == 1.0
    # Liability: gold A (uncapped) and B (cap); default both; keyword A only (B#1 typed Payment)
    assert s["presence"]["default"]["Liability"]["f1"] == 1.0
    assert s["presence"]["keyword"]["Liability"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(0.6667),
                                                     "tp": 1, "fp": 0, "fn": 1, "support": 2}
    # Termination for Convenience is its own type: only the multi-label default carries it
    assert s["presence"]["default"]["Termination for Convenience"]["f1"] == 1.0
    assert s["presence"]["keyword"]["Termination for Convenience"]["recall"] == 0.0
    # Assignment: gold B; found in B's general section by the default only
    assert s["presence"]["default"]["Assignment"]["f1"] == 1.0 and s["presence"]["keyword"]["Assignment"]["f1"] == 0.0
    assert set(s["presence"]["default"]) == set(MAPPING.values())
    assert s["presence_gold_positives"]["Liability"] == 2 and s["presence_gold_positives"]["Insurance"] == 0
    # mean over all mapped types (types nobody has score 0 for both)
    n = len(set(MAPPING.values()))
    assert s["mean_presence_f1"]["default"] == pytest.approx(round((2 / 3 + 1 + 1 + 1) / n, 4))
    assert gold_present(contracts[0], ["Governing Law"]) and not gold_present(contracts[1], ["Governing Law"])


def test_load_cuad_errors(tmp_path):
    root = write_cuad(tmp_path / "cuad")
    data = load_cuad(root, limit=2)
    assert [c.file for c in data.contracts] == list(CONTRACTS)[:2]
    assert {e.file for e in data.excerpts} == set(list(CONTRACTS)[:2])
    (root / "excerpts.jsonl").write_text('{"file": "x"}\n', encoding="utf-8")
    with pytest.raises(CuadFormatError, match=r"excerpts.jsonl:1"):
        load_cuad(root)
    (root / "contracts" / "Alpha Supply Agreement.txt").unlink()
    with pytest.raises(CuadFormatError, match=r"labels.csv:2: contracts/Alpha Supply Agreement.txt not found"):
        load_cuad(root)


def _wipe(db) -> None:
    from core.graph.queries.admin import WIPE_BATCH

    while db.write(WIPE_BATCH)[0]["deleted"]:
        pass


def test_eval_cuad_end_to_end(db, tmp_path):
    root = write_cuad(tmp_path / "cuad")
    env = dict(os.environ,
               CLAUSEGRAPH_EVAL_NEO4J_HOME=os.environ["CLAUSEGRAPH_NEO4J_HOME"],  # this session's own instance
               CLAUSEGRAPH_EVAL_NEO4J_PORT=os.environ["CLAUSEGRAPH_NEO4J_PORT"],
               CLAUSEGRAPH_EVAL_CACHE_DIR=str(tmp_path / "cache"),
               CLAUSEGRAPH_EVAL_RESULTS_DIR=str(tmp_path / "results"))
    run = lambda *args: subprocess.run([sys.executable, "-m", "core", "eval", "cuad", *args],  # noqa: E731
                                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    try:
        out = run(str(root), "--json")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert {"contracts", "mapping", "excerpt_type_accuracy", "presence"} <= set(result)
        assert result["contracts"] == 3 and result["mapping"] == MAPPING
        # the heading-less letter is read by paragraphs, not rejected
        assert result["rejected_contracts"] == 0 and result["clauses"] >= 8
        assert set(result["excerpt_type_accuracy"]) == {"default", "model", "stored", "keyword"}
        for name in ("default", "model", "stored", "keyword"):
            assert set(result["presence"][name]) == set(MAPPING.values())
            for m in result["presence"][name].values():
                assert {"precision", "recall", "f1"} <= set(m)
                assert all(0.0 <= m[k] <= 1.0 for k in ("precision", "recall", "f1"))
        # all 5 mapped excerpts are located, the letter's too
        assert result["excerpts"]["mapped"] == 5 and result["excerpts"]["located"] == 5
        # the provision classifier gets all five right; the keyword rule types "Term and Termination"
        # as Termination, missing Termination for Convenience
        assert result["excerpt_type_accuracy"] == {"default": 1.0, "model": 1.0, "stored": 1.0, "keyword": 0.8}
        assert set(result["mean_presence_f1"]) == {"default", "model", "stored", "keyword"}
        # the default is the model joined with the wording readers: they only ever add a type
        for t, m in result["presence"]["model"].items():
            assert result["presence"]["default"][t]["recall"] >= m["recall"], t
        # what ingestion stored holds every confident provision (English clauses), and maybe the
        # section verdict beside: never fewer of a contract's types than the default finds
        assert result["excerpt_type_accuracy"]["stored"] >= result["excerpt_type_accuracy"]["default"]
        for t, m in result["presence"]["default"].items():
            assert result["presence"]["stored"][t]["recall"] >= m["recall"], t
        # Governing Law: gold in all 3 contracts, found in all 3 (the letter's sentence too)
        gl = result["presence"]["default"]["Governing Law"]
        assert (gl["precision"], gl["recall"], gl["f1"]) == (1.0, 1.0, 1.0)
        tfc = result["presence"]["default"]["Termination for Convenience"]
        assert (tfc["precision"], tfc["recall"]) == (1.0, 1.0)
        assert result["presence"]["keyword"]["Termination for Convenience"]["recall"] == 0.0
        assert list((tmp_path / "cache").glob("cuad-*.npy"))
        files = list((tmp_path / "results").glob("cuad-*.json"))
        assert len(files) == 1
        record = json.loads(files[0].read_text())
        assert record["rejected_files"] == [] and "git_revision" in record

        again = run(str(root), "--limit", "1")  # cached embeddings, readable table
        assert again.returncode == 0, again.stderr
        assert "embedding" not in again.stderr
        assert "CUAD: 1 contracts" in again.stdout and "excerpt type accuracy" in again.stdout

        bad = run(str(tmp_path / "missing"))
        assert bad.returncode == 2 and "missing" in bad.stderr
    finally:
        _wipe(db)
