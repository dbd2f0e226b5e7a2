"""The gold questions dressed as people send them (a greeting, a lead-in, thanks) are planned
exactly as the plain ones: same intent, types, companies, filters, years and dates."""
from __future__ import annotations

import json
from pathlib import Path

from core.retrieval.planner import plan_question
from tests.unit.vocabularies import corpus_vocabulary

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "eval" / "questions"
SETS = {
    "data/demo": ["demo", "paraphrase-demo", "probe-demo", "probe-demo-2"],
    "tests/fixtures/heldout_corpus": ["probe-heldout", "probe-heldout-2"],
    "tests/fixtures/paraphrase_corpus": ["paraphrase-corpus2", "probe-corpus2", "probe-corpus2-2"],
}


def _key(plan):
    p = plan.params
    return (str(plan.intent), sorted(p.types), sorted(p.companies), sorted(p.countries), sorted(p.industries),
            sorted(p.cities), sorted(p.governing_laws), p.spend_min, p.spend_max, p.spend_year, p.date_from, p.date_to)


def _dressed(q: str) -> list[str]:
    lead = q[0].lower() + q[1:]
    return [f"Hi, {q}", f"{q} Thanks!", f"Quick question: {q}", f"Could you tell me {lead}"]


def test_dressed_questions_are_planned_like_plain_ones():
    changed, n = [], 0
    for corpus, names in SETS.items():
        vocab = corpus_vocabulary(ROOT / corpus)
        for name in names:
            for line in (QUESTIONS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
                item = json.loads(line)
                if item.get("session") or item.get("lang") == "zh":
                    continue
                want = _key(plan_question(item["question"], vocab))
                for q in _dressed(item["question"]):
                    n += 1
                    if _key(plan_question(q, vocab)) != want:
                        changed.append(q)
    assert n > 1000 and not changed, changed[:10]


# words people use for one another in these questions
SYNONYMS = [(r"\bsuppliers\b", "vendors"), (r"\bsuppliers\b", "providers"), (r"\bsupplier\b", "vendor"),
            (r"\bclauses\b", "provisions"), (r"\bclause\b", "provision"), (r"\bclause\b", "section"),
            (r"\black\b", "are missing"), (r"\bagreements\b", "contracts"), (r"\bagreement\b", "contract"),
            (r"\bcontract\b", "agreement"), (r"\bShow\b", "List"), (r"\bhave no\b", "don't have a"),
            (r"\bhigh-spend\b", "high spend"), (r"\bShow me\b", "Give me")]


def test_questions_with_a_word_swapped_for_its_synonym_are_planned_alike():
    import re

    changed, n = [], 0
    for corpus, names in SETS.items():
        vocab = corpus_vocabulary(ROOT / corpus)
        for name in names:
            for line in (QUESTIONS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
                item = json.loads(line)
                if item.get("session") or item.get("lang") == "zh":
                    continue
                q = item["question"]
                want = _key(plan_question(q, vocab))
                for pattern, word in SYNONYMS:
                    if re.search(pattern, q):
                        n += 1
                        swapped = re.sub(pattern, word, q, count=1)
                        if _key(plan_question(swapped, vocab)) != want:
                            changed.append(swapped)
    assert n > 500 and not changed, changed[:10]
