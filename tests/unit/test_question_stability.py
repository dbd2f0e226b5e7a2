"""The gold questions dressed as people send them (a greeting, a lead-in, thanks) or with a word
swapped for its synonym are planned as the plain ones: same intent, types, companies, filters,
years and dates.

The clause types are read by a learned reader (core/retrieval/reader.py), whose decision near a
threshold may move with any word, so a variant may differ now and then: at most one in a hundred
(`FLIP_SHARE`), every one listed when the share is passed. Dressing (greetings, thanks) and the
domain's same-meaning words (supplier / vendor / provider, agreement / contract, clause /
provision) are read away before the reader sees the question."""
from __future__ import annotations

import json
import re
from pathlib import Path

from core.retrieval.planner import plan_question
from tests.unit.vocabularies import corpus_vocabulary

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "eval" / "questions"
SETS = {
    "data/demo": ["demo", "paraphrase-demo", "probe-demo", "probe-demo-2", "probe-demo-3", "probe-demo-4",
                  "probe-demo-zh", "probe-demo-zh-3", "probe-demo-zh-4"],
    "tests/fixtures/heldout_corpus": ["probe-heldout", "probe-heldout-2", "probe-heldout-3", "probe-heldout-4",
                                      "probe-heldout-5", "probe-heldout-zh", "probe-heldout-zh-2", "probe-heldout-mixed"],
    "tests/fixtures/paraphrase_corpus": ["paraphrase-corpus2", "probe-corpus2", "probe-corpus2-2", "probe-corpus2-3",
                                         "probe-corpus2-4", "probe-corpus2-5", "probe-corpus2-zh"],
    "tests/fixtures/sourcing_corpus": ["probe-sourcing", "probe-sourcing-2"],
    "tests/fixtures/campus_corpus": ["probe-campus", "probe-campus-2", "probe-campus-3"],
    "tests/fixtures/harbour_corpus": ["probe-harbour"],
}


def _key(plan):
    p = plan.params
    return (str(plan.intent), sorted(p.types), sorted(p.companies), sorted(p.countries), sorted(p.industries),
            sorted(p.cities), sorted(p.governing_laws), p.spend_min, p.spend_max, p.spend_year, p.date_from, p.date_to)


def _dressed(q: str) -> list[str]:
    lead = q[0].lower() + q[1:]
    return [f"Hi, {q}", f"{q} Thanks!", f"Quick question: {q}", f"Could you tell me {lead}"]


def _gold_questions(chinese: bool = False):
    """(vocabulary, question) for every English (or Chinese) question of the sets, outside sessions."""
    for corpus, names in SETS.items():
        vocab = corpus_vocabulary(ROOT / corpus)
        for name in names:
            for line in (QUESTIONS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
                item = json.loads(line)
                if not item.get("session") and (item.get("lang") == "zh") == chinese:
                    yield vocab, item["question"]


def _changed_plans(variants, chinese: bool = False) -> tuple[int, list[str]]:
    """How many variants were planned, and those whose plan differs from their question's."""
    changed, n = [], 0
    for vocab, q in _gold_questions(chinese):
        want = _key(plan_question(q, vocab))
        for v in variants(q):
            n += 1
            if _key(plan_question(v, vocab)) != want:
                changed.append(v)
    return n, changed


FLIP_SHARE = 0.01


def test_dressed_questions_are_planned_like_plain_ones():
    n, changed = _changed_plans(_dressed)
    assert n > 1000 and len(changed) <= FLIP_SHARE * n, changed


# words people use for one another in these questions
SYNONYMS = [(r"\bsuppliers\b", "vendors"), (r"\bsuppliers\b", "providers"), (r"\bsupplier\b", "vendor"),
            (r"\bclauses\b", "provisions"), (r"\bclause\b", "provision"), (r"\bclause\b", "section"),
            (r"\black\b", "are missing"), (r"\bagreements\b", "contracts"), (r"\bagreement\b", "contract"),
            (r"\bcontract\b", "agreement"), (r"\bShow\b", "List"), (r"\bhave no\b", "don't have a"),
            (r"\bhigh-spend\b", "high spend"), (r"\bShow me\b", "Give me")]


def _swapped(q: str) -> list[str]:
    return [re.sub(pattern, word, q, count=1) for pattern, word in SYNONYMS if re.search(pattern, q)]


def test_questions_with_a_word_swapped_for_its_synonym_are_planned_alike():
    n, changed = _changed_plans(_swapped)
    assert n > 500 and len(changed) <= FLIP_SHARE * n, changed


def _dressed_zh(q: str) -> list[str]:
    return [f"请问，{q}", f"你好，{q}", f"{q.rstrip('？?')}？谢谢", f"麻烦问一下，{q}"]


def test_chinese_questions_dressed_as_people_send_them_are_planned_alike():
    n, changed = _changed_plans(_dressed_zh, chinese=True)
    assert n > 200 and len(changed) <= FLIP_SHARE * n, changed
