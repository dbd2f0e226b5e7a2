"""Optional login: the gate in front of every page, on the real graph.

Hashing, users from secrets and the CLI helper need no database: tests/unit/test_auth_hashing.py.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from support import secrets_with_users  # noqa: F401 - fixture shared with tests/unit

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
PAGES = ["pages/ask.py", "pages/explore.py", "pages/gaps.py", "pages/data.py", "pages/quality.py",
         "pages/query_log.py"]
TIMEOUT = 180


@pytest.fixture(scope="module")
def demo(db):
    import streamlit as st

    from conftest import load_corpus

    assert load_corpus(db, ROOT / "data" / "demo").ok
    st.cache_data.clear()


def login(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="login_name").set_value(name)
    at.text_input(key="login_password").set_value(password)
    return at.button[0].click().run()


def only_login_form(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["ClauseGraph · log in"]
    assert [w.label for w in at.text_input] == ["User name", "Password"]
    # nothing else: no page content, no sidebar status, no navigation, no charts or code
    assert not at.sidebar.children or not any(True for _ in at.sidebar.success)
    for kind in ("code", "dataframe", "metric", "chat_input", "selectbox", "multiselect", "expander", "markdown",
                 "success", "info"):
        assert len(getattr(at, kind)) == 0, kind


# ---- the gate ------------------------------------------------------------------------

def test_logged_out_sees_only_login_form_everywhere(demo, secrets_with_users):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    only_login_form(at)
    for page in PAGES:  # pages are not even registered while logged out …
        with pytest.raises(ValueError):
            at.switch_page(page)
    for page in PAGES:  # … and each page file on its own also shows nothing but the form
        only_login_form(AppTest.from_file(str(ROOT / page), default_timeout=TIMEOUT).run())


def test_wrong_password_is_refused(demo, secrets_with_users):
    at = login(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run(), "alice", "wrong")
    assert any("wrong password" in e.value for e in at.error)
    assert at.text_input(key="login_name")  # still the form
    assert not at.chat_input


def test_analyst_cannot_reach_data(demo, secrets_with_users):
    at = login(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run(), "bob", "bob-pw")
    assert not at.exception
    assert at.title[0].value == "Ask the contract graph" and at.chat_input
    assert any("bob" in c.value and "analyst" in c.value for c in at.sidebar.caption)
    # st.navigation registered every page but Data (no menu entry, no URL)
    registered = {Path(str(i.get("script_path"))).name for i in at._registered_pages.values() if i.get("script_path")}
    assert registered == {"ask.py", "explore.py", "gaps.py", "renewals.py", "quality.py", "query_log.py"}
    with pytest.raises(ValueError):
        at.switch_page("pages/data.py")
    for page in ("pages/explore.py", "pages/gaps.py", "pages/renewals.py", "pages/quality.py", "pages/query_log.py"):
        at.switch_page(page).run()
        assert not at.exception and at.title
    # even when forced to the file (AppTest then resolves it from the pages/ folder), nothing shows
    try:
        at.switch_page("pages/data.py").run()
    except ValueError:
        pass
    else:
        assert not at.exception and not at.get("file_uploader") and not at.metric
        assert any("administrators only" in e.value for e in at.error) or at.title[0].value != "Data"
    # opened directly (as its own file) it is blocked too
    direct = AppTest.from_file(str(ROOT / "pages/data.py"), default_timeout=TIMEOUT)
    direct.session_state[_user_key()] = {"name": "bob", "role": "analyst"}
    direct.run()
    assert not direct.exception
    assert any("administrators only" in e.value for e in direct.error)
    assert not direct.get("file_uploader") and not direct.metric


def test_forged_role_in_session_does_not_grant_admin(demo, secrets_with_users):
    """The role comes from the secrets file on every run, not from the browser session."""
    at = AppTest.from_file(str(ROOT / "pages/data.py"), default_timeout=TIMEOUT)
    at.session_state[_user_key()] = {"name": "bob", "role": "admin"}
    at.run()
    assert any("administrators only" in e.value for e in at.error)


def test_admin_reaches_data_and_can_log_out(demo, secrets_with_users):
    at = login(AppTest.from_file(str(APP), default_timeout=TIMEOUT).run(), "alice", "alice-pw")
    assert not at.exception
    at.switch_page("pages/data.py").run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Data" and at.get("file_uploader")
    next(b for b in at.sidebar.button if b.label == "Log out").click().run()
    only_login_form(at)


def _user_key() -> str:
    from core.ui.support import SESSION_USER_KEY

    return SESSION_USER_KEY
