"""The question bank (`eval/bank/`): labelled questions written by several independent writers.

Each batch file is one writer's (`batch-NN-<voice>.jsonl`), in the shape `eval/bank/SPEC.md`
describes. The bank trains the question reader (`python -m core train-reader`) and measures it
writer by writer (`python -m core eval reader`): a writer's whole batch is held out at a time, so
the figures say how the reader does on a way of asking it never saw. The two seed batches carry
clause types only (no intent, target or polarity): they train and test the type head alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from core.config import PROJECT_ROOT
from core.errors import ClauseGraphError
from core.jsonl import read_jsonl
from core.retrieval.reader import INTENTS, POLARITIES, TARGETS

BANK_DIR = PROJECT_ROOT / "eval" / "bank"
FILTER_KEYS = ("companies", "places", "industries", "laws", "dates", "spend", "years")
_BATCH = re.compile(r"batch-(\d+)")


class BankFormatError(ClauseGraphError, ValueError):
    """A bank file that cannot be read; the message names the file and line."""


@dataclass
class BankQuestion:
    id: str
    q: str
    lang: str
    writer: str
    types: list[str]
    intent: str | None = None
    target: str | None = None
    polarity: str | None = None
    facets: list[str] = field(default_factory=list)
    filters: dict[str, list[str]] = field(default_factory=dict)

    def company_spans(self, key: str = "companies") -> list[tuple[int, int]]:
        """Where the supplier names (or another filter's words) the writer marked stand in the question."""
        spans = []
        for name in self.filters.get(key, []):
            at = self.q.find(name)
            if at >= 0 and name.strip():
                spans.append((at, at + len(name)))
        return spans


def _choice(obj: dict, key: str, allowed: tuple[str, ...], where: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if value not in allowed:
        raise BankFormatError(f"{where}: {key} {value!r} is not one of {', '.join(allowed)}")
    return value


def load_batch(path: Path | str, type_names: set[str]) -> list[BankQuestion]:
    """One writer's batch, every line checked (types against the taxonomy, filters as substrings)."""
    path = Path(path)
    match = _BATCH.search(path.name)
    writer = f"w{match.group(1)}" if match else path.stem
    out = []
    for n, obj in read_jsonl(path, BankFormatError, required=("q",)):
        where = f"{path}:{n}"
        types = obj["types"]
        if not isinstance(types, list) or any(t not in type_names for t in types):
            raise BankFormatError(f"{where}: types must be clause type names from the taxonomy, got {types!r}")
        filters = obj.get("filters") or {}
        if not isinstance(filters, dict):
            raise BankFormatError(f"{where}: filters must be an object of lists")
        for key, spans in filters.items():
            if key not in FILTER_KEYS or not isinstance(spans, list):
                raise BankFormatError(f"{where}: unknown filter {key!r} (one of {', '.join(FILTER_KEYS)})")
            missing = [s for s in spans if not isinstance(s, str) or s not in obj["q"]]
            if missing:
                raise BankFormatError(f"{where}: filter {missing[0]!r} ({key}) is not in the question as written")
        lang = obj.get("lang") or ("zh" if re.search(r"[\u4e00-\u9fff]", obj["q"]) else "en")
        out.append(BankQuestion(
            id=str(obj.get("id") or f"{writer}-{n}"), q=str(obj["q"]), lang=lang, writer=writer,
            types=list(dict.fromkeys(types)),
            intent=_choice(obj, "intent", INTENTS, where), target=_choice(obj, "target", TARGETS, where),
            polarity=_choice(obj, "polarity", POLARITIES, where), facets=list(obj.get("facets") or []),
            filters={k: [s for s in v if isinstance(s, str)] for k, v in filters.items()}))
    return out


def load_bank(folder: Path | str = BANK_DIR) -> list[BankQuestion]:
    """Every batch in the folder (not its `raw/` drafts), in file order."""
    from core.taxonomy import load_taxonomy

    folder = Path(folder)
    files = sorted(folder.glob("batch-*.jsonl"))
    if not files:
        raise BankFormatError(f"no batch-*.jsonl files in {folder}")
    names = {t.name for t in load_taxonomy() if not t.is_catch_all}
    return [q for f in files for q in load_batch(f, names)]


VOICES = {"03": "hurried", "04": "counsel", "05": "email", "06": "follow-ups", "07": "procurement",
          "08": "plain-words", "09": "chinese", "10": "mobile"}


def settle_batch(raw: Path | str, review: Path | str, out: Path | str) -> dict:
    """A writer's batch with its second reader's verdicts applied: a clear error takes the
    reviewer's label, a debatable question is dropped (the bank keeps what two readers agree on)."""
    raw, review = Path(raw), Path(review)
    verdicts: dict[str, list[dict]] = {}
    for n, obj in read_jsonl(review, BankFormatError, required=("id", "field", "verdict")):
        if obj["field"] not in ("intent", "polarity", "types"):
            raise BankFormatError(f"{review}:{n}: field must be intent, polarity or types")
        verdicts.setdefault(obj["id"], []).append(obj)
    kept, fixed, dropped = [], 0, 0
    for _n, obj in read_jsonl(raw, BankFormatError, required=("id", "q")):
        marks = verdicts.get(obj["id"], [])
        if any(m["verdict"] != "error" for m in marks):
            dropped += 1
            continue
        for m in marks:
            obj[m["field"]] = m["reviewer"]
            fixed += 1
        kept.append(obj)
    import json

    Path(out).write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in kept), encoding="utf-8")
    return {"kept": len(kept), "fixed": fixed, "dropped": dropped}
