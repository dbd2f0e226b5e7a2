"""`python -m core neo4j start|stop|status|env`."""
from __future__ import annotations

import sys

from core.config import settings


def register(sub) -> None:
    p = sub.add_parser("neo4j", help="start, stop or inspect the project's local Neo4j")
    p.add_argument("action", choices=["start", "stop", "status", "env"])
    p.set_defaults(func=run)


def run(args) -> int:
    from core.graph.local_server import LocalNeo4j

    cfg = settings()
    if not cfg.uses_local_neo4j:
        if args.action in {"start", "stop"}:
            print(f"NEO4J_URI is set ({cfg.neo4j_uri}); the project uses that database and does not "
                  f"{args.action} a local one.", file=sys.stderr)
            return 0
        if args.action == "status":
            from core.graph.db import Database

            db = Database()
            db.verify()
            rows = db.read("CALL dbms.components() YIELD name, versions, edition RETURN versions[0] AS version, edition")
            print(f"external Neo4j at {cfg.neo4j_uri}: reachable, {rows[0]['edition']} {rows[0]['version']}")
            return 0
        print(f"export NEO4J_URI={cfg.neo4j_uri}")
        return 0
    local = LocalNeo4j(cfg.local)
    if args.action == "start":
        st = local.start()
        print(f"Neo4j {st.edition} {st.version} running at {st.uri} (pid {st.pid})")
        print(f"  data: {local.data_dir}\n  logs: {local.log_dir}\n  password file: {cfg.local.password_file}")
        from core.graph.db import Database
        from core.graph.schema import probe_capabilities

        db = Database()
        try:
            caps = probe_capabilities(db)
        finally:
            db.close()
        print("  features: " + ", ".join(f"{k}={'ok' if v else 'MISSING'}" for k, v in caps.items()))
        return 0 if all(caps.values()) else 1
    if args.action == "stop":
        print("stopped" if local.stop() else "not running")
        return 0
    if args.action == "status":
        st = local.status()
        if st.running:
            print(f"running: Neo4j {st.edition} {st.version} at {st.uri} (pid {st.pid}), data in {local.data_dir}")
            return 0
        print(f"stopped ({st.message}); data in {local.data_dir}")
        return 3
    for line in local.env_lines():
        print(line)
    return 0
