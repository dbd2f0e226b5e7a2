"""One call at the top of every page: `page_setup("Ask")`.

It sets the page config, enforces the optional login (and the admin-only Data page), draws
the sidebar status (database, LLM, user) and stops the page with a clear message when Neo4j
is down, so no page ever shows a traceback for a missing database. Everything a page needs
comes from `core.service` through the returned `PageContext`, whose `call` turns a database
outage mid-page into the same message; the lists pages share are cached here.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

import streamlit as st

from core import service
from core.errors import ClauseGraphError
from core.graph.db import DatabaseUnavailable
from core.service import auth
from core.ui.navigation import APP_NAME, auth_enabled, current_user, is_admin, login_form, logout

LIST_TTL_S = 120
STATUS_TTL_S = 10


class PageStopped(Exception):
    """Raised only for code paths that must not continue after st.stop()."""


@dataclass
class PageContext:
    title: str
    user: auth.User | None
    database: service.Status
    llm: service.Status
    extra: dict = field(default_factory=dict)

    def call(self, fn: Callable, *args, **kwargs):
        """Run a service call; a database outage stops the page with an actionable message."""
        try:
            return fn(*args, **kwargs)
        except DatabaseUnavailable as exc:
            _invalidate_status()
            show_database_error(str(exc))
            st.stop()
        except Exception as exc:  # noqa: BLE001 - a driver error is shown, not a traceback
            if type(exc).__module__.split(".")[0] == "neo4j":
                _invalidate_status()
                show_database_error(f"Neo4j error: {exc.__class__.__name__}: {str(exc)[:300]}")
                st.stop()
            raise

    # cached lists (cleared after ingest or a correction)
    def companies(self) -> list[dict]:
        return self.call(_companies)

    def agreements(self) -> list[dict]:
        return self.call(_agreements)

    def clause_types(self) -> list[dict]:
        return self.call(_clause_types)

    def type_names(self) -> list[str]:
        return self.call(_type_names)

    def spend_years(self) -> list[int]:
        return self.call(_spend_years)


def page_setup(title: str, admin_only: bool = False, warm_embedder: bool = False,
               layout: str = "wide", needs_database: bool = True) -> PageContext:
    """Call first on every page. Stops the script (login form / error) when it must not go on."""
    _leave_pages_folder_mode()
    st.set_page_config(page_title=f"{title} · {APP_NAME}", page_icon=":material/account_tree:", layout=layout)
    if auth_enabled() and current_user() is None:
        login_form()
        st.stop()
    user = current_user()
    db_status = database_status()
    llm = service.llm_status()
    _sidebar(db_status, llm, user)
    if admin_only and not is_admin():
        st.error("This page is for administrators only. Ask an admin to load or review data.")
        st.stop()
    if not db_status.ok:
        show_database_error(db_status.message)
        if needs_database:
            st.stop()
    if warm_embedder and db_status.ok:
        warm_start()  # started with the server; a page never waits for it
    return PageContext(title=title, user=user, database=db_status, llm=llm)


def _leave_pages_folder_mode() -> None:
    """Route through app.py even when a fresh server's first request named a page.

    Still needed with `st.navigation` in the pinned Streamlit (1.67.0), because the product
    keeps its pages in `pages/` next to app.py: `PagesManager.__init__` sets the process-wide
    class flag `uses_pages_directory` to "a pages/ folder exists" the first time it is None,
    and while the flag is true `ScriptRunner` runs `_mpa_v1` (every file in pages/ listed,
    app.py included, the requested file run directly) instead of app.py. Only a call to
    `st.navigation` clears it, and that call is in app.py, which never runs if the first
    request was for e.g. /data: that visitor would see the Data page and every file in the
    sidebar, past the login and the admin-only filter. Clearing the flag and rerunning sends
    the visitor through app.py (login page, role-filtered navigation) to the same URL.
    tests/test_browser.py::test_first_visit_to_a_page_url_is_routed_by_app checks this.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without the legacy mode
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        # once per session: the flag is process-wide, so on a real server this is only ever
        # the first request; AppTest resets it every run and would otherwise lose clicks
        if not st.session_state.get("_clausegraph_routed"):
            st.session_state["_clausegraph_routed"] = True
            st.rerun()


def show_database_error(message: str) -> None:
    st.error(f"**The graph database is not available.** {message}\n\n"
             "What to do: start it with `python -m core neo4j start` (or `make run`), or check "
             "`NEO4J_URI` / `NEO4J_PASSWORD` in `.streamlit/secrets.toml`; then reload this page. "
             "Nothing needs restarting here: the dashboard reconnects by itself.",
             icon=":material/database_off:")


def _sidebar(db_status: service.Status, llm: service.Status, user: auth.User | None) -> None:
    with st.sidebar:
        st.markdown(f"### {APP_NAME}")
        if db_status.ok:
            counts = db_status.detail or {}
            st.success(f"Database: {db_status.message}", icon=":material/database:")
            if counts:
                st.caption(" · ".join(f"{counts.get(k, 0):,} {k}" for k in ("companies", "agreements", "clauses")
                                      if k in counts))
        else:
            st.error("Database: not reachable", icon=":material/database_off:")
        if llm.ok:
            st.info(llm.message, icon=":material/smart_toy:")
        else:
            st.info("LLM: none — offline planner", icon=":material/rule_settings:")
        if user is not None:
            st.caption(f"Signed in as **{user.name}** ({user.role})")
            if st.button("Log out", key="_logout", icon=":material/logout:"):
                logout()
                st.rerun()


# status: a success is cached briefly, a failure never (so the page recovers at once)
class _StatusDown(ClauseGraphError):
    pass


@st.cache_data(ttl=STATUS_TTL_S, show_spinner=False)
def _database_status_ok() -> service.Status:
    s = service.database_status()
    if not s.ok:
        raise _StatusDown(s.message)
    return s


def database_status() -> service.Status:
    try:
        return _database_status_ok()
    except _StatusDown as exc:
        return service.Status(False, str(exc))


def _invalidate_status() -> None:
    _database_status_ok.clear()


@st.cache_resource(show_spinner=False)
def warm_start() -> threading.Thread:
    """Load the embedding model, the planner's prototypes and the graph vocabulary once per
    server, in the background from the first page view on (app.py calls this), so neither the
    first page nor the first question waits the ~15 s they take; a question asked before it is
    done waits only for the rest (the service loads each part once, under a lock)."""
    def run() -> None:
        try:
            service.warm_start()
        except Exception:  # noqa: BLE001 - e.g. the database is down: the first question loads instead
            pass

    thread = threading.Thread(target=run, name="clausegraph-warm-start", daemon=True)
    thread.start()
    return thread


@st.cache_data(ttl=LIST_TTL_S, show_spinner=False)
def _companies() -> list[dict]:
    return service.list_companies()


@st.cache_data(ttl=LIST_TTL_S, show_spinner=False)
def _agreements() -> list[dict]:
    return service.list_agreements()


@st.cache_data(ttl=LIST_TTL_S, show_spinner=False)
def _clause_types() -> list[dict]:
    return service.list_clause_types()


@st.cache_data(ttl=LIST_TTL_S, show_spinner=False)
def _type_names() -> list[str]:
    return service.clause_type_names()


@st.cache_data(ttl=LIST_TTL_S, show_spinner=False)
def _spend_years() -> list[int]:
    return service.spend_years()


def clear_caches() -> None:
    """After an ingest or a reviewer's correction the lists and status are stale."""
    for fn in (_companies, _agreements, _clause_types, _type_names, _spend_years, _database_status_ok):
        fn.clear()
