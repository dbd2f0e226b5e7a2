"""The benchmark's own Neo4j instance, so a benchmark never touches a user's graph.

Defaults to `var/neo4j-bench` on port 7690; `CLAUSEGRAPH_BENCH_NEO4J_HOME` / `_PORT` point it
elsewhere (the tests point it at their already running test instance). An instance found
running is used and left running; one started here is stopped by `close()`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from core.config import PROJECT_ROOT, LocalNeo4jSettings, settings

HOME_ENV = "CLAUSEGRAPH_BENCH_NEO4J_HOME"
PORT_ENV = "CLAUSEGRAPH_BENCH_NEO4J_PORT"
HEAP_ENV = "CLAUSEGRAPH_BENCH_NEO4J_HEAP"
PAGECACHE_ENV = "CLAUSEGRAPH_BENCH_NEO4J_PAGECACHE"
DEFAULT_PORT = 7690


def bench_neo4j_settings() -> LocalNeo4jSettings:
    base = settings().local
    home = Path(os.environ.get(HOME_ENV) or PROJECT_ROOT / "var" / "neo4j-bench").resolve()
    port = int(os.environ.get(PORT_ENV) or DEFAULT_PORT)
    # 100k clauses with 384-float vectors need more than the dashboard's defaults
    return LocalNeo4jSettings(home=home, bolt_port=port, heap=os.environ.get(HEAP_ENV) or "2g",
                              pagecache=os.environ.get(PAGECACHE_ENV) or "1g", lib_dir=base.lib_dir)


@dataclass
class BenchInstance:
    db: object            # core.db.Database
    local: object         # core.neo4j_local.LocalNeo4j
    started_here: bool

    @property
    def pid(self) -> int | None:
        return self.local._pid()

    def close(self) -> None:
        self.db.close()
        if self.started_here:
            self.local.stop()


def open_instance(log=print) -> BenchInstance:
    from core.graph.db import Connection, Database
    from core.graph.local_server import LocalNeo4j

    cfg = bench_neo4j_settings()
    if settings().neo4j_uri and not os.environ.get(HOME_ENV):
        log("note: NEO4J_URI is set but the benchmark ignores it and uses its own local Neo4j")
    local = LocalNeo4j(cfg)
    started = not local.status().running
    if started:
        log(f"starting the benchmark Neo4j in {cfg.home} on port {cfg.bolt_port} "
            f"(heap {cfg.heap}, page cache {cfg.pagecache})")
        local.start()
    else:
        log(f"using the running Neo4j in {cfg.home} on port {cfg.bolt_port} (left running)")
    db = Database(Connection(cfg.uri, "neo4j", local.password(), "neo4j"), timeout_s=120)
    db.verify()
    return BenchInstance(db, local, started)
