"""Shared set-up for the dashboard pages: one call at the top of every page.

`page_setup("Ask")` sets the page config, enforces the optional login (and the admin-only
Data page), draws the sidebar status (database, LLM, user) and stops the page with a clear
message when Neo4j is down, so no page ever shows a traceback for a missing database.
Pages stay UI only: everything they need comes from `core.service` through the returned
`PageContext`, whose `call` turns a database outage mid-page into the same message.

Also here because several pages share them: cached look-ups, the pyvis graph renderer and
the safe unpacking of uploaded corpora. Nothing in this module builds Cypher.
"""
from __future__ import annotations

import html
import io
import json
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable

import streamlit as st

from core.service import auth

from core import service
from core.graph.db import DatabaseUnavailable

APP_NAME = "ClauseGraph"
SESSION_USER_KEY = "_clausegraph_user"
LIST_TTL_S = 120
STATUS_TTL_S = 10

# page file, title, icon, admin only (first one is the landing page)
PAGES = (
    ("pages/ask.py", "Ask", ":material/chat:", False),
    ("pages/explore.py", "Explore", ":material/hub:", False),
    ("pages/gaps.py", "Compliance gaps", ":material/rule:", False),
    ("pages/data.py", "Data", ":material/upload_file:", True),
    ("pages/quality.py", "Quality", ":material/monitoring:", False),
    ("pages/query_log.py", "Query log", ":material/history:", False),
)

LABEL_COLOURS = {
    "Company": "#1f6feb",
    "SLA": "#8250df",
    "Clause": "#2da44e",
    "ClauseType": "#d4a72c",
    "Address": "#6e7781",
}
EDGE_STYLES = {
    "NEXT": {"color": "#2da44e", "dashes": False, "width": 2},
    "MISSING": {"color": "#cf222e", "dashes": True, "width": 2},
    "OF_TYPE": {"color": "#b08800", "dashes": False, "width": 1},
}


# ---------------------------------------------------------------------------------------
# login
# ---------------------------------------------------------------------------------------

def auth_enabled() -> bool:
    return auth.auth_enabled()


def current_user() -> auth.User | None:
    """The logged-in user; None when logged out or when login is off."""
    data = st.session_state.get(SESSION_USER_KEY)
    if not data or not auth_enabled():
        return None
    try:
        user = auth.users().get(data.get("name"))
    except auth.AuthConfigError:
        return None
    # re-read the role from secrets each run, so a demotion takes effect immediately
    return user


def is_admin() -> bool:
    if not auth_enabled():
        return True
    user = current_user()
    return bool(user and user.is_admin)


def login_form() -> None:
    """The only thing a logged-out visitor sees."""
    st.title(f"{APP_NAME} · log in")
    try:
        auth.users()
    except auth.AuthConfigError as exc:
        st.error(f"Login is misconfigured in the secrets file: {exc}")
        return
    with st.form("login", clear_on_submit=False):
        name = st.text_input("User name", key="login_name")
        password = st.text_input("Password", type="password", key="login_password")
        submitted = st.form_submit_button("Log in", type="primary")
    if submitted:
        user = auth.authenticate(name, password)
        if user is None:
            st.error("Unknown user name or wrong password.")
        else:
            st.session_state[SESSION_USER_KEY] = {"name": user.name, "role": user.role}
            st.session_state.pop("login_password", None)
            st.rerun()


def logout() -> None:
    st.session_state.pop(SESSION_USER_KEY, None)


# ---------------------------------------------------------------------------------------
# navigation (app.py)
# ---------------------------------------------------------------------------------------

def navigation():
    """The st.navigation for this user: only a login page when logged out, no Data page
    for non-admins (so it is neither listed nor reachable by URL)."""
    if auth_enabled() and current_user() is None:
        st.set_page_config(page_title=f"Log in · {APP_NAME}", page_icon=":material/lock:", layout="centered")
        return st.navigation([st.Page(login_form, title="Log in", icon=":material/lock:", url_path="login")],
                             position="hidden")
    admin = is_admin()
    pages = [st.Page(path, title=title, icon=icon, default=(i == 0))
             for i, (path, title, icon, admin_only) in enumerate(PAGES) if admin or not admin_only]
    return st.navigation(pages)


# ---------------------------------------------------------------------------------------
# page set-up
# ---------------------------------------------------------------------------------------

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
        with st.spinner("Loading the embedding model (first use only)…"):
            _warm_embedder()
    return PageContext(title=title, user=user, database=db_status, llm=llm)


def _leave_pages_folder_mode() -> None:
    """Route through app.py even when a fresh server's first request named a page.

    Streamlit treats a `pages/` folder next to the entry script as an old-style multipage
    app until some run calls `st.navigation`; a first visit to e.g. /data would then run the
    page file directly, with every file listed in the sidebar (Data included) and app.py
    never consulted. Switching the mode off and rerunning sends the visitor through app.py
    (login page, role-filtered navigation) to the same URL.
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
class _StatusDown(Exception):
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
def _warm_embedder():
    from core.embeddings import get_embedder

    emb = get_embedder()
    emb.encode_one("warm-up")
    return emb


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


# ---------------------------------------------------------------------------------------
# display helpers
# ---------------------------------------------------------------------------------------

def short_params(params: dict | None, max_list: int = 12) -> dict:
    """Parameters for display: vectors become '<vector of N floats>', long lists are cut."""
    out: dict[str, Any] = {}
    for k, v in (params or {}).items():
        if hasattr(v, "tolist"):
            v = v.tolist()
        if isinstance(v, (list, tuple)) and len(v) > 16 and all(isinstance(x, (int, float)) for x in v[:8]):
            out[k] = f"<vector of {len(v)} floats: {', '.join(f'{x:.3f}' for x in v[:3])}, …>"
        elif isinstance(v, (list, tuple)) and len(v) > max_list:
            out[k] = list(v[:max_list]) + [f"… {len(v) - max_list} more"]
        elif isinstance(v, dict):
            out[k] = short_params(v, max_list)
        else:
            out[k] = v
    return out


def params_json(params: dict | None) -> str:
    return json.dumps(short_params(params), indent=2, ensure_ascii=False, default=str)


def _hover(props: dict) -> str:
    lines = []
    for k, v in props.items():
        if k in {"embedding", "id"} and isinstance(v, list):
            continue
        text = str(v)
        if len(text) > 160:
            text = text[:157] + "…"
        lines.append(f"{k}: {text}")
    return "\n".join(lines)


_CDN_TAGS = re.compile(r"<link[^>]+cdn\.jsdelivr\.net[^>]*/>|<script\s+src=\"https://cdn\.jsdelivr\.net[^>]*>\s*</script>",
                       re.S)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>", re.S)


def graph_html(subgraph: dict, height: int = 460) -> str:
    """Self-contained pyvis HTML (vis-network inlined: works offline) for a {nodes, edges} graph.

    Nodes are coloured by label; the hover title lists the node's properties; edges carry
    their relationship type, with NEXT (green) and MISSING (red, dashed) stood out.
    """
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line",
                  bgcolor="#ffffff", font_color="#1f2328")
    nodes = subgraph.get("nodes") or []
    known = set()
    for n in nodes:
        nid = str(n.get("id"))
        if nid in known:
            continue
        known.add(nid)
        label = n.get("label") or "Node"
        props = dict(n.get("props") or {k: v for k, v in n.items() if k not in {"id", "label", "name"}})
        props = {"label": label, "name": n.get("name"), **props}
        name = str(n.get("name") or nid)
        shown = name if len(name) <= 28 else name[:26] + "…"
        net.add_node(nid, label=shown, title=_hover(props), color=LABEL_COLOURS.get(label, "#57606a"),
                     shape="dot", size=18 if label in {"Company", "SLA"} else 12)
    for e in subgraph.get("edges") or []:
        a, b = str(e.get("source")), str(e.get("target"))
        if a not in known or b not in known:
            continue
        typ = str(e.get("type") or "")
        style = EDGE_STYLES.get(typ, {"color": "#8c959f", "dashes": False, "width": 1})
        net.add_edge(a, b, label=typ, title=typ, arrows="to", font={"size": 9, "align": "middle"}, **style)
    net.set_options(json.dumps({
        "physics": {"solver": "forceAtlas2Based", "stabilization": {"iterations": 150},
                    "forceAtlas2Based": {"springLength": 90, "gravitationalConstant": -60}},
        "interaction": {"hover": True, "tooltipDelay": 120, "navigationButtons": False},
        "edges": {"smooth": {"type": "dynamic"}},
    }))
    out = net.generate_html(notebook=False)
    out = _CDN_TAGS.sub("", out)
    out = _EMPTY_HEADING.sub("", out)
    out = out.replace("border: 1px solid lightgray;", "border: 1px solid #d0d7de; border-radius: 6px;")
    return out


def render_graph(subgraph: dict, height: int = 460) -> None:
    """Draw a subgraph in the page, with a legend; says so plainly when there is none."""
    if not (subgraph or {}).get("nodes"):
        st.info("No graph for this result.", icon=":material/hub:")
        return
    # st.iframe replaces the deprecated components.v1.html; the HTML is ours (pyvis template,
    # node data JSON-escaped by Jinja's tojson, tooltips rendered as text by vis-network)
    st.iframe(graph_html(subgraph, height), height=height + 14,
              alt=f"Graph of {len(subgraph['nodes'])} nodes and {len(subgraph.get('edges') or [])} edges")
    legend = " ".join(
        f"<span style='color:{c}'>●</span>&nbsp;{html.escape(lbl)}" for lbl, c in LABEL_COLOURS.items())
    st.caption(legend + " &nbsp; <span style='color:#2da44e'>→</span> NEXT &nbsp; "
               "<span style='color:#cf222e'>⇢</span> MISSING", unsafe_allow_html=True)


# ---------------------------------------------------------------------------------------
# uploaded corpora
# ---------------------------------------------------------------------------------------

MAX_UPLOAD_BYTES = 200 * 1024 * 1024
MAX_ZIP_MEMBERS = 20_000
CORPUS_TABLES = ("companies.csv", "addresses.csv", "spend.csv", "agreements.csv")
CONTRACT_SUFFIXES = (".md", ".markdown", ".txt")


class UnsafeArchive(ValueError):
    """The zip would write outside its folder, holds links, or is too large."""


def safe_extract_zip(data: bytes, dest: Path, max_bytes: int = MAX_UPLOAD_BYTES,
                     max_members: int = MAX_ZIP_MEMBERS) -> list[Path]:
    """Unpack an uploaded zip into `dest`, refusing absolute paths, `..`, links, devices and
    archives whose declared or actual size exceeds `max_bytes` (zip bombs)."""
    dest = Path(dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UnsafeArchive(f"not a zip archive ({exc})") from exc
    with zf:
        infos = zf.infolist()
        if len(infos) > max_members:
            raise UnsafeArchive(f"the archive has {len(infos)} entries; at most {max_members} are accepted")
        declared = sum(i.file_size for i in infos)
        if declared > max_bytes:
            raise UnsafeArchive(f"the archive unpacks to {declared:,} bytes; the limit is {max_bytes:,}")
        plan: list[tuple[zipfile.ZipInfo, Path]] = []
        for info in infos:
            name = info.filename.replace("\\", "/")
            pure = PurePosixPath(name)
            if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or pure.is_absolute():
                raise UnsafeArchive(f"{info.filename}: absolute paths are not allowed")
            if any(part == ".." for part in pure.parts):
                raise UnsafeArchive(f"{info.filename}: '..' in a path is not allowed")
            ftype = stat.S_IFMT((info.external_attr >> 16) & 0xFFFF)  # 0: no Unix type recorded
            if ftype not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise UnsafeArchive(f"{info.filename}: links and special files are not allowed")
            if name.startswith("__MACOSX/") or pure.name in {".DS_Store"}:
                continue
            target = (dest / Path(*pure.parts)).resolve() if pure.parts else dest
            if target != dest and dest not in target.parents:
                raise UnsafeArchive(f"{info.filename}: would be written outside the upload folder")
            plan.append((info, target))
        written = 0
        out: list[Path] = []
        for info, target in plan:
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("wb") as dst:
                while chunk := src.read(1 << 20):
                    written += len(chunk)
                    if written > max_bytes:  # the declared sizes lied
                        raise UnsafeArchive(f"the archive unpacks to more than {max_bytes:,} bytes")
                    dst.write(chunk)
            out.append(target)
    return out


def find_corpus_root(folder: Path) -> Path:
    """The folder holding the corpus tables: the upload itself or its single top folder."""
    folder = Path(folder)
    if any((folder / t).is_file() for t in CORPUS_TABLES):
        return folder
    candidates = sorted({p.parent for t in CORPUS_TABLES for p in folder.rglob(t)}, key=lambda p: len(p.parts))
    return candidates[0] if candidates else folder


def save_uploaded_files(files: list[tuple[str, bytes]], dest: Path, max_bytes: int = MAX_UPLOAD_BYTES) -> list[str]:
    """Lay individually uploaded files out as a corpus: tables at the top, contracts in contracts/.
    Returns the notes worth showing (ignored files)."""
    dest = Path(dest)
    (dest / "contracts").mkdir(parents=True, exist_ok=True)
    total = 0
    notes = []
    for name, data in files:
        base = PurePosixPath(name.replace("\\", "/")).name
        if not base or base in {".", ".."}:
            notes.append(f"{name}: ignored (no file name)")
            continue
        total += len(data)
        if total > max_bytes:
            raise UnsafeArchive(f"the uploaded files exceed {max_bytes:,} bytes")
        if base.lower() in CORPUS_TABLES:
            (dest / base.lower()).write_bytes(data)
        elif base.lower().endswith(CONTRACT_SUFFIXES):
            (dest / "contracts" / base).write_bytes(data)
        else:
            notes.append(f"{base}: ignored (expected {', '.join(CORPUS_TABLES)} or .md/.txt contracts)")
    return notes
