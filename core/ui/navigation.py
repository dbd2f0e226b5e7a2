"""Who may see which page: the optional login and the app's `st.navigation`.

Logged-out visitors get nothing but a login page; the Data page is registered for admins
only, so it is neither listed nor reachable by URL for anyone else.
"""
from __future__ import annotations

import streamlit as st

from core.service import auth

APP_NAME = "ClauseGraph"
SESSION_USER_KEY = "_clausegraph_user"

# page file, title, icon, admin only (first one is the landing page)
PAGES = (
    ("pages/ask.py", "Ask", ":material/chat:", False),
    ("pages/explore.py", "Explore", ":material/hub:", False),
    ("pages/gaps.py", "Compliance gaps", ":material/rule:", False),
    ("pages/renewals.py", "Renewals", ":material/event:", False),
    ("pages/data.py", "Data", ":material/upload_file:", True),
    ("pages/quality.py", "Quality", ":material/monitoring:", False),
    ("pages/query_log.py", "Query log", ":material/history:", False),
)


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
