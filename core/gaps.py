"""What counts as a compliance gap: one definition for Ask, the gaps page, the CLI and the exports.

Two pages once gave two answers to the same requirement because each decided on its own
whether a supplier without any agreement "lacks" a clause, whether a clause typed at 0.21
satisfies a requirement, and which year's spend to rank by. Those three choices live here, and
every place that reports gaps states them with `statement()`:

* a requirement is met only by a clause typed at or above REVIEW_THRESHOLD as its section's main
  type, by a sentence of it that reaches the type's own threshold (provision typing: thresholds
  chosen by cross-validation on CUAD, mostly far below 0.5; for a clause mainly in Chinese, the
  section classifier reading the sentence alone at REVIEW_THRESHOLD), or by a
  reviewer's confirmation; a type whose only evidence is below that is still a gap, shown as
  "needs review" and listed in the Data page's review queue;
* a supplier without any agreement is not counted among the suppliers with gaps: it is listed
  apart ("no agreement on file"), since there is no contract whose clauses could be missing;
* spend is the supplier's latest year on file unless a year is asked for, in the base currency.

The Cypher that applies the first two is `core.graph.queries.retrieval.confident_types`, read by
both the gap question and the gap report.
"""
from __future__ import annotations

# Confidence below which an automatic type needs a person's review and does not meet a requirement.
REVIEW_THRESHOLD: float = 0.5


def meets_requirement(primary: bool, method: str | None, confidence: float | None, by_section: bool | None = True) -> bool:
    """Whether one stored type of a clause meets a requirement: the Python twin of
    `core.graph.queries.ingest.low_confidence_edge` (the section classifier's main verdict below
    REVIEW_THRESHOLD does not; a provision's type passed its own threshold, a reviewer's is
    confirmed), for code that reads stored clauses instead of asking the gap query (`eval cuad`)."""
    # by_section None: an edge written before the property existed, read as the section's (as the Cypher does)
    return not primary or method == "manual" or by_section is False or (confidence or 0.0) >= REVIEW_THRESHOLD


def statement(lang: str = "en", year: int | None = None, currency: str | None = None) -> str:
    """The definition in one sentence or two, as the answer and the page state it."""
    spend_en = f"spend of {year}" if year else "each supplier's latest year of spend on file"
    spend_zh = f"{year}年的支出" if year else "每家供应商最近一年的支出"
    cur_en = f" in {currency}" if currency else ""
    cur_zh = f"（{currency}）" if currency else ""
    if lang == "zh":
        return (f"缺口的定义：供应商的协议中没有该类型的条款——即没有作为条款主类型且置信度不低于 {REVIEW_THRESHOLD:.1f}、"
                f"没有句子达到该类型自身的阈值，也没有经人工确认；"
                f"只有低置信度证据的视为缺口并标为“需复核”；没有任何协议的供应商单独列出，不计入缺口；"
                f"金额为{spend_zh}{cur_zh}。")
    return (f"A gap means no agreement of the supplier has a clause of the type typed with confidence "
            f"≥ {REVIEW_THRESHOLD:.1f} as its main type, a sentence reaching the type's own threshold, or a "
            f"reviewer's confirmation; low-confidence evidence does not count and is "
            f"marked \"needs review\". Suppliers without any agreement are listed apart, not counted as gaps. "
            f"Spend is {spend_en}{cur_en}.")


def short_statement(lang: str = "en", without_agreement: int = 0) -> str:
    """The definition as one clause for a gap answer, with the suppliers left apart."""
    if lang == "zh":
        apart = f"另有 {without_agreement} 家供应商没有任何协议，单独列出" if without_agreement else "没有协议的供应商单独列出"
        return f"（缺口：没有置信度 ≥ {REVIEW_THRESHOLD:.1f} 的该类条款，也没有达到该类型阈值的句子；低置信度证据需复核，不算满足；{apart}。）"
    apart = (f"{without_agreement} supplier{'s' if without_agreement != 1 else ''} with no agreement at all "
             f"{'are' if without_agreement != 1 else 'is'} listed apart" if without_agreement
             else "suppliers without agreements are listed apart")
    return (f"(Gap: no clause of the type typed with confidence ≥ {REVIEW_THRESHOLD:.1f}, and no sentence reaching the "
            f"type's own threshold; low-confidence evidence needs review and does not count; {apart}.)")
