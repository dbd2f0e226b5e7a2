"""One Neo4j driver per process, recreated after the database went away.

Everything in `core` talks to Neo4j through `Database`; pages never do. Reads run in READ
transactions with a timeout so that a slow or hostile query cannot hang the dashboard.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Iterable

from neo4j import GraphDatabase, Driver, READ_ACCESS, WRITE_ACCESS, unit_of_work
from neo4j.exceptions import ServiceUnavailable, SessionExpired, AuthError

from core.config import Settings, settings as _settings
from core.errors import ClauseGraphError


# Server notifications (unknown labels etc.) are read by the guard from EXPLAIN summaries;
# the driver's own logging of them is noise on the console.
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
# Retries of a transaction against a database that went away are reported once, as DatabaseUnavailable.
logging.getLogger("neo4j.pool").setLevel(logging.ERROR)
logging.getLogger("neo4j").setLevel(logging.ERROR)


class DatabaseUnavailable(ClauseGraphError, RuntimeError):
    """Neo4j cannot be reached; the message says where and what to do."""


@dataclass(frozen=True)
class Connection:
    uri: str
    user: str
    password: str
    database: str


def connection_for(cfg: Settings | None = None) -> Connection:
    cfg = cfg or _settings()
    if cfg.neo4j_uri:
        if not cfg.neo4j_password:
            raise DatabaseUnavailable("NEO4J_URI is set but NEO4J_PASSWORD is not.")
        return Connection(cfg.neo4j_uri, cfg.neo4j_user, cfg.neo4j_password, cfg.neo4j_database)
    from core.graph.local_server import LocalNeo4j

    local = LocalNeo4j(cfg.local)
    if not cfg.local.password_file.is_file():
        raise DatabaseUnavailable("The local Neo4j has never been started: run `python -m core neo4j start` "
                                  "(or set NEO4J_URI to use an existing database).")
    return Connection(cfg.local.uri, "neo4j", local.password(), cfg.neo4j_database)


class Database:
    """Thread-safe wrapper that recreates its driver after connection failures."""

    def __init__(self, conn: Connection | None = None, timeout_s: float | None = None):
        self.conn = conn or connection_for()
        self.timeout_s = timeout_s or _settings().query_timeout_s
        self._driver: Driver | None = None
        self._lock = threading.Lock()

    @property
    def uri(self) -> str:
        return self.conn.uri

    @property
    def database(self) -> str:
        return self.conn.database

    def driver(self) -> Driver:
        with self._lock:
            if self._driver is None:
                self._driver = GraphDatabase.driver(
                    self.conn.uri, auth=(self.conn.user, self.conn.password),
                    max_connection_pool_size=50, connection_acquisition_timeout=30,
                    connection_timeout=5, liveness_check_timeout=30,
                    max_transaction_retry_time=5)
            return self._driver

    def reset(self) -> None:
        with self._lock:
            if self._driver is not None:
                try:
                    self._driver.close()
                except Exception:  # noqa: BLE001 - closing a broken driver
                    pass
                self._driver = None

    def close(self) -> None:
        self.reset()

    def verify(self) -> None:
        try:
            self.driver().verify_connectivity()
        except AuthError as exc:
            raise DatabaseUnavailable(f"Neo4j at {self.uri} refused the credentials.") from exc
        except (ServiceUnavailable, SessionExpired, OSError, ValueError) as exc:
            self.reset()
            raise DatabaseUnavailable(f"Neo4j at {self.uri} is not reachable ({exc.__class__.__name__}). "
                                      "Start it with `python -m core neo4j start` or check NEO4J_URI.") from exc

    def _run(self, access: str, cypher: str, params: dict | None, timeout: float | None) -> list[dict]:
        @unit_of_work(timeout=timeout or self.timeout_s)
        def work(tx):
            result = tx.run(cypher, params or {})
            return [_record_dict(r) for r in result]

        for attempt in range(2):
            try:
                with self.driver().session(database=self.conn.database, default_access_mode=access) as session:
                    if access == READ_ACCESS:
                        return session.execute_read(work)
                    return session.execute_write(work)
            except AuthError as exc:
                raise DatabaseUnavailable(f"Neo4j at {self.uri} refused the credentials.") from exc
            except (ServiceUnavailable, SessionExpired, OSError) as exc:
                self.reset()
                if attempt == 1:
                    raise DatabaseUnavailable(f"Neo4j at {self.uri} is not reachable ({exc.__class__.__name__}). "
                                              "Start it with `python -m core neo4j start` or check NEO4J_URI.") from exc
        raise AssertionError("unreachable")

    def read(self, cypher: str, params: dict | None = None, timeout: float | None = None) -> list[dict]:
        return self._run(READ_ACCESS, cypher, params, timeout)

    def write(self, cypher: str, params: dict | None = None, timeout: float | None = None) -> list[dict]:
        return self._run(WRITE_ACCESS, cypher, params, timeout)

    def write_many(self, statements: Iterable[tuple[str, dict]], timeout: float | None = None) -> None:
        """Run several statements in one write transaction (all or nothing)."""
        statements = list(statements)

        @unit_of_work(timeout=timeout or 300)
        def work(tx):
            for cypher, params in statements:
                tx.run(cypher, params).consume()

        try:
            with self.driver().session(database=self.conn.database) as session:
                session.execute_write(work)
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            self.reset()
            raise DatabaseUnavailable(f"Neo4j at {self.uri} is not reachable ({exc.__class__.__name__}).") from exc

    def explain(self, cypher: str, params: dict | None = None) -> Any:
        """EXPLAIN a query and return the driver's result summary (query_type, plan)."""
        with self.driver().session(database=self.conn.database, default_access_mode=READ_ACCESS) as session:
            result = session.run("EXPLAIN " + cypher, params or {})
            return result.consume()


_SCALARS = (str, int, float, bool, type(None))


def _plain(value) -> bool:
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is list:
        return all(_plain(v) for v in value)
    if kind is dict:
        return all(_plain(v) for v in value.values())
    return False


def _record_dict(record) -> dict:
    """A record as a dict. `Record.data()` walks every value to convert nodes and relationships,
    which costs more than fetching for ten thousand rows of plain values; it is only needed
    when a value holds a graph or temporal object."""
    values = record.values()
    if all(_plain(v) for v in values):
        return dict(zip(record.keys(), values))
    return record.data()


_default: Database | None = None
_default_lock = threading.Lock()


def get_database() -> Database:
    """The process-wide database (created lazily from settings)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Database()
        return _default


def set_database(db: Database | None) -> None:
    global _default
    with _default_lock:
        _default = db
