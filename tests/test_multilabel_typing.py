"""Provision-level, multi-label clause typing through the product (issue 14, items 2 and 5).

A small supplier corpus written the way real contracts are: the governing-law sentence sits
inside a "Miscellaneous" section next to assignment and notices. On the real Neo4j, with the
real embedder, section classifier and provision model:
* the clause-type pivot, the gap question and the gap report find it, and cite it with the
  span of the sentence that carries the type;
* a clause with two of the asked types is returned once;
* the gap report tells "no clause of this type" from "only low-confidence evidence";
* a reviewer's two types survive re-ingest; `reclassify` re-types without re-embedding.
"""
from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from core.graph import vocabulary
from core.graph.queries import retrieval as q
from core.ingest.pipeline import ingest_corpus, reclassify, set_clause_types
from core.ingest.provisions import ProvisionClassifier
from core.ingest.typing import ClauseTyper, get_clause_typer
from core.ingest.wording import RULES

GL_SENTENCE = ("This Agreement shall be governed by and construed in accordance with the laws of the "
               "State of New York, without regard to its conflict of laws principles.")
MISC = ("Neither party may assign this Agreement or any of its rights or obligations hereunder without the "
        "prior written consent of the other party, which shall not be unreasonably withheld. "
        f"{GL_SENTENCE} All notices under this Agreement shall be in writing and delivered by hand or by "
        "registered mail to the addresses set out above. This Agreement constitutes the entire agreement "
        "between the parties and supersedes all prior understandings.")

ALPHA = f"""# Supply Agreement

This Supply Agreement is made between Alpha Components Inc. (the "Supplier") and the Customer.

## 1. Products and Delivery

The Supplier shall deliver the products listed in the purchase orders issued by the Customer to the
delivery address named in each order within the lead times stated in Schedule A.

## 2. Prices and Payment

The Customer shall pay each undisputed invoice within thirty days of receipt. Prices are fixed for the
first twelve months and may be adjusted once per year thereafter.

## 3. Term and Termination

This Agreement runs for three years. Either party may terminate this Agreement for material breach that
is not cured within thirty days after written notice describing the breach.

## 4. Miscellaneous

{MISC}
"""

BETA = """# Supply Agreement

This Supply Agreement is made between Beta Fasteners GmbH (the "Supplier") and the Customer.

## 1. Products and Delivery

The Supplier shall deliver the fasteners listed in the purchase orders issued by the Customer within
the lead times stated in each order, packed for transport by road.

## 2. Prices and Payment

The Customer shall pay each undisputed invoice within forty-five days of receipt by bank transfer.

## 3. Limitation of Liability

Neither party shall be liable for indirect or consequential damages. The total liability of the Supplier
under this Agreement shall not exceed the fees paid in the twelve months before the claim.
"""

COMPANIES = [("Alpha Components Inc.", "United States", "Manufacturing", "Alpha Components"),
             ("Beta Fasteners GmbH", "Germany", "Manufacturing", "Beta Fasteners")]


def _write_corpus(root: Path, alpha_text: str = ALPHA) -> Path:
    (root / "contracts").mkdir(parents=True, exist_ok=True)
    (root / "contracts" / "alpha.md").write_text(alpha_text, encoding="utf-8")
    (root / "contracts" / "beta.md").write_text(BETA, encoding="utf-8")
    rows = {
        "companies.csv": [("name", "country", "industry", "aliases"), *COMPANIES],
        "addresses.csv": [("company", "street", "city", "postal_code", "country"),
                          ("Alpha Components Inc.", "1 Main St", "Albany", "12207", "United States"),
                          ("Beta Fasteners GmbH", "Hauptstr. 2", "Stuttgart", "70173", "Germany")],
        "spend.csv": [("company", "year", "amount", "currency", "category"),
                      ("Alpha Components Inc.", "2024", "900000", "USD", "Components"),
                      ("Beta Fasteners GmbH", "2024", "300000", "USD", "Fasteners")],
        "agreements.csv": [("sla_id", "company", "file", "effective_date", "service_name", "governing_law"),
                           ("SUP-A", "Alpha Components Inc.", "alpha.md", "2024-01-01", "Component Supply", ""),
                           ("SUP-B", "Beta Fasteners GmbH", "beta.md", "2024-02-01", "Fastener Supply", "")],
    }
    for name, table in rows.items():
        with open(root / name, "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(table)
    return root


@pytest.fixture(scope="module")
def corpus(db, embedder, tmp_path_factory):
    root = _write_corpus(tmp_path_factory.mktemp("multilabel"))
    report = ingest_corpus(root, db=db, reset=True, embedder=embedder)
    vocabulary.invalidate()
    assert report.ok, report.errors
    return root


def _misc(db) -> dict:
    return db.read("MATCH (c:Clause {id: 'SUP-A#4'}) RETURN c.title AS title, c.text AS text, c.type AS type, "
                   "c.types AS types")[0]


def test_misc_section_carries_several_types_with_spans(corpus, db):
    misc = _misc(db)
    assert "Miscellaneous" in misc["title"]
    assert {"Governing Law", "Assignment"} <= set(misc["types"]), misc["types"]
    edges = db.read("MATCH (:Clause {id: 'SUP-A#4'})-[r:OF_TYPE]->(t:ClauseType) RETURN t.name AS type, "
                    "r.primary AS primary, r.evidence_start AS start, r.evidence_end AS end")
    assert sum(1 for e in edges if e["primary"]) == 1, edges
    assert sorted(e["type"] for e in edges) == sorted(misc["types"])
    gl = next(e for e in edges if e["type"] == "Governing Law")
    assert misc["text"][gl["start"]:gl["end"]] == GL_SENTENCE
    # every clause has exactly one primary type; none is left untyped
    per_clause = db.read("MATCH (c:Clause) RETURN c.id AS id, COUNT { (c)-[:OF_TYPE {primary: true}]->() } AS n")
    assert per_clause and all(r["n"] == 1 for r in per_clause), per_clause


def test_pivot_question_finds_and_cites_the_governing_law_sentence(corpus, db):
    from core import service

    res = service.ask("Show the governing law clauses of Alpha Components")
    assert res.plan.params.types == ["Governing Law"], res.plan
    ev = next(e for e in res.evidence if e.clause_id == "SUP-A#4")
    assert ev.clause_type == "Governing Law" and "Assignment" in ev.clause_types
    assert ev.highlight is not None and ev.text[ev.highlight[0]:ev.highlight[1]] == GL_SENTENCE
    assert ev.highlighted[1] == GL_SENTENCE
    assert "[S" in res.answer


def test_gap_question_and_report_use_the_provision_types(corpus, db):
    from core import service

    res = service.ask("Which suppliers lack a governing law clause?")
    companies = res.evidence_companies
    assert "Beta Fasteners GmbH" in companies and "Alpha Components Inc." not in companies, res.answer
    report = service.gap_report(["Governing Law", "Termination"])
    alpha, beta = report.row("Alpha Components Inc."), report.row("Beta Fasteners GmbH")
    assert alpha.counts["Governing Law"] == 1 and "Governing Law" not in alpha.missing
    assert beta.missing == ["Governing Law", "Termination"] or set(beta.missing) >= {"Governing Law"}
    assert beta.state("Governing Law") in ("none", "review")


def test_a_clause_with_two_asked_types_is_returned_once(corpus, db):
    params = {"types": ["Governing Law", "Assignment"], "limit": 100, "companies": ["Alpha Components Inc."],
              "spend_key": "spend_latest", "review_threshold": 0.5}
    for cypher in (q.clause_type_clauses(), q.clause_type_clauses("types"), q.attribute_clauses({"companies"}),
                   q.presence_clauses({"companies"}, "all"), q.document_clauses({"companies", "types"})):
        rows = db.read(cypher, q.used_params(cypher, params))
        ids = [r["clause_id"] for r in rows]
        assert "SUP-A#4" in ids and len(ids) == len(set(ids)), (cypher, ids)
    counted = db.read(q.filtered_clause_count({"types"}), {"types": params["types"]})[0]["typed"]
    distinct = db.read("MATCH (c:Clause)-[:OF_TYPE]->(t:ClauseType) WHERE t.name IN $types "
                       "RETURN count(DISTINCT c) AS n", {"types": params["types"]})[0]["n"]
    assert counted == distinct


def _strict_typer(type_name: str) -> ClauseTyper:
    """The real models with one type's threshold out of reach and its wording reader off: its evidence
    becomes review-only (what a weaker sentence gets), the way an analyst would see it in the review queue."""
    real = get_clause_typer().provisions
    i = real.types.index(type_name)
    model = real.model
    thresholds, floors = model.thresholds.copy(), model.floors.copy()
    thresholds[i], floors[i] = np.float32(1.01), np.float32(min(floors[i], 0.2))
    strict = ProvisionClassifier(dataclasses.replace(model, thresholds=thresholds, floors=floors),
                                 embedder=real.embedder)
    rules = [rule for rule in RULES if rule.type != type_name]
    return ClauseTyper(get_clause_typer().section, strict, rules)


def test_low_confidence_only_is_told_apart_from_none(corpus, db):
    from core import service

    reclassify(db=db, typer=_strict_typer("Governing Law"))
    try:
        report = service.gap_report(["Governing Law"])
        alpha = report.row("Alpha Components Inc.")
        assert alpha.missing == ["Governing Law"] and alpha.state("Governing Law") == "review"
        assert "SUP-A#4" in alpha.review["Governing Law"]
        assert report.review_cells and "SUP-A#4" in report.to_markdown()
        res = service.ask("Which suppliers lack a governing law clause?")
        ev = next(e for e in res.evidence if e.company == "Alpha Components Inc.")
        assert ev.review_only == ["Governing Law"] and "SUP-A#4" in ev.review_clause_ids
        assert "low-confidence" in res.answer
        queue = service.review_queue()
        item = next(x for x in queue if x["clause_id"] == "SUP-A#4")
        assert any(r["type"] == "Governing Law" for r in item["review"])
    finally:
        back = reclassify(db=db)
    assert back.clauses == db.read("MATCH (c:Clause) RETURN count(c) AS n")[0]["n"]
    assert "Governing Law" in _misc(db)["types"]
    assert service.gap_report(["Governing Law"]).row("Alpha Components Inc.").state("Governing Law") == "present"


def test_manual_two_types_survive_reingest_and_reclassify(corpus, db, embedder, tmp_path):
    row = set_clause_types("SUP-A#2", ["Payment", "Termination"], db=db)
    assert row["types"] == ["Payment", "Termination"]
    # change another clause of the agreement: it is re-ingested, the corrected text is not
    changed = ALPHA.replace("within the lead times stated in Schedule A", "within ten working days")
    report = ingest_corpus(_write_corpus(tmp_path / "v2", changed), db=db, embedder=embedder)
    assert {a.sla_id: a.status for a in report.agreements}["SUP-A"] == "replaced"
    rc = reclassify(db=db)
    assert rc.manual_kept >= 1
    edges = db.read("MATCH (c:Clause {id: 'SUP-A#2'})-[r:OF_TYPE]->(t:ClauseType) RETURN t.name AS type, "
                    "r.method AS method, r.primary AS primary, c.types AS types ORDER BY type")
    assert [e["type"] for e in edges] == ["Payment", "Termination"] and {e["method"] for e in edges} == {"manual"}
    assert edges[0]["types"] == ["Payment", "Termination"]
    assert not db.read("MATCH (:Clause {id: 'SUP-A#2'})-[m:MAY_BE]->() RETURN m")
    counts = db.read("MATCH (co:Company {name: 'Alpha Components Inc.'}) RETURN co.clause_types AS types")[0]
    assert {"Payment", "Termination", "Governing Law"} <= set(counts["types"])


def test_the_clause_after_a_type_starts_from_the_clause_the_type_is_primary_for(corpus, db):
    """With several types per clause, a clause that only mentions a type also carries it; "the
    clause after the X clause" starts from the clause X is primary for. Runs after the manual
    correction above, which gave SUP-A#2 a second type (Termination) that SUP-A#3 is primary for."""
    from core import service

    cases = db.read("""
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(main:Clause)-[p:OF_TYPE {primary: true}]->(t:ClauseType)
MATCH (s)-[:HAS_CLAUSE]->(other:Clause)-[o:OF_TYPE]->(t)
WHERE other <> main AND NOT coalesce(o.primary, false) AND t.name <> 'Other'
  AND NOT EXISTS { MATCH (s)-[:HAS_CLAUSE]->(x:Clause)-[:OF_TYPE {primary: true}]->(t) WHERE x <> main }
  AND EXISTS { MATCH (main)-[:NEXT]->(:Clause) } AND EXISTS { MATCH (other)-[:NEXT]->(:Clause) }
RETURN co.name AS company, s.id AS sla_id, t.name AS type, main.id AS main, other.id AS other
ORDER BY sla_id, type LIMIT 1""")
    assert cases, "the corpus has a type that is primary on one clause and secondary on another"
    case = cases[0]
    r = service.ask(f"What comes after the {case['type'].lower()} clause in {case['company']}'s agreement?", log=False)
    assert r.plan.intent == "next_clause" and {x["anchor_id"] for x in r.rows} == {case["main"]}, (case, r.rows)
