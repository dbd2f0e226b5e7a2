"""What the service hands the pages, computed without a database: upload layout, the gap
heatmap and table, request-log statistics, evaluation series; and the request log's redaction
of the local Neo4j password (read from its file, below the graph layer)."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from core import service
from core.config import settings
from core.request_log import scrub


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_prepare_upload_lays_out_a_corpus_from_a_zip_or_single_files(tmp_path):
    zipped = service.prepare_upload([("c.zip", _zip({"demo/companies.csv": b"name\n", "demo/contracts/a.md": b"# A"}))],
                                    tmp_path / "z", as_zip=True)
    assert zipped.root == tmp_path / "z" / "demo" and zipped.notes == []
    files = service.prepare_upload([("Companies.csv", b"name\n"), ("a.md", b"# A"), ("x.pdf", b"%PDF")],
                                   tmp_path / "f", as_zip=False)
    assert files.root == tmp_path / "f"
    assert (tmp_path / "f" / "companies.csv").is_file() and (tmp_path / "f" / "contracts" / "a.md").is_file()
    assert len(files.notes) == 1 and files.notes[0].startswith("x.pdf: ignored")
    with pytest.raises(service.UnsafeArchive, match="'..'"):
        service.prepare_upload([("evil.zip", _zip({"../evil.txt": b"x"}))], tmp_path / "e", as_zip=True)
    with pytest.raises(service.UnsafeArchive, match="one zip"):
        service.prepare_upload([("a.zip", b""), ("b.zip", b"")], tmp_path / "two", as_zip=True)


def _gap_report() -> service.GapReport:
    required = ["Termination", "Liability"]
    rows = [service.GapRow("Acme", "Germany", "Tech", 100.0, 1, ["SLA-1"], {"Termination": 0, "Liability": 5},
                           {"Liability": 2}, ["Termination"]),
            service.GapRow("Bolt", "France", "Health", None, 2, ["SLA-2", "SLA-3"], {"Termination": 1, "Liability": 1},
                           {}, []),
            service.GapRow("Cobalt", "Germany", "Tech", 50.0, 1, ["SLA-4"], {}, {}, ["Termination", "Liability"])]
    return service.GapReport(required=required, filters={}, spend_year=2024, rows=rows)


def test_gap_heatmap_table_and_totals_come_from_the_report():
    report = _gap_report()
    assert report.most_often_missing == ("Termination", 2)
    assert [r.company for r in report.shown_rows(only_gaps=True)] == ["Acme", "Cobalt"]
    assert report.row("Bolt").agreements == 2 and report.row("Nobody") is None
    heat = service.gap_heatmap(report.rows, report.required)
    assert heat.companies == ["Acme", "Bolt", "Cobalt"] and heat.types == ["Termination", "Liability"]
    assert heat.counts == [[0, 5], [1, 1], [0, 0]] and heat.zmax == 5
    assert heat.labels[0] == ["✗ missing", "5 (+2 low conf.)"] and heat.labels[1] == ["1", "1"]
    # red up to half a clause, green from there: a zero is red whatever the largest count
    (z0, red0), (step, red1), (after, green), (one, dark) = heat.colorscale
    assert z0 == 0 and red0 == red1 and step == pytest.approx(0.1) and after > step and one == 1 and green != red0
    assert service.gap_heatmap(report.rows[1:2], report.required).zmax == 2      # never a scale of 0..1
    table = service.gap_table(report.rows, report.required)
    assert table[0]["Termination"] == "✗ missing" and table[0]["Liability"] == "✓ 5 ⚠ 2 low-confidence"
    assert table[1]["missing"] == "—" and table[2]["missing"] == "Termination, Liability"
    assert service.GapReport(required=["Termination"], filters={}, spend_year=None).most_often_missing == (None, 0)


def test_only_gaps_trims_the_rows_shown_never_the_totals():
    """`report gaps --only-gaps` once said "2 of 2 companies have gaps" for 2 of 3."""
    report = _gap_report()
    md = report.to_markdown(only_gaps=True)
    assert "2 of 3 companies have gaps" in md and "| Bolt |" not in md and "| Acme |" in md
    assert md.count("only companies with gaps") == 1
    data = report.to_dict(only_gaps=True)
    assert data["totals"]["companies"] == 3 and [r["company"] for r in data["rows"]] == ["Acme", "Cobalt"]
    assert data["filters"]["only_gaps"] is True and "only_gaps" not in report.filters
    assert [r["company"] for r in report.to_dict()["rows"]] == ["Acme", "Bolt", "Cobalt"]


def test_low_confidence_evidence_is_a_gap_that_needs_review_not_a_green_cell():
    """A Data Protection clause typed at 0.21 once turned a real gap green ("1 (1 low conf.)")."""
    row = service.GapRow("Delta", "Germany", "Health", 10.0, 1, ["SLA-9"], {"Data Protection": 1},
                         {"Data Protection": 1}, ["Data Protection"], review={"Data Protection": ["SLA-9#4"]})
    report = service.GapReport(required=["Data Protection"], filters={"countries": ["Germany"]}, spend_year=None,
                               rows=[row], currency="EUR")
    assert row.state("Data Protection") == "review" and report.companies_with_gaps == [row]
    heat = service.gap_heatmap(report.rows, report.required)
    assert heat.counts == [[0]] and heat.labels == [["? needs review (1)"]]
    assert service.gap_table(report.rows, report.required)[0]["Data Protection"] == "? needs review: SLA-9#4"
    csv_lines = report.to_csv().splitlines()
    assert csv_lines[0].startswith("# Compliance gaps. required: Data Protection; country: Germany")
    assert "confidence ≥ 0.5" in csv_lines[1] and csv_lines[2].startswith("company,")
    assert "SLA-9#4" in report.to_markdown() and "Scope: required: Data Protection" in report.to_markdown()
    assert report.to_csv(only_gaps=True).count("Delta") == 1


def _write_log(folder, entries) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "requests-20260101.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


def test_request_log_summary_and_filter(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUSEGRAPH_LOG_DIR", str(tmp_path / "log"))
    settings.cache_clear()
    totals = [120.0, 80.0, 300.0, 40.0, 1000.0]
    modes = ["attribute", "relay", "attribute", None, "text2cypher"]
    entries = [{"ts": f"t{i}", "question": f"question {i}", "mode": m, "plan": {"intent": "gap"},
                "row_count": 0 if m is None else 3, "warnings": ["w"] if m == "relay" else [],
                "timings_ms": {"plan": t / 10, "total": t},
                "tokens": {"total_tokens": 500} if m == "text2cypher" else {}, "retries": 1 if m == "text2cypher" else 0}
               for i, (m, t) in enumerate(zip(modes, totals))]
    _write_log(tmp_path / "log", entries)
    s = service.request_log_summary(limit=100)
    assert s.count == 5 and s.has_llm_usage
    assert s.p50_total_ms == pytest.approx(np.percentile(totals, 50))
    assert s.p95_total_ms == pytest.approx(np.percentile(totals, 95))
    assert s.warned_share == pytest.approx(0.2) and s.empty_share == pytest.approx(0.2)
    assert s.mode_mix[0] == {"mode": "attribute", "requests": 2}
    assert {r["mode"] for r in s.mode_mix} == {"attribute", "relay", "none", "text2cypher"}
    assert {r["mode"]: r["warned"] for r in s.warning_rate}["relay"] == 1.0
    assert [(r["stage"], r["percentile"]) for r in s.stage_latency] == [
        ("plan", "P50"), ("total", "P50"), ("plan", "P95"), ("total", "P95")]
    usage = {r["mode"]: r for r in s.llm_usage}
    assert usage["text2cypher"]["tokens (sum)"] == 500 and usage["attribute"]["retries (sum)"] == 0
    assert [e["ts"] for e in service.request_log(limit=10)] == ["t4", "t3", "t2", "t1", "t0"]      # newest first
    assert [e["ts"] for e in service.request_log(limit=10, mode="none")] == ["t3"]
    assert [e["ts"] for e in service.request_log(limit=10, search="question 2")] == ["t2"]
    assert service.percentile([], .5) is None and service.percentile([7.0], .95) == 7.0


def test_request_log_summary_of_an_empty_log(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUSEGRAPH_LOG_DIR", str(tmp_path / "nothing"))
    settings.cache_clear()
    s = service.request_log_summary()
    assert s.count == 0 and s.p50_total_ms is None and not s.has_llm_usage and s.mode_mix == []


def test_evaluation_overview_arranges_series(tmp_path, monkeypatch):
    for day, ndcg in (("2026-02-01", 0.62), ("2026-01-01", 0.50)):
        (tmp_path / f"acord-test-{day}.json").write_text(json.dumps(
            {"date": day, "split": "test", "methods": {"hybrid": {"ndcg@10": ndcg, "latency_ms": 12}}}))
    (tmp_path / "odd-2026-01-05.json").write_text("[1, 2]")
    monkeypatch.setenv("CLAUSEGRAPH_EVAL_RESULTS_DIR", str(tmp_path))
    ov = service.evaluation_overview()
    assert [r.file for r in ov.unreadable] == ["odd-2026-01-05.json"]
    assert ov.names() == ["acord-test"]
    assert ov.metrics("acord-test") == ["methods.hybrid.latency_ms", "methods.hybrid.ndcg@10"]
    assert ov.default_metrics("acord-test") == ["methods.hybrid.ndcg@10"]
    pts = ov.points("acord-test", ["methods.hybrid.ndcg@10"])
    assert [(p["date"], p["value"]) for p in pts] == [("2026-01-01", 0.5), ("2026-02-01", 0.62)]
    latest = ov.latest("acord-test")
    assert latest.date == "2026-02-01" and latest.file == "acord-test-2026-02-01.json"
    assert {v["metric"]: v["value"] for v in latest.values}["methods.hybrid.ndcg@10"] == 0.62
    assert ov.meta("acord-test")["split"] == "test" and ov.latest("missing") is None


def test_label_counts_most_first():
    sub = {"nodes": [{"label": "Clause"}, {"label": "SLA"}, {"label": "Clause"}], "edges": []}
    assert service.label_counts(sub) == [{"label": "Clause", "nodes": 2}, {"label": "SLA", "nodes": 1}]


def test_scrub_masks_the_local_password_without_creating_one(tmp_path, monkeypatch):
    home = tmp_path / "neo4j-home"
    monkeypatch.setenv("CLAUSEGRAPH_NEO4J_HOME", str(home))
    settings.cache_clear()
    assert scrub("nothing secret here") == "nothing secret here"
    assert not (home / "password").exists()                      # reading never generates a password
    home.mkdir()
    (home / "password").write_text("Zq3-local-generated-pw\n", encoding="utf-8")
    out = scrub('{"error": "auth failed for neo4j/Zq3-local-generated-pw"}')
    assert "Zq3-local-generated-pw" not in out and "[redacted]" in out
    assert scrub("api_key=sk-abcdefghijkl") == "[redacted]"


def test_cold_requests_are_counted_apart_from_warm_latency(tmp_path, monkeypatch):
    """A one-shot CLI question pays the model load (seconds); mixed into the P95 it would hide what
    a warm server answers in. Old log lines without the flag are judged by their model-load stage."""
    monkeypatch.setenv("CLAUSEGRAPH_LOG_DIR", str(tmp_path / "log"))
    settings.cache_clear()
    warm = [{"ts": f"w{i}", "mode": "attribute", "cold": False, "timings_ms": {"load_models": 0.0, "total": t}}
            for i, t in enumerate([40.0, 50.0, 60.0])]
    cold = [{"ts": "c0", "mode": "attribute", "cold": True, "timings_ms": {"load_models": 9000.0, "total": 9100.0}},
            {"ts": "c1", "mode": "relay", "timings_ms": {"load_models": 7000.0, "total": 7200.0}}]   # no flag: old line
    _write_log(tmp_path / "log", warm + cold)
    s = service.request_log_summary()
    assert s.count == 5 and s.cold_count == 2
    assert s.p95_total_ms == pytest.approx(np.percentile([40.0, 50.0, 60.0], 95))
    assert s.cold_p50_total_ms == pytest.approx(8150.0)
    assert max(r["ms"] for r in s.stage_latency if r["stage"] == "total") <= 60.0


def test_clauses_holding_more_of_the_questions_words_come_first_then_the_order_by_meaning():
    from core.service.asking import _by_words_then_meaning

    rows = [{"clause_id": "a", "text": "Uptime of the platform."}, {"clause_id": "b", "text": "Fees per settlement."},
            {"clause_id": "c", "text": "Incidents go to the status page."}]
    assert [r["clause_id"] for r in _by_words_then_meaning(rows, "status page")] == ["c", "a", "b"]
    assert [r["clause_id"] for r in _by_words_then_meaning(rows, "settlements")] == ["b", "a", "c"]
    assert [r["clause_id"] for r in _by_words_then_meaning(rows, None)] == ["a", "b", "c"]
