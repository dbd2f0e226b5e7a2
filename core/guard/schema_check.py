"""Gate 4 of the guard: does the query fit the graph it will run on?

An LLM writes plausible names that do not exist (`:Supplier`, `c.start_date`) and walks
relationships the wrong way round; Neo4j answers both with an empty result rather than an
error, which reads as "no such contracts". So every label, relationship type and property the
query names is checked against `GraphSchema` (read from the live graph, or written by hand), an
unknown one is refused with the known ones listed (the LLM repairs from that), and a
single-type relationship written against its only direction in the data is turned around.

`SchemaCheck` needs tokens and a schema only, no database: the guard hands it the server's
"unknown name" notices from EXPLAIN as plain (code, description) pairs.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Iterable

from core.graph.db import Database
from core.graph.queries import guard as q
from core.guard import lexer as lx
from core.guard.lexical import QUERY_STARTS

# GQL status codes of EXPLAIN's notices for names the database has never seen.
_UNKNOWN_NAME_NOTICES = {"01N50": "label", "01N51": "relationship type", "01N52": "property"}
# Words that end a YIELD list (the names in it are rebound, not pattern variables).
_YIELD_ENDS = QUERY_STARTS | {"WHERE", "UNION", "ORDER", "SKIP", "LIMIT"}


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


def _map_keys(tokens: list[lx.Token], open_idx: int, close_idx: int, pairs: dict[int, int]) -> list[tuple[str, int]]:
    keys, i = [], open_idx + 1
    while i < close_idx:
        tok = tokens[i]
        if tok.is_punct("([{") and i in pairs:
            i = pairs[i] + 1
            continue
        if lx.name_of(tok) is not None and i + 1 < close_idx and tokens[i + 1].is_punct(":") \
                and tokens[i - 1].is_punct("{,"):
            keys.append((tok.value, i))
        i += 1
    return keys


def _parse_node(tokens: list[lx.Token], open_idx: int, pairs: dict[int, int]) -> _Node | None:
    close_idx = pairs.get(open_idx)
    if close_idx is None:
        return None
    i, var = open_idx + 1, None
    if i < close_idx and lx.name_of(tokens[i]) is not None and not tokens[i].is_kw("WHERE"):
        var = tokens[i].value
        i += 1
    labels, simple = [], True
    if i < close_idx and tokens[i].is_punct(":"):
        i += 1
        while i < close_idx:
            tok = tokens[i]
            if tok.is_punct("{") or tok.is_kw("WHERE"):
                break
            if lx.name_of(tok) is not None:
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
    if i < rb and lx.name_of(tokens[i]) is not None and not tokens[i].is_kw("WHERE"):
        var = tokens[i].value
        i += 1
    types, simple = [], True
    if i < rb and tokens[i].is_punct(":"):
        i += 1
        while i < rb:
            tok = tokens[i]
            if tok.is_punct("*{") or tok.is_kw("WHERE"):
                break
            if lx.name_of(tok) is not None:
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



@dataclass
class _Query:
    """One query's patterns and what its variables are bound to."""

    nodes: list[_Node]
    rels: list[_Rel]
    var_labels: dict[str, set[str]] = field(default_factory=dict)  # variable -> labels of its one node shape
    var_types: dict[str, set[str]] = field(default_factory=dict)   # variable -> type of its one relationship
    untrusted: set[str] = field(default_factory=set)  # rebound (AS, YIELD, x IN, x =) or of unclear shape

    @classmethod
    def read(cls, tokens: list[lx.Token]) -> "_Query":
        pairs = lx.matching_brackets(tokens)
        nodes = [nd for idx, tok in enumerate(tokens) if tok.is_punct("(")
                 for nd in [_parse_node(tokens, idx, pairs)] if nd is not None]
        by_close = {nd.close_idx: nd for nd in nodes}
        by_open = {nd.open_idx: nd for nd in nodes}
        rels = [r for idx, tok in enumerate(tokens) if tok.is_punct("[")
                for r in [_parse_rel(tokens, idx, pairs, by_close, by_open)] if r is not None]
        query = cls(nodes, rels)
        query._bind_pattern_variables()
        query._mark_rebound_names(tokens)
        return query

    def _bind_pattern_variables(self) -> None:
        for nd in self.nodes:
            if nd.var:
                if nd.labels and nd.simple:
                    self.var_labels.setdefault(nd.var, set()).update(nd.labels)
                elif nd.labels:
                    self.untrusted.add(nd.var)
        for rel in self.rels:
            if rel.var:
                if rel.types and rel.simple:
                    self.var_types.setdefault(rel.var, set()).update(rel.types)
                else:
                    self.untrusted.add(rel.var)

    def _mark_rebound_names(self, tokens: list[lx.Token]) -> None:
        """A name bound again by AS, YIELD, `x IN` or `x =` may no longer be the pattern's node."""
        in_yield = False
        for idx, tok in enumerate(tokens):
            nxt = tokens[idx + 1] if idx + 1 < len(tokens) else None
            if tok.is_kw("YIELD"):
                in_yield = True
                continue
            if in_yield and tok.kind == lx.IDENT and tok.upper in _YIELD_ENDS:
                in_yield = False
            if lx.name_of(tok) is None:
                continue
            if in_yield or (idx and tokens[idx - 1].is_kw("AS")) or (nxt is not None and (nxt.is_kw("IN") or nxt.is_punct("="))):
                self.untrusted.add(tok.value)

    def end_labels(self, node: _Node | None) -> set[str] | None:
        """Labels of a relationship's end: None when unclear, empty when the node has none."""
        if node is None:
            return None
        if node.labels:
            return set(node.labels) if node.simple else None
        if node.var and node.var in self.var_labels and node.var not in self.untrusted:
            return set(self.var_labels[node.var])
        return set()


@dataclass
class SchemaCheckResult:
    problems: list[str]               # refusal reasons in the order the checks meet them; the first is shown
    cypher: str                       # the query with relationship directions fixed (as given when refused)
    fixes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


class SchemaCheck:
    """Checks queries against one `GraphSchema` (see the module docstring)."""

    def __init__(self, schema: GraphSchema):
        self.schema = schema

    def check(self, cypher: str, tokens: list[lx.Token] | None = None,
              notices: Iterable[tuple[str, str]] = ()) -> SchemaCheckResult:
        """`tokens` are `cypher`'s (tokenized here when not given); `notices` are the server's
        (GQL status code, description) pairs from EXPLAIN, which name unknown labels, types and
        properties outside patterns too (WHERE n:Foo, x.foo)."""
        tokens = lx.tokenize(cypher) if tokens is None else tokens
        query = _Query.read(tokens)
        problems = [*self._unknown_names(query), *self._unknown_properties(query, tokens),
                    *self._unknown_notified(notices)]
        if problems:
            return SchemaCheckResult(problems, cypher)
        edits, fixes = self._direction_fixes(query, tokens)
        return SchemaCheckResult([], lx.apply_edits(cypher, edits), fixes)

    @staticmethod
    def _unknown(kind: str, name: str, pool: set[str]) -> list[str]:
        if name in pool:
            return []
        listing = ", ".join(sorted(pool)) or "none: the graph is empty"
        sigil = ":" if kind != "property" else ""
        return [f"unknown {kind} {sigil}{name} (known: {listing})"]

    def _unknown_names(self, query: _Query) -> list[str]:
        problems = [p for nd in query.nodes for lab in nd.labels
                    for p in self._unknown("label", lab, self.schema.labels)]
        return problems + [p for rel in query.rels for t in rel.types
                           for p in self._unknown("relationship type", t, self.schema.rel_types)]

    def _unknown_keys(self, owners: set[str], keys: Iterable[str], is_rel: bool) -> list[str]:
        """Keys not among the owners' known properties; owners with no known list are not judged."""
        schema = self.schema
        if is_rel:
            pool = (set().union(*(schema.rel_properties.get(t, set()) for t in owners))
                    if any(t in schema.rel_properties for t in owners) else None)
        else:
            pool = schema.known_node_properties(owners)
        if pool is None:
            return []
        owner, listing = "|".join(sorted(owners)), ", ".join(sorted(pool)) or "none"
        return [f"unknown property {owner}.{key} (known: {listing})" for key in keys if key not in pool]

    def _unknown_properties(self, query: _Query, tokens: list[lx.Token]) -> list[str]:
        problems = []
        for nd in query.nodes:
            if nd.labels and nd.simple:
                problems += self._unknown_keys(set(nd.labels), [k for k, _ in nd.prop_keys], False)
        for rel in query.rels:
            if rel.simple:
                problems += self._unknown_keys(set(rel.types), [k for k, _ in rel.prop_keys], True)
        for idx in range(len(tokens) - 2):          # var.key outside patterns
            a, dot, b = tokens[idx], tokens[idx + 1], tokens[idx + 2]
            if lx.name_of(a) is None or not dot.is_punct(".") or lx.name_of(b) is None:
                continue
            if idx and (tokens[idx - 1].is_punct(".") or tokens[idx - 1].kind == lx.PARAM):
                continue
            if idx + 3 < len(tokens) and tokens[idx + 3].is_punct("("):
                continue                                        # namespaced function
            var = a.value
            if var in query.untrusted:
                continue
            if var in query.var_labels and var not in query.var_types:
                problems += self._unknown_keys(query.var_labels[var], [b.value], False)
            elif var in query.var_types and var not in query.var_labels:
                problems += self._unknown_keys(query.var_types[var], [b.value], True)
        return problems

    def _unknown_notified(self, notices: Iterable[tuple[str, str]]) -> list[str]:
        pools = {"label": self.schema.labels, "relationship type": self.schema.rel_types,
                 "property": self.schema.property_keys}
        problems = []
        for code, text in notices:
            kind = _UNKNOWN_NAME_NOTICES.get(code)
            if kind is None:
                continue
            m = re.search(r"`((?:[^`]|``)*)`", text or "")
            name = m.group(1).replace("``", "`") if m else "?"
            problems += self._unknown(kind, name, pools[kind] - {name})
        return problems

    def _direction_fixes(self, query: _Query, tokens: list[lx.Token]) -> tuple[list[tuple[int, int, str]], list[str]]:
        """Edits turning around each single-type relationship that the graph only has the other way."""
        edits: list[tuple[int, int, str]] = []
        fixes: list[str] = []
        for rel in query.rels:
            if not rel.simple or rel.direction == "--":
                continue
            left, right = query.end_labels(rel.left), query.end_labels(rel.right)
            if left is None or right is None or (not left and not right):
                continue
            start, end = (left, right) if rel.direction == "->" else (right, left)
            rtype = rel.types[0]
            if self.schema.fits(start, rtype, end) or not self.schema.fits(end, rtype, start):
                continue
            ls, le = tokens[rel.left_arrow[0]].start, tokens[rel.left_arrow[1]].end
            rs, re_ = tokens[rel.right_arrow[0]].start, tokens[rel.right_arrow[1]].end
            if rel.direction == "->":
                edits += [(ls, le, "<-"), (rs, re_, "-")]
            else:
                edits += [(ls, le, "-"), (rs, re_, "->")]
            fixes.append(f"relationship direction fixed: the graph has ({_labels(end)})-[:{rtype}]->({_labels(start)}), "
                         f"not ({_labels(start)})-[:{rtype}]->({_labels(end)})")
        return edits, fixes


def _labels(labels: set[str]) -> str:
    return ":" + "|".join(sorted(labels)) if labels else ""
