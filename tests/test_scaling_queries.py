"""The cheaper plans behind the clause-type pivot and the gap summary answer exactly what the
plans they stand in for answer (issue 17: both walked every supplier at 100,000 suppliers).

Which plan runs depends on counts (how common a type is, how many suppliers have gaps), so each
is compared with its reference plan over every type and several scopes, not only where it wins.
"""
from __future__ import annotations

import itertools

import pytest

from core.graph.queries import reports as qr
from core.graph.queries import retrieval as q
from core.retrieval.retrievers import ClauseTypeRetriever
from core.service import gap_report, gap_summary
from core.types import Intent, Mode, Plan, PlanParams


@pytest.fixture(scope="module")
def generated(db, embedder, tmp_path_factory):
    from bench.generate import generate
    from conftest import load_corpus

    info = generate(tmp_path_factory.mktemp("scale") / "corpus", suppliers=40, clauses_per_agreement=4, seed=17)
    report = load_corpus(db, info.path, embedder)
    assert report.ok, report.errors
    return db


def _types_with_clauses(db) -> list[str]:
    return [r["name"] for r in db.read(qr.CLAUSE_TYPE_LIST) if r["clauses"]]


def test_both_clause_type_plans_return_the_same_rows(generated):
    db = generated
    types = _types_with_clauses(db)
    assert len(types) >= 3, types
    asked = [[t] for t in types] + [list(pair) for pair in itertools.combinations(types[:4], 2)] + [["Warranty"]]
    for names, limit in itertools.product(asked, (3, 200)):
        params = {"types": names, "limit": limit}
        by_company = db.read(q.clause_type_clauses("companies"), params)
        by_type = db.read(q.clause_type_clauses("types"), params)
        assert by_company == by_type, (names, limit)
        ids = [r["clause_id"] for r in by_company]
        assert len(ids) == len(set(ids)) and all(r["clause_type"] in names for r in by_company), names
    with pytest.raises(ValueError):
        q.clause_type_clauses("clauses")


def test_the_pivot_answers_the_same_whichever_plan_it_picks(generated):
    db = generated
    retriever = ClauseTypeRetriever(db)
    for name in _types_with_clauses(db):
        plan = Plan(intent=Intent.CLAUSE_TYPE, mode=Mode.CLAUSE_TYPE, params=PlanParams(types=[name]))
        got = retriever.retrieve(plan)
        reference = db.read(q.clause_type_clauses("companies"), {"types": [name], "limit": got.params["limit"]})
        assert got.rows == reference and got.rows, name


def _rows(report) -> list[dict]:
    return [r.__dict__ for r in report.rows]


@pytest.mark.parametrize("scope", [{}, {"min_spend": 200_000.0}, {"year": "first"}, {"countries": "first"}])
def test_the_gap_summary_first_page_is_the_reports_first_rows(generated, scope):
    db = generated
    full = gap_report(["Termination", "Liability", "Data Protection"], db=db)
    scope = dict(scope)
    if scope.get("year") == "first":
        from core.graph import vocabulary

        scope["year"] = min(vocabulary.vocabulary(db).spend_years)
    if scope.get("countries") == "first":
        scope["countries"] = [full.rows[0].country]
    required = ["Termination", "Liability", "Data Protection"]
    report = gap_report(required, db=db, **scope)
    t = report.totals()
    with_gaps = t["companies_with_gaps"]
    assert report.rows, scope
    fast = 0
    for size in sorted({1, 3, max(1, with_gaps), with_gaps + 1, len(report.rows) + 2}):
        summary = gap_summary(required, db=db, page_size=size, **scope)
        assert (summary.companies, summary.companies_with_gaps) == (t["companies"], with_gaps), (scope, size)
        assert summary.spend_at_risk == pytest.approx(t["spend_at_risk"])
        assert summary.missing_by_type == t["missing_by_type"] and summary.review_by_type == t["review_by_type"]
        assert _rows(summary.report) == _rows(report)[:size], (scope, size)
        assert [r.__dict__ for r in summary.report.no_agreement] == [r.__dict__ for r in report.no_agreement]
        fast += "CALL ()" in summary.report.cypher
    assert fast >= (1 if with_gaps else 0), scope


def test_the_first_page_puts_suppliers_without_spend_first_by_name(generated):
    db = generated
    spend_key = "spend_latest"
    params = {"types": ["Termination", "Liability", "Data Protection"], "spend_key": spend_key, "skip": 0}
    without = db.read("MATCH (co:Company) WHERE co.n_agreements > 0 AND co.spend_latest IS NULL RETURN count(*) AS n")
    for limit in (1, 4, 12):
        reference = db.read(qr.gap_matrix(set(), spend_key), q.used_params(qr.gap_matrix(set(), spend_key),
                                                                           {**params, "limit": limit}))
        if not all(r["missing"] for r in reference):
            continue   # the first page holds companies without gaps: the summary ranks them all
        for nulls in ({True, bool(without[0]["n"])}):
            cypher = qr.gap_first_page(set(), spend_key, nulls)
            assert db.read(cypher, q.used_params(cypher, {**params, "limit": limit})) == reference, (limit, nulls)
