"""`python -m core auth hash-password`: make a hash for `[auth.users.<name>]` in the secrets file."""
from __future__ import annotations

import getpass
import sys

from core.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("auth", help="dashboard login helpers")
    asub = p.add_subparsers(dest="auth_action", required=True)
    h = asub.add_parser("hash-password", help="print a PBKDF2-SHA256 hash for the secrets file")
    h.add_argument("--password-stdin", action="store_true",
                   help="read the password from the first line of stdin (for scripts) instead of a prompt")
    h.add_argument("--iterations", type=int, default=None, help="PBKDF2 iterations (default 600000)")
    h.add_argument("--user", help="also print a ready-to-paste [auth.users.<user>] table")
    h.add_argument("--role", choices=["admin", "analyst"], default="analyst")
    h.set_defaults(func=run_hash)


def run_hash(args) -> int:
    from core.service.auth import DEFAULT_ITERATIONS, hash_password

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        if not sys.stdin.isatty():
            raise UserError("no terminal for a password prompt; use --password-stdin")
        password = getpass.getpass("Password: ")
        if getpass.getpass("Repeat: ") != password:
            raise UserError("the passwords differ")
    if not password:
        raise UserError("the password must not be empty")
    try:
        encoded = hash_password(password, iterations=args.iterations or DEFAULT_ITERATIONS)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if args.user:
        print(f'[auth.users.{args.user}]\npassword_hash = "{encoded}"\nrole = "{args.role}"')
    else:
        print(encoded)
    return 0
