"""Clause-type quality on a folder of agreements: `python -m core eval classify DIR`.

Splits every .md/.txt agreement with the product's splitter, classifies the clauses with the
default (hybrid) classifier and the keyword baseline, and prints the type distribution per
classifier. With `--labels FILE` (JSON lines `{"file", "title", "type"}`, titles as the
splitter produces them, an optional "position" to tell apart equal titles) it also reports
the accuracy of both. With `--presence FILE` it scores agreement-level presence per type (does
the agreement contain such a provision anywhere: the gap-report question) of the product's full
multi-label typing against a reader's labels (core.evaluation.presence). No database is
involved: this measures the classifiers alone, on the same (title, text) pairs ingestion would
give them.
"""
from __future__ import annotations

from core.jsonl import read_jsonl

from collections import Counter
from pathlib import Path
from typing import Callable

from core.evaluation import slug, write_results
from core.errors import ClauseGraphError

CLASSIFIERS = {"default": "hybrid", "keyword": "keyword"}
SKIP_NAMES = {"readme", "license", "licence", "changelog"}


class ClassifyFormatError(ClauseGraphError, ValueError):
    """Bad folder or labels file; the message names the file and line."""


def read_agreements(root: Path) -> dict[str, list]:
    """file name -> ClauseDraft list, for the agreements directly in `root` (sorted)."""
    from core.ingest.reading import decode_bytes
    from core.ingest.cleaning import dedupe_clauses
    from core.ingest.splitter import split_contract

    if not root.is_dir():
        raise ClassifyFormatError(f"{root} is not a folder")
    out = {}
    for path in sorted(root.iterdir()):
        if path.suffix.lower() not in (".md", ".txt") or path.stem.lower() in SKIP_NAMES:
            continue
        try:
            text, _enc = decode_bytes(path.read_bytes())
        except (OSError, ValueError) as exc:
            raise ClassifyFormatError(f"{path}: cannot read ({exc})") from exc
        clauses, _dups = dedupe_clauses(split_contract(text).clauses)
        out[path.name] = clauses
    if not out:
        raise ClassifyFormatError(f"{root} has no .md or .txt agreements")
    return out


def load_labels(path: Path | str) -> list[dict]:
    path = Path(path)
    if not path.is_file():
        raise ClassifyFormatError(f"labels file {path} not found")
    from core.taxonomy import type_names

    names = set(type_names())
    rows = []
    for n, obj in read_jsonl(path, ClassifyFormatError, required=("file", "title", "type")):
        if obj["type"] not in names:
            raise ClassifyFormatError(f"{path}:{n}: unknown clause type {obj['type']!r} "
                                      f"(one of {', '.join(sorted(names))})")
        rows.append(dict(obj, line=n))
    return rows


def evaluate(root: Path | str, labels_path: Path | str | None = None, log: Callable[[str], None] = print,
             write: bool = True, presence_path: Path | str | None = None) -> dict:
    from core.ingest.classifier import evaluate as clf_evaluate, get_classifier
    from core.embeddings import get_embedder

    root = Path(root)
    agreements = read_agreements(root)
    labels = load_labels(labels_path) if labels_path else None
    items, keys = [], []
    for file, clauses in agreements.items():
        for d in clauses:
            items.append((d.title, d.text))
            keys.append((file, d.title, d.position))
    embedder = get_embedder()
    log(f"classifying {len(items)} clauses of {len(agreements)} agreements")
    # the exact text ingestion embeds for a clause
    vectors = embedder.encode([f"{t}. {x}" if t else x for t, x in items])
    preds = {name: get_classifier(clf).classify_many(items, vectors) for name, clf in CLASSIFIERS.items()}
    result: dict = {
        "dir": str(root), "agreements": len(agreements), "clauses": len(items),
        "distribution": {name: dict(Counter(p.type for p in ps).most_common()) for name, ps in preds.items()},
    }
    rows = [{"file": f, "title": t, "position": pos, **{name: preds[name][i].type for name in preds}}
            for i, (f, t, pos) in enumerate(keys)]
    if labels is not None:
        index: dict[tuple, list[int]] = {}
        for i, (f, t, _pos) in enumerate(keys):
            index.setdefault((f, t), []).append(i)
        gold_idx, gold, unmatched = [], [], []
        for lab in labels:
            hits = index.get((lab["file"], lab["title"]), [])
            if "position" in lab:
                hits = [i for i in hits if keys[i][2] == lab["position"]]
            if len(hits) != 1:
                unmatched.append({"line": lab["line"], "file": lab["file"], "title": lab["title"],
                                  "matches": len(hits)})
                continue
            gold_idx.append(hits[0])
            gold.append(lab["type"])
            rows[hits[0]]["gold"] = lab["type"]
        accuracy, per_type = {}, {}
        for name in preds:
            ev = clf_evaluate([preds[name][i] for i in gold_idx], gold)
            accuracy[name] = round(ev["accuracy"], 4)
            per_type[name] = {t: {k: round(v, 4) if isinstance(v, float) else v for k, v in m.items()}
                              for t, m in ev["per_type"].items()}
        result.update(labelled=len(gold), accuracy=accuracy, per_type=per_type, unmatched_labels=unmatched,
                      errors=[r for r in rows if "gold" in r and any(r[n] != r["gold"] for n in preds)])
    if presence_path is not None:
        result.update(_presence(presence_path, keys, items, vectors, preds["keyword"], embedder))
    if write:
        resolved = root.resolve()
        # corpus folders keep their agreements in contracts/: name the corpus, not the subfolder
        folder = resolved.parent.name if resolved.name == "contracts" else resolved.name
        name = f"classify-{slug(folder)}" + ("-presence" if presence_path is not None else "")
        path = write_results(name, dict(result, labels=str(Path(labels_path).resolve()) if labels_path else None,
                                        presence_labels=str(Path(presence_path).resolve()) if presence_path else None,
                                        clause_rows=rows))
        log(f"results written to {path}")
    return result


def _presence(presence_path, keys, items, vectors, keyword, embedder) -> dict:
    """Agreement-level presence of the product's typing (ClauseTyper: the section verdict joined
    with the provisions found, what ingestion stores) and of the keyword baseline."""
    from core.evaluation.presence import load_presence, score_presence
    from core.ingest.typing import get_clause_typer
    from core.taxonomy import OTHER, type_names

    types = [t for t in type_names() if t != OTHER]
    gold = load_presence(presence_path, types)
    typed = get_clause_typer().type_many(items, vectors, embedder)
    found: dict[str, dict[str, dict[str, set[str]]]] = {"default": {}, "keyword": {}}
    for (file, title, _pos), ct, kw in zip(keys, typed, keyword):
        for name, names in (("default", ct.types), ("keyword", [kw.type])):
            by_type = found[name].setdefault(file, {})
            for t in names:
                by_type.setdefault(t, set()).add(title or "(untitled)")
    return score_presence(gold, found, types)


def format_table(result: dict) -> str:
    names = list(result["distribution"])
    types = sorted({t for d in result["distribution"].values() for t in d},
                   key=lambda t: -max(result["distribution"][n].get(t, 0) for n in names))
    lines = [f"{result['agreements']} agreements, {result['clauses']} clauses ({result['dir']})", "",
             f"{'type':<18}" + "".join(f"{n:>10}" for n in names)]
    for t in types:
        lines.append(f"{t:<18}" + "".join(f"{result['distribution'][n].get(t, 0):>10}" for n in names))
    if "accuracy" in result:
        lines += ["", f"accuracy on {result['labelled']} labelled clauses: "
                  + ", ".join(f"{n} {result['accuracy'][n]:.1%}" for n in names)]
        if result["unmatched_labels"]:
            lines.append(f"{len(result['unmatched_labels'])} label(s) match no single clause: "
                         + "; ".join(f"line {u['line']} {u['title']!r}" for u in result["unmatched_labels"][:5]))
        if result["errors"]:
            lines.append("\nerrors (gold -> " + " / ".join(names) + "):")
            for r in result["errors"]:
                lines.append(f"- {r['file']} #{r['position']} {r['title']!r}: {r['gold']} -> "
                             + " / ".join(r[n] for n in names))
    if "presence" in result:
        lines += _presence_table(result, names)
    return "\n".join(lines)


def _presence_table(result: dict, names: list[str]) -> list[str]:
    pres = result["presence"]
    types = sorted({t for per in pres.values() for t in per})
    lines = ["", f"agreement-level presence on {result['agreements']} labelled agreements "
             "(F1; P/R; gold agreements):", f"{'type':<28}" + "".join(f"{n:>22}" for n in names)]
    for t in types:
        cells = []
        for n in names:
            m = pres[n].get(t)
            cells.append(f"{m['f1']:.2f} ({m['precision']:.2f}/{m['recall']:.2f}; {m['support']})" if m else "-")
        lines.append(f"{t:<28}" + "".join(f"{c:>22}" for c in cells))
    lines.append(f"{'mean F1 (types with gold)':<28}" + "".join(f"{result['mean_presence_f1'][n]:>22.3f}" for n in names))
    if result["unmatched_files"]:
        lines.append("labelled but not in the folder: " + ", ".join(result["unmatched_files"]))
    errs = [e for e in result["presence_errors"] if e["classifier"] == "default"]
    if errs:
        lines.append("\ndefault's disagreements:")
        for e in errs:
            why = f"gold: {e['gold_quote'][:90]!r}" if e["error"] == "missed" else "in " + "; ".join(e["clauses"])[:120]
            lines.append(f"- {e['error']:<8} {e['type']:<26} {e['file']}: {why}")
    return lines
