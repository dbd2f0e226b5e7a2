"""Compliance gaps: which suppliers lack a required clause type (companies x types), and where their
agreements' terms deviate from the playbook's positions."""
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core import service

from core.ui import support as ui_support

ctx = ui_support.page_setup("Compliance gaps")
st.title("Compliance gaps")

type_names = ctx.type_names()
companies = ctx.companies()
years = ctx.spend_years()
facets = service.company_facets(companies)
countries, industries = facets.countries, facets.industries
clause_tab, playbook_tab = st.tabs(["Clause types", "Playbook deviations"])

# ---- playbook deviations (drawn first: the clause-type tab may stop the script) -----------
STATUS = {service.MEETS: "✓ meets", service.DEVIATES: "✗ deviates", service.UNCERTAIN: "? uncertain: needs review",
          service.NOT_STATED: "– not stated"}
with playbook_tab:
    st.caption("Each agreement's terms (read from the contract text, with evidence) against the playbook's "
               "positions. A value read with low confidence is *uncertain*: it needs review and counts as "
               "neither a pass nor a deviation.")
    d1, d2 = st.columns(2)
    dev_countries = d1.multiselect("Country", countries, key="dev_countries")
    dev_industries = d2.multiselect("Industry", industries, key="dev_industries")
    try:
        deviations = ctx.call(service.playbook_deviations, countries=dev_countries, industries=dev_industries)
    except ValueError as exc:   # a playbook file that does not validate
        st.error(str(exc))
        deviations = None
    if deviations is not None and not deviations.agreements:
        st.info("No agreement matches these filters." if dev_countries or dev_industries
                else "No agreements in the graph yet.", icon=":material/info:")
    elif deviations is not None:
        dev_currency = ctx.call(service.spend_currency)
        suppliers = deviations.suppliers()
        n_dev = sum(1 for x in suppliers if x["deviations"])
        n_uncertain = sum(x["uncertain"] for x in suppliers)
        k1, k2, k3, k4 = st.columns([1, 1, 1, 2])
        k1.metric("Suppliers deviating", f"{n_dev:,} of {len(suppliers):,}")
        k2.metric("Deviations", f"{sum(x['deviations'] for x in suppliers):,}")
        k3.metric("Values to review", f"{n_uncertain:,}")
        k4.metric(f"Spend at risk from deviations{f' ({dev_currency})' if dev_currency else ''}",
                  f"{deviations.spend_at_risk():,.0f}{f' {dev_currency}' if dev_currency else ''}",
                  help="The latest year's spend of the suppliers with at least one deviation, added up.")
        if n_uncertain:
            st.warning(f"{n_uncertain} value(s) were read with low confidence and need review before they count "
                       "either way: confirm or correct them under Contract terms on the Data page.",
                       icon=":material/rule:")

        st.markdown("#### Positions")
        counts = {p.id: dict.fromkeys(STATUS, 0) for p in deviations.playbook.positions}
        for a in deviations.agreements:
            for c in a.checks:
                counts[c.position_id][c.status] += 1
        st.dataframe(pd.DataFrame([{"position": p.title, "severity": p.severity,
                                    **{STATUS[k]: v for k, v in counts[p.id].items()}}
                                   for p in deviations.playbook.positions]), hide_index=True, key="dev_positions")

        st.markdown("#### Suppliers")
        st.dataframe(pd.DataFrame([{"supplier": x["company"], "country": x["country"], "agreements": x["agreements"],
                                    "deviations": x["deviations"], "to review": x["uncertain"],
                                    "positions not met": "; ".join(x["positions"]), "spend at risk": x["spend_at_risk"]}
                                   for x in suppliers]), hide_index=True, key="dev_suppliers",
                     column_config={"spend at risk": st.column_config.NumberColumn(
                         f"spend at risk ({dev_currency})" if dev_currency else "spend at risk", format="localized"),
                         "positions not met": st.column_config.TextColumn(width="large")})

        st.markdown("#### One agreement")
        ranked = sorted(deviations.agreements, key=lambda a: (-len(a.deviations), -len(a.uncertain), a.sla_id))
        by_sla = {a.sla_id: a for a in ranked}
        pick = st.selectbox("Agreement", list(by_sla), key="dev_agreement",
                            format_func=lambda i: f"{i} · {by_sla[i].company} — {len(by_sla[i].deviations)} "
                                                  f"deviation(s), {len(by_sla[i].uncertain)} to review")
        agreement = by_sla[pick]
        st.dataframe(pd.DataFrame([{"position": c.title, "severity": c.severity, "status": STATUS[c.status],
                                    "value": c.value or "—", "why": "" if c.why == c.value else c.why,
                                    "evidence": c.quote or "", "clause": c.clause_id or ""}
                                   for c in agreement.checks]), hide_index=True, key="dev_checks",
                     column_config={"value": st.column_config.TextColumn(width="medium"),
                                    "evidence": st.column_config.TextColumn(width="large")})
        for c in agreement.checks:
            if c.status in (service.DEVIATES, service.UNCERTAIN) and c.quote:
                where = f" ({c.clause_id})" if c.clause_id else ""
                quote = " ".join(c.quote.split()).replace("$", "\\$")   # a $ would start LaTeX
                st.markdown(f"**{c.title}**: {STATUS[c.status]}, {c.why}{where}\n\n> {quote}")

        with st.container(horizontal=True, key="dev_downloads"):
            st.download_button("Download CSV", deviations.to_csv, file_name="playbook-deviations.csv",
                               mime="text/csv", icon=":material/download:", key="dev_csv", width="content",
                               help="Every agreement in scope against every position, with value and evidence.")

with clause_tab:
    st.caption("Companies × required clause types: how many clauses of each type their agreements contain. "
               "A missing type is a gap.")
    with st.container(border=True):
        required = st.multiselect("Required clause types", type_names,
                                  default=[t for t in service.DEFAULT_REQUIRED if t in type_names], key="gaps_required")
        f1, f2, f3, f4 = st.columns(4)
        sel_countries = f1.multiselect("Country", countries, key="gaps_countries")
        sel_industries = f2.multiselect("Industry", industries, key="gaps_industries")
        min_spend = f3.number_input("Minimum spend", min_value=0.0, value=0.0, step=50_000.0, format="%.0f",
                                    key="gaps_min_spend", help="0: no minimum")
        year_options = [None] + list(reversed(years))
        year = f4.selectbox("Spend year", year_options, key="gaps_year",
                            format_func=lambda y: "latest on file" if y is None else str(y))
        only_gaps = st.toggle("Only companies with gaps", value=False, key="gaps_only")

    if not required:
        st.warning("Choose at least one required clause type.")
        st.stop()

    PAGE = 50   # suppliers drawn; the downloads hold every one
    try:
        summary = ctx.call(service.gap_summary, required, countries=sel_countries, industries=sel_industries,
                           min_spend=min_spend or None, year=year, page_size=PAGE)
    except ValueError as exc:
        st.error(str(exc))
        st.stop()
    report = summary.report
    scope = dict(countries=sel_countries, industries=sel_industries, min_spend=min_spend or None, year=year)

    m1, m2, m3 = st.columns([1, 1, 2])   # the spend figure and its label need room at 1280 px
    m1.metric("Companies with agreements", f"{summary.companies:,}")
    m2.metric("Companies with gaps", f"{summary.companies_with_gaps:,}")
    currency = f" {report.currency}" if report.currency else ""
    m3.metric(f"Spend at risk ({report.spend_label})", f"{summary.spend_at_risk:,.0f}{currency}",
              help="The yearly spend of the companies with gaps, added up in the base currency"
                   + (f" ({report.currency})" if report.currency else "") + "; other currencies were converted "
                   "with rates.csv at ingest.")
    worst = max(summary.missing_by_type.items(), key=lambda kv: kv[1], default=(None, 0))
    if worst[1]:
        st.markdown(f"Most often missing: **{worst[0]}** ({worst[1]:,} of {summary.companies:,} companies)")
    st.caption(report.definition())
    if report.no_agreement:
        names = ", ".join(r.company for r in report.no_agreement[:20])
        more = f" and {len(report.no_agreement) - 20:,} more" if len(report.no_agreement) > 20 else ""
        st.info(f"No agreement on file (not counted as gaps): {names}{more}.", icon=":material/folder_off:")

    for warning in report.segmentation_warnings:
        st.warning(warning, icon=":material/warning:")
    if report.review_cells:
        st.info("? needs review: a required type whose only evidence is low-confidence, which does not meet the "
                "requirement: " + "; ".join(f"{c['company']}, {c['type']}: {', '.join(c['clause_ids'])}"
                                            for c in report.review_cells[:12])
                + ". Confirm or correct them in the Data page's review queue.", icon=":material/rule:")

    rows = report.shown_rows(only_gaps)
    shown_of = summary.companies_with_gaps if only_gaps else summary.companies
    if len(rows) < shown_of:
        st.caption(f"Showing the first {len(rows)} of {shown_of:,} suppliers, ranked by spend at risk; "
                   "the downloads hold all of them.")
    if not rows:
        st.success("No company matches these filters." if not report.rows else "No gaps: every company has every required type.")
    else:
        # ---- heatmap -------------------------------------------------------------------
        heat = service.gap_heatmap(rows, required)
        fig = go.Figure(go.Heatmap(
            z=heat.counts, x=heat.types, y=heat.companies, text=heat.labels, texttemplate="%{text}",
            colorscale=heat.colorscale, zmin=0, zmax=heat.zmax,
            xgap=2, ygap=2, colorbar={"title": "clauses", "tick0": 0, "dtick": max(1, heat.zmax // 5)},
            hovertemplate="%{y}<br>%{x}: %{z} clause(s)<extra></extra>"))
        fig.update_layout(height=max(260, 34 * len(rows) + 120), margin={"l": 10, "r": 10, "t": 30, "b": 10},
                          yaxis={"autorange": "reversed"}, xaxis={"side": "top"})
        st.plotly_chart(fig, key="gaps_heatmap", config={"displayModeBar": False})

        # ---- table -----------------------------------------------------------------------
        table = pd.DataFrame(service.gap_table(rows, required))
        st.dataframe(table, hide_index=True, key="gaps_table",
                     column_config={"spend": st.column_config.NumberColumn(
                         f"spend ({report.currency})" if report.currency else "spend", format="localized")})

    # side by side, each as wide as its label needs (fixed columns cut "Download Markdown" at 1280 px)
    with st.container(horizontal=True, key="gaps_downloads"):
        st.download_button("Download CSV",
                           lambda: "".join(service.export_gaps_csv(required, only_gaps=only_gaps, **scope)),
                           file_name="compliance-gaps.csv", mime="text/csv", icon=":material/download:", key="gaps_csv",
                           width="content",
                           help="Every supplier in scope (the filters above"
                                + (", only companies with gaps" if only_gaps else "")
                                + "); the scope and the gap definition are in its first lines.")
        st.download_button("Download Markdown",
                           lambda: service.gap_report(required, **scope).to_markdown(only_gaps=only_gaps),
                           file_name="compliance-gaps.md", mime="text/markdown", icon=":material/download:",
                           key="gaps_md", width="content")

    with st.expander("The Cypher behind this report"):
        st.code(report.cypher, language="cypher")
        st.code(ui_support.params_json(report.params), language="json")

    # ---- drill-down ----------------------------------------------------------------------
    st.divider()
    st.markdown("### Drill down")
    if report.rows:
        pick = st.selectbox("Company", [r.company for r in rows or report.rows], key="gaps_drill_company")
        row = report.row(pick)
        if row.missing:
            st.warning(f"{pick} lacks: {', '.join(row.missing)}", icon=":material/report:")
        else:
            st.success(f"{pick} has every required clause type.")
        if not row.sla_ids:
            st.info("No agreements.")
        for sla in row.sla_ids:
            clauses = ctx.call(service.agreement_clauses, sla)
            with st.expander(f"{sla} — {len(clauses)} clauses", expanded=len(row.sla_ids) == 1):
                if clauses:
                    df = pd.DataFrame([{"#": c.get("position"), "title": c.get("clause_title"), "type": c.get("clause_type"),
                                        "confidence": c.get("confidence"), "method": c.get("method"),
                                        "required": "✓" if c.get("clause_type") in required else ""} for c in clauses])
                    st.dataframe(df, hide_index=True)
                    for c in clauses:
                        if c.get("clause_type") in required:
                            st.markdown(f"**{c.get('clause_title')}** (`{c.get('clause_type')}`)")
                            st.markdown(c.get("text") or "")
