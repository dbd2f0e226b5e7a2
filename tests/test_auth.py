"""Optional login: hashes, users from secrets, and the gate in front of every page."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.service import auth

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
PAGES = ["pages/ask.py", "pages/explore.py", "pages/gaps.py", "pages/data.py", "pages/quality.py",
         "pages/query_log.py"]
TIMEOUT = 180
ITER = 2_000  # cheap hashes for tests; the CLI default is 600k


@pytest.fixture()
def secrets_with_users(tmp_path, monkeypatch):
    path = tmp_path / "secrets.toml"
    path.write_text(
        "[auth]\n"
        f'[auth.users.alice]\npassword_hash = "{auth.hash_password("alice-pw", iterations=ITER)}"\nrole = "admin"\n'
        f'[auth.users.bob]\npassword_hash = "{auth.hash_password("bob-pw", iterations=ITER)}"\nrole = "analyst"\n',
        encoding="utf-8")
    monkeypatch.setenv("CLAUSEGRAPH_SECRETS", str(path))
    return path


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


# ---- hashing ------------------------------------------------------------------------

def test_hash_format_and_verify():
    h = auth.hash_password("s3cret", iterations=ITER)
    algo, iters, salt, digest = h.split("$")
    assert algo == "pbkdf2_sha256" and int(iters) == ITER and salt and digest
    assert auth.verify_password("s3cret", h)
    assert not auth.verify_password("s3cret!", h)
    assert auth.hash_password("s3cret", iterations=ITER) != h, "salted"
    for broken in ("", "plain", "md5$1$a$b", "pbkdf2_sha256$x$a$b", "pbkdf2_sha256$10$a$b"):
        assert not auth.verify_password("s3cret", broken)
    with pytest.raises(ValueError):
        auth.hash_password("")


def test_known_vector():
    """A PBKDF2-SHA256 hash computed elsewhere verifies (format is interoperable)."""
    import base64
    import hashlib

    salt = b"0123456789abcdef"
    digest = hashlib.pbkdf2_hmac("sha256", b"pw", salt, 1000)
    enc = "pbkdf2_sha256$1000${}${}".format(base64.urlsafe_b64encode(salt).decode().rstrip("="),
                                              base64.urlsafe_b64encode(digest).decode().rstrip("="))
    assert auth.verify_password("pw", enc) and enc == auth.hash_password("pw", iterations=1000, salt=salt)


def test_users_from_secrets(secrets_with_users):
    users = auth.users()
    assert set(users) == {"alice", "bob"} and users["alice"].is_admin and not users["bob"].is_admin
    assert auth.authenticate("alice", "alice-pw").name == "alice"
    assert auth.authenticate("alice", "bob-pw") is None
    assert auth.authenticate("nobody", "x") is None
    with pytest.raises(auth.AuthConfigError, match="bad"):
        auth.users({"auth": {"users": {"bad": {"password_hash": "plain", "role": "admin"}}}})
    with pytest.raises(auth.AuthConfigError, match="role"):
        auth.users({"auth": {"users": {"x": {"password_hash": auth.hash_password("a", ITER), "role": "root"}}}})
    assert auth.auth_enabled({"auth": {"users": {"bad": "oops"}}}), "a broken config locks, never opens"


def test_login_off_without_users():
    # conftest points CLAUSEGRAPH_SECRETS at tests/no-secrets.toml
    assert auth.users() == {} and not auth.auth_enabled()


def test_cli_hash_password(tmp_path):
    out = subprocess.run([sys.executable, "-m", "core", "auth", "hash-password", "--password-stdin",
                          "--iterations", str(ITER), "--user", "carol", "--role", "admin"],
                         input="carol-pw\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    (tmp_path / "s.toml").write_text("[auth]\n" + out.stdout, encoding="utf-8")
    import tomllib

    users = auth.users(tomllib.loads((tmp_path / "s.toml").read_text()))
    assert users["carol"].is_admin and auth.verify_password("carol-pw", users["carol"].password_hash)
    bad = subprocess.run([sys.executable, "-m", "core", "auth", "hash-password", "--password-stdin"],
                         input="\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "empty" in bad.stderr


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
    assert registered == {"ask.py", "explore.py", "gaps.py", "quality.py", "query_log.py"}
    with pytest.raises(ValueError):
        at.switch_page("pages/data.py")
    for page in ("pages/explore.py", "pages/gaps.py", "pages/quality.py", "pages/query_log.py"):
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
