"""Renewals: what to act on and by when: the notice deadline of every agreement that renews by
itself, else its expiry, as a short list, a timeline, a table and calendar files."""
import textwrap
from datetime import date, timedelta

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core import service

from core.ui import support as ui_support

ctx = ui_support.page_setup("Renewals")
st.title("Renewals")
st.caption("When each agreement expires and, where it renews by itself, the last day to give notice to stop "
           "it. The action date is that notice deadline, else the expiry; every date comes from the contract "
           "text, with its evidence.")

if not ctx.agreements():
    st.info("No agreements in the graph yet. Load a corpus on the Data page or run `python -m core demo`.",
            icon=":material/info:")
    st.stop()

HORIZONS = {"90 days": 90, "1 year": 365, "All": None}
WITHIN = {"90 days": "in the next 90 days", "1 year": "in the next year", "All": "on file"}
TIMELINE_ROWS = 40       # agreements drawn; the table and the downloads hold every one
today = date.today()
currency = ctx.call(service.spend_currency)
spend_label = f"spend ({currency})" if currency else "spend"
spend_column = st.column_config.NumberColumn(spend_label, format="localized",
                                             help="The supplier's spend in the latest year on file")


def what_to_do(r: service.RenewalRow) -> str:
    if r.notice_deadline:
        return f"Give notice by {r.notice_deadline} to stop the renewal"
    if r.auto_renewal:
        return f"Renews by itself on {r.expiration_date}"
    return f"Expires on {r.expiration_date}"


def renews(r: service.RenewalRow) -> str:
    return {True: "yes", False: "no"}.get(r.auto_renewal, "not stated")


def days_text(days: int | None) -> str:
    if days is None:
        return ""
    return "today" if days == 0 else f"{-days} days ago" if days < 0 else f"in {days} days"


# ---- next 90 days ----------------------------------------------------------------------
st.subheader("Next 90 days")
soon = ctx.call(service.renewal_calendar, today=today, within_days=90)
if soon:
    notices = sum(1 for r in soon if r.notice_deadline)
    st.caption(f"{len(soon)} agreement(s) to act on by {(today + timedelta(days=90)).isoformat()}: "
               f"{notices} notice deadline(s), {len(soon) - notices} expir{'y' if len(soon) - notices == 1 else 'ies'}.")
    st.dataframe(pd.DataFrame([{"days left": r.days_left, "supplier": r.company, "agreement": r.sla_id,
                                "what to do": what_to_do(r), "spend": r.spend} for r in soon]),
                 hide_index=True, key="renewals_soon",
                 column_config={"spend": spend_column})
else:
    later = [r for r in ctx.call(service.renewal_calendar, today=today) if r.days_left is not None and r.days_left > 90]
    st.success("Nothing to act on in the next 90 days."
               + (f" The next action date is {later[0].action_date} ({later[0].company}, {later[0].sla_id})."
                  if later else ""), icon=":material/event_available:")

# ---- filters ----------------------------------------------------------------------------
st.subheader("Calendar")
facets = service.company_facets(ctx.companies())
with st.container(border=True):
    f1, f2, f3 = st.columns(3)   # the horizon buttons need a third of the width at 1280 px
    sel_countries = f1.multiselect("Country", facets.countries, key="renewals_countries")
    sel_industries = f2.multiselect("Industry", facets.industries, key="renewals_industries")
    horizon = f3.segmented_control("Horizon", list(HORIZONS), default="All", key="renewals_horizon",
                                   help="Action dates from today up to this far ahead; All: past ones too.") or "All"

scope = dict(today=today, countries=sel_countries, industries=sel_industries)
every = ctx.call(service.renewal_calendar, **scope)
undated = [r for r in every if not r.action_date]
rows = [r for r in every if r.action_date] if HORIZONS[horizon] is None else \
    ctx.call(service.renewal_calendar, within_days=HORIZONS[horizon], **scope)

if not rows:
    st.info(f"No agreement in scope has an expiry or a notice deadline {WITHIN[horizon]}." if every
            else "No agreement matches these filters.", icon=":material/event_busy:")
else:
    # ---- timeline: one row per agreement, the notice deadline and the expiry --------------
    drawn = rows[:TIMELINE_ROWS]
    if len(rows) > len(drawn):
        st.caption(f"The timeline shows the first {len(drawn)} of {len(rows):,} agreements by action date; "
                   "the table and the downloads hold all of them.")
    label = {r.sla_id: f"{r.company[:34]}{'…' if len(r.company) > 34 else ''} · {r.sla_id}" for r in drawn}

    def hover(r: service.RenewalRow, event: str, day: str) -> list:
        quote = (r.evidence or "no quote on file")
        quote = quote if len(quote) <= 180 else quote[:177] + "…"
        spend = f"{r.spend:,.0f}{' ' + currency if currency else ''}" if r.spend is not None else "not on file"
        return [f"{r.company} · {r.sla_id}", f"{event}: {day} ({days_text((date.fromisoformat(day) - today).days)})",
                f"renews automatically: {renews(r)}" + (f", notice {r.renewal_notice}" if r.renewal_notice else ""),
                spend, "<br>".join(textwrap.wrap(quote, 60))]

    fig = go.Figure()
    spans = [r for r in drawn if r.notice_deadline and r.expiration_date]
    if spans:   # the stretch in which the renewal can no longer be stopped
        fig.add_trace(go.Scatter(x=[d for r in spans for d in (r.notice_deadline, r.expiration_date, None)],
                                 y=[y for r in spans for y in (label[r.sla_id], label[r.sla_id], None)],
                                 mode="lines", line={"color": "#c9ced6", "width": 3}, hoverinfo="skip",
                                 showlegend=False))
    template = ("<b>%{customdata[0]}</b><br>%{customdata[1]}<br>%{customdata[2]}<br>spend: %{customdata[3]}"
                "<br><i>%{customdata[4]}</i><extra></extra>")
    notice = [r for r in drawn if r.notice_deadline]
    if notice:
        fig.add_trace(go.Scatter(x=[r.notice_deadline for r in notice], y=[label[r.sla_id] for r in notice],
                                 mode="markers", name="notice deadline",
                                 marker={"symbol": "diamond", "size": 13, "color": "#d1495b",
                                         "line": {"width": 1, "color": "white"}},
                                 customdata=[hover(r, "last day to give notice", r.notice_deadline) for r in notice],
                                 hovertemplate=template))
    for flag, name, colour in ((True, "expiry · renews automatically", "#edae49"),
                               (False, "expiry · does not renew", "#00798c"),
                               (None, "expiry · renewal not stated", "#8d99ae")):
        part = [r for r in drawn if r.expiration_date and r.auto_renewal is flag]
        if part:
            fig.add_trace(go.Scatter(x=[r.expiration_date for r in part], y=[label[r.sla_id] for r in part],
                                     mode="markers", name=name,
                                     marker={"symbol": "circle", "size": 12, "color": colour,
                                             "line": {"width": 1, "color": "white"}},
                                     customdata=[hover(r, "expires", r.expiration_date) for r in part],
                                     hovertemplate=template))
    fig.add_shape(type="line", x0=today.isoformat(), x1=today.isoformat(), xref="x", y0=0, y1=1, yref="paper",
                  line={"color": "#555", "width": 1, "dash": "dot"})
    fig.add_annotation(x=today.isoformat(), y=1, yref="paper", text="today", showarrow=False, yanchor="bottom",
                       font={"size": 11, "color": "#555"})
    fig.update_layout(height=max(240, 30 * len(drawn) + 150), margin={"l": 10, "r": 10, "t": 30, "b": 60},
                      xaxis={"type": "date", "title": None},
                      yaxis={"autorange": "reversed", "categoryorder": "array",
                             "categoryarray": [label[r.sla_id] for r in drawn], "title": None},
                      legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
                      hoverlabel={"align": "left"})
    st.plotly_chart(fig, key="renewals_timeline", config={"displayModeBar": False})

    # ---- the full table --------------------------------------------------------------------
    # what to act on first; the wording and the agreement's details follow, scrolled to
    st.dataframe(pd.DataFrame([{
        "action date": r.action_date, "days left": r.days_left, "supplier": r.company, "agreement": r.sla_id,
        "what to do": what_to_do(r), "spend": r.spend, "expires": r.expiration, "renews automatically": renews(r),
        "notice to stop renewal": r.renewal_notice or "", "renewal term": r.renewal_term or "",
        "country": r.country, "service": r.service_name, "evidence": r.evidence, "clause": r.clause_id or ""}
        for r in rows]),
        hide_index=True, key="renewals_table",
        column_config={"spend": spend_column, "days left": st.column_config.NumberColumn(
                           "days left", help="Negative: the action date has passed"),
                       "evidence": st.column_config.TextColumn("evidence", width="large")})

# ---- agreements without an expiry -------------------------------------------------------
if undated:
    st.markdown(f"**No expiry date: {len(undated)} agreement(s)** (perpetual, or the text states none; "
                "nothing to put on a calendar)")
    st.dataframe(pd.DataFrame([{"supplier": r.company, "agreement": r.sla_id, "expiry": r.expiration,
                                "renews automatically": renews(r), "spend": r.spend,
                                "notice to stop renewal": r.renewal_notice or "", "renewal term": r.renewal_term or "",
                                "service": r.service_name} for r in undated]),
                 hide_index=True, key="renewals_undated", height=min(400, 35 * len(undated) + 38),
                 column_config={"spend": spend_column})

# ---- downloads: what the page shows -------------------------------------------------------
with st.container(horizontal=True, key="renewals_downloads"):
    st.download_button("Download CSV", lambda: service.renewals_csv(rows + undated), file_name="renewals.csv",
                       mime="text/csv", icon=":material/download:", key="renewals_csv", width="content",
                       help="Every agreement in scope (the filters above), those without an expiry included.")
    st.download_button("Download calendar (.ics)", lambda: service.renewals_ics(rows), file_name="renewals.ics",
                       mime="text/calendar", icon=":material/event:", key="renewals_ics", width="content",
                       help="One all-day event per notice deadline and per expiry, for Outlook, Google or Apple "
                            "calendars.")
