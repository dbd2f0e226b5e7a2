"""Explore: pick a company, agreement or clause type, expand its neighbourhood, read clauses in order."""
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core import service

from core.ui import support as ui_support

ctx = ui_support.page_setup("Explore")
st.title("Explore the graph")

companies = ctx.companies()
agreements = ctx.agreements()
clause_types = ctx.clause_types()
if not companies:
    st.info("The graph is empty. Load a corpus on the Data page or run `python -m core demo`.",
            icon=":material/info:")
    st.stop()

KINDS = {"Company": "Company", "Agreement": "SLA", "Clause type": "ClauseType"}
agreement_label = {a["id"]: f"{a['id']} · {a['company']} — {a.get('service_name') or ''}" for a in agreements}

pick_col, depth_col = st.columns([3, 1])
with pick_col:
    kind = st.segmented_control("Start from", list(KINDS), default="Company", key="explore_kind") or "Company"
    if kind == "Company":
        key = st.selectbox("Company", [c["name"] for c in companies], key="explore_company")
    elif kind == "Agreement":
        key = st.selectbox("Agreement", list(agreement_label), format_func=lambda k: agreement_label.get(k, k),
                           key="explore_agreement")
    else:
        key = st.selectbox("Clause type", [t["name"] for t in clause_types],
                           format_func=lambda n: f"{n} ({next((t['clauses'] for t in clause_types if t['name'] == n), 0)})",
                           key="explore_type")
with depth_col:
    depth = st.slider("Depth", 1, 3, 2, key="explore_depth", help="Hops from the starting node.")

f1, f2 = st.columns(2)
with f1:
    labels = st.multiselect("Show only these node labels (besides the start)", list(service.NODE_LABELS),
                            key="explore_labels", help="Empty: all labels.")
with f2:
    types = st.multiselect("Only clauses of these types", [t["name"] for t in clause_types], key="explore_types",
                           help="Empty: clauses of any type.")

graph_col, info_col = st.columns([3, 2], gap="medium")
with graph_col:
    with st.spinner("Expanding the neighbourhood…"):
        sub = ctx.call(service.neighbourhood, KINDS[kind], key, depth=depth, labels=labels, types=types)
    # the nearest nodes first, a legible number of them; "show more" adds as many again
    view = (kind, key, depth, tuple(labels), tuple(types))
    if st.session_state.get("explore_view") != view:
        st.session_state["explore_view"] = view
        st.session_state["explore_cap"] = ui_support.EXPLORE_NODE_CAP
    shown, hidden = ui_support.limit_nodes(sub, st.session_state["explore_cap"])
    st.markdown(f"#### Neighbourhood of {kind.lower()} *{key}* — {len(sub['nodes'])} nodes, {len(sub['edges'])} edges")
    show_labels = st.toggle("Show labels", value=True, key="explore_show_labels")
    ui_support.render_graph(shown, height=520, labels=show_labels)
    if hidden:
        more_col, note_col = st.columns([1, 3], vertical_alignment="center")
        more_col.button(f"Show {min(hidden, ui_support.EXPLORE_NODE_CAP)} more", key="explore_more",
                        on_click=lambda: st.session_state.update(
                            explore_cap=st.session_state["explore_cap"] + ui_support.EXPLORE_NODE_CAP))
        note_col.caption(f"Showing the nearest {len(shown['nodes'])} of {len(sub['nodes'])} nodes; "
                         f"{hidden} more are listed on the right.")
    if len(sub["edges"]) >= 300:
        st.caption("Showing the first 300 paths; narrow the filters or lower the depth to see everything.")
with info_col:
    st.markdown("#### Nodes")
    if sub["nodes"]:
        st.dataframe(pd.DataFrame(service.label_counts(sub)), hide_index=True)
        table = pd.DataFrame([{"label": n["label"], "name": n["name"]} for n in sub["nodes"]])
        st.dataframe(table, hide_index=True, height=300)

# ---- a company's spend by year and category -------------------------------------------
if kind == "Company":
    spend = ctx.call(service.company_spend, key)
    if spend.rows:
        cur = f" ({spend.currency})" if spend.currency else ""
        st.markdown(f"#### Spend by year and category{cur}")
        fig = go.Figure([go.Bar(name=cat, x=[str(y) for y in spend.years], y=amounts,
                                hovertemplate=f"{cat}<br>%{{x}}: %{{y:,.0f}}{cur}<extra></extra>")
                         for cat, amounts in spend.series().items()])
        fig.update_layout(barmode="stack", height=280, margin={"l": 10, "r": 10, "t": 10, "b": 10},
                          yaxis={"title": f"spend{cur}", "tickformat": ",.0f"}, legend={"title": "category"},
                          xaxis={"type": "category", "title": "year"})   # years as labels, never "2,023.6"
        st.plotly_chart(fig, key="explore_spend_chart")
        st.caption("Totals per year: " + ", ".join(f"{y}: {v:,.0f}{cur}" for y, v in spend.totals().items())
                   + ". Other currencies are converted to the base currency at ingest (rates.csv).")

# ---- reading an agreement in NEXT order ----------------------------------------------
st.divider()
st.markdown("### Read an agreement")
if kind == "Agreement":
    sla_choices = [key]
elif kind == "Company":
    sla_choices = next((c.get("sla_ids") or [] for c in companies if c["name"] == key), [])
else:
    sla_choices = list(agreement_label)
if not sla_choices:
    st.info(f"{key} has no agreements.")
else:
    sla = st.selectbox("Agreement to read", sla_choices, format_func=lambda k: agreement_label.get(k, k),
                       key=f"explore_read_{kind}")
    clauses = ctx.call(service.agreement_clauses, sla)
    if not clauses:
        st.info("This agreement has no clauses.")
    for c in clauses:
        conf = c.get("confidence")
        title = (f"{c.get('position')}. {c.get('clause_title') or c['clause_id']} — {c.get('clause_type')}"
                 + (f" ({conf:.2f}, {c.get('method')})" if isinstance(conf, (int, float)) else ""))
        with st.expander(title, expanded=bool(types) and c.get("clause_type") in types):
            st.caption(c["clause_id"])
            st.markdown(c.get("text") or "")
