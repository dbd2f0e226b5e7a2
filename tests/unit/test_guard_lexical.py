"""The guard's parts that need no database: the lexer, gates 1-2 and the schema check (gate 4).

Gates 1-2 must stop every attack in tests/fixtures/guard_attacks.jsonl on their own and let
every read in guard_legit.jsonl by; the schema check runs on a hand-written `GraphSchema`.
What needs the server (EXPLAIN, the plan, the READ transaction, the live schema) is tested
against the real Neo4j in tests/test_guard.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.guard import lexer as lx
from core.guard.gates import CypherGuard
from core.guard.lexical import Refusal, check_tokens, lexical_refusal, read_statement
from core.guard.schema_check import GraphSchema, SchemaCheck

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ATTACKS = FIXTURES / "guard_attacks.jsonl"
LEGIT = FIXTURES / "guard_legit.jsonl"


def _load(path: Path) -> list[dict]:
    # split on "\n" only: a query may hold U+2028, which splitlines() would treat as a line end
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


# --- the lexer ---------------------------------------------------------------------------------

def test_lexer_understands_strings_comments_and_backticks():
    text = "MATCH (n:`My Label`) // DELETE here\nWHERE n.x = 'DETACH \\'DELETE\\' ;' /* SET */ RETURN $p, 1..3"
    toks = lx.tokenize(text)
    idents = [t.value for t in toks if t.kind == lx.IDENT]
    assert idents == ["MATCH", "n", "WHERE", "n", "x", "RETURN"]
    assert [t.value for t in toks if t.kind == lx.QUOTED] == ["My Label"]
    assert [t.value for t in toks if t.kind == lx.STRING] == ["DETACH 'DELETE' ;"]
    assert [t.value for t in toks if t.kind == lx.PARAM] == ["p"]
    assert [t.text for t in toks if t.kind == lx.NUMBER] == ["1", "3"]
    assert all(text[t.start:t.end] == t.text for t in toks)
    assert [t.value for t in lx.tokenize("RETURN `a``b`, \"x\\u0041\"")][1:4:2] == ["a`b", "xA"]


def test_lexer_rejects_unterminated_and_folds_lookalikes():
    for bad, what in (("RETURN 'x", "string"), ("RETURN 1 /* x", "comment"), ("RETURN `x", "backtick")):
        with pytest.raises(lx.CypherLexError, match=what):
            lx.tokenize(bad)
    assert lx.skeleton("ＤＥＬＥＴＥ") == "DELETE"
    assert lx.skeleton("DЕLETE") == "DELETE"        # Cyrillic Е
    assert lx.skeleton("ѕеt") == "SET"              # Cyrillic ѕ, е
    assert lx.skeleton("created_at") == "CREATED_AT"
    # a line comment ends at any line break a reader might honour, so nothing hides behind "\r"
    for brk in ("\n", "\r", "\u2028", "\x85"):
        assert [t.value for t in lx.tokenize(f"RETURN 1 // x{brk}DELETE n")] == ["RETURN", "1", "DELETE", "n"]


def test_lexer_reads_numbers_parameters_and_escapes():
    toks = lx.tokenize("RETURN 0x1F, 0o17, 1_000, 1.5e-3, 2e, 1..3, $0, $`odd name`, $ , 'a\\tb\\q\\u00e9'")
    assert [(t.kind, t.text) for t in toks if t.kind == lx.NUMBER] == [
        (lx.NUMBER, "0x1F"), (lx.NUMBER, "0o17"), (lx.NUMBER, "1_000"), (lx.NUMBER, "1.5e-3"),
        (lx.NUMBER, "2"), (lx.NUMBER, "1"), (lx.NUMBER, "3")]
    assert [t.value for t in toks if t.kind == lx.PARAM] == ["0", "odd name"]
    assert [t.text for t in toks if t.kind == lx.PUNCT and t.text == "$"] == ["$"]     # a lone "$"
    # an unknown escape keeps its backslash, so the decoded value never hides a character
    assert [t.value for t in toks if t.kind == lx.STRING] == ["a\tb\\qé"]
    err = pytest.raises(lx.CypherLexError, lx.tokenize, "RETURN 1,\n  'open")
    assert "line 2, column 3" in str(err.value) and err.value.offset == 12


def test_apply_edits_uses_original_offsets_and_keeps_the_rest():
    text = "MATCH (a)-[:R]->(b) /* keep */ RETURN a"
    toks = lx.tokenize(text)
    arrow = next(t for t in toks if t.text == ">")
    out = lx.apply_edits(text, [(toks[-1].end, toks[-1].end, " LIMIT 5"), (arrow.start, arrow.end, "")])
    assert out == "MATCH (a)-[:R]-(b) /* keep */ RETURN a LIMIT 5"


# --- gates 1 and 2 -----------------------------------------------------------------------------

def test_attack_file_is_big_and_varied():
    attacks = _load(ATTACKS)
    assert len(attacks) >= 40
    text = "\n".join(a["cypher"] for a in attacks)
    for needle in ("DETACH DELETE", "MERGE", "SET ", "REMOVE", "FOREACH", "file:///etc/passwd", "http://",
                   "dbms.", "apoc.load.json", "apoc.cypher.runWrite", "apoc.periodic.iterate", "SHOW USERS",
                   "CREATE INDEX", "DROP CONSTRAINT", "IN TRANSACTIONS", "/*", "//", "ＤＥＬＥＴＥ", "DЕLЕTЕ",
                   "USE system", "db.createLabel", "mAtCh"):
        assert needle in text, needle


def test_legit_file_is_big_and_varied():
    legit = _load(LEGIT)
    assert len(legit) >= 20
    text = "\n".join(item["cypher"] for item in legit)
    for needle in ("db.index.vector.queryNodes", "db.index.fulltext.queryNodes", "OPTIONAL MATCH", "count(k) AS n WHERE n = 0",
                   "CONTAINS 'DELETE'", "created_at", "'a;b'", "//", "`Company`", "UNWIND", "WITH", "ORDER BY",
                   "COUNT {", "EXISTS {", "COLLECT {"):
        assert needle in text, needle


def test_offline_gates_alone_refuse_every_attack_and_pass_every_read():
    """Gates 1-2 need no database; they must stop all the attacks on their own and let honest reads by."""
    guard = CypherGuard(db=None)        # lexical_refusal never touches the database
    for item in _load(ATTACKS):
        assert lexical_refusal(item["cypher"]), item
        assert guard.lexical_refusal(item["cypher"]) == lexical_refusal(item["cypher"]), item
    for item in _load(LEGIT):
        assert lexical_refusal(item["cypher"]) is None, item
        assert guard.lexical_refusal(item["cypher"]) is None, item


def test_lexical_reasons_name_the_problem():
    cases = {
        "": "empty query",
        "// only a comment": "empty query (only comments)",
        "RETURN 'x": "cannot read the query: unterminated string literal at line 1, column 8",
        "MATCH (n) /* */ DETACH DELETE n": "DETACH DELETE",
        "MATCH (n) // read\nDETACH DELETE n": "DETACH DELETE",
        "MATCH (n) RETURN n; MATCH (m) DELETE m": "multiple statements",
        "MATCH (n) ＤＥＬＥＴＥ n": "imitates the keyword DELETE",
        "MATCH (n) DЕLETE n": "imitates the keyword DELETE",
        "MATCH (n) RETURN n.naïve": "non-ASCII identifier 'naïve': put such names in backticks",
        "MATCH (n) RETURN n；": "unexpected character '；'",
        "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l": "LOAD CSV",
        "CALL apoc.load.json('x') YIELD value RETURN value": "procedure apoc.load.json is not allowed",
        "RETURN apoc.text.join(['a'], ',')": "function apoc.text.join() is not allowed",
        "RETURN `toUpper`('a')": "function toUpper() is not allowed",
        "CALL db.createLabel('X')": "procedure db.createLabel is not allowed",
        "USE system MATCH (n) RETURN n": "USE",
        "SHOW USERS": "SHOW",
        "STOP DATABASE neo4j": "an admin command (STOP DATABASE)",
        "DROP CONSTRAINT company_name": "DROP",
        "MATCH (n) CALL { WITH n DELETE n } IN TRANSACTIONS": "not read-only",
        "MATCH (n) RETURN n UNION": "the query ends with UNION",
        "(n) RETURN n": "a query must start with MATCH",
    }
    for cypher, expected in cases.items():
        reason = lexical_refusal(cypher)
        assert reason is not None and expected in reason, (cypher, reason)


def test_honest_reads_pass_and_a_trailing_semicolon_is_dropped():
    cypher, tokens = read_statement("MATCH (c:Company {set: 1}) WHERE c.delete = 'DROP' RETURN c.name AS n;;")
    assert cypher == "MATCH (c:Company {set: 1}) WHERE c.delete = 'DROP' RETURN c.name AS n"
    check_tokens(tokens)                    # map keys and property names may be spelled like keywords
    for ok in ("MATCH (n:(A|B)) RETURN count(n)", "RETURN toUpper('a'), date.truncate('month', date())",
               "MATCH (a) RETURN a.x UNION ALL MATCH (b) RETURN b.x",
               "CALL db.index.fulltext.queryNodes('clause_text', $q) YIELD node RETURN node.id"):
        assert lexical_refusal(ok) is None, ok
    with pytest.raises(Refusal, match="write clause \\(MERGE\\)"):
        check_tokens(lx.tokenize("MATCH (a) MERGE (a)-[:R]->(b)"))


# --- gate 4: the schema check on a hand-written schema -----------------------------------------

SCHEMA = GraphSchema.from_patterns(
    [("Company", "HAS_SLA", "SLA"), ("SLA", "HAS_CLAUSE", "Clause"), ("Clause", "OF_TYPE", "ClauseType"),
     ("Company", "LOCATED_AT", "Address"), ("Clause", "NEXT", "Clause")],
    {"Company": ["name", "country", "spend_2024"], "SLA": ["id", "effective_date"], "Clause": ["id", "text"],
     "ClauseType": ["name"], "Address": ["city"]},
    {"OF_TYPE": ["confidence", "method"]})


def _check(cypher: str, notices=()):
    return SchemaCheck(SCHEMA).check(cypher, notices=notices)


def test_schema_check_passes_a_fitting_query_unchanged():
    cypher = "MATCH (c:Company)-[:HAS_SLA]->(s:SLA) WHERE s.effective_date > $d RETURN c.name, s.id"
    result = _check(cypher)
    assert result.ok and result.cypher == cypher and result.fixes == []


def test_schema_check_lists_the_known_names_for_an_unknown_one():
    result = _check("MATCH (c:Supplier)-[:SUPPLIES]->(s:SLA) RETURN c.name")
    assert result.problems == [
        "unknown label :Supplier (known: Address, Clause, ClauseType, Company, SLA)",
        "unknown relationship type :SUPPLIES (known: HAS_CLAUSE, HAS_SLA, LOCATED_AT, NEXT, OF_TYPE)"]
    assert _check("MATCH (c:Company) WHERE c.start_date > 2023 RETURN c").problems == [
        "unknown property Company.start_date (known: country, name, spend_2024)"]
    assert _check("MATCH (c:Company {headquarters: 'x'}) RETURN c").problems[0].startswith(
        "unknown property Company.headquarters")
    assert "unknown property OF_TYPE.score" in _check("MATCH (k:Clause)-[r:OF_TYPE]->(t) WHERE r.score > 1 RETURN k").problems[0]
    assert not _check("MATCH (c:Company) RETURN c.city").ok                     # city is an Address property


def test_schema_check_does_not_judge_rebound_names_or_map_keys():
    assert _check("MATCH (c:Company) WITH {city: c.country} AS m RETURN m.city").ok
    assert _check("MATCH (c:Company) WITH c.name AS c RETURN c.anything").ok            # c rebound by AS
    assert _check("MATCH (a:Address) UNWIND [1] AS a RETURN a.x").ok                  # rebound by UNWIND ... AS
    assert _check("MATCH (n) RETURN n.whatever").ok                                   # no label: nothing to judge


def test_schema_check_turns_a_relationship_around_and_keeps_comments():
    result = _check("MATCH (c:Clause)-[:HAS_CLAUSE]->(s:SLA {id: $id}) /* mine */ RETURN c.id")
    assert result.ok
    assert result.cypher == "MATCH (c:Clause)<-[:HAS_CLAUSE]-(s:SLA {id: $id}) /* mine */ RETURN c.id"
    assert result.fixes == ["relationship direction fixed: the graph has (:SLA)-[:HAS_CLAUSE]->(:Clause), "
                            "not (:Clause)-[:HAS_CLAUSE]->(:SLA)"]
    # one end known only through its variable; NEXT (both ways possible) is left alone
    chain = _check("MATCH (t:ClauseType) MATCH (t)-[:OF_TYPE]->(k)<-[:HAS_CLAUSE]-(s:SLA) "
                   "MATCH (a:Clause)-[:NEXT]->(b:Clause) RETURN k.id")
    assert "(t)<-[:OF_TYPE]-(k)<-[:HAS_CLAUSE]-(s:SLA)" in chain.cypher and len(chain.fixes) == 1
    # a refused query is not rewritten
    refused = _check("MATCH (c:Clause)-[:HAS_CLAUSE]->(s:Agreement) RETURN c")
    assert not refused.ok and refused.cypher.startswith("MATCH (c:Clause)-[:HAS_CLAUSE]->") and refused.fixes == []


def test_schema_check_words_the_servers_unknown_name_notices():
    notices = [("01N00", "some other notice"), ("01N50", "The label `Vendor` does not exist."),
               ("01N52", "The property `start_date` does not exist.")]
    result = _check("MATCH (n) WHERE n:Vendor RETURN n", notices)
    assert result.problems == [
        "unknown label :Vendor (known: Address, Clause, ClauseType, Company, SLA)",
        "unknown property start_date (known: city, confidence, country, effective_date, id, method, name, "
        "spend_2024, text)"]
