"""The splitter's output types, shared by cleaning (dedupe) and corpus reading.

They live apart from the splitter so that cleaning can use them without importing the
splitter, which itself imports cleaning.
"""
from __future__ import annotations

from dataclasses import dataclass, field

@dataclass
class ClauseDraft:
    position: int   # 1-based, document order
    title: str      # heading text without its number/marker
    text: str       # clause body (sub-headings included), without the heading line
    heading: str    # the heading as written, e.g. "## 3. Fees" or "第一条 服务可用性"
    level: int      # Markdown: number of '#'; otherwise depth among this document's heading kinds


@dataclass
class SplitResult:
    title: str | None
    preamble: str
    clauses: list[ClauseDraft]
    furniture_removed: list[str] = field(default_factory=list)
    # "headings": clauses start at section headings; "paragraphs": none were found, so the
    # clauses are blocks of paragraphs (titles taken from their first words) and `warning` says so
    segmentation: str = "headings"
    warning: str | None = None

