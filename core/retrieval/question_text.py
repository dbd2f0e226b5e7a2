"""The question inside pasted text (an e-mail, a ticket) that ends with, or hides, the real ask.

A long paste routed as a whole is planned on whichever phrase the rules meet first (often an
incidental one in its opening lines) and, in the search modes, echoed whole in the answer. The
question is taken instead as the last interrogative sentence, or, when no sentence asks
anything, the sentence that names the most graph entities (companies, agreements, clause
types, countries, industries, cities); the rest of the paste is context the planner never sees.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.graph.vocabulary import Vocabulary
from core.retrieval.linking import CJK, alias_map, link_company_spans, link_sla_ids, match_values, normalize

# a paste shorter than this (or of one sentence) is a question as typed
LONG_INPUT_CHARS = 280
EXCERPT_CHARS = 160

_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)")
_ASKS = re.compile(
    r"[?？]\s*$|^\s*(which|what|who|whom|whose|where|when|why|how|is|are|does|do|did|has|have|can|could|would|"
    r"should|will|list|show|find|give|name|tell)\b|吗\s*$|哪些|哪家|哪个|什么|多少|是否|有没有|请列出|列出", re.I)
_GREETING = re.compile(r"^\s*(hi|hello|dear|thanks|thank you|best|regards|cheers|kind regards|您好|你好|谢谢|此致)\b",
                       re.I)


@dataclass
class QuestionPick:
    """Which part of the input was planned on, and why (shown in the plan and on the Ask page)."""

    question: str          # the sentence planned on (the whole input when it is short)
    start: int             # its offsets in the input
    end: int
    reason: str            # "whole input" | "last question" | "most linked entities"
    input_chars: int

    @property
    def extracted(self) -> bool:
        return self.reason != "whole input"

    def to_dict(self) -> dict:
        return {"question": self.question, "start": self.start, "end": self.end, "reason": self.reason,
                "input_chars": self.input_chars}


def sentences(text: str) -> list[tuple[int, int, str]]:
    """(start, end, sentence) for each sentence of English or Chinese text, blank ones dropped."""
    out = []
    for m in _SENTENCE.finditer(text):
        s = m.group(0).strip()
        if s:
            start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
            out.append((start, start + len(s), s))
    return out


def linked_count(sentence: str, vocab: Vocabulary) -> int:
    """How many graph entities a sentence names: the cheap part of the planner's linking."""
    q = normalize(sentence)
    companies, _ = link_company_spans(q, vocab)
    n = len(companies) + len(link_sla_ids(q, vocab))
    for kind in ("countries", "industries", "cities"):
        n += len(match_values(q, alias_map(vocab, kind)))
    low = q.lower()
    n += sum(1 for t in vocab.clause_types if t and t.lower() in low)
    return n


def find_question(text: str, vocab: Vocabulary) -> QuestionPick:
    """The question to plan on: the input itself when short, else its last interrogative
    sentence, else the sentence with the most linked entities (the later one on a tie)."""
    whole = QuestionPick(text, 0, len(text), "whole input", len(text))
    parts = sentences(text)
    # a Chinese character carries about a word's meaning: it counts double
    if len(text) + len(CJK.findall(text)) <= LONG_INPUT_CHARS or len(parts) < 2:
        return whole
    asking = [p for p in parts if _ASKS.search(p[2]) and not _GREETING.search(p[2]) and len(p[2]) > 8]
    if asking:
        start, end, s = asking[-1]
        return QuestionPick(s, start, end, "last question", len(text))
    scored = [(linked_count(s, vocab), i) for i, (_, _, s) in enumerate(parts)]
    best, i = max(scored)
    if best == 0:
        return whole
    start, end, s = parts[i]
    return QuestionPick(s, start, end, "most linked entities", len(text))


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short, whitespace-normalised excerpt of user text, for an answer or a caption."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut + " …"
