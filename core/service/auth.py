"""Optional dashboard login: PBKDF2-SHA256 password hashes and users from the secrets file.

Login is off unless the secrets file has `[auth.users.<name>]` tables, so a local analyst
gets straight in while a shared deployment can require it. Hashes use the format
`pbkdf2_sha256$<iterations>$<salt>$<hash>` (salt and hash url-safe base64, no padding), so
the file never holds a password and the work factor can be raised without breaking old
hashes. Users are read fresh on each call: editing secrets takes effect without a restart.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets as _secrets_mod
from dataclasses import dataclass
from core.errors import ClauseGraphError

ALGORITHM = "pbkdf2_sha256"
DEFAULT_ITERATIONS = 600_000  # OWASP 2023 recommendation for PBKDF2-HMAC-SHA256
MIN_ITERATIONS = 1_000
ROLES = ("admin", "analyst")


class AuthConfigError(ClauseGraphError, ValueError):
    """The `[auth]` section of the secrets file is malformed (message names the user)."""


@dataclass(frozen=True)
class User:
    name: str
    role: str
    password_hash: str

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_password(password: str, iterations: int = DEFAULT_ITERATIONS, salt: bytes | None = None) -> str:
    if not isinstance(password, str) or not password:
        raise ValueError("the password must not be empty")
    if iterations < MIN_ITERATIONS:
        raise ValueError(f"use at least {MIN_ITERATIONS} iterations")
    salt = salt or _secrets_mod.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    return f"{ALGORITHM}${iterations}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, encoded: str) -> bool:
    """Constant-time check; a malformed hash is simply a failed login, never an exception."""
    if not isinstance(password, str) or not isinstance(encoded, str):
        return False
    parts = encoded.split("$")
    if len(parts) != 4 or parts[0] != ALGORITHM:
        return False
    try:
        iterations = int(parts[1])
        salt, expected = _unb64(parts[2]), _unb64(parts[3])
    except (ValueError, TypeError):
        return False
    if iterations < MIN_ITERATIONS or not salt or not expected:
        return False
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    return hmac.compare_digest(digest, expected)


def users(secrets: dict | None = None) -> dict[str, User]:
    """Users from `[auth.users.<name>]`; empty when login is off."""
    if secrets is None:
        from core.config import auth_settings

        section = auth_settings()
    else:
        section = secrets.get("auth") or {}
    table = section.get("users") if isinstance(section, dict) else None
    if not table:
        return {}
    if not isinstance(table, dict):
        raise AuthConfigError("[auth.users] must be a table of users")
    out: dict[str, User] = {}
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise AuthConfigError(f"[auth.users.{name}] must be a table with password_hash and role")
        pw_hash = entry.get("password_hash")
        role = entry.get("role", "analyst")
        if not isinstance(pw_hash, str) or not pw_hash.startswith(ALGORITHM + "$"):
            raise AuthConfigError(f"[auth.users.{name}] password_hash must be a {ALGORITHM}$... hash "
                                  "(make one with `python -m core auth hash-password`)")
        if role not in ROLES:
            raise AuthConfigError(f"[auth.users.{name}] role must be one of {', '.join(ROLES)}, not {role!r}")
        out[str(name)] = User(str(name), role, pw_hash)
    return out


def auth_enabled(secrets: dict | None = None) -> bool:
    try:
        return bool(users(secrets))
    except AuthConfigError:
        return True  # a broken config must lock the dashboard, not open it


def authenticate(name: str, password: str, secrets: dict | None = None) -> User | None:
    """The user when name and password match; None otherwise."""
    user = users(secrets).get((name or "").strip())
    if user is None:
        return None
    return user if verify_password(password or "", user.password_hash) else None
