"""Gates 1 and 2 of the guard: what can be decided from the query text alone, with no database.

They run first because they are cheap and because some hostile queries must never reach even
EXPLAIN (LOAD CSV, USE, admin commands). They reason on tokens (core/guard/lexer.py), so a
keyword inside a string or a comment is harmless and one hidden behind a comment is not:

1. one non-empty statement (a trailing ';' is dropped, anything after it refused);
2. no write/admin clauses, no LOAD CSV / USE / SHOW, every UNION branch opening with a reading
   clause, procedures and functions only from allow-lists, no identifier built from Unicode
   look-alikes of a keyword.

A refusal is raised as `Refusal`; `lexical_refusal` turns it into a reason for callers that
only want to know (the Text2Cypher prompt loop, the fast tests).
"""
from __future__ import annotations

import unicodedata
from typing import Any

from core.errors import ClauseGraphError
from core.guard import lexer as lx

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


class Refusal(ClauseGraphError):
    """A gate refused the query; the message is the reason shown to the user (and to the LLM)."""


def read_statement(cypher: Any) -> tuple[str, list[lx.Token]]:
    """Gate 1: the one statement in `cypher` and its tokens (a trailing ';' taken off)."""
    if not isinstance(cypher, str) or not cypher.strip():
        raise Refusal("empty query")
    try:
        tokens = lx.tokenize(cypher)
    except lx.CypherLexError as exc:
        raise Refusal(f"cannot read the query: {exc}") from None
    if not tokens:
        raise Refusal("empty query (only comments)")
    for idx, tok in enumerate(tokens):
        if tok.is_punct(";"):
            if any(not t.is_punct(";") for t in tokens[idx + 1:]):
                raise Refusal("multiple statements: only one query is accepted (a ';' is followed by more text)")
            cypher = cypher[:tok.start].rstrip()
            return cypher, lx.tokenize(cypher)
    return cypher, tokens


def check_tokens(tokens: list[lx.Token]) -> None:
    """Gate 2 on the tokens of one statement; raises `Refusal` with the first problem found."""
    _check_characters(tokens)
    _check_starts(tokens)
    _check_keywords(tokens)
    _check_calls(tokens)


def lexical_refusal(cypher: str) -> str | None:
    """Gates 1 and 2 alone: the refusal reason, or None when they pass."""
    try:
        _, tokens = read_statement(cypher)
        check_tokens(tokens)
        return None
    except Refusal as exc:
        return str(exc)


def _check_characters(tokens: list[lx.Token]) -> None:
    """Outside strings and backticks only ASCII is accepted: a look-alike letter is how a
    keyword hides from a reader (and from a check that compares spellings)."""
    for tok in tokens:
        if tok.kind == lx.PUNCT and not tok.text.isascii():
            looks = unicodedata.normalize("NFKC", tok.text)
            like = f", looks like {looks!r}" if looks != tok.text else ""
            raise Refusal(f"unexpected character {tok.text!r} (U+{ord(tok.text):04X}{like}) outside a string")
        if tok.kind != lx.IDENT:
            continue
        if not tok.text.isascii():
            look = lx.skeleton(tok.text)
            if look in _KEYWORDS or any(look.startswith(k) and len(k) > 3 for k in FORBIDDEN_KEYWORDS):
                raise Refusal(f"identifier {tok.text!r} imitates the keyword {look} with look-alike "
                              "(full-width or non-Latin) characters")
            raise Refusal(f"non-ASCII identifier {tok.text!r}: put such names in backticks")


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
                    raise Refusal(FORBIDDEN_KEYWORDS[tok.upper])
                nxt = tokens[idx + 1] if idx + 1 < len(tokens) else None
                if tok.is_kw("START", "STOP") and nxt is not None and nxt.upper in START_STOP_TARGETS:
                    raise Refusal(_ADMIN.format(f"{tok.upper} {nxt.upper}"))
                word = tok.upper if tok.kind == lx.IDENT else tok.text
                raise Refusal("a query must start with MATCH, OPTIONAL MATCH, WITH, UNWIND, CALL or RETURN "
                              f"(it starts with {word!r})")
            branch_start = False
    if branch_start:
        raise Refusal("the query ends with UNION")


def _check_keywords(tokens: list[lx.Token]) -> None:
    """A forbidden word anywhere it acts as a keyword; property names and map keys may use it."""
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
            raise Refusal(FORBIDDEN_KEYWORDS[word])
        if word in ("START", "STOP") and nxt is not None and nxt.upper in START_STOP_TARGETS:
            raise Refusal(_ADMIN.format(f"{word} {nxt.upper}"))


def _dotted_name_before(tokens: list[lx.Token], end: int) -> tuple[str, int]:
    """The dotted name whose last part is tokens[end]; returns (name, index of its first part)."""
    parts, i = [tokens[end].value], end
    while i >= 2 and tokens[i - 1].is_punct(".") and lx.name_of(tokens[i - 2]) is not None:
        parts.insert(0, tokens[i - 2].value)
        i -= 2
    return ".".join(parts), i


def _check_calls(tokens: list[lx.Token]) -> None:
    """Procedures and functions from the allow-lists only: both can write or reach outside the graph."""
    n = len(tokens)
    for idx, tok in enumerate(tokens):
        if tok.is_kw("CALL") and idx + 1 < n and lx.name_of(tokens[idx + 1]) is not None:
            j, parts = idx + 1, [tokens[idx + 1].value]
            while j + 2 < n and tokens[j + 1].is_punct(".") and lx.name_of(tokens[j + 2]) is not None:
                parts.append(tokens[j + 2].value)
                j += 2
            proc = ".".join(parts)
            if proc not in ALLOWED_PROCEDURES:
                raise Refusal(f"procedure {proc} is not allowed (allowed: {', '.join(sorted(ALLOWED_PROCEDURES))})")
        if tok.is_punct("(") and idx > 0 and lx.name_of(tokens[idx - 1]) is not None:
            prev = tokens[idx - 1]
            if prev.kind == lx.IDENT and prev.upper in _NOT_FUNCTIONS | set(FORBIDDEN_KEYWORDS):
                continue
            name, first = _dotted_name_before(tokens, idx - 1)
            if first > 0 and tokens[first - 1].is_kw("CALL"):
                continue                               # a procedure, checked above
            if first > 0 and tokens[first - 1].is_punct(":"):
                continue                               # a label expression such as (n:(A|B))
            if name.lower() not in BUILTIN_FUNCTIONS or any(t.kind == lx.QUOTED for t in tokens[first:idx]):
                raise Refusal(f"function {name}() is not allowed: only built-in Cypher functions may be used")
