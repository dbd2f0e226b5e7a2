"""Data (admins): upload and ingest a corpus, review low-confidence classifications and contract terms,
graph stats."""
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from core import service

from core.ui import support as ui_support

ctx = ui_support.page_setup("Data", admin_only=True)
st.title("Data")

upload_tab, review_tab, terms_tab, stats_tab = st.tabs(["Load a corpus", "Classification review", "Contract terms",
                                                        "Graph statistics"])

# ---- upload and ingest ---------------------------------------------------------------
with upload_tab:
    st.markdown("A corpus is `companies.csv`, `addresses.csv`, `spend.csv`, `agreements.csv` and the "
                "agreement files (`.md`/`.txt`, or `.htm` filings) in `contracts/`; optionally `rates.csv` (`currency,year,rate`) "
                "for spend in other currencies. Upload it as one zip or as individual files.")
    how = st.radio("Upload as", ["Zip archive", "Individual files"], horizontal=True, key="data_how")
    if how == "Zip archive":
        upload = st.file_uploader("Corpus zip", type=["zip"], key="data_zip")
        files = [upload] if upload else []
    else:
        files = st.file_uploader("Corpus files", type=["csv", "md", "markdown", "txt", "htm", "html"], accept_multiple_files=True,
                                 key="data_files") or []
    reset = st.checkbox("Empty the graph first", value=False, key="data_reset",
                        help="Otherwise the corpus is merged: unchanged agreements are skipped, changed ones replaced.")
    if st.button("Ingest", type="primary", disabled=not files, icon=":material/play_arrow:", key="data_ingest"):
        with tempfile.TemporaryDirectory(prefix="clausegraph-upload-") as tmp:
            dest = Path(tmp)
            try:
                prepared = service.prepare_upload([(f.name, f.getvalue()) for f in files], dest,
                                                  as_zip=how == "Zip archive")
            except service.UnsafeArchive as exc:
                st.error(f"Upload refused: {exc}")
                st.stop()
            for n in prepared.notes:
                st.warning(n)
            root = prepared.root
            bar = st.progress(0.0, text="Starting…")

            def progress(stage: str, done: int, total: int) -> None:
                frac = (done / total) if total else 1.0
                bar.progress(min(max(frac, 0.0), 1.0), text=f"{stage}: {done}/{total}")

            with st.status("Ingesting…", expanded=True) as status:
                report = ctx.call(service.ingest, root, reset=reset, progress=progress)
                ui_support.clear_caches()
                status.update(label="Ingest finished" if report.ok else "Ingest finished with errors",
                              state="complete" if report.ok else "error")
            bar.progress(1.0, text="Done")
            st.session_state["data_last_report"] = report

    report = st.session_state.get("data_last_report")
    if report is not None:
        st.markdown("#### Last ingest")
        counts = {s: report.count(s) for s in ("new", "replaced", "unchanged", "rejected")}
        c = st.columns(6)
        c[0].metric("Companies", report.companies)
        c[1].metric("New agreements", counts["new"])
        c[2].metric("Replaced", counts["replaced"])
        c[3].metric("Unchanged", counts["unchanged"])
        c[4].metric("Rejected", counts["rejected"])
        c[5].metric("Clauses written", report.clauses_written)
        if report.agreements:
            st.markdown("**Agreements**")
            st.dataframe(pd.DataFrame([a.__dict__ for a in report.agreements]), hide_index=True)
        if report.problems:
            st.markdown(f"**Problems ({len(report.problems)})** — errors were skipped, warnings were loaded")
            # a problem of a whole file has no line: an empty cell, not "None"; the message wraps whole
            st.dataframe(pd.DataFrame([{"severity": p.severity, "file": p.file,
                                        "line": "" if p.line is None else str(p.line), "message": p.message}
                                       for p in report.problems]), hide_index=True,
                         column_config={"message": st.column_config.TextColumn("message", width="large")})
        else:
            st.success("No problems: every file and row was loaded.")
        if report.timings_s:
            st.caption("Timings: " + ", ".join(f"{k} {v:.1f}s" for k, v in report.timings_s.items()))

# ---- classification review -------------------------------------------------------------
with review_tab:
    queue = ctx.call(service.review_queue)
    for w in ctx.call(service.segmentation_warnings):
        st.warning(f"{w['company']}: {w['sla_id']} ({w['source_file']}) has no recognisable section headings; "
                   "it was split by paragraphs.", icon=":material/warning:")
    st.markdown(f"**{len(queue)}** clause(s) below the review threshold or with low-confidence evidence "
                "(manual corrections are never listed).")
    if queue:
        df = pd.DataFrame([{"clause": q["clause_id"], "company": q["company"], "title": q["title"], "type": q["type"],
                            "confidence": q["confidence"], "runner-up": q.get("runner_up"),
                            "low-confidence evidence": ", ".join(f"{x['type']} {x['confidence']:.2f}"
                                                                 for x in q.get("review") or [])} for q in queue])
        st.dataframe(df, hide_index=True, height=260)
        ids = [q["clause_id"] for q in queue]
        by_id = {q["clause_id"]: q for q in queue}
        pick = st.selectbox("Clause to review", ids, key="review_clause",
                            format_func=lambda i: f"{i} — {by_id[i]['title']} ({by_id[i]['type']}, {by_id[i]['confidence']:.2f})")
        item = by_id[pick]
        with st.container(border=True):
            st.markdown(f"**{item['title']}** · {item['company']} · {item['sla_id']}")
            st.markdown(item.get("text") or "")
        names = ctx.type_names()
        current = [t for t in (item.get("types") or [item["type"]]) if t in names]
        new_types = st.multiselect("Correct types (one or several)", names, default=current or names[:1],
                                   key=f"review_type_{pick}")
        new_type = ", ".join(new_types)
        if st.button("Save correction", key="review_save", icon=":material/check:"):
            try:
                ctx.call(service.correct_clause_types, pick, new_types)
            except ValueError as exc:
                st.error(str(exc))
            else:
                ui_support.clear_caches()
                st.toast(f"{pick} is now {new_type} (manual)")
                st.rerun()

# ---- contract terms: values read with low confidence, corrections, tables against text ---------
with terms_tab:
    term_queue = ctx.call(service.term_review_queue, 200)
    label = service.TERM_FIELD_LABELS
    st.markdown(f"**{len(term_queue)}** term value(s) read with low confidence (a reviewer's value is never listed "
                "and is kept when the agreement is ingested again).")
    if term_queue:
        st.dataframe(pd.DataFrame([{"agreement": t["sla_id"], "company": t["company"],
                                    "term": label.get(t["field"], t["field"]), "value": t["value"],
                                    "confidence": t["confidence"], "evidence": t.get("quote") or "",
                                    "note": t.get("derived") or ""} for t in term_queue]),
                     hide_index=True, height=220, key="terms_queue")
    with st.container(border=True, key="terms_correct"):
        st.markdown("**Correct a value**")
        ids = [a["id"] for a in ctx.agreements()]
        first = term_queue[0] if term_queue else {}
        fields = list(service.TERM_FIELDS)
        t1, t2 = st.columns(2)
        sla = t1.selectbox("Agreement", ids, key="terms_sla",
                           index=ids.index(first["sla_id"]) if first.get("sla_id") in ids else 0,
                           format_func=lambda i: next((f"{i} · {a['company']}" for a in ctx.agreements()
                                                       if a["id"] == i), i))
        term_field = t2.selectbox("Term", fields, key="terms_field", format_func=lambda f: label.get(f, f),
                                  index=fields.index(first["field"]) if first.get("field") in fields else 0)
        if sla:
            current = next((t for t in ctx.call(service.agreement_terms, sla) if t["field"] == term_field), None)
            st.caption(f"Now: **{current['value']}** ({current['method']}, confidence {current['confidence']:.2f})"
                       + (f" from “{current['quote']}”" if current.get("quote") else "")
                       if current else "Now: not stated in the agreement.")
            value = st.text_input("Value", value=current["value"] if current else "", key=f"terms_value_{sla}_{term_field}",
                                  placeholder="2026-03-31, perpetual, 90 days, yes, 12 months of fees, 99.9, Germany")
            if st.button("Save value", key="terms_save", icon=":material/check:"):
                try:
                    ctx.call(service.correct_term, sla, term_field, value)
                except ValueError as exc:
                    st.error(str(exc))
                else:
                    ui_support.clear_caches()
                    st.toast(f"{sla}: {label.get(term_field, term_field)} is now {value.strip()} (manual)")
                    st.rerun()
    disagreements = ctx.call(service.term_disagreements)
    st.markdown(f"**agreements.csv against the contract text: {len(disagreements)} disagreement(s)**")
    if disagreements:
        st.caption("Both values are kept: the table's on the agreement, the text's as its term with evidence.")
        st.dataframe(pd.DataFrame([{"agreement": d["sla_id"], "company": d["company"],
                                    "term": label.get(d["field"], d["field"]), "agreements.csv": d["table"],
                                    "contract text": d["text"], "evidence": d.get("quote") or ""}
                                   for d in disagreements]),
                     hide_index=True, key="terms_disagreements")

# ---- statistics ---------------------------------------------------------------------
with stats_tab:
    stats = ctx.call(service.graph_stats)
    cols = st.columns(len(stats) or 1)
    for col, (k, v) in zip(cols, stats.items()):
        col.metric(k.replace("_", " "), f"{v:,}" if isinstance(v, int) else v)
    types = ctx.clause_types()
    if types:
        st.markdown("**Clauses per type**")
        st.bar_chart(pd.DataFrame(types).set_index("name")["clauses"])
