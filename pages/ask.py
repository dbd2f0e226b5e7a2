"""Ask: chat with the contract graph; answer, Cypher, subgraph and evidence side by side."""
import uuid

import pandas as pd
import streamlit as st

from core import service

from core.ui import support as ui_support

ctx = ui_support.page_setup("Ask", warm_embedder=True)

EXAMPLES = (
    "Which high-spend suppliers lack a termination clause?",
    "Compare the termination clauses of all suppliers.",
    "Data protection clauses of German healthcare companies.",
    "What does Medivance's agreement say about support?",
    "Clauses of technology suppliers about restoring data after an outage.",
    "And their liability clause?",
)
MODE_HELP = {
    "auto": "auto (route the question)",
    "document": "document — start from a company or agreement",
    "clause_type": "clause_type — pivot on a clause type",
    "attribute": "attribute — filter companies, incl. gaps",
    "relay": "relay — vector search, then walk back",
    "hybrid": "hybrid — vector + full-text, then the graph",
    "text2cypher": "text2cypher — LLM writes Cypher (needs an LLM)",
}
MAX_CARDS = 25

ss = st.session_state
ss.setdefault("ask_history", [])
ss.setdefault("ask_session_id", "ui-" + uuid.uuid4().hex[:16])


def new_conversation() -> None:
    try:
        service.sessions().reset(ss["ask_session_id"])
    except (OSError, ValueError):
        pass
    ss["ask_history"] = []
    ss["ask_session_id"] = "ui-" + uuid.uuid4().hex[:16]


def queue_example(q: str) -> None:
    ss["ask_pending"] = q


# ---- header and controls ------------------------------------------------------------
head, mode_col, reset_col = st.columns([3, 2, 1.5], vertical_alignment="bottom")
with head:
    st.title("Ask the contract graph")
with mode_col:
    mode = st.selectbox("Retrieval mode", [m.value for m in service.ALL_MODES], key="ask_mode",
                        format_func=lambda m: MODE_HELP.get(m, m),
                        help="auto lets the planner choose; pick a mode to force it.")
with reset_col:
    st.button("New conversation", on_click=new_conversation, icon=":material/restart_alt:",
              width="stretch")

st.caption("Try one:")
# the buttons flow onto as many rows as the screen needs: every example readable in full
with st.container(horizontal=True, key="ask_examples"):
    for i, q in enumerate(EXAMPLES):
        st.button(q, key=f"example_{i}", on_click=queue_example, args=(q,), width="content")

question = st.chat_input("Ask about suppliers, agreements and clauses (English or 中文)…", key="ask_input")
question = question or ss.pop("ask_pending", None)
QUESTION_SHOWN = 400   # a pasted text longer than this is shown folded, its question by the plan


# ---- rendering ----------------------------------------------------------------------
SHOWN_APART = {"question_used", "inherited", "from_session", "new_topic"}


def render_plan(result) -> None:
    plan = result.plan_dict
    if plan:
        st.markdown(f"**Plan** · intent `{plan.get('intent', '-')}` · mode `{result.mode}`"
                    + (f" · language `{plan.get('language')}`" if plan.get("language") else ""))
        if plan.get("why"):
            st.caption(plan["why"])
    else:
        st.markdown(f"**Plan** · mode `{result.mode}`")
    linked = plan.get("linked") or {}
    used = linked.get("question_used")
    if used:
        st.info(f"**Question used** ({used.get('reason')}, from a {used.get('input_chars', 0):,}-character text): "
                f"{used.get('text')}", icon=":material/format_quote:")
    if linked.get("inherited"):
        st.caption("Inherited from the conversation: " + "; ".join(
            f"{k} = {v}" for k, v in linked["inherited"].items()))
    elif linked.get("new_topic"):
        st.caption("New topic: " + str(linked["new_topic"]))
    rest = {k: v for k, v in linked.items() if k not in SHOWN_APART}
    if rest:
        st.caption("Linked: " + "; ".join(f"{k} → {_linked_value(v)}" for k, v in rest.items()))


def render_status(result) -> None:
    """How long this answer took, stage by stage (the stages add up to the total), by the answer."""
    total = result.timings_ms.get("total")
    if total is None:
        return
    stages = " · ".join(f"{name.replace('_', ' ')} {ms:,.0f}" for name, ms in service.stage_timings(result))
    st.caption(f":material/timer: Answered in {total:,.0f} ms ({result.mode} mode) — {stages} ms")


def _linked_value(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k} ({val})" for k, val in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


def _num(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3f}"


def render_cypher(result, idx: int, full: bool = True) -> None:
    st.markdown("#### Cypher that ran")
    if result.cypher:
        lines = result.cypher.count("\n") + 1
        # wrapped, never cut off at the right; scrolls when long; st.code has the copy button
        st.code(result.cypher, language="cypher", wrap_lines=True,
                height=min(240, 22 * lines + 40) if full else "content")
        st.caption(f"{len(result.rows)} row(s) returned · use the copy button at the top right of the block")
        with st.expander("Parameters", expanded=not full):
            st.code(ui_support.params_json(result.params), language="json")
    else:
        st.info("No Cypher ran for this question.")


def render_evidence(result, idx: int) -> None:
    st.markdown(f"#### Evidence ({len(result.evidence)})")
    if not result.evidence:
        st.info("No evidence: nothing in the graph matched.")
        return
    company_rows = {r.get("company"): r for r in result.rows if isinstance(r, dict) and r.get("company")}
    for ev in result.evidence[:MAX_CARDS]:
        with st.container(border=True):
            where = " · ".join(x for x in (ev.company, ev.sla_id) if x)
            st.markdown(f"**[{ev.ref}]** {where or '—'}")
            if ev.clause_id:
                bits = [f"*{ev.clause_title or ev.clause_id}*", f"`{ev.clause_type or 'untyped'}`"]
                if ev.confidence is not None:
                    bits.append(f"confidence {ev.confidence:.2f}")
                if ev.score is not None:
                    bits.append(f"score {_num(ev.score)}")
                st.markdown(" · ".join(bits))
                if ev.text:
                    parts = ev.highlighted
                    if parts:   # the sentence that carries the type, marked in the card
                        st.markdown(f"> {parts[1]}")
                    with st.expander(f"Full text of {ev.clause_id}"):
                        st.markdown(f"{parts[0]}**{parts[1]}**{parts[2]}" if parts else ev.text)
            else:  # a company-level answer (e.g. a gap): show what the row says about it
                row = company_rows.get(ev.company) or {}
                bits = [str(row[k]) for k in ("country", "industry") if row.get(k)]
                if isinstance(row.get("spend"), (int, float)):
                    bits.append(f"spend {row['spend']:,.0f}")
                elif ev.score is not None:
                    bits.append(f"score {_num(ev.score)}")
                if row.get("missing"):
                    bits.append("missing: " + ", ".join(map(str, row["missing"])))
                if bits:
                    st.caption(" · ".join(bits))
    if len(result.evidence) > MAX_CARDS:
        st.caption(f"… and {len(result.evidence) - MAX_CARDS} more evidence items.")


def render_details(result, idx: int) -> None:
    plan = result.plan_dict
    left, right = st.columns(2)
    with left:
        st.markdown("**Linked entities**")
        if plan.get("linked"):
            st.json(plan["linked"], expanded=False)
        else:
            st.caption("none")
        if plan.get("suggestions"):
            st.markdown("**Suggestions**")
            for s in plan["suggestions"]:
                st.markdown(f"- {s}")
        if plan.get("params"):
            st.markdown("**Plan parameters**")
            st.json(ui_support.short_params(plan["params"]), expanded=False)
    with right:
        st.markdown("**Timings per stage (ms)**")
        if result.timings_ms:
            df = pd.DataFrame({"stage": list(result.timings_ms), "ms": list(result.timings_ms.values())})
            st.dataframe(df, hide_index=True)
        if result.trace:
            st.markdown("**Trace**")
            st.json(result.trace, expanded=False)


def render_result(result, idx: int, latest: bool) -> None:
    for w in result.warnings:
        st.warning(w, icon=":material/warning:")
    render_plan(result)
    render_status(result)
    if not latest:
        st.markdown(result.answer)
        with st.expander("Cypher and evidence"):
            render_cypher(result, idx, full=False)
            render_evidence(result, idx)
        return
    # answer and evidence on the left, the Cypher and the subgraph on the right: all four
    # visible together, so every claim can be checked against what ran and what it touched
    left, right = st.columns([1, 1], gap="medium")
    with left:
        st.markdown("#### Answer")
        st.markdown(result.answer)
        # the evidence scrolls in its own box, so the Cypher and the graph stay beside the answer
        with st.container(height=520 if len(result.evidence) > 3 else "content", border=False):
            render_evidence(result, idx)
    with right:
        render_cypher(result, idx)
        st.markdown("#### Subgraph")
        ui_support.render_graph(result.subgraph, height=380)
    with st.expander("Plan details and timings"):
        render_details(result, idx)


history = ss["ask_history"]
if not history and not question:
    st.info("Ask a question below or click an example. Follow-ups such as “and their liability clause?” "
            "keep the companies and filters of the previous turn.", icon=":material/info:")


def render_question(q: str) -> None:
    if len(q) <= QUESTION_SHOWN:
        st.markdown(q)
        return
    st.markdown(" ".join(q[:QUESTION_SHOWN].split()) + " …")
    with st.expander(f"Full text ({len(q):,} characters)"):
        st.text(q)


for i, turn in enumerate(history):
    with st.chat_message("user"):
        render_question(turn["question"])
    with st.chat_message("assistant"):
        render_result(turn["result"], i, latest=(i == len(history) - 1 and not question))
# the new question is answered where it will stay: below the history, its status by its answer
if question:
    with st.chat_message("user"):
        render_question(question)
    with st.chat_message("assistant"):
        with st.spinner("Answering…"):
            result = ctx.call(service.ask, question, mode=mode, session=ss["ask_session_id"])
        history.append({"question": question, "mode": mode, "result": result})
        render_result(result, len(history) - 1, latest=True)
