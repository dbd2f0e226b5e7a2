"""Which clause types the planner reads into a question: `python -m core eval routing FILE`.

The question sets (`eval questions`) score answers over a corpus, so a question routed to the
wrong type and one answered wrongly by the right type look alike there. This scores the planner
alone, with no database: for each labelled question, the clause types it links (the types asked
for, and those a gap question requires) against the types someone wrote down as what a correct
answer must look at. Questions that describe a provision in their own words ("which suppliers are
barred from working for our rivals?") test the linking by meaning; questions about no clause type
("which suppliers do we spend the most with?") test that none is read into them. The file is
JSON lines:

    {"id": "ra01", "question": "Which vendors can we drop without giving a reason?",
     "types": ["Termination for Convenience"]}
    {"id": "ra02", "question": "Can Nordhaven Freight pass the agreement on to another firm?",
     "types": ["Assignment"], "companies": ["Nordhaven Freight"]}

The vocabulary (companies, countries, agreements) is a corpus folder's, read from its files
(default: the demo corpus), as ingestion would store it, with the companies the questions name
("companies", optional) added as suppliers the graph holds: a question about one supplier is
planned as it would be once that supplier's agreement is loaded.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Callable

from core.errors import ClauseGraphError
from core.jsonl import read_jsonl


class RoutingFormatError(ClauseGraphError, ValueError):
    """Bad labelled-questions file; the message names the file and line."""


def load_questions(path: Path | str, type_names: set[str]) -> list[dict]:
    path = Path(path)
    if not path.is_file():
        raise RoutingFormatError(f"labelled questions file {path} not found")
    rows = []
    for n, obj in read_jsonl(path, RoutingFormatError, required=("id", "question")):
        types = obj.get("types")
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise RoutingFormatError(f"{path}:{n}: 'types' must be a list of clause type names")
        unknown = [t for t in types if t not in type_names]
        if unknown:
            raise RoutingFormatError(f"{path}:{n}: unknown clause type {unknown[0]!r}")
        companies = obj.get("companies", [])
        if not isinstance(companies, list) or not all(isinstance(c, str) and c.strip() for c in companies):
            raise RoutingFormatError(f"{path}:{n}: 'companies' must be a list of company names")
        rows.append({"id": str(obj["id"]), "question": str(obj["question"]), "types": types, "companies": companies,
                     "line": n})
    return rows


def corpus_vocabulary(root: Path | str, more_companies: list[str] = ()):
    """The vocabulary a corpus folder gives once ingested (companies, cities, agreements, spend
    years, every taxonomy type), read from its files without a database; `more_companies` are
    added as suppliers with one agreement each and nothing else known."""
    from core.graph.vocabulary import Vocabulary
    from core.ingest.reading import read_corpus
    from core.taxonomy import load_taxonomy

    corpus = read_corpus(root)
    cities: dict[str, list[str]] = defaultdict(list)
    for a in corpus.addresses:
        cities[a.company].append(a.city)
    companies = [{"name": c.name, "aliases": list(c.aliases), "country": c.country, "industry": c.industry,
                  "cities": cities.get(c.name, [])} for c in corpus.companies]
    agreements = [{"id": a.sla_id, "company": a.company, "governing_law": a.governing_law,
                   "service_name": a.service_name} for a in corpus.agreements]
    known = {c["name"].lower() for c in companies}
    for i, name in enumerate(dict.fromkeys(n for n in more_companies if n.lower() not in known), start=1):
        companies.append({"name": name, "aliases": [], "country": "", "industry": "", "cities": []})
        agreements.append({"id": f"Q-{i:03d}", "company": name, "governing_law": "", "service_name": ""})
    return Vocabulary(companies=companies, agreements=agreements,
                      clause_types=[t.name for t in load_taxonomy() if not t.is_catch_all],
                      spend_years=sorted({s.year for s in corpus.spend}),
                      spend_categories=sorted({s.category for s in corpus.spend if s.category}),
                      base_currency=corpus.base_currency)


def linked_types(plan) -> list[str]:
    """The clause types a plan looks at: those asked for and those a gap question requires."""
    return list(dict.fromkeys(list(plan.params.types or []) + list(plan.params.present_types or [])))


def evaluate(path: Path | str, corpus: Path | str | None = None, log: Callable[[str], None] = print,
             write: bool = True) -> dict:
    from core.config import PROJECT_ROOT
    from core.evaluation import slug, write_results
    from core.retrieval.planner import plan_question
    from core.taxonomy import load_taxonomy

    rows = load_questions(path, {t.name for t in load_taxonomy()})
    vocab = corpus_vocabulary(corpus or PROJECT_ROOT / "data" / "demo", [c for r in rows for c in r["companies"]])
    log(f"planning {len(rows)} labelled questions")
    per_type: dict[str, dict] = defaultdict(lambda: {"asked": 0, "linked": 0, "wrong": 0})
    totals = {"typed": 0, "typed_right": 0, "typed_missed": 0, "typed_wrong": 0,
              "untyped": 0, "untyped_right": 0}
    errors = []
    for row in rows:
        got = linked_types(plan_question(row["question"], vocab))
        gold = row["types"]
        wrong = [t for t in got if t not in gold]
        for t in gold:
            per_type[t]["asked"] += 1
            per_type[t]["linked"] += t in got
        for t in wrong:
            per_type[t]["wrong"] += 1
        if gold:
            totals["typed"] += 1
            totals["typed_right"] += set(got) == set(gold)
            totals["typed_missed"] += not got
            totals["typed_wrong"] += bool(wrong)
        else:
            totals["untyped"] += 1
            totals["untyped_right"] += not got
        if set(got) != set(gold):
            errors.append({"id": row["id"], "question": row["question"], "expected": gold, "linked": got})
    result = {"file": str(Path(path).resolve()), "questions": len(rows), "totals": totals,
              "accuracy": round((totals["typed_right"] + totals["untyped_right"]) / max(1, len(rows)), 4),
              "per_type": dict(sorted(per_type.items())), "errors": errors}
    if write:
        log(f"results written to {write_results(f'routing-{slug(Path(path).stem)}', result)}")
    return result


def format_table(result: dict) -> str:
    t = result["totals"]
    lines = [f"{result['questions']} labelled questions: {result['accuracy']:.1%} linked exactly the types written down",
             f"  about a type: {t['typed_right']} / {t['typed']} exactly right, {t['typed_missed']} linked none, "
             f"{t['typed_wrong']} linked a type not asked",
             f"  about no type: {t['untyped_right']} / {t['untyped']} linked none",
             f"{'type':<30}{'asked':>7}{'linked':>8}{'wrong':>7}"]
    for name, c in result["per_type"].items():
        lines.append(f"{name:<30}{c['asked']:>7}{c['linked']:>8}{c['wrong']:>7}")
    for e in result["errors"]:
        lines.append(f"  {e['id']}: {e['question']}  expected {e['expected'] or 'none'}, linked {e['linked'] or 'none'}")
    return "\n".join(lines)
