"""The Cypher guard: the single entry for Cypher the project did not write itself.

LLM output (text2cypher) and user-typed Cypher pass through `CypherGuard` before they reach
Neo4j; tests also run the project's own templates through it. It stacks independent gates
(seed 002 §3.3, DESIGN §7) so that one blind spot does not let a write through:

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
"""
from __future__ import annotations

import re
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable

from neo4j.exceptions import ClientError, CypherSyntaxError, Neo4jError, ServiceUnavailable, SessionExpired

from core.guard import lexer as lx
from core.config import settings
from core.graph.db import Database, DatabaseUnavailable
from core.graph.queries import guard as q

ALLOWED_PROCEDURES = frozenset({
    "db.index.vector.queryNodes", "db.index.fulltext.queryNodes",
    "db.labels", "db.relationshipTypes", "db.propertyKeys",
})

# Built-in Cypher functions of Neo4j 5 (lower case; Cypher resolves them case-insensitively).
# Left out on purpose: file() and linenumber() (LOAD CSV), db.* / graph.* / genai.* / apoc.* etc.
BUILTIN_FUNCTIONS = frozenset("""
avg collect count max min percentilecont percentiledisc stdev stdevp sum
keys labels nodes range reduce relationships reverse tail tobooleanlist tofloatlist tointegerlist tostringlist
e exp log log10 sqrt abs ceil floor isnan rand round sign
all any exists isempty none single
char_length character_length coalesce elementid endnode head id last length nullif properties randomuuid
size startnode timestamp toboolean tobooleanornull tofloat tofloatornull tointeger tointegerornull type valuetype
point point.distance point.withinbbox
btrim left lower ltrim normalize replace right rtrim split substring tolower tostring tostringornull toupper trim upper
date date.realtime date.statement date.transaction date.truncate
datetime datetime.fromepoch datetime.fromepochmillis datetime.realtime datetime.statement datetime.transaction datetime.truncate
localdatetime localdatetime.realtime localdatetime.statement localdatetime.transaction localdatetime.truncate
localtime localtime.realtime localtime.statement localtime.transaction localtime.truncate
time time.realtime time.statement time.transaction time.truncate
duration duration.between duration.indays duration.inmonths duration.inseconds
acos asin atan atan2 cos cot degrees haversin pi radians sin tan
vector.similarity.cosine vector.similarity.euclidean
shortestpath allshortestpaths
""".split())

# Clauses/commands that change data, schema, users or the server, or reach outside the graph,
# with the refusal each one gets.
_WRITE = "not read-only: a write clause ({}) is not allowed"
_ADMIN = "not read-only: an admin command ({}) is not allowed"
FORBIDDEN_KEYWORDS = {
    "CREATE": _WRITE.format("CREATE"), "MERGE": _WRITE.format("MERGE"), "INSERT": _WRITE.format("INSERT"),
    "DELETE": _WRITE.format("DELETE"), "DETACH": _WRITE.format("DETACH DELETE"),
    "NODETACH": _WRITE.format("NODETACH DELETE"), "SET": _WRITE.format("SET"),
    "REMOVE": _WRITE.format("REMOVE"), "FOREACH": _WRITE.format("FOREACH"),
    "DROP": "not read-only: a schema/admin command (DROP) is not allowed",
    "ALTER": _ADMIN.format("ALTER"), "GRANT": _ADMIN.format("GRANT"), "DENY": _ADMIN.format("DENY"),
    "REVOKE": _ADMIN.format("REVOKE"), "RENAME": _ADMIN.format("RENAME"),
    "TERMINATE": _ADMIN.format("TERMINATE"), "SHOW": _ADMIN.format("SHOW"), "ENABLE": _ADMIN.format("ENABLE"),
    "DEALLOCATE": _ADMIN.format("DEALLOCATE"), "REALLOCATE": _ADMIN.format("REALLOCATE"),
    "DRYRUN": _ADMIN.format("DRYRUN"),
    "LOAD": "not allowed: LOAD CSV reads files and URLs",
    "USE": "not allowed: USE switches to another database",
    "TRANSACTIONS": "not read-only: CALL { … } IN TRANSACTIONS (batched writes) is not allowed",
    "EXPLAIN": "not allowed: an EXPLAIN prefix (send the query alone; the guard explains it itself)",
    "PROFILE": "not allowed: a PROFILE prefix (it executes the query)",
    "CYPHER": "not allowed: a CYPHER version/options prefix",
}
START_STOP_TARGETS = {"DATABASE", "DATABASES", "SERVER", "SERVERS"}
QUERY_STARTS = {"MATCH", "OPTIONAL", "WITH", "UNWIND", "CALL", "RETURN"}

# Words that may stand right before "(" without being a function name.
_NOT_FUNCTIONS = {
    "MATCH", "OPTIONAL", "WHERE", "AND", "OR", "XOR", "NOT", "RETURN", "WITH", "UNWIND", "IN", "CASE",
    "WHEN", "THEN", "ELSE", "DISTINCT", "BY", "SKIP", "OFFSET", "LIMIT", "CONTAINS", "IS", "CALL",
    "SHORTEST", "PATHS", "PATH", "GROUPS", "WALK", "TRAIL", "ACYCLIC", "UNION", "ALL", "ANY",
    "YIELD", "AS", "ORDER", "ASC", "DESC", "ASCENDING", "DESCENDING", "END", "STARTS", "ENDS",
}
# Every Cypher keyword a look-alike could imitate (used only to word the refusal).
_KEYWORDS = set(FORBIDDEN_KEYWORDS) | QUERY_STARTS | _NOT_FUNCTIONS | {
    "START", "STOP", "DATABASE", "INDEX", "CONSTRAINT", "CSV", "FROM", "ON", "REQUIRE", "EXISTS", "COUNT",
    "COLLECT", "NULL", "TRUE", "FALSE", "USER", "ROLE", "PRIVILEGES", "FINISH"}

_PLAN_FORBIDDEN = re.compile(
    r"^(Create|Delete|DetachDelete|Set|Remove|Merge|LockingMerge|Foreach|LoadCSV|Transaction|EmptyResult|"
    r"Show|Terminate|Drop|Alter|Grant|Deny|Revoke|Rename|Start|Stop|Enable|System|Assert|DoNothingIfExists|"
    r"Administration|Log|Deallocate|Reallocate)")
_TIMEOUT_CODES = ("TransactionTimedOut", "Transaction.Terminated", "TransactionMarkedAsFailed")


class GuardRefused(Exception):
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


@dataclass
class GraphSchema:
    """What the live graph holds: the vocabulary a query may use and the directions it has."""

    labels: set[str] = field(default_factory=set)
    rel_types: set[str] = field(default_factory=set)
    property_keys: set[str] = field(default_factory=set)          # every key the database knows
    node_properties: dict[str, set[str]] = field(default_factory=dict)  # label -> keys
    rel_properties: dict[str, set[str]] = field(default_factory=dict)   # type -> keys
    patterns: set[tuple[str, str, str]] = field(default_factory=set)    # (start label, type, end label)
    fetched_at: float = 0.0

    @classmethod
    def from_database(cls, db: Database, sample: int = 10000) -> "GraphSchema":
        schema = cls(fetched_at=time.time())
        schema.labels = set(db.read(q.LABELS)[0]["labels"])
        schema.rel_types = set(db.read(q.RELATIONSHIP_TYPES)[0]["types"])
        schema.property_keys = set(db.read(q.PROPERTY_KEYS)[0]["keys"])
        for row in db.read(q.NODE_PROPERTIES, {"sample": sample}):
            schema.node_properties.setdefault(row["label"], set()).update(row["keys"])
        for row in db.read(q.RELATIONSHIP_PATTERNS, {"sample": sample}):
            schema.rel_properties.setdefault(row["type"], set()).update(row["keys"])
            for starts, ends in row["ends"]:
                for s in starts:
                    for e in ends:
                        schema.patterns.add((s, row["type"], e))
        for row in db.read(q.DECLARED_SCHEMA):
            names, props = row["labelsOrTypes"] or [], row["properties"] or []
            target = schema.labels if row["entityType"] == "NODE" else schema.rel_types
            per = schema.node_properties if row["entityType"] == "NODE" else schema.rel_properties
            for name in names:
                target.add(name)
                if name in per:        # a label without data keeps no property list: unknown, not empty
                    per[name].update(props)
            schema.property_keys.update(props)
        return schema

    @classmethod
    def from_patterns(cls, patterns: Iterable[tuple[str, str, str]],
                      node_properties: dict[str, Iterable[str]] | None = None,
                      rel_properties: dict[str, Iterable[str]] | None = None) -> "GraphSchema":
        """A schema written by hand (tests, a fixed deployment)."""
        pats = set(patterns)
        schema = cls(patterns=pats, fetched_at=time.time())
        schema.labels = {p[0] for p in pats} | {p[2] for p in pats} | set(node_properties or {})
        schema.rel_types = {p[1] for p in pats} | set(rel_properties or {})
        schema.node_properties = {k: set(v) for k, v in (node_properties or {}).items()}
        schema.rel_properties = {k: set(v) for k, v in (rel_properties or {}).items()}
        schema.property_keys = set().union(*schema.node_properties.values(), *schema.rel_properties.values())
        return schema

    def fits(self, starts: set[str], rel_type: str, ends: set[str]) -> bool:
        """Some (start)-[rel_type]->(end) exists; an empty label set matches any label."""
        return any(t == rel_type and (not starts or s in starts) and (not ends or e in ends)
                   for s, t, e in self.patterns)

    def known_node_properties(self, labels: Iterable[str]) -> set[str] | None:
        found = [self.node_properties[lab] for lab in labels if lab in self.node_properties]
        return set().union(*found) if found else None


# ---------------------------------------------------------------------------------------------
# Pattern parsing on tokens (only the shapes that can be read reliably)

@dataclass
class _Node:
    open_idx: int
    close_idx: int
    var: str | None
    labels: list[str]
    simple: bool                 # only conjunctive labels (":A:B" / ":A&B")
    prop_keys: list[tuple[str, int]]


@dataclass
class _Rel:
    var: str | None
    types: list[str]
    simple: bool                 # one plain type, no variable length
    left_arrow: tuple[int, int]  # token index range of "<-" or "-" before "["
    right_arrow: tuple[int, int]  # token index range of "-" or "->" after "]"
    direction: str               # "->", "<-" or "--"
    left: _Node | None
    right: _Node | None
    prop_keys: list[tuple[str, int]]


class _Refusal(Exception):
    pass


def _name(tok: lx.Token) -> str | None:
    return tok.value if tok.kind in (lx.IDENT, lx.QUOTED) else None


def _map_keys(tokens: list[lx.Token], open_idx: int, close_idx: int, pairs: dict[int, int]) -> list[tuple[str, int]]:
    keys, i = [], open_idx + 1
    while i < close_idx:
        tok = tokens[i]
        if tok.is_punct("([{") and i in pairs:
            i = pairs[i] + 1
            continue
        if _name(tok) is not None and i + 1 < close_idx and tokens[i + 1].is_punct(":") \
                and tokens[i - 1].is_punct("{,"):
            keys.append((tok.value, i))
        i += 1
    return keys


def _parse_node(tokens: list[lx.Token], open_idx: int, pairs: dict[int, int]) -> _Node | None:
    close_idx = pairs.get(open_idx)
    if close_idx is None:
        return None
    i, var = open_idx + 1, None
    if i < close_idx and _name(tokens[i]) is not None and not tokens[i].is_kw("WHERE"):
        var = tokens[i].value
        i += 1
    labels, simple = [], True
    if i < close_idx and tokens[i].is_punct(":"):
        i += 1
        while i < close_idx:
            tok = tokens[i]
            if tok.is_punct("{") or tok.is_kw("WHERE"):
                break
            if _name(tok) is not None:
                labels.append(tok.value)
            elif tok.is_punct(":&"):
                pass
            elif tok.is_punct("|!%()"):
                simple = False
            else:
                return None
            i += 1
    elif i < close_idx and not (tokens[i].is_punct("{") or tokens[i].is_kw("WHERE")):
        return None                      # an expression in parentheses, not a node pattern
    keys: list[tuple[str, int]] = []
    if i < close_idx and tokens[i].is_punct("{") and i in pairs:
        keys = _map_keys(tokens, i, pairs[i], pairs)
    return _Node(open_idx, close_idx, var, labels, simple, keys)


def _parse_rel(tokens: list[lx.Token], lb: int, pairs: dict[int, int], nodes_by_close: dict[int, _Node],
               nodes_by_open: dict[int, _Node]) -> _Rel | None:
    rb = pairs.get(lb)
    if rb is None or lb < 2 or rb + 1 >= len(tokens) or not tokens[lb - 1].is_punct("-") \
            or not tokens[rb + 1].is_punct("-"):
        return None
    left_start = lb - 1
    left_in = tokens[lb - 2].is_punct("<")
    if left_in:
        left_start = lb - 2
    before = left_start - 1
    if before < 0 or not tokens[before].is_punct(")"):
        return None
    right_end = rb + 1
    right_out = right_end + 1 < len(tokens) and tokens[right_end + 1].is_punct(">")
    if right_out:
        right_end += 1
    after = right_end + 1
    if after >= len(tokens) or not tokens[after].is_punct("("):
        return None
    if left_in and right_out:
        return None
    i, var = lb + 1, None
    if i < rb and _name(tokens[i]) is not None and not tokens[i].is_kw("WHERE"):
        var = tokens[i].value
        i += 1
    types, simple = [], True
    if i < rb and tokens[i].is_punct(":"):
        i += 1
        while i < rb:
            tok = tokens[i]
            if tok.is_punct("*{") or tok.is_kw("WHERE"):
                break
            if _name(tok) is not None:
                types.append(tok.value)
            elif tok.is_punct(":|!%&()"):
                simple = False
            else:
                return None
            i += 1
    keys: list[tuple[str, int]] = []
    while i < rb:
        if tokens[i].is_punct("*"):
            simple = False
        if tokens[i].is_punct("{") and i in pairs:
            keys = _map_keys(tokens, i, pairs[i], pairs)
            i = pairs[i]
        i += 1
    direction = "<-" if left_in else "->" if right_out else "--"
    return _Rel(var, types, simple and len(types) == 1, (left_start, lb - 1), (rb + 1, right_end), direction,
                nodes_by_close.get(before), nodes_by_open.get(after), keys)


# ---------------------------------------------------------------------------------------------

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
        except _Refusal as exc:
            return GuardResult(False, str(exc), original, fixes)

    def lexical_refusal(self, cypher: str) -> str | None:
        """Gates 1 and 2 alone (no database): the refusal reason, or None when they pass."""
        try:
            self._offline(cypher)
            return None
        except _Refusal as exc:
            return str(exc)

    def _offline(self, cypher: Any) -> tuple[str, list[lx.Token]]:
        if not isinstance(cypher, str) or not cypher.strip():
            raise _Refusal("empty query")
        try:
            tokens = lx.tokenize(cypher)
        except lx.CypherLexError as exc:
            raise _Refusal(f"cannot read the query: {exc}") from None
        if not tokens:
            raise _Refusal("empty query (only comments)")
        cypher, tokens = self._single_statement(cypher, tokens)
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

    # -- gate 1 -----------------------------------------------------------------------------
    @staticmethod
    def _single_statement(cypher: str, tokens: list[lx.Token]) -> tuple[str, list[lx.Token]]:
        for idx, tok in enumerate(tokens):
            if tok.is_punct(";"):
                if any(not t.is_punct(";") for t in tokens[idx + 1:]):
                    raise _Refusal("multiple statements: only one query is accepted (a ';' is followed by more text)")
                cypher = cypher[:tok.start].rstrip()
                return cypher, lx.tokenize(cypher)
        return cypher, tokens

    # -- gate 2 -----------------------------------------------------------------------------
    def _lexical(self, tokens: list[lx.Token]) -> None:
        for idx, tok in enumerate(tokens):
            if tok.kind == lx.PUNCT and not tok.text.isascii():
                looks = unicodedata.normalize("NFKC", tok.text)
                like = f", looks like {looks!r}" if looks != tok.text else ""
                raise _Refusal(f"unexpected character {tok.text!r} (U+{ord(tok.text):04X}{like}) outside a string")
            if tok.kind != lx.IDENT:
                continue
            if not tok.text.isascii():
                look = lx.skeleton(tok.text)
                if look in _KEYWORDS or any(look.startswith(k) and len(k) > 3 for k in FORBIDDEN_KEYWORDS):
                    raise _Refusal(f"identifier {tok.text!r} imitates the keyword {look} with look-alike "
                                   "(full-width or non-Latin) characters")
                raise _Refusal(f"non-ASCII identifier {tok.text!r}: put such names in backticks")
        self._check_starts(tokens)
        for idx, tok in enumerate(tokens):
            if tok.kind != lx.IDENT:
                continue
            prev = tokens[idx - 1] if idx else None
            nxt = tokens[idx + 1] if idx + 1 < len(tokens) else None
            if prev is not None and prev.is_punct("."):
                continue                                   # property access / namespace part
            if nxt is not None and nxt.is_punct(":") and prev is not None and prev.is_punct("{,"):
                continue                                   # map key
            word = tok.upper
            if word in FORBIDDEN_KEYWORDS:
                raise _Refusal(FORBIDDEN_KEYWORDS[word])
            if word in ("START", "STOP") and nxt is not None and nxt.upper in START_STOP_TARGETS:
                raise _Refusal(_ADMIN.format(f"{word} {nxt.upper}"))
        self._check_calls(tokens)

    @staticmethod
    def _check_starts(tokens: list[lx.Token]) -> None:
        """Each UNION branch must open with a reading clause (an allow-list, not a deny-list)."""
        depth = lx.depths(tokens)
        branch_start = True
        for idx, tok in enumerate(tokens):
            if depth[idx] == 0 and tok.is_kw("UNION"):
                branch_start = True
                continue
            if branch_start and tok.is_kw("ALL", "DISTINCT") and idx and tokens[idx - 1].is_kw("UNION"):
                continue
            if branch_start:
                if not (tok.kind == lx.IDENT and tok.upper in QUERY_STARTS):
                    if tok.kind == lx.IDENT and tok.upper in FORBIDDEN_KEYWORDS:
                        raise _Refusal(FORBIDDEN_KEYWORDS[tok.upper])
                    nxt = tokens[idx + 1] if idx + 1 < len(tokens) else None
                    if tok.is_kw("START", "STOP") and nxt is not None and nxt.upper in START_STOP_TARGETS:
                        raise _Refusal(_ADMIN.format(f"{tok.upper} {nxt.upper}"))
                    word = tok.upper if tok.kind == lx.IDENT else tok.text
                    raise _Refusal("a query must start with MATCH, OPTIONAL MATCH, WITH, UNWIND, CALL or RETURN "
                                   f"(it starts with {word!r})")
                branch_start = False
        if branch_start:
            raise _Refusal("the query ends with UNION")

    @staticmethod
    def _dotted_name_before(tokens: list[lx.Token], end: int) -> tuple[str, int]:
        """The dotted name whose last part is tokens[end]; returns (name, index of its first part)."""
        parts, i = [tokens[end].value], end
        while i >= 2 and tokens[i - 1].is_punct(".") and _name(tokens[i - 2]) is not None:
            parts.insert(0, tokens[i - 2].value)
            i -= 2
        return ".".join(parts), i

    def _check_calls(self, tokens: list[lx.Token]) -> None:
        n = len(tokens)
        for idx, tok in enumerate(tokens):
            if tok.is_kw("CALL") and idx + 1 < n and _name(tokens[idx + 1]) is not None:
                j, parts = idx + 1, [tokens[idx + 1].value]
                while j + 2 < n and tokens[j + 1].is_punct(".") and _name(tokens[j + 2]) is not None:
                    parts.append(tokens[j + 2].value)
                    j += 2
                proc = ".".join(parts)
                if proc not in ALLOWED_PROCEDURES:
                    raise _Refusal(f"procedure {proc} is not allowed (allowed: {', '.join(sorted(ALLOWED_PROCEDURES))})")
            if tok.is_punct("(") and idx > 0 and _name(tokens[idx - 1]) is not None:
                prev = tokens[idx - 1]
                if prev.kind == lx.IDENT and prev.upper in _NOT_FUNCTIONS | set(FORBIDDEN_KEYWORDS):
                    continue
                name, first = self._dotted_name_before(tokens, idx - 1)
                if first > 0 and tokens[first - 1].is_kw("CALL"):
                    continue                               # a procedure, checked above
                if first > 0 and tokens[first - 1].is_punct(":"):
                    continue                               # a label expression such as (n:(A|B))
                if name.lower() not in BUILTIN_FUNCTIONS or any(t.kind == lx.QUOTED for t in tokens[first:idx]):
                    raise _Refusal(f"function {name}() is not allowed: only built-in Cypher functions may be used")

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
                raise _Refusal("syntax error: " + _strip_explain(exc.message or str(exc))) from None
            except ClientError as exc:
                raise _Refusal(f"rejected by Neo4j ({exc.code}): {_strip_explain(exc.message or str(exc))}") from None
        raise AssertionError("unreachable")

    def _server_checks(self, summary: Any) -> None:
        if summary.query_type != "r":
            kinds = {"w": "writes data", "rw": "reads and writes data", "s": "changes the schema or the system"}
            raise _Refusal(f"not read-only: Neo4j classifies the query as {summary.query_type!r} "
                           f"({kinds.get(summary.query_type, 'not a plain read')})")
        for op, details in _plan_operators(summary.plan):
            if _PLAN_FORBIDDEN.match(op):
                raise _Refusal(f"not read-only: the plan contains the operator {op}")
            if "Procedure" in op:
                m = re.match(r"\s*([\w.`]+)\s*\(", details or "")
                proc = m.group(1).replace("`", "") if m else "?"
                if proc not in ALLOWED_PROCEDURES:
                    raise _Refusal(f"procedure {proc} is not allowed (plan operator {op})")

    # -- gate 4 -----------------------------------------------------------------------------
    def _schema_check(self, cypher: str, tokens: list[lx.Token], summary: Any, fixes: list[str]) -> str:
        schema = self.schema
        pairs = lx.matching_brackets(tokens)
        nodes: list[_Node] = []
        for idx, tok in enumerate(tokens):
            if tok.is_punct("("):
                node = _parse_node(tokens, idx, pairs)
                if node is not None:
                    nodes.append(node)
        by_close = {nd.close_idx: nd for nd in nodes}
        by_open = {nd.open_idx: nd for nd in nodes}
        rels = [r for idx, tok in enumerate(tokens) if tok.is_punct("[")
                for r in [_parse_rel(tokens, idx, pairs, by_close, by_open)] if r is not None]

        def known(kind: str, name: str, pool: set[str]) -> None:
            if name not in pool:
                listing = ", ".join(sorted(pool)) or "none: the graph is empty"
                sigil = ":" if kind != "property" else ""
                raise _Refusal(f"unknown {kind} {sigil}{name} (known: {listing})")

        for nd in nodes:
            for lab in nd.labels:
                known("label", lab, schema.labels)
        for rel in rels:
            for t in rel.types:
                known("relationship type", t, schema.rel_types)
        # Variables bound to one pattern shape, and names rebound elsewhere (AS, YIELD, x IN, x =).
        var_labels: dict[str, set[str]] = {}
        var_types: dict[str, set[str]] = {}
        untrusted: set[str] = set()
        for nd in nodes:
            if nd.var:
                if nd.labels and nd.simple:
                    var_labels.setdefault(nd.var, set()).update(nd.labels)
                elif nd.labels:
                    untrusted.add(nd.var)
        for rel in rels:
            if rel.var:
                if rel.types and rel.simple:
                    var_types.setdefault(rel.var, set()).update(rel.types)
                else:
                    untrusted.add(rel.var)
        in_yield = False
        for idx, tok in enumerate(tokens):
            nxt = tokens[idx + 1] if idx + 1 < len(tokens) else None
            if tok.is_kw("YIELD"):
                in_yield = True
                continue
            if in_yield and tok.kind == lx.IDENT and tok.upper in QUERY_STARTS | {"WHERE", "UNION", "ORDER", "SKIP", "LIMIT"}:
                in_yield = False
            if _name(tok) is None:
                continue
            if in_yield or (idx and tokens[idx - 1].is_kw("AS")) or (nxt is not None and (nxt.is_kw("IN") or nxt.is_punct("="))):
                untrusted.add(tok.value)

        def check_props(var_or_labels: set[str], keys: Iterable[str], is_rel: bool) -> None:
            for key in keys:
                pool = (set().union(*(schema.rel_properties.get(t, set()) for t in var_or_labels))
                        if is_rel else schema.known_node_properties(var_or_labels))
                if is_rel and not any(t in schema.rel_properties for t in var_or_labels):
                    pool = None
                if pool is None:
                    continue
                if key not in pool:
                    owner = "|".join(sorted(var_or_labels))
                    listing = ", ".join(sorted(pool)) or "none"
                    raise _Refusal(f"unknown property {owner}.{key} (known: {listing})")

        for nd in nodes:
            if nd.labels and nd.simple:
                check_props(set(nd.labels), [k for k, _ in nd.prop_keys], False)
        for rel in rels:
            if rel.simple:
                check_props(set(rel.types), [k for k, _ in rel.prop_keys], True)
        for idx in range(len(tokens) - 2):
            a, dot, b = tokens[idx], tokens[idx + 1], tokens[idx + 2]
            if _name(a) is None or not dot.is_punct(".") or _name(b) is None:
                continue
            if idx and (tokens[idx - 1].is_punct(".") or tokens[idx - 1].kind == lx.PARAM):
                continue
            if idx + 3 < len(tokens) and tokens[idx + 3].is_punct("("):
                continue                                        # namespaced function
            var = a.value
            if var in untrusted:
                continue
            if var in var_labels and var not in var_types:
                check_props(var_labels[var], [b.value], False)
            elif var in var_types and var not in var_labels:
                check_props(var_types[var], [b.value], True)

        # Names the server itself does not know (also outside patterns: WHERE n:Foo, x.foo).
        for status in getattr(summary, "gql_status_objects", None) or []:
            code, text = status.gql_status, status.status_description or ""
            m = re.search(r"`((?:[^`]|``)*)`", text)
            name = m.group(1).replace("``", "`") if m else "?"
            if code == "01N50":
                known("label", name, schema.labels - {name})
            elif code == "01N51":
                known("relationship type", name, schema.rel_types - {name})
            elif code == "01N52":
                known("property", name, schema.property_keys - {name})

        # Relationship direction: turn a single-type relationship around when only the reverse exists.
        def end_labels(node: _Node | None) -> set[str] | None:
            if node is None:
                return None
            if node.labels:
                return set(node.labels) if node.simple else None
            if node.var and node.var in var_labels and node.var not in untrusted:
                return set(var_labels[node.var])
            return set()

        edits: list[tuple[int, int, str]] = []
        for rel in rels:
            if not rel.simple or rel.direction == "--":
                continue
            left, right = end_labels(rel.left), end_labels(rel.right)
            if left is None or right is None or (not left and not right):
                continue
            start, end = (left, right) if rel.direction == "->" else (right, left)
            rtype = rel.types[0]
            if schema.fits(start, rtype, end) or not schema.fits(end, rtype, start):
                continue
            ls, le = tokens[rel.left_arrow[0]].start, tokens[rel.left_arrow[1]].end
            rs, re_ = tokens[rel.right_arrow[0]].start, tokens[rel.right_arrow[1]].end
            if rel.direction == "->":
                edits += [(ls, le, "<-"), (rs, re_, "-")]
            else:
                edits += [(ls, le, "-"), (rs, re_, "->")]
            fmt = lambda labs: ":" + "|".join(sorted(labs)) if labs else ""  # noqa: E731
            fixes.append(f"relationship direction fixed: the graph has "
                         f"({fmt(end)})-[:{rtype}]->({fmt(start)}), not ({fmt(start)})-[:{rtype}]->({fmt(end)})")
        return _apply(cypher, edits)

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
                raise _Refusal("LIMIT must be an integer literal or a $parameter")
            tok = expr[0]
            if tok.kind == lx.NUMBER:
                try:
                    value = int(tok.text.replace("_", ""), 0)
                except ValueError:
                    raise _Refusal(f"LIMIT {tok.text} is not an integer") from None
                if value > self.max_limit:
                    edits.append((tok.start, tok.end, str(self.max_limit)))
                    fixes.append(f"LIMIT {value} capped at {self.max_limit}")
            else:
                value = (params or {}).get(tok.value)
                if isinstance(value, int) and not isinstance(value, bool) and value > self.max_limit:
                    edits.append((tok.start, tok.end, str(self.max_limit)))
                    fixes.append(f"LIMIT ${tok.value} (= {value}) capped at {self.max_limit}")
        return _apply(cypher, edits)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + new + text[end:]
    return text


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
