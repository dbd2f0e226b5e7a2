"""`python -m core eval terms DIR`: extracted contract terms against labelled values.

Two kinds of DIR:
* a CUAD folder (`labels.csv` + `contracts/`): the columns Agreement Date, Effective Date, Expiration
  Date, Renewal Term, Notice Period to Terminate Renewal and Governing Law, CUAD's normalised answers
  (dates m/d/yyyy with `[]` for a part the contract leaves open);
* a corpus folder (DESIGN §3 format) with `--gold FILE.jsonl` (eval/terms/LABELS.md): every field.

Per field: `n` labelled contracts, `accuracy` = values equal to the label / n, `coverage` = contracts
with a value / n. Values are compared as what they mean, not as strings: dates by their parts,
durations by their length (12 months = 1 year), a jurisdiction by its first place name ("Ontario" =
"Province of Ontario, Canada"), a cap of 12 months of fees = 1x annual fees. A label listing several
values ("60 days; 180 days") is met by any of them. Contracts are read with the product's own reader
and splitter and the extractor ingestion uses (core/ingest/terms.py); no database is needed.
"""
from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

from core.errors import ClauseGraphError
from core.ingest.reading import read_corpus, split_file
from core.ingest.terms import FIELDS, Term, extract_terms, passages_of
from core.jsonl import read_jsonl
from core.term_values import find_durations, place_key

CUAD_COLUMNS = {"Agreement Date": "agreement_date", "Effective Date": "effective_date",
                "Expiration Date": "expiration_date", "Renewal Term": "renewal_term",
                "Notice Period to Terminate Renewal": "renewal_notice", "Governing Law": "governing_law"}


def terms_of_file(path: Path) -> list[Term]:
    split, clauses = split_file(path)
    return extract_terms(passages_of(split.preamble, clauses))


# ------------------------------------------------------------------------------ comparing values

def _date_parts(value: str) -> tuple | None:
    """(year, month, day) with None for an open part, from ISO ("2010-06", "2010-06-08") or CUAD's
    m/d/yyyy ("03/[]/2018")."""
    value = value.strip()
    if m := re.fullmatch(r"(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", value):
        return tuple(int(x) if x else None for x in m.groups())
    if m := re.fullmatch(r"(\d{1,2}|\[\])/(\d{1,2}|\[\])/(\d{4})", value):
        mo, d, y = (None if x == "[]" else int(x) for x in m.groups())
        return (y, mo, d)
    return None


def _duration_key(value: str) -> tuple | None:
    found = find_durations(value.replace("[]", ""))
    if not found:
        return None
    d = found[0].value
    if d.unit in ("month", "year"):
        return ("month", d.amount * (12 if d.unit == "year" else 1))
    return (d.unit, d.amount) if d.unit != "week" else ("day", d.amount * 7)


def _place_key(value: str) -> str:
    return place_key(value)


def _cap_key(value: str) -> tuple | None:
    v = value.lower().strip()
    if v == "uncapped":
        return ("uncapped",)
    if m := re.match(r"(\d+(?:\.\d+)?) months? of fees", v):
        return ("annual", round(float(m.group(1)) / 12, 3))
    if m := re.match(r"(\d+(?:\.\d+)?)x annual fees", v):
        return ("annual", float(m.group(1)))
    if m := re.match(r"(\d+(?:\.\d+)?)x (total )?fees", v):
        return ("fees", float(m.group(1)))
    if m := re.match(r"amount ([a-z]{3}) (\d+(?:\.\d+)?)", v):
        return ("amount", m.group(1), float(m.group(2)))
    return (v,)


def _cap_same(a: str, b: str) -> bool:
    ka, kb = _cap_key(a), _cap_key(b)
    if ka == kb:
        return True
    # "1x fees" said of a yearly contract is read as 1x annual fees by some labellers
    return len(ka) == 2 and len(kb) == 2 and {ka[0], kb[0]} == {"annual", "fees"} and ka[1] == kb[1]


def same_value(field: str, predicted: str, gold: str) -> bool:
    """Does the extracted value mean what the label says? Any of a label's ';'-separated values."""
    options = [g.strip() for g in re.split(r";", gold) if g.strip()] or [gold]
    if field == "governing_law":
        return any(_place_key(predicted) == _place_key(g) for g in [gold] + options)
    return any(_same_one(field, predicted, g) for g in options)


def _same_one(field: str, predicted: str, gold: str) -> bool:
    p, g = predicted.strip().lower(), gold.strip().lower()
    if p == g:
        return True
    if field.endswith("_date"):
        if "perpetual" in (p, g) or "perpetual" in g:
            return p == "perpetual" and "perpetual" in g
        return _date_parts(p) is not None and _date_parts(p) == _date_parts(g)
    if field in ("initial_term", "renewal_term", "renewal_notice", "convenience_notice"):
        return _duration_key(p) is not None and _duration_key(p) == _duration_key(g)
    if field == "liability_cap":
        return _cap_same(p, g)
    if field in ("uptime", "payment_days"):
        try:
            return abs(float(p) - float(g)) < 1e-9
        except ValueError:
            return False
    return False


# ------------------------------------------------------------------------------ scoring

def score(items: list[tuple[str, dict[str, str], dict[str, Term]]], fields) -> dict:
    """items: (contract, labels by field, extracted terms by field)."""
    result = {"contracts": len(items), "fields": {}, "misses": defaultdict(list)}
    for field in fields:
        n = hits = covered = 0
        for name, labels, terms in items:
            gold = labels.get(field, "").strip()
            if not gold:
                continue
            n += 1
            term = terms.get(field)
            covered += term is not None
            if term is not None and same_value(field, term.value, gold):
                hits += 1
            else:
                result["misses"][field].append({"contract": name, "gold": gold,
                                                "got": term.value if term else None,
                                                "quote": term.quote[:160] if term else None})
        result["fields"][field] = {"n": n, "accuracy": round(hits / n, 3) if n else None,
                                   "coverage": round(covered / n, 3) if n else None}
    result["misses"] = dict(result["misses"])
    return result


def evaluate_cuad(root: Path | str, limit: int | None = None) -> dict:
    root = Path(root)
    labels_path = root / "labels.csv"
    if not labels_path.is_file() or not (root / "contracts").is_dir():
        raise ClauseGraphError(f"{root}: not a CUAD folder (needs labels.csv and contracts/)")
    with labels_path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    missing = [c for c in ("file", *CUAD_COLUMNS) if rows and c not in rows[0]]
    if missing:
        raise ClauseGraphError(f"{labels_path}: missing column {missing[0]!r}")
    items = []
    for row in rows[:limit]:
        path = root / "contracts" / row["file"]
        if not path.is_file():
            raise ClauseGraphError(f"{labels_path}: contract {row['file']!r} not found in {root / 'contracts'}")
        terms = {t.field: t for t in terms_of_file(path)}
        labels = {field: row[col] for col, field in CUAD_COLUMNS.items()}
        items.append((row["file"], labels, terms))
    out = score(items, list(CUAD_COLUMNS.values()))
    out["fields"] = {col: out["fields"][field] for col, field in CUAD_COLUMNS.items()}
    return out


def evaluate_corpus(root: Path | str, gold_path: Path | str, languages: dict[str, str] | None = None) -> dict:
    """A corpus folder against labels in eval/terms/LABELS.md form; figures for all, and for Chinese
    and English contracts apart."""
    from core.zh_script import cjk_share

    corpus = read_corpus(root)
    labels: dict[str, dict[str, str]] = defaultdict(dict)
    for line_no, rec in read_jsonl(gold_path, ClauseGraphError):
        if rec.get("field") not in FIELDS:
            raise ClauseGraphError(f"{gold_path}:{line_no}: unknown field {rec.get('field')!r}")
        labels[rec["sla_id"]][rec["field"]] = str(rec["value"])
    items, zh, en = [], [], []
    for agr in corpus.agreements:
        contract = corpus.texts.get(agr.sla_id)
        if contract is None:
            continue
        terms = {t.field: t for t in extract_terms(passages_of(contract.split.preamble, contract.clauses))}
        item = (agr.sla_id, labels.get(agr.sla_id, {}), terms)
        items.append(item)
        (zh if cjk_share(contract.text) > 0.3 else en).append(item)
    out = score(items, FIELDS)
    out["zh"] = score(zh, FIELDS)["fields"] if zh else {}
    out["en"] = score(en, FIELDS)["fields"] if en else {}
    return out


def format_table(result: dict) -> str:
    lines = [f"{'field':<38} {'n':>4} {'accuracy':>9} {'coverage':>9}"]
    for field, r in result["fields"].items():
        acc = "-" if r["accuracy"] is None else f"{r['accuracy']:.1%}"
        cov = "-" if r["coverage"] is None else f"{r['coverage']:.1%}"
        lines.append(f"{field:<38} {r['n']:>4} {acc:>9} {cov:>9}")
    lines.append(f"contracts: {result['contracts']}")
    return "\n".join(lines)
