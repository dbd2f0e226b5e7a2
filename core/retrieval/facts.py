"""What a question says, read once: the facts every routing rule looks at, and the words
to search for when it names no clause type."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from core.retrieval.linking import CJK, STOPWORDS
from core.types import Mode

# "contain no duty to ...": a provision that is missing, not words to find
WORDING = re.compile(r"\b(mention|mentions|mentioning|(?:contain|contains|containing)(?!\s+(?:no|nothing|none)\b)|wording|phrase|word|words|"
                     r"refer to|refers to|referring to|talk about|talks about)\b|提到|包含|提及",
                     re.I)
# an apostrophe after a letter is a possessive ("suppliers' clauses"), not an opening quote
QUOTED = re.compile(r"\"([^\"]{2,80})\"|(?<![A-Za-z0-9])'([^']{2,80})'(?![A-Za-z0-9])|[“「『]([^”」』]{2,80})[”」』]")
# the words that ask, not what is asked about
SCAFFOLD = re.compile(
    r"\b(which|what|who|whom|show|list|find|give|me|all|any|the|of|in|among|from|for|clauses?|provisions?|sections?|"
    r"suppliers?|vendors?|compan(?:y|ies)|providers?|agreements? of|contracts? of|high[- ]spend(?:ing)?|"
    r"do|does|that|whose|our)\b|[?？。!.]", re.I)


def word_tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9][a-z0-9&.\-']*", text.lower())


def semantic_text(q: str, filter_phrases: list[str]) -> str | None:
    """The question without its filters and scaffolding: what the clauses should be about."""
    text = q
    for ph in sorted(filter_phrases, key=len, reverse=True):
        text = re.sub(r"(?<![A-Za-z])" + re.escape(ph) + r"(?![A-Za-z])", " ", text, flags=re.I)
    text = SCAFFOLD.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;:")
    return text if len(text.split()) >= 2 or (CJK.search(text) and len(text) >= 2) else None


def _residual_topic(q: str) -> str | None:
    words = [w for w in word_tokens(q) if w not in STOPWORDS and not w.isdigit()]
    return " ".join(words) if len(words) >= 2 else None


@dataclass
class QuestionFacts:
    """Everything the routing rules look at, read from the question once (and, for a follow-up,
    completed from the session), so each rule is a short predicate over named facts."""

    q: str                                   # the normalised question
    language: str
    companies: list[str]
    sla_ids: list[str]
    types: list[str]
    topic: str | None                        # what the question is about, when no type was read into it
    countries: dict[str, str]                # graph value -> the phrase that named it
    industries: dict[str, str]
    cities: dict[str, str]
    laws: dict[str, str]
    spend_min: float | None
    spend_max: float | None
    year: int | None                         # a spend year named in the question
    linked: dict[str, Any]                   # how each entity was recognised (shown in the plan)
    negated: bool
    counting: bool
    summing: bool
    counts_agreements: bool
    wants_companies: bool
    yes_no: bool
    after: bool                              # position words: "the clause after ..."
    before: bool
    forced_mode: Mode | None = None
    law_scope: str | None = None             # "foreign" / "home": the agreement's law vs the supplier's country
    any_gap: bool = False                    # a gap in any of the types (a gap report), not in all of them
    exclude_companies: dict[str, str] = field(default_factory=dict)   # named to be left out -> the words
    spend_change: str | None = None          # "up" / "down": the spend year against the year before it
    spend_from_year: int | None = None
    agreements_min: int | None = None        # "suppliers with more than one contract": at least 2
    agreements_max: int | None = None
    # ("earliest" | "latest", n): agreements ranked by date; ("most" | "fewest", n): suppliers by their count
    agreement_rank: tuple[str, int] | None = None
    date_from: str | None = None             # the agreements' effective-date window (read_conditions)
    date_to: str | None = None
    categories: dict[str, str] = field(default_factory=dict)   # spend category -> the phrase that named it
    asks_spend: bool = False                 # the question is about spend figures
    years: list[int] = field(default_factory=list)   # every spend year named (several: "2023 and 2024")
    top: int | None = None                   # "top 5 suppliers by spend": how many
    top_named: int | None = None             # the number a ranking names ("our 3 biggest suppliers")
    spend_lowest: bool = False               # the ranking starts from the smallest spend
    asked_of_document: str | None = None     # content words left once names and scaffolding are gone
    group_by: str | None = None              # "spend by country": country | industry | category
    previous_clause_ids: list[str] = field(default_factory=list)   # the clauses the last answer cited
    position: int | None = None              # "the third clause": 3; "the last clause": -1
    numbered: bool = False                   # the position is the contract's own number ("section 3")
    by_what_it_supplies: bool = False        # the agreement was named by what it supplies ("who provides X?")
    inherited: list[str] = field(default_factory=list)             # what came from the session
    meaning_tried: bool = False              # the question's meaning was embedded once already
    company_spans: list[tuple[int, int]] = field(default_factory=list)   # where suppliers are named in q
    reading: Any = None                      # the learned reader's QuestionReading (core.retrieval.reader)
    term_ask: Any = None                     # a contract term asked about (core.retrieval.term_questions.TermAsk)

    @property
    def named(self) -> bool:
        return bool(self.companies or self.sla_ids)

    @property
    def positional(self) -> bool:
        return self.after or self.before

    @property
    def direction(self) -> str:
        return "before" if self.before and not self.after else "after"

    @property
    def has_filters(self) -> bool:
        return bool(self.countries or self.industries or self.cities or self.laws or self.spend_min is not None
                    or self.spend_max is not None or self.date_from or self.date_to or self.law_scope
                    or self.agreements_min or self.agreements_max or self.spend_change or self.exclude_companies)

    @property
    def quoted(self) -> list[str]:
        return [next(g for g in m.groups() if g) for m in QUOTED.finditer(self.q)]

    @property
    def wording(self) -> re.Match | None:
        return WORDING.search(self.q)

    @cached_property
    def text_query(self) -> str | None:
        """The words to search for when no clause type was named: quoted words, the topic, what
        follows "mention ...", else the question without its filters and scaffolding."""
        q, wording, quoted = self.q, self.wording, self.quoted
        filter_phrases = [ph for key in ("countries", "industries", "cities", "governing_law")
                          for ph in (self.linked.get(key) or {}).values()]
        return (quoted[0] if quoted else None) or self.topic or (
            q[wording.end():].strip(" ?.!。？") if wording and len(q[wording.end():].split()) >= 1 else None) \
            or semantic_text(q, filter_phrases) or _residual_topic(q)
