"""Provision sentences one at a time: `python -m core eval sentences FILE`.

CUAD labels whole contracts of one kind (SEC filings); a reader of provisions should also find a provision worded
in ways the dev split never used. This scores single sentences someone wrote and labelled: for each sentence and
its type, does the product's provision reading (the provision model's confident labels joined with the wording
readers, core.ingest.wording, exactly as ingestion reads a clause) find that type in it? Positives measure recall,
labelled negatives (sentences that share the type's words but are not the provision) the false alarms. The file is
JSON lines:

    {"id": "ex-p01", "type": "Exclusivity", "label": true, "text": "Distributor shall be the sole ...", "lang": "en"}
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Callable

from core.errors import ClauseGraphError
from core.jsonl import read_jsonl

READINGS = ("model", "readers", "default")


class SentencesFormatError(ClauseGraphError, ValueError):
    """Bad labelled-sentences file; the message names the file and line."""


def load_sentences(path: Path | str, type_names: set[str]) -> list[dict]:
    path = Path(path)
    if not path.is_file():
        raise SentencesFormatError(f"labelled sentences file {path} not found")
    rows = []
    for n, obj in read_jsonl(path, SentencesFormatError, required=("id", "type", "text")):
        if obj["type"] not in type_names:
            raise SentencesFormatError(f"{path}:{n}: unknown clause type {obj['type']!r}")
        if not isinstance(obj["label"], bool) or not str(obj["text"]).strip():
            raise SentencesFormatError(f"{path}:{n}: 'label' must be true or false and 'text' not empty")
        rows.append({"id": str(obj["id"]), "type": obj["type"], "label": obj["label"], "text": str(obj["text"]),
                     "lang": str(obj.get("lang", "")), "line": n})
    return rows


def read_one(rows: list[dict]) -> list[dict[str, bool]]:
    """Per sentence, whether each reading finds the sentence's type in it."""
    from core.ingest.provisions import get_provision_classifier
    from core.ingest.wording import RULES, in_so_many_words

    labels = get_provision_classifier().label_many([("", r["text"]) for r in rows])
    out = []
    for row, labs in zip(rows, labels):
        t = row["type"]
        model = any(lab.type == t and lab.confident for lab in labs)
        readers = any(rule.type == t and rule.reads(row["text"]) for rule in RULES)
        joined = any(lab.type == t and lab.confident for lab in in_so_many_words(row["text"], "", labs))
        out.append({"model": model, "readers": readers, "default": joined})
    return out


def evaluate(path: Path | str, log: Callable[[str], None] = print, write: bool = True) -> dict:
    from core.evaluation import write_results
    from core.taxonomy import load_taxonomy

    rows = load_sentences(path, {t.name for t in load_taxonomy()})
    log(f"reading {len(rows)} labelled sentences")
    found = read_one(rows)
    per_type: dict[str, dict] = defaultdict(lambda: {"positives": 0, "negatives": 0,
                                                     **{f"{r}_found": 0 for r in READINGS},
                                                     **{f"{r}_false": 0 for r in READINGS}})
    missed, false_alarms = [], []
    for row, got in zip(rows, found):
        cell = per_type[row["type"]]
        cell["positives" if row["label"] else "negatives"] += 1
        for reading in READINGS:
            cell[f"{reading}_{'found' if row['label'] else 'false'}"] += got[reading]
        if row["label"] and not got["default"]:
            missed.append({"id": row["id"], "type": row["type"], "text": row["text"]})
        if not row["label"] and got["default"]:
            false_alarms.append({"id": row["id"], "type": row["type"], "text": row["text"]})
    totals = {k: sum(c[k] for c in per_type.values()) for k in next(iter(per_type.values()), {})}
    recall = {r: round(totals[f"{r}_found"] / totals["positives"], 4) if totals.get("positives") else 0.0
              for r in READINGS}
    result = {"file": str(Path(path).resolve()), "sentences": len(rows), "per_type": dict(per_type), "totals": totals,
              "recall": recall, "missed": missed, "false_alarms": false_alarms}
    if write:
        from core.evaluation import slug

        log(f"results written to {write_results(f'sentences-{slug(Path(path).stem)}', result)}")
    return result


def format_table(result: dict) -> str:
    lines = [f"{result['sentences']} labelled sentences: found among positives / false among negatives",
             f"{'type':<30}{'pos':>5}{'neg':>5}" + "".join(f"{r:>16}" for r in READINGS)]
    for t, c in result["per_type"].items():
        cells = [f"{c[f'{r}_found']} / {c[f'{r}_false']}" for r in READINGS]
        lines.append(f"{t:<30}{c['positives']:>5}{c['negatives']:>5}" + "".join(f"{x:>16}" for x in cells))
    tot = result["totals"]
    lines.append(f"{'all':<30}{tot.get('positives', 0):>5}{tot.get('negatives', 0):>5}"
                 + "".join(f"{tot.get(f'{r}_found', 0)} / {tot.get(f'{r}_false', 0)}".rjust(16) for r in READINGS))
    lines.append("recall: " + ", ".join(f"{r} {v:.1%}" for r, v in result["recall"].items()))
    return "\n".join(lines)
