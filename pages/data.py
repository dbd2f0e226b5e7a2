"""Data (admins): upload and ingest a corpus, review low-confidence classifications, graph stats."""
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from core import service

from core.ui import support as ui_support

ctx = ui_support.page_setup("Data", admin_only=True)
st.title("Data")

upload_tab, review_tab, stats_tab = st.tabs(["Load a corpus", "Classification review", "Graph statistics"])

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
            st.dataframe(pd.DataFrame([{"severity": p.severity, "file": p.file, "line": p.line, "message": p.message}
                                       for p in report.problems]), hide_index=True)
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
