"""Quality: engineering metrics from the request log and evaluation results over time."""
import pandas as pd
import plotly.express as px
import streamlit as st

from core import service

from core.ui import support as ui_support
from core.request_log import read_log

ctx = ui_support.page_setup("Quality", needs_database=False)
st.title("Quality")

eng_tab, eval_tab = st.tabs(["Engineering (request log)", "Evaluation results"])

with eng_tab:
    limit = st.select_slider("Requests considered (newest first)", [100, 500, 1000, 5000], value=1000,
                             key="quality_limit")
    entries = read_log(limit=limit)
    if not entries:
        st.info("No requests logged yet: ask something on the Ask page.", icon=":material/info:")
    else:
        df = pd.DataFrame([{
            "ts": e.get("ts"), "mode": e.get("mode") or "none", "intent": (e.get("plan") or {}).get("intent"),
            "rows": e.get("row_count") or 0, "warnings": len(e.get("warnings") or []),
            "tokens": sum(v for v in (e.get("tokens") or {}).values() if isinstance(v, (int, float))),
            "retries": e.get("retries") or 0,
        } for e in entries])
        m = st.columns(5)
        m[0].metric("Requests", len(df))
        total_ms = [e.get("timings_ms", {}).get("total") for e in entries if e.get("timings_ms", {}).get("total")]
        m[1].metric("P50 total", f"{pd.Series(total_ms).quantile(.5):,.0f} ms" if total_ms else "—")
        m[2].metric("P95 total", f"{pd.Series(total_ms).quantile(.95):,.0f} ms" if total_ms else "—")
        m[3].metric("With warnings", f"{(df['warnings'] > 0).mean():.0%}")
        m[4].metric("Empty results", f"{(df['rows'] == 0).mean():.0%}")

        stages = pd.DataFrame([{"stage": k, "ms": v} for e in entries for k, v in (e.get("timings_ms") or {}).items()
                               if isinstance(v, (int, float))])
        left, right = st.columns(2)
        with left:
            st.markdown("#### Latency per stage")
            if not stages.empty:
                q = stages.groupby("stage")["ms"].quantile([.5, .95]).unstack()
                q.columns = ["P50", "P95"]
                q = q.reset_index().melt(id_vars="stage", var_name="percentile", value_name="ms")
                fig = px.bar(q, x="stage", y="ms", color="percentile", barmode="group", log_y=True,
                             labels={"ms": "milliseconds (log)"})
                fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 10, "b": 10})
                st.plotly_chart(fig, key="quality_latency")
        with right:
            st.markdown("#### Mode mix")
            mix = df["mode"].value_counts().rename_axis("mode").reset_index(name="requests")
            fig = px.pie(mix, names="mode", values="requests", hole=.45)
            fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 10, "b": 10})
            st.plotly_chart(fig, key="quality_modes")
        left, right = st.columns(2)
        with left:
            st.markdown("#### Rows returned")
            fig = px.histogram(df, x="rows", color="mode", nbins=30)
            fig.update_layout(height=300, margin={"l": 10, "r": 10, "t": 10, "b": 10})
            st.plotly_chart(fig, key="quality_rows")
        with right:
            st.markdown("#### Warnings rate by mode")
            rate = df.assign(warned=df["warnings"] > 0).groupby("mode")["warned"].mean().reset_index()
            fig = px.bar(rate, x="mode", y="warned", labels={"warned": "share with warnings"}, range_y=[0, 1])
            fig.update_layout(height=300, margin={"l": 10, "r": 10, "t": 10, "b": 10})
            st.plotly_chart(fig, key="quality_warnings")
        if df["tokens"].sum() or df["retries"].sum():
            st.markdown("#### LLM tokens and retries")
            st.dataframe(df.groupby("mode")[["tokens", "retries"]].agg(["sum", "mean"]))
        else:
            st.caption("No LLM tokens or retries logged (offline planner).")

with eval_tab:
    runs = service.evaluation_results()
    if not runs:
        st.info("No evaluation results yet: run `python -m core eval ...`; its files land in `eval/results/`.",
                icon=":material/info:")
    else:
        for r in runs:
            if r.error:
                st.warning(f"{r.file}: could not be read ({r.error})")
        good = [r for r in runs if not r.error and r.metrics]
        if not good:
            st.info("The result files hold no numeric metrics.")
        else:
            long = pd.DataFrame([{"run": r.name, "date": r.date, "file": r.file, "metric": k, "value": v}
                                 for r in good for k, v in r.metrics.items()])
            name = st.selectbox("Evaluation", sorted(long["run"].unique()), key="quality_eval_run")
            sub = long[long["run"] == name]
            metrics = sorted(sub["metric"].unique())
            default = [m for m in metrics if any(s in m.lower() for s in ("ndcg", "recall", "precision", "accuracy",
                                                                          "f1", "mrr", "hit"))][:6] or metrics[:6]
            chosen = st.multiselect("Metrics", metrics, default=default, key=f"quality_eval_metrics_{name}")
            if chosen:
                plot = sub[sub["metric"].isin(chosen)].sort_values("date")
                if plot["date"].nunique() > 1:
                    fig = px.line(plot, x="date", y="value", color="metric", markers=True)
                else:
                    fig = px.bar(plot, x="metric", y="value", color="metric")
                fig.update_layout(height=380, margin={"l": 10, "r": 10, "t": 10, "b": 10})
                st.plotly_chart(fig, key="quality_eval_chart")
            latest = sub[sub["date"] == sub["date"].max()]
            st.markdown(f"**Latest run** ({latest['date'].iloc[0]}, {latest['file'].iloc[0]})")
            st.dataframe(latest[["metric", "value"]], hide_index=True)
            meta = next((r.meta for r in reversed(good) if r.name == name), {})
            if meta:
                with st.expander("Run details"):
                    st.json(meta)
