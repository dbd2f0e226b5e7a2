"""Every dashboard page under Streamlit's AppTest, against the real graph (demo corpus).

Each page runs both through `app.py` (st.navigation) and as its own file, without
exceptions; the Ask, Compliance-gaps (clause types and playbook deviations), Renewals, Explore, Data
(with contract terms), Quality and Query-log pages are then driven like an analyst would and checked
for the content that matters. The helpers the pages
rely on that need no database are in tests/unit/test_page_helpers.py.
"""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"
APP = ROOT / "app.py"
PAGES = {
    "pages/ask.py": "Ask the contract graph",
    "pages/explore.py": "Explore the graph",
    "pages/gaps.py": "Compliance gaps",
    "pages/renewals.py": "Renewals",
    "pages/data.py": "Data",
    "pages/quality.py": "Quality",
    "pages/query_log.py": "Query log",
}
CANONICAL = "Which high-spend suppliers lack a termination clause?"
TIMEOUT = 180  # the first Ask run loads the embedding model


@pytest.fixture(scope="module")
def demo(db):
    import streamlit as st

    from conftest import load_corpus

    report = load_corpus(db, DEMO)
    assert report.ok, report.errors
    st.cache_data.clear()  # lists cached by an earlier module describe another graph
    return report


def run_page(path: str, **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / path), default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def texts(at: AppTest) -> str:
    """All visible text of the run (markdown, captions, alerts, code, titles, metrics)."""
    parts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "code", "error", "warning", "info",
                 "success", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return "\n".join(parts)


def no_problems(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("page", list(PAGES))
def test_page_runs_on_its_own(demo, page):
    at = run_page(page)
    no_problems(at)
    assert [t.value for t in at.title][:1] == [PAGES[page]]
    side = "\n".join(str(e.value) for e in at.sidebar.success) + "\n".join(str(e.value) for e in at.sidebar.info)
    assert "Database: Neo4j at bolt://" in side
    assert "offline planner" in side


def test_every_page_through_app_navigation(demo):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    no_problems(at)
    assert at.title[0].value == PAGES["pages/ask.py"], "Ask is the landing page"
    registered = {Path(str(i["script_path"])).name: i.get("page_name") for i in at._registered_pages.values()
                  if i.get("script_path")}
    assert registered == {"ask.py": "Ask", "explore.py": "Explore", "gaps.py": "Compliance gaps",
                          "renewals.py": "Renewals", "data.py": "Data", "quality.py": "Quality",
                          "query_log.py": "Query log"}, "login off: everyone is admin"
    for page, title in PAGES.items():
        at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
        at.switch_page(page).run()
        no_problems(at)
        assert at.title[0].value == title, page
        # routed by app.py's st.navigation, not by Streamlit's legacy pages/ folder mode
        assert "app.py" not in {Path(str(i.get("script_path"))).name for i in at._registered_pages.values()}


def test_ask_canonical_question_shows_answer_cypher_graph_and_evidence(demo):
    at = run_page("pages/ask.py")
    at.chat_input[0].set_value(CANONICAL).run()
    no_problems(at)
    cypher = [c.value for c in at.code if c.language == "cypher"]
    assert any("co.clause_types" in c for c in cypher), cypher
    params = [c.value for c in at.code if c.language == "json"]
    assert params and json.loads(params[0])["types"] == ["Termination"]
    result = at.session_state["ask_history"][-1]["result"]
    assert result.mode == "attribute" and result.plan.intent == "gap"
    body = texts(at)
    assert result.answer and result.answer in body
    # the answer names suppliers and cites them; each cited supplier has an evidence card
    assert "[S1]" in result.answer
    for ev in result.evidence:
        assert f"**[{ev.ref}]** {ev.company}" in body
    assert "Evidence (" in body and "intent `gap`" in body
    # the demo's high-spend suppliers without a Termination clause (data/demo/expected.json)
    expected = _demo_gap_companies(min_spend=200000)
    assert set(result.evidence_companies) == expected
    # the graph is drawn (an iframe holding the pyvis network with a MISSING edge per gap)
    frames = at.get("iframe")
    assert frames, "no subgraph iframe"
    assert any(e["type"] == "MISSING" for e in result.subgraph["edges"])
    # timings per stage are shown
    timings = [df.value for df in at.dataframe if "stage" in df.value.columns]
    assert timings and {"plan", "retrieve", "total"} <= set(timings[0]["stage"])


def _demo_gap_companies(min_spend: float) -> set[str]:
    import csv

    expected = json.loads((DEMO / "expected.json").read_text(encoding="utf-8"))
    agreements = list(csv.DictReader((DEMO / "agreements.csv").open(encoding="utf-8")))
    spend_rows = list(csv.DictReader((DEMO / "spend.csv").open(encoding="utf-8")))
    rates = {(r["currency"], int(r["year"])): float(r["rate"])
             for r in csv.DictReader((DEMO / "rates.csv").open(encoding="utf-8"))}
    latest = max(int(r["year"]) for r in spend_rows)
    spend: dict[str, float] = {}   # a supplier's rows add up; other currencies through rates.csv
    for r in spend_rows:
        if int(r["year"]) == latest:
            rate = 1.0 if r["currency"] == "EUR" else rates[(r["currency"], latest)]
            spend[r["company"]] = spend.get(r["company"], 0.0) + float(r["amount"]) * rate
    has_term: dict[str, bool] = {}
    for a in agreements:
        types = {c["type"] for c in expected.get(a["sla_id"], [])}
        has_term[a["company"]] = has_term.get(a["company"], False) or "Termination" in types
    return {c for c, ok in has_term.items() if not ok and spend.get(c, 0) > min_spend}


def test_ask_follow_up_uses_the_session(demo):
    at = run_page("pages/ask.py")
    at.chat_input[0].set_value(CANONICAL).run()
    first = at.session_state["ask_history"][-1]["result"]
    at.chat_input[0].set_value("And their liability clause?").run()
    no_problems(at)
    history = at.session_state["ask_history"]
    assert len(history) == 2
    follow = history[-1]["result"]
    assert "Liability" in follow.plan.params.types
    # the page passed its service session: the follow-up inherited the previous turn's context
    # (the high-spend filter), so it is about high-spend suppliers only, not the whole corpus
    assert follow.session == first.session == at.session_state["ask_session_id"]
    assert follow.plan.linked.get("from_session")
    spend = {c["name"]: c["spend"] for c in service_companies()}
    assert follow.evidence_companies and all(spend[c] > 200000 for c in follow.evidence_companies)
    # both turns stay visible; the first is collapsed to its answer
    assert len(at.chat_message) == 4
    assert first.answer in texts(at)


def service_companies():
    from core import service

    return service.list_companies()


def test_ask_example_button_and_mode_selector(demo):
    at = run_page("pages/ask.py")
    buttons = [b for b in at.button if b.label.startswith("Compare the termination clauses")]
    assert buttons
    at.selectbox(key="ask_mode").set_value("clause_type")
    buttons[0].click().run()
    no_problems(at)
    result = at.session_state["ask_history"][-1]["result"]
    assert result.mode == "clause_type"
    assert result.evidence and all(e.clause_type == "Termination" for e in result.evidence)
    assert [o for o in at.selectbox(key="ask_mode").options][0].startswith("auto")
    # New conversation clears the history and the service session
    sid = at.session_state["ask_session_id"]
    next(b for b in at.button if b.label == "New conversation").click().run()
    assert at.session_state["ask_history"] == [] and at.session_state["ask_session_id"] != sid


def test_gaps_page_heatmap_table_totals_and_exports(demo):
    at = run_page("pages/gaps.py")
    no_problems(at)
    assert at.multiselect(key="gaps_required").value == ["Termination", "Liability", "Data Protection"]
    charts = at.get("plotly_chart")
    assert charts, "no heatmap"
    fig = json.loads(charts[0].proto.spec)
    assert fig["data"][0]["type"] == "heatmap"
    assert fig["data"][0]["x"] == ["Termination", "Liability", "Data Protection"]
    table = next(df.value for df in at.dataframe if "missing" in df.value.columns)
    # 16 demo companies: one has no agreement at all and is listed apart, never as a gap (core.gaps)
    assert len(table) == 15
    assert any(i.value.startswith("No agreement on file (not counted as gaps):") for i in at.info)
    with_gaps = table[table["missing"] != "—"]
    assert len(with_gaps) > 0 and (table == "✗ missing").any().any()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Companies with agreements"] == "15" and metrics["Companies with gaps"] == str(len(with_gaps))
    assert metrics["Spend at risk (latest year on file, EUR)"].endswith(" EUR")   # the base currency, named
    assert any("A gap means no agreement of the supplier" in c.value for c in at.caption)   # the definition, stated
    assert {b.label for b in at.download_button} == {"Download CSV", "Download Markdown"}
    # filters narrow the report; the drill-down shows the selected company's gaps and clauses
    at.multiselect(key="gaps_countries").set_value(["Germany"]).run()
    no_problems(at)
    table = next(df.value for df in at.dataframe if "missing" in df.value.columns)
    assert set(table["country"]) == {"Germany"}
    at.toggle(key="gaps_only").set_value(True).run()
    no_problems(at)
    company = at.selectbox(key="gaps_drill_company").value
    row = table[table["company"] == company].iloc[0]
    assert row["missing"] != "—"
    assert any(w.value == f"{company} lacks: {row['missing']}" for w in at.warning)
    assert any(e.label.startswith("SLA-") for e in at.expander)


def test_explore_page_neighbourhood_and_reading_order(demo):
    at = run_page("pages/explore.py")
    no_problems(at)
    assert at.get("iframe"), "no neighbourhood graph"
    # a company's spend by year and category (stacked bars, from core.service.company_spend)
    at.selectbox(key="explore_company").set_value("Klinora Medizintechnik AG").run()
    no_problems(at)
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    bars = next(f["data"] for f in figs if f["data"] and f["data"][0]["type"] == "bar")
    assert [t["name"] for t in bars] == ["Medical Devices", "Field Engineering"]
    assert bars[0]["x"] == ["2023", "2024"] and bars[1]["y"] == [150000.0, 230000.0]
    layout = next(f["layout"] for f in figs if f["data"] and f["data"][0]["type"] == "bar")
    assert layout["xaxis"]["type"] == "category"   # whole years on the axis, not 2,023.6 ... 2,024.4
    at.segmented_control(key="explore_kind").set_value("Agreement").run()
    at.selectbox(key="explore_agreement").set_value("SLA-001").run()
    at.slider(key="explore_depth").set_value(1).run()
    no_problems(at)
    titles = [e.label for e in at.expander]
    expected = json.loads((DEMO / "expected.json").read_text(encoding="utf-8"))["SLA-001"]
    assert len(titles) == len(expected)
    for i, (label, exp) in enumerate(zip(titles, expected), start=1):
        assert label.startswith(f"{i}. {exp['title']}"), (label, exp)
    # clause-type start with a label filter
    at.segmented_control(key="explore_kind").set_value("Clause type").run()
    at.selectbox(key="explore_type").set_value("Termination").run()
    no_problems(at)
    assert "Neighbourhood of clause type *Termination*" in texts(at)


def test_data_page_upload_zip_review_and_stats(demo, db):
    at = run_page("pages/data.py")
    no_problems(at)
    # graph statistics from the service
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["companies"] == "16" and metrics["agreements"] == "16"
    # review queue: correct the least confident clause to its expected type
    from core import service

    queue = service.review_queue()
    assert queue, "the demo has low-confidence clauses to review"
    pick = queue[0]["clause_id"]
    sla, pos = pick.split("#")
    truth = json.loads((DEMO / "expected.json").read_text(encoding="utf-8"))[sla][int(pos) - 1]["type"]
    assert at.selectbox(key="review_clause").value == pick
    at.multiselect(key=f"review_type_{pick}").set_value([truth])
    next(b for b in at.button if b.key == "review_save").click().run()
    no_problems(at)
    after = {c["clause_id"]: c for c in service.agreement_clauses(sla)}
    assert after[pick]["clause_type"] == truth and after[pick]["method"] == "manual"
    assert pick not in [q["clause_id"] for q in service.review_queue()]


def test_data_page_ingests_an_uploaded_zip(demo):
    """Re-uploading the demo corpus as a zip is a no-op ingest: every agreement unchanged."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in DEMO.rglob("*"):
            if p.is_file():
                zf.write(p, "demo/" + p.relative_to(DEMO).as_posix())
    at = run_page("pages/data.py")
    at.file_uploader(key="data_zip").upload("demo.zip", buf.getvalue(), "application/zip").run()
    next(b for b in at.button if b.key == "data_ingest").click().run()
    no_problems(at)
    report = at.session_state["data_last_report"]
    assert report.count("unchanged") == 16 and report.count("rejected") == 0
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Unchanged"] == "16"


def test_quality_and_query_log_pages_show_logged_requests(demo):
    from core import service

    service.ask(CANONICAL)
    at = run_page("pages/quality.py")
    no_problems(at)
    assert at.get("plotly_chart"), "no latency/mode charts"
    assert int(next(m.value for m in at.metric if m.label == "Requests")) >= 1
    at = run_page("pages/query_log.py")
    no_problems(at)
    at.text_input(key="log_search").set_value("high-spend suppliers lack").run()
    no_problems(at)
    assert any(CANONICAL in e.label for e in at.expander)
    assert any("co.clause_types" in c.value for c in at.code if c.language == "cypher")


def test_database_down_shows_error_and_recovers(demo, db):
    """With an unreachable database every page shows what to do (no traceback); back again, it works."""
    from core import service
    from core.graph.db import Connection, Database, set_database

    dead = Database(Connection("bolt://127.0.0.1:1", "neo4j", "x", "neo4j"))
    set_database(dead)
    try:
        import streamlit as st

        st.cache_data.clear()
        for page in PAGES:
            at = run_page(page)
            assert not at.exception, (page, [e.value for e in at.exception])
            errors = "\n".join(e.value for e in at.error)
            assert "not available" in errors and "python -m core neo4j start" in errors, page
    finally:
        set_database(db)
    at = run_page("pages/gaps.py")
    no_problems(at)
    assert at.get("plotly_chart")
    assert service.database_status().ok


def test_quality_page_charts_evaluation_results_over_time(demo, tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    for day, ndcg in (("2026-01-01", 0.50), ("2026-02-01", 0.62)):
        (results / f"acord-test-{day}.json").write_text(json.dumps(
            {"date": day, "split": "test", "methods": {"hybrid": {"ndcg@10": ndcg}, "vector": {"ndcg@10": ndcg - .1}},
             "per_query": [{"query": "q1", "hybrid": {"ndcg@10": 1.0}}]}), encoding="utf-8")
    (results / "odd-2026-01-05.json").write_text(json.dumps(["not", "a", "dict"]), encoding="utf-8")
    monkeypatch.setenv("CLAUSEGRAPH_EVAL_RESULTS_DIR", str(results))
    at = run_page("pages/quality.py")
    assert not at.exception, [e.value for e in at.exception]
    assert any("odd-2026-01-05.json" in w.value for w in at.warning)
    assert at.selectbox(key="quality_eval_run").value == "acord-test"
    assert set(at.multiselect(key="quality_eval_metrics_acord-test").value) == {
        "methods.hybrid.ndcg@10", "methods.vector.ndcg@10"}
    chart = json.loads(at.get("plotly_chart")[-1].proto.spec)
    assert {t["type"] for t in chart["data"]} == {"scatter"} and len(chart["data"]) == 2  # a line per metric
    latest = next(df.value for df in at.dataframe if list(df.value.columns) == ["metric", "value"])
    assert latest.set_index("metric")["value"]["methods.hybrid.ndcg@10"] == pytest.approx(0.62)
    # an empty folder is an info message, not an error
    monkeypatch.setenv("CLAUSEGRAPH_EVAL_RESULTS_DIR", str(tmp_path / "empty"))
    at = run_page("pages/quality.py")
    assert not at.exception and any("No evaluation results yet" in i.value for i in at.info)


# ---------------------------------------------------------------------------------------
# contract terms: the renewals calendar, playbook deviations, term review (these tests write
# reviewers' values into the demo graph, so they come last in the module)

def _dated_renewals() -> dict:
    """Two agreements given dates a reviewer could have set, relative to today, so the next 90 days
    hold one expiry and one notice deadline: SLA-011 expires in 45 days; SLA-003 renews by itself
    in 200 days unless notice is given 6 months before."""
    from datetime import date, timedelta

    from core import service

    today = date.today()
    service.correct_term("SLA-011", "expiration_date", (today + timedelta(days=45)).isoformat())
    service.correct_term("SLA-003", "expiration_date", (today + timedelta(days=200)).isoformat())
    service.correct_term("SLA-003", "auto_renewal", "yes")
    service.correct_term("SLA-003", "renewal_notice", "6 months")
    rows = {r.sla_id: r for r in service.renewal_calendar(within_days=90)}
    assert {"SLA-011", "SLA-003"} <= set(rows), rows
    assert rows["SLA-003"].notice_deadline and rows["SLA-011"].notice_deadline is None
    return rows


def test_renewals_page_next_90_days_timeline_table_and_downloads(demo):
    from core import service

    soon = _dated_renewals()
    at = run_page("pages/renewals.py")
    no_problems(at)
    assert [h.value for h in at.subheader][:1] == ["Next 90 days"]
    table = next(df.value for df in at.dataframe if "what to do" in df.value.columns and "days left" in df.value.columns
                 and "action date" not in df.value.columns)
    assert list(table["agreement"]) == list(soon)   # soonest first
    todo = dict(zip(table["agreement"], table["what to do"]))
    assert todo["SLA-003"] == f"Give notice by {soon['SLA-003'].notice_deadline} to stop the renewal"
    assert todo["SLA-011"] == f"Expires on {soon['SLA-011'].expiration_date}"
    assert list(table["days left"]) == [r.days_left for r in soon.values()]
    # the timeline: a notice-deadline marker and expiry markers coloured by automatic renewal
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {t.get("name") for t in fig["data"]}
    assert {"notice deadline", "expiry · renews automatically"} <= names, names
    notice = next(t for t in fig["data"] if t.get("name") == "notice deadline")
    assert soon["SLA-003"].notice_deadline in notice["x"] and "spend" in notice["hovertemplate"]
    # the full table holds every dated agreement; the undated ones are listed apart
    every = service.renewal_calendar()
    full = next(df.value for df in at.dataframe if "action date" in df.value.columns)
    assert sorted(full["agreement"]) == sorted(r.sla_id for r in every if r.action_date)
    undated = next(df.value for df in at.dataframe if "expiry" in df.value.columns)
    assert sorted(undated["agreement"]) == sorted(r.sla_id for r in every if not r.action_date)
    assert set(undated["expiry"]) <= {"perpetual", "not stated"}
    assert {b.label for b in at.download_button} == {"Download CSV", "Download calendar (.ics)"}
    # the horizon and the filters narrow the calendar
    at.segmented_control(key="renewals_horizon").set_value("90 days").run()
    no_problems(at)
    full = next(df.value for df in at.dataframe if "action date" in df.value.columns)
    assert list(full["agreement"]) == list(soon)
    at.multiselect(key="renewals_countries").set_value(["China"]).run()
    no_problems(at)
    full = next(df.value for df in at.dataframe if "action date" in df.value.columns)
    assert set(full["country"]) == {"China"} and "SLA-011" in set(full["agreement"])


def test_gaps_page_playbook_deviations(demo):
    from core import service

    report = service.playbook_deviations()
    at = run_page("pages/gaps.py")
    no_problems(at)
    assert [t.label for t in at.tabs] == ["Clause types", "Playbook deviations"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Spend at risk from deviations (EUR)"] == f"{report.spend_at_risk():,.0f} EUR"
    suppliers = report.suppliers()
    assert metrics["Suppliers deviating"] == f"{sum(1 for s in suppliers if s['deviations'])} of {len(suppliers)}"
    positions = next(df.value for df in at.dataframe if "position" in df.value.columns and "severity" in df.value.columns
                     and "status" not in df.value.columns)
    assert list(positions["position"]) == [p.title for p in report.playbook.positions]
    table = next(df.value for df in at.dataframe if "spend at risk" in df.value.columns)
    assert list(table["supplier"]) == [s["company"] for s in suppliers]
    # uncertain values say they need review, in the counts, a warning and each agreement's checks
    uncertain = sum(len(a.uncertain) for a in report.agreements)
    assert uncertain, "the demo has values read with low confidence"
    assert any("need review" in w.value for w in at.warning)
    pick = next(a for a in report.agreements if a.uncertain)
    at.selectbox(key="dev_agreement").set_value(pick.sla_id).run()
    no_problems(at)
    checks = next(df.value for df in at.dataframe if "status" in df.value.columns and "why" in df.value.columns)
    assert list(checks["position"]) == [c.title for c in pick.checks]
    assert "? uncertain: needs review" in set(checks["status"])
    assert any(m.value.startswith(f"**{pick.uncertain[0].title}**: ? uncertain: needs review") for m in at.markdown)
    assert "Download CSV" in [b.label for b in at.download_button]
    at.multiselect(key="dev_countries").set_value(["Germany"]).run()
    no_problems(at)
    table = next(df.value for df in at.dataframe if "spend at risk" in df.value.columns)
    assert set(table["country"]) == {"Germany"}


def test_data_page_contract_terms_review_and_correction(demo):
    from core import service

    at = run_page("pages/data.py")
    no_problems(at)
    queue = service.term_review_queue(200)
    assert queue and any(m.value.startswith(f"**{len(queue)}** term value(s)") for m in at.markdown)
    shown = next(df.value for df in at.dataframe if "term" in df.value.columns and "confidence" in df.value.columns)
    assert len(shown) == len(queue)
    # the table-versus-text list
    disagreements = service.term_disagreements()
    listed = next(df.value for df in at.dataframe if "agreements.csv" in df.value.columns)
    assert len(listed) == len(disagreements) > 0
    # correct one: a bad value shows what is expected, a good one is saved as the reviewer's
    target = next(d for d in disagreements if d["field"] == "effective_date")
    at.selectbox(key="terms_sla").set_value(target["sla_id"]).run()
    at.selectbox(key="terms_field").set_value("effective_date").run()
    value = at.text_input(key=f"terms_value_{target['sla_id']}_effective_date")
    value.set_value("next tuesday")
    at.button(key="terms_save").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["effective_date: expected a date such as 2026-03-31, got 'next tuesday'"]
    at.text_input(key=f"terms_value_{target['sla_id']}_effective_date").set_value(target["table"])
    at.button(key="terms_save").click().run()
    no_problems(at)
    term = next(t for t in service.agreement_terms(target["sla_id"]) if t["field"] == "effective_date")
    assert term["value"] == target["table"] and term["method"] == "manual"
    assert (target["sla_id"], "effective_date") not in {(d["sla_id"], d["field"]) for d in service.term_disagreements()}
    listed = next(df.value for df in at.dataframe if "agreements.csv" in df.value.columns)
    assert len(listed) == len(disagreements) - 1


def test_renewals_and_deviations_on_an_empty_graph(empty_db):
    """Last in the module: it empties the graph."""
    import streamlit as st

    st.cache_data.clear()
    try:
        at = run_page("pages/renewals.py")
        no_problems(at)
        assert any("No agreements in the graph yet" in i.value for i in at.info)
        at = run_page("pages/gaps.py")
        assert not at.exception, [e.value for e in at.exception]
        assert any("No agreements in the graph yet" in i.value for i in at.info)
    finally:
        st.cache_data.clear()
