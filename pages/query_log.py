"""Query log: every question asked, with its plan, Cypher, parameters, row count and answer."""
import pandas as pd
import streamlit as st

from core import service
from core.types import RESULT_MODES

from core.ui import support as ui_support

ctx = ui_support.page_setup("Query log", needs_database=False)
st.title("Query log")

c1, c2, c3 = st.columns([3, 1, 1])
search = c1.text_input("Search (question, Cypher, answer, company…)", key="log_search",
                       placeholder="e.g. termination")
limit = c2.selectbox("Show", [50, 200, 1000], index=1, key="log_limit")
mode_filter = c3.selectbox("Mode", ["all"] + [m.value for m in RESULT_MODES], key="log_mode")

entries = service.request_log(limit=limit, search=search.strip() or None,
                              mode=None if mode_filter == "all" else mode_filter)
if not entries:
    st.info("No matching requests." if search or mode_filter != "all" else
            "No requests logged yet: ask something on the Ask page.", icon=":material/info:")
    st.stop()

st.dataframe(pd.DataFrame([{
    "time": e.get("ts"), "question": e.get("question"), "mode": e.get("mode"),
    "intent": (e.get("plan") or {}).get("intent"), "rows": e.get("row_count"),
    "ms": (e.get("timings_ms") or {}).get("total"), "warnings": len(e.get("warnings") or []),
} for e in entries]), hide_index=True, height=260)

st.markdown(f"#### {len(entries)} request(s)")
for i, e in enumerate(entries):
    plan = e.get("plan") or {}
    with st.expander(f"{e.get('ts', '')} · {e.get('mode', '')} · {e.get('question', '')}"):
        left, right = st.columns(2)
        with left:
            st.markdown("**Answer**")
            st.markdown(e.get("answer") or "—")
            st.markdown(f"**Rows:** {e.get('row_count', 0)} · **session:** {e.get('session') or '—'}")
            for w in e.get("warnings") or []:
                st.warning(w)
            st.markdown("**Plan**")
            st.json({k: plan.get(k) for k in ("intent", "mode", "why", "linked", "params") if k in plan},
                    expanded=False)
            if e.get("timings_ms"):
                st.markdown("**Timings (ms)**")
                st.json(e["timings_ms"], expanded=False)
        with right:
            st.markdown("**Cypher**")
            if e.get("cypher"):
                st.code(e["cypher"], language="cypher")
            else:
                st.caption("none ran")
            st.markdown("**Parameters**")
            st.code(ui_support.params_json(e.get("params")), language="json")
            if e.get("evidence"):
                st.markdown("**Evidence**")
                st.dataframe(pd.DataFrame(e["evidence"]), hide_index=True)
