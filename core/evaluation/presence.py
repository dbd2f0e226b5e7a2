"""Agreement-level type presence against a reader's labels: `eval classify DIR --presence FILE`.

The gap report asks one thing per agreement and type: does the agreement contain such a
provision anywhere? CUAD measures that on SEC filings; this measures it on any folder of
agreements (supplier contracts, public templates, Chinese contracts) that someone labelled by
reading them. The gold file is JSON lines, one per agreement:

    {"file": "acme-sla.md", "present": {"Insurance": "Supplier shall maintain ..."},
     "borderline": {"Warranty": "... -- only a disclaimer"}}

Types in neither map are absent; borderline ones are left out of the scoring (reasonable
readers could disagree). The product's answer for an agreement is the union of its clauses'
confident types (ClauseTyper, exactly what ingestion stores and the gap queries read); the
keyword baseline's is the union of its one type per clause.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from core.errors import ClauseGraphError
from core.jsonl import read_jsonl


class PresenceFormatError(ClauseGraphError, ValueError):
    """Bad presence labels file; the message names the file and line."""


def load_presence(path: Path | str, type_names: Sequence[str]) -> list[dict]:
    """Rows {file (base name), present {type: quote}, borderline {type: note}, line}."""
    path = Path(path)
    if not path.is_file():
        raise PresenceFormatError(f"presence labels file {path} not found")
    names = set(type_names)
    rows = []
    for n, obj in read_jsonl(path, PresenceFormatError, required=("file",)):
        present, borderline = obj.get("present"), obj.get("borderline") or {}
        if not isinstance(present, dict) or not isinstance(borderline, dict):
            raise PresenceFormatError(f"{path}:{n}: 'present' (required) and 'borderline' must be objects "
                                      "(type -> quote)")
        for t in (*present, *borderline):
            if t not in names:
                raise PresenceFormatError(f"{path}:{n}: unknown clause type {t!r} (one of {', '.join(sorted(names))})")
        rows.append({"file": Path(str(obj["file"])).name, "present": present, "borderline": borderline, "line": n})
    return rows


def score_presence(gold_rows: Sequence[dict], found: dict[str, dict[str, dict[str, set[str]]]],
                   types: Sequence[str]) -> dict:
    """`found`: classifier -> file -> type -> titles of the clauses that carry it. Per type and
    classifier: precision / recall / F1 over the labelled agreements, borderline pairs left out;
    every disagreement listed with the gold quote or the clauses that carried the type."""
    from core.evaluation.cuad import prf

    rows = [r for r in gold_rows if any(r["file"] in by_file for by_file in found.values())]
    missing = sorted({r["file"] for r in gold_rows} - {r["file"] for r in rows})
    presence: dict[str, dict] = {}
    errors: list[dict] = []
    for name, by_file in found.items():
        presence[name] = {}
        for t in types:
            gold, pred = {}, {}
            for r in rows:
                if t in r["borderline"]:
                    continue
                gold[r["file"]] = t in r["present"]
                carried = by_file.get(r["file"], {}).get(t, set())
                pred[r["file"]] = bool(carried)
                if gold[r["file"]] != pred[r["file"]]:
                    errors.append({"classifier": name, "file": r["file"], "type": t,
                                   "error": "missed" if gold[r["file"]] else "spurious",
                                   "gold_quote": r["present"].get(t), "clauses": sorted(carried)})
            if any(gold.values()) or any(pred.values()):
                presence[name][t] = prf(pred, gold)
    # the mean over the types some agreement has (a type no one labelled has no F1 to speak of;
    # predicting it anyway still shows as spurious errors and in that type's precision)
    means = {}
    for name, per in presence.items():
        f1s = [m["f1"] for m in per.values() if m["support"]]
        means[name] = round(sum(f1s) / len(f1s), 4) if f1s else 0.0
    return {"agreements": len(rows), "unmatched_files": missing, "presence": presence,
            "mean_presence_f1": means, "presence_errors": errors}
