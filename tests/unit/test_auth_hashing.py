"""Optional login without a database: password hashes, users from the secrets file, the CLI helper.

The gate in front of every page (which runs the pages on the real graph) is in tests/test_auth.py.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.service import auth
from support import HASH_ITERATIONS as ITER
from support import secrets_with_users  # noqa: F401 - fixture shared with tests/test_auth.py

ROOT = Path(__file__).resolve().parents[2]


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
