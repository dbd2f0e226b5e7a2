"""Traditional Chinese is read as Simplified: questions, keywords and a clause's lexical features."""
from __future__ import annotations

import json
from pathlib import Path

from core.ingest.classifier import KeywordClassifier
from core.retrieval.planner import plan_question
from core.types import Intent
from core.zh_script import cjk_share, to_simplified
from tests.unit.test_planner_rules import VOCAB

ROOT = Path(__file__).resolve().parents[2]


def test_traditional_characters_are_replaced_one_for_one():
    assert to_simplified("哪些供應商缺少終止條款？") == "哪些供应商缺少终止条款？"
    assert to_simplified("個人資料的處理") == "个人资料的处理"
    text = "甲方於收到發票後三十日內付款。"
    assert len(to_simplified(text)) == len(text)   # offsets into the stored text stay valid
    assert to_simplified("Termination for convenience") == "Termination for convenience"


def test_simplified_text_is_never_changed():
    # characters in use in Simplified (么, 干, 后, 里) are not read as Traditional variants
    assert to_simplified("合同里是怎么规定的？干什么之后") == "合同里是怎么规定的？干什么之后"
    questions = [json.loads(line)["question"] for f in (ROOT / "eval" / "questions").glob("*.jsonl")
                 for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    chinese = [q for q in questions if any("\u4e00" <= c <= "\u9fff" for c in q)]
    assert len(chinese) > 50 and all(to_simplified(q) == q for q in chinese)


def test_questions_in_traditional_script_are_planned_like_simplified_ones():
    p = plan_question("哪些供應商缺少終止條款？", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Termination"]
    p = plan_question("德國供應商的資料保護條款", VOCAB)
    assert p.params.types == ["Data Protection"] and p.params.countries == ["Germany"], p.linked
    p = plan_question("Kestrel的合約對責任有什麼規定？", VOCAB)
    assert p.intent == Intent.DOCUMENT_TYPE and p.params.types == ["Liability"]


def test_a_traditional_clause_carries_its_keywords_type():
    assert KeywordClassifier().classify("終止", "任何一方可提前三十日書面通知終止本合約。").type == "Termination"


def test_a_company_named_in_either_script_is_linked():
    from core.graph.vocabulary import Vocabulary

    vocab = Vocabulary(companies=[{"name": "Formosa Chips Ltd", "aliases": ["台積電子"], "country": "Taiwan",
                                   "industry": "Manufacturing", "cities": ["臺北"]}],
                       agreements=[{"id": "A-1", "company": "Formosa Chips Ltd", "governing_law": "Taiwan"}],
                       clause_types=["Termination"], spend_years=[2024])
    for q in ("台積電子的終止條款", "台积电子的终止条款"):
        p = plan_question(q, vocab)
        assert p.params.companies == ["Formosa Chips Ltd"] and p.params.types == ["Termination"], (q, p.linked)
    assert plan_question("位于台北的供应商有哪些？", vocab).params.cities == ["臺北"]


def test_the_provision_lexicon_reads_traditional_script():
    from core.ingest.provisions import Lexicon
    from core.taxonomy import load_taxonomy

    lex = Lexicon.from_taxonomy(load_taxonomy())
    ti = lex.types.index("Termination")
    trad, simp = lex.features(["任何一方可書面通知終止本合約。", "任何一方可书面通知终止本合约。"], ["", ""])
    assert trad[ti] == simp[ti] == 1.0


def test_the_cjk_share_counts_ideographs_among_all_letters():
    # one definition for the section classifier and the typing that routes a clause to a reader:
    # accented Latin letters count as letters, digits and punctuation do not
    assert cjk_share("数据保护 data") == 0.5
    assert cjk_share("Übermittlung ist zulässig") == 0.0
    assert cjk_share("第12条 終止") == 1.0
    assert cjk_share("") == cjk_share("12.3 —") == 0.0
    assert 0.3 < cjk_share("本合同受 German law 管辖") < 0.5
