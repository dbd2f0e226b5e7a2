"""The few-shot pool of Text2Cypher and the per-question choice of examples (seed 002 §3.2).

Every example in `data/text2cypher_examples.jsonl` is run against the demo graph by the tests
(through the guard), so the model never imitates a label, direction or property that does
not exist. Per question, examples are ranked by embedding similarity to the question with a
bonus for the question's type, and at most `k` go into the prompt (seed: five to eight).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from core.config import PROJECT_ROOT
from core.jsonl import read_jsonl

POOL_FILE = PROJECT_ROOT / "data" / "text2cypher_examples.jsonl"
QUESTION_TYPES = ("single_node", "single_hop", "multi_hop", "aggregation", "gap", "filter_sort", "vector_relay",
                  "unanswerable")
TYPE_BONUS = 0.25


@dataclass(frozen=True)
class Example:
    id: str
    type: str
    question: str
    cypher: str
    params: dict = field(default_factory=dict)

    def prompt_text(self) -> str:
        out = {"cypher": self.cypher, "params": self.params}
        return f"Question: {self.question}\nAnswer: {json.dumps(out, ensure_ascii=False)}"


def load_examples(path: Path | str | None = None) -> list[Example]:
    path = Path(path or POOL_FILE)
    return list(_load(str(path), path.stat().st_mtime))


@lru_cache(maxsize=4)
def _load(path: str, _mtime: float) -> tuple[Example, ...]:
    out = []
    for no, d in read_jsonl(path, required=("id", "type", "question", "cypher")):
        if d["type"] not in QUESTION_TYPES:
            raise ValueError(f"{path}:{no}: unknown type {d['type']!r} (one of {', '.join(QUESTION_TYPES)})")
        out.append(Example(d["id"], d["type"], d["question"], d["cypher"], dict(d.get("params") or {})))
    return tuple(out)


_RULES = [
    ("gap", r"\b(lacks?|lacking|without|missing|no \w+( \w+)? clauses?|do(es)? not have|don'?t have|doesn'?t have)\b"
            r"|缺少|缺乏|没有"),
    ("aggregation", r"\b(how many|count|number of|total|sum|average|per (country|industry|supplier|type)|each)\b"
                    r"|多少|总计|总共|平均|统计|每个"),
    ("filter_sort", r"\b(top|biggest|largest|highest|lowest|smallest|most|least|above|below|more than|less than|"
                    r"over \d|under \d|sorted|rank(ed)?|since|before \d{4}|after \d{4})\b|超过|低于|最高|最大|排名"),
    ("vector_relay", r"\b(about|mentions?|regarding|related to|talks? about|discuss(es)?|similar|concerning)\b"
                     r"|关于|提到|涉及"),
    ("multi_hop", r"\b(clauses?|provisions?|says?)\b|条款"),
    ("single_hop", r"\b(agreements?|contracts?|located|address|where)\b|协议|合同|地址"),
]


def classify_question(question: str) -> str:
    """The question's type by rules (cheap, deterministic); `single_node` when nothing matches."""
    q = question.lower()
    for name, pattern in _RULES:
        if re.search(pattern, q):
            return name
    return "single_node"


@lru_cache(maxsize=4)
def _matrix(key: tuple):
    from core.embeddings import get_embedder

    return get_embedder().encode([q for q in key])


def select_examples(question: str, k: int = 6, examples: list[Example] | None = None,
                    qtype: str | None = None) -> list[Example]:
    """Up to `k` examples: the closest by meaning with a bonus for the same type, at least two of
    that type when the pool has them, and the "unanswerable" pattern last."""
    pool = examples if examples is not None else load_examples()
    if not pool:
        return []
    from core.embeddings import get_embedder

    qtype = qtype or classify_question(question)
    vecs = _matrix(tuple(e.question for e in pool))
    v = get_embedder().encode([question])[0]
    sims = vecs @ v
    scored = sorted(((float(sims[i]) + (TYPE_BONUS if e.type == qtype else 0.0), i) for i, e in enumerate(pool)
                     if e.type != "unanswerable"), reverse=True)
    nothing = [e for e in pool if e.type == "unanswerable"][:1]
    room = max(1, k - len(nothing))
    chosen = [pool[i] for _, i in scored[:room]]
    for e in [pool[i] for _, i in scored if pool[i].type == qtype][:2]:
        if e not in chosen:
            others = [c for c in chosen if c.type != qtype]
            if others:
                chosen.remove(others[-1])
            chosen.append(e)
    return chosen + nothing
