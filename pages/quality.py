"""Quality: engineering metrics from the request log and evaluation results over time."""
import pandas as pd
import plotly.express as px
import streamlit as st

from core import service

from core.ui import support as ui_support

ctx = ui_support.page_setup("Quality", needs_database=False)
st.title("Quality")

eng_tab, eval_tab = st.tabs(["Engineering (request log)", "Evaluation results"])


def _ms(value) -> str:
    return f"{value:,.0f} ms" if value is not None else "—"


with eng_tab:
    limit = st.select_slider("Requests considered (newest first)", [100, 500, 1000, 5000], value=1000,
                             key="quality_limit")
    summary = service.request_log_summary(limit=limit)
    if not summary.count:
        st.info("No requests logged yet: ask something on the Ask page.", icon=":material/info:")
    else:
        m = st.columns(5)
        m[0].metric("Requests", summary.count)
        m[1].metric("P50 total (warm)", _ms(summary.p50_total_ms))
        m[2].metric("P95 total (warm)", _ms(summary.p95_total_ms))
        m[3].metric("With warnings", f"{summary.warned_share:.0%}")
        m[4].metric("Empty results", f"{summary.empty_share:.0%}")

        if summary.cold_count:
            st.caption(f"{summary.cold_count} cold request(s), the first question of a process that loaded the "
                       f"model (a one-shot CLI `ask`, a server's first answer), are left out of the latency "
                       f"figures: median {_ms(summary.cold_p50_total_ms)}.")
        left, right = st.columns(2)
        with left:
            st.markdown("#### Latency per stage (warm requests)")
            if summary.stage_latency:
                # top-level stages only (retrieve.* are parts of retrieve), horizontal so names never
                # overlap, a linear axis in ms, the legend above the plot
                stages = pd.DataFrame(summary.stage_latency)
                stages = stages[~stages["stage"].str.contains(".", regex=False)]
                fig = px.bar(stages, y="stage", x="ms", color="percentile", barmode="group", orientation="h",
                             labels={"ms": "milliseconds", "stage": ""})
                fig.update_layout(height=max(260, 46 * stages["stage"].nunique() + 80),
                                  margin={"l": 10, "r": 10, "t": 30, "b": 10},
                                  legend={"orientation": "h", "y": 1.08, "x": 0, "title": None})
                st.plotly_chart(fig, key="quality_latency", config={"displayModeBar": False})
        with right:
            st.markdown("#### Mode mix")
            fig = px.pie(pd.DataFrame(summary.mode_mix), names="mode", values="requests", hole=.45)
            fig.update_traces(textinfo="label+percent", textposition="inside")
            fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 10, "b": 10}, showlegend=False)
            st.plotly_chart(fig, key="quality_modes", config={"displayModeBar": False})
        left, right = st.columns(2)
        with left:
            st.markdown("#### Rows returned")
            fig = px.histogram(pd.DataFrame(summary.requests), x="rows", color="mode", nbins=30,
                               labels={"rows": "rows returned"})
            fig.update_layout(height=300, margin={"l": 10, "r": 10, "t": 30, "b": 10}, yaxis_title="requests",
                              legend={"orientation": "h", "y": 1.12, "x": 0, "title": None})
            st.plotly_chart(fig, key="quality_rows", config={"displayModeBar": False})
        with right:
            st.markdown("#### Warnings rate by mode")
            fig = px.bar(pd.DataFrame(summary.warning_rate), x="mode", y="warned",
                         labels={"warned": "share with warnings"}, range_y=[0, 1])
            fig.update_layout(height=300, margin={"l": 10, "r": 10, "t": 10, "b": 10})
            st.plotly_chart(fig, key="quality_warnings")
        if summary.has_llm_usage:
            st.markdown("#### LLM tokens and retries")
            st.dataframe(pd.DataFrame(summary.llm_usage), hide_index=True)
        else:
            st.caption("No LLM tokens or retries logged (offline planner).")

with eval_tab:
    overview = service.evaluation_overview()
    if not overview.runs:
        st.info("No evaluation results yet: run `python -m core eval ...`; its files land in `eval/results/`.",
                icon=":material/info:")
    else:
        for r in overview.unreadable:
            st.warning(f"{r.file}: could not be read ({r.error})")
        if not overview.names():
            st.info("The result files hold no numeric metrics.")
        else:
            name = st.selectbox("Evaluation", overview.names(), key="quality_eval_run")
            chosen = st.multiselect("Metrics", overview.metrics(name), default=overview.default_metrics(name),
                                    key=f"quality_eval_metrics_{name}")
            if chosen:
                plot = pd.DataFrame(overview.points(name, chosen))
                if plot["date"].nunique() > 1:
                    fig = px.line(plot, x="date", y="value", color="metric", markers=True)
                    fig.update_layout(legend={"orientation": "h", "y": 1.1, "x": 0, "title": None})
                else:
                    fig = px.bar(plot, x="metric", y="value", color="metric", labels={"metric": ""})
                    fig.update_layout(showlegend=False)
                fig.update_layout(height=380, margin={"l": 10, "r": 10, "t": 30, "b": 10})
                st.plotly_chart(fig, key="quality_eval_chart", config={"displayModeBar": False})
            latest = overview.latest(name)
            st.markdown(f"**Latest run** ({latest.date}, {latest.file})")
            st.dataframe(pd.DataFrame(latest.values, columns=["metric", "value"]), hide_index=True)
            meta = overview.meta(name)
            if meta:
                with st.expander("Run details"):
                    st.json(meta)
