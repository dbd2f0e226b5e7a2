"""The Cypher guard: the single entry for Cypher the project did not write itself.

LLM output (text2cypher) and user-typed Cypher pass through `CypherGuard` before they reach
Neo4j; tests also run the project's own templates through it. It stacks independent gates
so that one blind spot does not let a write through:

1. one non-empty statement;
2. a lexical pass on tokens (comments, strings and backticks understood, Unicode look-alikes
   folded): no write/admin clauses, no LOAD CSV / USE / SHOW, procedures and functions only
   from allow-lists;
3. EXPLAIN on the server: syntax errors come back in Neo4j's words, the query type must be
   `r` and the plan must hold no write, LOAD CSV, SHOW or non-allowed procedure operator;
4. labels, relationship types and properties checked against the live graph's schema, and a
   relationship written against its only direction in the data is turned around;
5. the final RETURN gets a LIMIT no larger than `max_limit`.

`run` executes what passed in a READ transaction with a timeout, so even a miss in the gates
meets the server's read-only access mode.

This module runs the gates in order and repairs what can be repaired (gates 3 and 5 live here);
gates 1-2 need only the text (core/guard/lexical.py), gate 4 only tokens and a schema
(core/guard/schema_check.py).
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

from neo4j.exceptions import ClientError, CypherSyntaxError, Neo4jError, ServiceUnavailable, SessionExpired

from core.config import settings
from core.errors import ClauseGraphError
from core.graph.db import Database, DatabaseUnavailable
from core.guard import lexer as lx
from core.guard import lexical
from core.guard.lexical import ALLOWED_PROCEDURES, Refusal
from core.guard.schema_check import GraphSchema, SchemaCheck

__all__ = ["CypherGuard", "GraphSchema", "GuardRefused", "GuardResult", "GuardRunResult"]

_PLAN_FORBIDDEN = re.compile(
    r"^(Create|Delete|DetachDelete|Set|Remove|Merge|LockingMerge|Foreach|LoadCSV|Transaction|EmptyResult|"
    r"Show|Terminate|Drop|Alter|Grant|Deny|Revoke|Rename|Start|Stop|Enable|System|Assert|DoNothingIfExists|"
    r"Administration|Log|Deallocate|Reallocate)")
_TIMEOUT_CODES = ("TransactionTimedOut", "Transaction.Terminated", "TransactionMarkedAsFailed")


class GuardRefused(ClauseGraphError):
    """Raised by `CypherGuard.ensure` when a query is refused; `.result` holds the details."""

    def __init__(self, result: "GuardResult"):
        super().__init__(result.reason)
        self.result = result


@dataclass
class GuardResult:
    allowed: bool
    reason: str
    cypher: str                       # the query as it will run (LIMIT added/capped, direction fixed)
    fixes: list[str] = field(default_factory=list)
    query_type: str | None = None     # the server's summary.query_type ("r" for anything allowed)

    def to_dict(self) -> dict:
        return {"allowed": self.allowed, "reason": self.reason, "cypher": self.cypher}


@dataclass
class GuardRunResult:
    allowed: bool
    reason: str
    cypher: str
    rows: list[dict] = field(default_factory=list)
    error: str | None = None
    fixes: list[str] = field(default_factory=list)
    query_type: str | None = None
    elapsed_ms: float | None = None

    def to_dict(self) -> dict:
        return {"allowed": self.allowed, "reason": self.reason, "cypher": self.cypher,
                "rows": self.rows, "error": self.error}


class CypherGuard:
    """Vets Cypher from outside the project before it runs (see the module docstring)."""

    def __init__(self, db: Database, max_limit: int = 200, schema: GraphSchema | None = None,
                 schema_ttl_s: float = 300.0):
        if int(max_limit) < 1:
            raise ValueError("max_limit must be at least 1")
        self.db = db
        self.max_limit = int(max_limit)
        self._fixed_schema = schema
        self._schema = schema
        self.schema_ttl_s = schema_ttl_s
        self._lock = threading.Lock()

    # -- schema cache ---------------------------------------------------------------------
    @property
    def schema(self) -> GraphSchema:
        with self._lock:
            if self._schema is None or (self._fixed_schema is None
                                        and time.time() - self._schema.fetched_at > self.schema_ttl_s):
                self._schema = GraphSchema.from_database(self.db)
            return self._schema

    def refresh_schema(self) -> GraphSchema:
        """Re-read the schema from the database (after an ingest, say)."""
        with self._lock:
            self._schema = GraphSchema.from_database(self.db)
            self._fixed_schema = None
            return self._schema

    # -- public API -------------------------------------------------------------------------
    def check(self, cypher: str, params: dict | None = None) -> GuardResult:
        fixes: list[str] = []
        original = cypher if isinstance(cypher, str) else ""
        try:
            cypher, tokens = self._offline(cypher)
            summary = self._explain(cypher, params)
            query_type = summary.query_type
            self._server_checks(summary)
            cypher = self._schema_check(cypher, tokens, summary, fixes)
            cypher = self._limit(cypher, params, fixes)
            if cypher != original:
                tokens = lx.tokenize(cypher)
                self._lexical(tokens)
                summary = self._explain(cypher, params)
                self._server_checks(summary)
            return GuardResult(True, "ok" if not fixes else "ok (" + "; ".join(fixes) + ")", cypher, fixes, query_type)
        except Refusal as exc:
            return GuardResult(False, str(exc), original, fixes)

    def lexical_refusal(self, cypher: str) -> str | None:
        """Gates 1 and 2 alone (no database): the refusal reason, or None when they pass."""
        try:
            self._offline(cypher)
            return None
        except Refusal as exc:
            return str(exc)

    def _offline(self, cypher: Any) -> tuple[str, list[lx.Token]]:
        cypher, tokens = lexical.read_statement(cypher)
        self._lexical(tokens)
        return cypher, tokens

    def ensure(self, cypher: str, params: dict | None = None) -> GuardResult:
        """`check`, raising `GuardRefused` on a refusal."""
        result = self.check(cypher, params)
        if not result.allowed:
            raise GuardRefused(result)
        return result

    def run(self, cypher: str, params: dict | None = None, timeout_s: float | None = None) -> GuardRunResult:
        """Check, then execute in a READ transaction with a timeout; never raises for a bad query."""
        verdict = self.check(cypher, params)
        out = GuardRunResult(verdict.allowed, verdict.reason, verdict.cypher, fixes=verdict.fixes,
                             query_type=verdict.query_type)
        if not verdict.allowed:
            return out
        timeout = float(timeout_s if timeout_s is not None else settings().query_timeout_s)
        started = time.perf_counter()
        try:
            rows = self.db.read(verdict.cypher, params or {}, timeout=timeout)
            if len(rows) > self.max_limit:        # a standalone CALL has no RETURN to put a LIMIT on
                out.fixes.append(f"rows truncated to {self.max_limit}")
                rows = rows[:self.max_limit]
            out.rows = rows
        except Neo4jError as exc:
            code = exc.code or ""
            if any(c in code for c in _TIMEOUT_CODES):
                out.error = f"query stopped: it ran longer than the {timeout:g} s timeout"
            else:
                out.error = f"{code or exc.__class__.__name__}: {exc.message or exc}"
        finally:
            out.elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
        return out

    # -- gates 1 and 2: core/guard/lexical.py ----------------------------------------------
    def _lexical(self, tokens: list[lx.Token]) -> None:
        lexical.check_tokens(tokens)

    # -- gate 3 -----------------------------------------------------------------------------
    def _explain(self, cypher: str, params: dict | None) -> Any:
        for attempt in range(2):
            try:
                return self.db.explain(cypher, params or {})
            except (ServiceUnavailable, SessionExpired, OSError) as exc:
                self.db.reset()
                if attempt:
                    raise DatabaseUnavailable(f"Neo4j at {self.db.uri} is not reachable ({exc.__class__.__name__}). "
                                              "Start it with `python -m core neo4j start` or check NEO4J_URI.") from exc
            except CypherSyntaxError as exc:
                raise Refusal("syntax error: " + _strip_explain(exc.message or str(exc))) from None
            except ClientError as exc:
                raise Refusal(f"rejected by Neo4j ({exc.code}): {_strip_explain(exc.message or str(exc))}") from None
        raise AssertionError("unreachable")

    def _server_checks(self, summary: Any) -> None:
        if summary.query_type != "r":
            kinds = {"w": "writes data", "rw": "reads and writes data", "s": "changes the schema or the system"}
            raise Refusal(f"not read-only: Neo4j classifies the query as {summary.query_type!r} "
                           f"({kinds.get(summary.query_type, 'not a plain read')})")
        for op, details in _plan_operators(summary.plan):
            if _PLAN_FORBIDDEN.match(op):
                raise Refusal(f"not read-only: the plan contains the operator {op}")
            if "Procedure" in op:
                m = re.match(r"\s*([\w.`]+)\s*\(", details or "")
                proc = m.group(1).replace("`", "") if m else "?"
                if proc not in ALLOWED_PROCEDURES:
                    raise Refusal(f"procedure {proc} is not allowed (plan operator {op})")

    # -- gate 4: core/guard/schema_check.py ------------------------------------------------
    def _schema_check(self, cypher: str, tokens: list[lx.Token], summary: Any, fixes: list[str]) -> str:
        notices = [(s.gql_status, s.status_description or "")
                   for s in getattr(summary, "gql_status_objects", None) or []]
        result = SchemaCheck(self.schema).check(cypher, tokens, notices)
        if result.problems:
            raise Refusal(result.problems[0])
        fixes.extend(result.fixes)
        return result.cypher

    # -- gate 5 -----------------------------------------------------------------------------
    def _limit(self, cypher: str, params: dict | None, fixes: list[str]) -> str:
        tokens = lx.tokenize(cypher)
        depth = lx.depths(tokens)
        branches, start = [], 0
        for idx, tok in enumerate(tokens):
            if depth[idx] == 0 and tok.is_kw("UNION"):
                branches.append((start, idx))
                start = idx + 2 if idx + 1 < len(tokens) and tokens[idx + 1].is_kw("ALL", "DISTINCT") else idx + 1
        branches.append((start, len(tokens)))
        edits: list[tuple[int, int, str]] = []
        for b_start, b_end in branches:
            returns = [i for i in range(b_start, b_end) if depth[i] == 0 and tokens[i].is_kw("RETURN")]
            if not returns:
                continue                                    # a standalone CALL: rows are capped in run()
            ret = returns[-1]
            limits = [i for i in range(ret, b_end) if depth[i] == 0 and tokens[i].is_kw("LIMIT")]
            if not limits:
                edits.append((tokens[b_end - 1].end, tokens[b_end - 1].end, f" LIMIT {self.max_limit}"))
                fixes.append(f"LIMIT {self.max_limit} added")
                continue
            expr = tokens[limits[-1] + 1:b_end]
            if len(expr) != 1 or expr[0].kind not in (lx.NUMBER, lx.PARAM):
                raise Refusal("LIMIT must be an integer literal or a $parameter")
            tok = expr[0]
            if tok.kind == lx.NUMBER:
                try:
                    value = int(tok.text.replace("_", ""), 0)
                except ValueError:
                    raise Refusal(f"LIMIT {tok.text} is not an integer") from None
                if value > self.max_limit:
                    edits.append((tok.start, tok.end, str(self.max_limit)))
                    fixes.append(f"LIMIT {value} capped at {self.max_limit}")
            else:
                value = (params or {}).get(tok.value)
                if isinstance(value, int) and not isinstance(value, bool) and value > self.max_limit:
                    edits.append((tok.start, tok.end, str(self.max_limit)))
                    fixes.append(f"LIMIT ${tok.value} (= {value}) capped at {self.max_limit}")
        return lx.apply_edits(cypher, edits)


def _plan_operators(plan: Any) -> Iterable[tuple[str, str]]:
    if not plan:
        return
    stack = [plan]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        op = str(node.get("operatorType", "")).split("@")[0]
        args = node.get("args") or node.get("arguments") or {}
        yield op, str(args.get("Details") or args.get("details") or "")
        stack.extend(node.get("children") or [])


def _strip_explain(message: str) -> str:
    """Neo4j's message with our "EXPLAIN " prefix taken back out of the quoted query and offsets."""
    prefix = "EXPLAIN "
    def fix_pos(m: re.Match) -> str:
        line, col, off = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if line == 1:
            col = max(1, col - len(prefix))
        return f"(line {line}, column {col} (offset: {max(0, off - len(prefix))}))"
    message = re.sub(r"\(line (\d+), column (\d+) \(offset: (\d+)\)\)", fix_pos, message)
    lines = message.split("\n")
    for i, line in enumerate(lines):
        if line.startswith('"' + prefix):
            lines[i] = '"' + line[len(prefix) + 1:]
            if i + 1 < len(lines) and lines[i + 1].strip() == "^":
                lines[i + 1] = lines[i + 1][len(prefix):] if lines[i + 1].startswith(" " * len(prefix)) else lines[i + 1]
    return "\n".join(lines).strip()
