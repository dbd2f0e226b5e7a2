"""The offline planner: question -> intent, mode and parameters, without an LLM.

Everything it proposes is linked to values that exist in the graph (companies, countries,
industries, cities, laws, clause types, spend years), so a filter can never silently match
nothing because of spelling. Unmappable questions get a plain "I could not map this" plan
with suggestions instead of a guess.
"""
from __future__ import annotations

import json
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from core.config import PROJECT_ROOT, settings
from core.graph.vocabulary import Vocabulary
from core.types import Plan

CJK = re.compile(r"[\u4e00-\u9fff]")
LEGAL_SUFFIXES = {
    "gmbh", "ag", "kg", "se", "ltd", "ltd.", "limited", "inc", "inc.", "llc", "plc", "sa", "s.a.", "sas", "sarl",
    "bv", "b.v.", "nv", "n.v.", "co", "co.", "corp", "corp.", "corporation", "company", "kk", "k.k.", "pvt",
    "pvt.", "private", "oy", "ab", "as", "spa", "s.p.a.", "srl", "pte", "pty", "group", "holdings", "&",
}
ZH_SUFFIXES = ("有限责任公司", "股份有限公司", "有限公司", "集团", "公司")
STOPWORDS = {
    "a", "an", "the", "of", "in", "on", "for", "to", "and", "or", "with", "without", "by", "at", "from", "about",
    "which", "what", "who", "whose", "show", "me", "list", "all", "any", "their", "its", "they", "them", "is",
    "are", "was", "were", "do", "does", "did", "have", "has", "had", "lack", "lacks", "lacking", "missing",
    "clause", "clauses", "provision", "provisions", "section", "sections", "agreement", "agreements",
    "contract", "contracts", "supplier", "suppliers", "vendor", "vendors", "company", "companies", "say",
    "says", "tell", "us", "our", "we", "that", "this", "these", "those", "there", "it", "be", "no", "not",
    "both", "either", "neither", "nor", "compare", "how", "many", "much", "total", "spend", "spending",
    "high", "low", "above", "below", "over", "under", "more", "less", "than", "between", "after", "before",
    "next", "following", "previous", "preceding", "give", "find", "get", "terms", "term", "also", "then",
    "other", "same", "each", "every", "per", "as", "into", "out", "up", "please", "can", "could", "would",
    "should", "will", "shall", "may", "might", "must", "whether", "where", "when", "why", "if", "else",
    "based", "located", "headquartered", "country", "countries", "industry", "sector", "city", "law",
    "governed", "governing", "effective", "signed", "dated", "since", "until", "year", "years", "amount",
}
NEGATION = re.compile(
    r"\b(lack|lacks|lacking|without|missing|miss|misses|no|none|absent|don't have|do not have|doesn't have|"
    r"does not have|not have|not include|don't include|do not include|fail to include|fails to include|"
    r"neither|omit|omits)\b|缺少|缺乏|没有|无|未包含|不包含|缺失", re.I)
COUNT_WORDS = re.compile(r"\b(how many|number of|count)\b|多少|几个|几家|数量", re.I)
SUM_WORDS = re.compile(r"\b(total|sum|combined|aggregate|overall)\b.{0,30}\b(spend|spending|amount)\b|"
                       r"\b(spend|spending)\b.{0,20}\b(total|sum|combined)\b|总支出|支出总额|总额|合计|总共", re.I)
NO_AGREEMENT = re.compile(
    r"\b(without|no|lack|lacks|lacking|missing|don't have|do not have|doesn't have|does not have|have no|has no)\b"
    r"\s+(an?\s+|any\s+)?(signed\s+)?(agreements?|contracts?|slas?)\b|没有.{0,6}(协议|合同)|无(协议|合同)|缺少.{0,4}(协议|合同)|未签.{0,4}(协议|合同)", re.I)
COMPANY_SUBJECT = re.compile(
    r"\b(which|what|list|show|name|find)\b.{0,40}\b(suppliers?|vendors?|compan(y|ies)|providers?|firms?|partners?)\b|"
    r"哪些|哪家|哪几家|供应商|公司", re.I)
CLAUSE_WORDS = re.compile(r"\b(clauses?|provisions?|sections?|terms?|wording|text)\b|条款|规定|内容", re.I)
ANAPHORA = re.compile(
    r"^\s*(and|also|what about|how about|then|same for|and for)\b|\b(their|its|they|them|that supplier|"
    r"this supplier|that company|this company|the same|it|that clause|this clause|that one)\b|^\s*(那|那么|还有)|它|他们|该公司|这家|那家|其|该条|这条|那条", re.I)
POSITION_AFTER = re.compile(r"\b(after|following|follows|follow|next to|succeeding|succeeds)\b|之后|后面|下一条|下一个|紧接", re.I)
POSITION_BEFORE = re.compile(r"\b(before|preceding|prior to|previous to)\b|之前|前面|上一条|上一个", re.I)
COMPARE = re.compile(r"\b(compare|comparison|across|all suppliers|every supplier|each supplier)\b|比较|对比", re.I)
HIGH_SPEND = re.compile(r"\b(high[- ]?spend(ing)?|big[- ]?spend|large[- ]?spend|top[- ]?spend|strategic)\b|"
                        r"高支出|高消费|大额|支出高|高额", re.I)
LOW_SPEND = re.compile(r"\blow[- ]?spend(ing)?\b|低支出|小额", re.I)
WORDING = re.compile(r"\b(mention|mentions|mentioning|contain|contains|containing|wording|phrase|word|words|"
                     r"refer to|refers to|referring to|say about|says about|talk about|talks about)\b|提到|包含|提及",
                     re.I)
TOPIC = re.compile(r"\b(about|on|regarding|concerning|covering|dealing with|relating to|related to|that (?:cover|address|deal with|discuss))\s+(.+)$|关于(.+)", re.I)

GT = r"(?:above|over|more than|greater than|higher than|exceeding|exceeded|exceeds|exceed|surpassing|surpassed|surpasses|in excess of|at least|>=|>|bigger than|larger than|not less than|topping|tops)"
LT = r"(?:below|under|less than|lower than|at most|<=|<|smaller than|not more than|up to)"
AMOUNT = (r"(?P<cur1>€|\$|£|¥|eur\s|usd\s|gbp\s|cny\s|rmb\s)?\s*(?P<num>\d+(?:[,\s]\d{3})*(?:\.\d+)?)\s*"
          r"(?P<mult>k\b|m\b|mn\b|million|thousand|bn\b|billion|万|亿|千|百万)?\s*(?P<cur2>€|eur(?:os?)?\b|usd\b|dollars?\b|gbp\b|pounds?\b|元|人民币|欧元|美元|英镑)?")
ZH_GT = r"(?:超过|高于|大于|多于|不少于|至少|逾)"
ZH_LT = r"(?:低于|少于|小于|不超过|不到)"
MULT = {"k": 1e3, "thousand": 1e3, "千": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "百万": 1e6,
        "bn": 1e9, "billion": 1e9, "万": 1e4, "亿": 1e8}
YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d{2})(?!\d)")
SLA_ID = re.compile(r"\b[A-Z]{2,6}-\d{1,6}\b")
DATE = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2}|\d{4})(?!\d)")


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=1)
def lexicon() -> dict:
    with open(PROJECT_ROOT / "data" / "lexicon.json", encoding="utf-8") as fh:
        data = json.load(fh)
    return {k: v for k, v in data.items() if not k.startswith("_")}


@dataclass
class SessionContext:
    """What a follow-up question may refer back to."""

    companies: list[str] = field(default_factory=list)
    sla_ids: list[str] = field(default_factory=list)
    clause_types: list[str] = field(default_factory=list)
    filters: dict[str, Any] = field(default_factory=dict)
    clause_ids: list[str] = field(default_factory=list)   # the clauses the last answer cited
    last_intent: str | None = None
    turns: int = 0

    def to_dict(self) -> dict:
        return {"companies": self.companies, "sla_ids": self.sla_ids, "clause_types": self.clause_types,
                "filters": self.filters, "clause_ids": self.clause_ids, "last_intent": self.last_intent,
                "turns": self.turns}

    @classmethod
    def from_dict(cls, d: dict) -> "SessionContext":
        return cls(**{k: d.get(k, v) for k, v in cls().to_dict().items()})


# ---------------------------------------------------------------------------------------
# entity linking
# ---------------------------------------------------------------------------------------

def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9][a-z0-9&.\-']*", text.lower())


def _core_name(name: str) -> str:
    for suf in ZH_SUFFIXES:
        if name.endswith(suf) and len(name) > len(suf) + 1:
            name = name[: -len(suf)]
    toks = [t for t in re.split(r"[\s,]+", name) if t]
    while len(toks) > 1 and toks[-1].lower().strip(",") in LEGAL_SUFFIXES:
        toks.pop()
    return " ".join(toks)


@lru_cache(maxsize=65536)
def _phrase_regex(phrase: str) -> re.Pattern:
    return re.compile(r"(?<![a-z0-9])" + re.escape(phrase.lower()) + r"(?:'s|s')?(?![a-z0-9])")


def _phrase_span(haystack: str, phrase: str) -> tuple[int, int] | None:
    """Where `phrase` occurs in `haystack` as whole words (a possessive 's allowed), or None."""
    if not phrase:
        return None
    if CJK.search(phrase):
        i = haystack.find(phrase)
        return (i, i + len(phrase)) if i >= 0 else None
    if re.fullmatch(r"[A-Z][A-Z0-9&]{1,5}", phrase):
        m = re.search(r"(?<![A-Za-z0-9])" + re.escape(phrase) + r"(?:'s)?(?![A-Za-z0-9])", haystack)
    else:
        m = _phrase_regex(phrase).search(haystack.lower())
    return m.span() if m else None


def _contains_phrase(haystack: str, phrase: str) -> bool:
    return _phrase_span(haystack, phrase) is not None


@lru_cache(maxsize=1)
def _generic_words() -> frozenset[str]:
    lex = lexicon()
    generic = {w.lower() for vals in lex["industries"].values() for w in vals}
    generic |= {k.lower() for k in lex["industries"]}
    generic |= {w.lower() for vals in lex["countries"].values() for w in vals} | {k.lower() for k in lex["countries"]}
    return frozenset(generic | STOPWORDS)


@lru_cache(maxsize=65536)
def _generic(word: str) -> bool:
    if CJK.search(word):
        return len(word) < 2
    if re.fullmatch(r"[A-Z][A-Z0-9&]{1,5}", word):
        return False  # an abbreviation such as "MVH" is distinctive when written in capitals
    return word.lower() in _generic_words() or len(word) < 4


_RUN = re.compile(r"[a-z0-9]+")
_FUZZY_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&.\-]*|[\u4e00-\u9fff]+")


@dataclass
class _CompanyIndex:
    """Per-vocabulary lookup tables, built once, so linking costs the same for 10 or 100,000 companies.

    A phrase can only occur in a question if its first run of letters/digits is one of the
    question's runs, so phrases are bucketed by that run; fuzzy candidates are bucketed by
    their first and last two characters (a typo rarely hits both ends of a name).
    """

    by_run: dict[str, list[tuple[str, str, str]]]  # first [a-z0-9]+ run -> (phrase, company, how)
    other_phrases: list[tuple[str, str, str]]      # phrases without such a run (e.g. Chinese names)
    first_tokens: dict[str, str]                   # distinctive first word -> company (unique only)
    fuzzy: list[tuple[str, str, int]]              # (candidate lower, company, token count)
    fuzzy_ends: dict[tuple[str, str], tuple[list[int], list[str]]]  # ("head"|"tail", 2 chars) -> (indices, names)


_INDEX_CACHE: dict[int, tuple[Vocabulary, _CompanyIndex]] = {}
_INDEX_LOCK = threading.Lock()


def _company_index(vocab: Vocabulary) -> _CompanyIndex:
    hit = _INDEX_CACHE.get(id(vocab))
    if hit and hit[0] is vocab:
        return hit[1]
    with _INDEX_LOCK:
        hit = _INDEX_CACHE.get(id(vocab))
        if hit and hit[0] is vocab:
            return hit[1]
        index = _build_company_index(vocab)
        if len(_INDEX_CACHE) > 8:
            _INDEX_CACHE.clear()
        _INDEX_CACHE[id(vocab)] = (vocab, index)
    from core.graph.vocabulary import freeze_long_lived

    freeze_long_lived()
    return index


def _build_company_index(vocab: Vocabulary) -> _CompanyIndex:
    by_run: dict[str, list[tuple[str, str, str]]] = {}
    other: list[tuple[str, str, str]] = []
    fuzzy, firsts = [], {}

    def add(phrase: str, name: str, how: str) -> None:
        run = _RUN.search(phrase.lower())
        if run:
            by_run.setdefault(run.group(0), []).append((phrase, name, how))
        else:
            other.append((phrase, name, how))

    for comp in vocab.companies:
        name = comp["name"]
        add(name, name, "exact")
        for alias in comp.get("aliases") or []:
            if alias and not _generic(alias):
                add(alias, name, f"alias '{alias}'")
        core = _core_name(name)
        if core != name and not _generic(core):
            add(core, name, f"name '{core}'")
        tok = core.split()[0].strip(",.").lower() if core.strip() else ""
        if len(tok) >= 5 and not _generic(tok) and not CJK.search(tok):
            firsts[tok] = None if tok in firsts else name
        for cand in {core} | {a for a in comp.get("aliases") or [] if a}:
            if cand and not _generic(cand):
                fuzzy.append((cand.lower(), name, len(cand.split())))
    ends: dict[tuple[str, str], tuple[list[int], list[str]]] = {}
    for i, (cand, _, _) in enumerate(fuzzy):
        for key in (("head", cand[:2]), ("tail", cand[-2:])):
            ids, strings = ends.setdefault(key, ([], []))
            ids.append(i)
            strings.append(cand)
    return _CompanyIndex(by_run, other, {k: v for k, v in firsts.items() if v}, fuzzy, ends)


def link_company_spans(question: str, vocab: Vocabulary) -> tuple[dict[str, str], list[tuple[int, int]]]:
    """Companies named in the question (name -> how) and the character spans that named them.

    Exact name, alias or distinctive core name first; the longest match wins, so an alias
    inside a longer matched name ("Belmira" in "Belmira Payments SA") names no other company.
    Then a distinctive leading word, then fuzzy matching for typos and missing suffixes.
    """
    from rapidfuzz import process

    index = _company_index(vocab)
    q = question
    ql = q.lower()
    candidates = list(index.other_phrases)
    for run in set(_RUN.findall(ql)):
        candidates.extend(index.by_run.get(run, ()))
    hits: list[tuple[int, int, str, str]] = []
    for phrase, name, how in candidates:
        span = _phrase_span(q, phrase)
        if span:
            hits.append((span[0], span[1], name, how))
    if hits:
        # drop a match that lies inside a longer match of another phrase
        kept = [h for h in hits if not any(o is not h and o[0] <= h[0] and h[1] <= o[1] and (o[1] - o[0]) > (h[1] - h[0])
                                           for o in hits)]
        kept.sort(key=lambda h: (h[0], -(h[1] - h[0])))
        kept = _narrow_shared_phrases(q, kept)
        found: dict[str, str] = {}
        for _, _, name, how in kept:
            found.setdefault(name, how)
        return found, [(a, b) for a, b, _, _ in kept]
    # a distinctive leading word of one company's name ("Alpenkraft's colocation agreement")
    found, spans = {}, []
    for m in re.finditer(r"[a-z0-9][a-z0-9\-]*", ql):
        name = index.first_tokens.get(m.group(0))
        if name:
            found.setdefault(name, f"distinctive name word '{m.group(0)}'")
            spans.append(m.span())
    if found:
        return found, spans
    # Fuzzy: windows of question words against distinctive names (typos, missing suffix).
    words = [(m.group(0), m.start(), m.end()) for m in _FUZZY_WORD.finditer(q)]
    best: dict[str, tuple[float, str, tuple[int, int]]] = {}
    for size in range(1, 5):
        for i in range(0, max(0, len(words) - size) + 1):
            part = words[i:i + size]
            window = re.sub(r"'s$", "", " ".join(w for w, _, _ in part))
            if len(window) < 4 or _generic(window) or all(_generic(w.strip(".,'")) for w, _, _ in part):
                continue  # only generic words ("of logistics") name no company, however close the string
            wl = window.lower()
            for end, key in (("head", wl[:2]), ("tail", wl[-2:])):
                ids, strings = index.fuzzy_ends.get((end, key), ((), ()))
                for cand, score, j in process.extract(wl, strings, scorer=fuzz.ratio, score_cutoff=84, limit=10):
                    _, name, n = index.fuzzy[ids[j]]
                    if abs(size - n) <= 1 and score > best.get(name, (0, "", (0, 0)))[0]:
                        best[name] = (score, f"fuzzy '{window}'~'{cand}' ({score:.0f})", (part[0][1], part[-1][2]))
    if best:
        top = max(s for s, _, _ in best.values())
        chosen = {n: (how, span) for n, (s, how, span) in best.items() if s >= top - 3}
        return {n: how for n, (how, _) in chosen.items()}, [span for _, span in chosen.values()]
    return {}, []


def _narrow_shared_phrases(q: str, hits: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """A phrase shared by several companies (a group's alias) followed by the rest of one of
    their names, misspelt ("Belmira Paymnts"), names that one company only."""
    by_span: dict[tuple[int, int], list[tuple[int, int, str, str]]] = {}
    for h in hits:
        by_span.setdefault((h[0], h[1]), []).append(h)
    out = []
    for (a, b), group in by_span.items():
        if len(group) > 1:
            following = [m for _, m in zip(range(3), _FUZZY_WORD.finditer(q, b))]
            best = None
            for n in range(1, len(following) + 1):
                end = following[n - 1].end()
                window = re.sub(r"'s$", "", q[a:end]).lower()
                scored = sorted(((fuzz.ratio(window, _core_name(h[2]).lower()), h) for h in group), reverse=True)
                top, runner = scored[0][0], scored[1][0] if len(scored) > 1 else 0
                if top >= 84 and top - runner >= 5 and (best is None or top > best[0]):
                    best = (top, (a, end, scored[0][1][2], f"fuzzy '{q[a:end]}' ({top:.0f})"))
            if best:
                out.append(best[1])
                continue
        out.extend(group)
    return out


def link_companies(question: str, vocab: Vocabulary) -> tuple[list[str], dict[str, str]]:
    """Exact name, alias, distinctive core name, then fuzzy (typos). Returns names and how."""
    found, _ = link_company_spans(question, vocab)
    return list(found), found


def mask_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with the given spans blanked out, so a company's own words link to nothing else."""
    chars = list(text)
    for a, b in spans:
        for i in range(a, min(b, len(chars))):
            chars[i] = " "
    return "".join(chars)


def link_sla_ids(question: str, vocab: Vocabulary) -> list[str]:
    found = SLA_ID.findall(question)
    if not found:
        return []
    ids = vocab.agreement_ids
    return [m for m in dict.fromkeys(found) if m in ids]


_ALIAS_CACHE: dict[tuple[int, str], tuple[Vocabulary, dict[str, str]]] = {}


def _alias_map(vocab: Vocabulary, kind: str) -> dict[str, str]:
    """phrase -> graph value for a vocabulary's countries, industries, cities or laws (plus lexicon
    synonyms), longest phrase first; built once per vocabulary."""
    hit = _ALIAS_CACHE.get((id(vocab), kind))
    if hit and hit[0] is vocab:
        return hit[1]
    out: dict[str, str] = {}
    if kind == "cities":
        out = {c.lower(): c for c in vocab.cities}
    elif kind == "governing_laws":
        for law in vocab.governing_laws:
            out[law.lower()] = law
            for canon, syns in lexicon()["countries"].items():
                if canon.lower() in law.lower():
                    for s in syns + [canon]:
                        out.setdefault(s.lower(), law)
    else:
        lex = lexicon()[kind]
        for value in getattr(vocab, kind):
            out[value.lower()] = value
            for canon, syns in lex.items():
                if canon.lower() == value.lower() or value.lower() in (s.lower() for s in syns):
                    out[canon.lower()] = value
                    for s in syns:
                        out[s.lower()] = value
    out = {k: out[k] for k in sorted(out, key=len, reverse=True) if k}
    if len(_ALIAS_CACHE) > 32:
        _ALIAS_CACHE.clear()
    _ALIAS_CACHE[(id(vocab), kind)] = (vocab, out)
    return out


def _match_values(question: str, mapping: dict[str, str], guard_clause_words: bool = True) -> dict[str, str]:
    found: dict[str, str] = {}
    ql = question.lower()
    for phrase in sorted(mapping, key=len, reverse=True):
        if not phrase or phrase not in ql:
            continue
        if CJK.search(phrase):
            idx = question.find(phrase)
            if idx >= 0:
                found[mapping[phrase]] = phrase
            continue
        pat = r"(?<![a-z0-9])" + re.escape(phrase) + r"(?![a-z0-9])"
        for m in re.finditer(pat, ql):
            after = question.lower()[m.end():m.end() + 12]
            if guard_clause_words and re.match(r"\s*(clauses?|provisions?|条款)", after):
                continue
            if phrase in {"us", "it", "uk"} and question[m.start():m.end()] != phrase.upper():
                continue  # "us"/"it" as ordinary words, only upper-case abbreviations count
            found.setdefault(mapping[phrase], phrase)
            break
    return found


# ---------------------------------------------------------------------------------------
# clause types
# ---------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _type_phrases() -> list[tuple[str, str, float]]:
    """(phrase, type, weight) from the taxonomy: names strongest, keywords weaker."""
    from core.taxonomy import load_taxonomy

    out = []
    for t in load_taxonomy():
        if t.name == "Other":
            continue
        out.append((t.name.lower(), t.name, 1.0))
        if t.name.lower().endswith("s") and " " in t.name:
            out.append((t.name.lower()[:-1], t.name, 1.0))  # "service credit clause"
        for kw in t.keywords_en:
            out.append((kw.lower(), t.name, 0.8))
        for kw in t.keywords_zh:
            out.append((kw, t.name, 0.9))
        for concept in t.concepts:  # related wording: "personal data", "解除"
            c = concept.rstrip("*").lower()
            if (CJK.search(c) and len(c) >= 2) or (not CJK.search(c) and " " in c):
                out.append((c, t.name, 0.7))
    return out


@lru_cache(maxsize=1)
def _type_phrases_longest_first() -> list[tuple[str, str, float]]:
    return sorted(_type_phrases(), key=lambda p: len(p[0]), reverse=True)


def _type_prototypes():
    from core.taxonomy import load_taxonomy

    types = [t for t in load_taxonomy() if t.name != "Other"]
    return types


@lru_cache(maxsize=1)
def _prototype_matrix():
    from core.embeddings import get_embedder

    types = _type_prototypes()
    texts = []
    owners = []
    for t in types:
        for txt in [t.name, f"{t.name} clause", t.description] + list(t.keywords_en[:6]):
            texts.append(txt)
            owners.append(t.name)
    vecs = get_embedder().encode(texts)
    return vecs, owners


def semantic_type(phrase: str, threshold: float = 0.55) -> tuple[str | None, float]:
    """Nearest clause type to a short English phrase by embedding similarity."""
    phrase = phrase.strip()
    if not phrase or CJK.search(phrase):
        return None, 0.0
    from core.embeddings import get_embedder

    vecs, owners = _prototype_matrix()
    v = get_embedder().encode([phrase])[0]
    sims = vecs @ v
    i = int(sims.argmax())
    return (owners[i], float(sims[i])) if sims[i] >= threshold else (None, float(sims[i]))


CLAUSE_ANCHOR = re.compile(r"\b(clauses?|provisions?|sections?|terms|obligations?|commitments?|rules?)\b|条款|规定|条", re.I)
PHRASE_STOP = re.compile(
    r"\b(a|an|the|any|their|its|his|her|our|your|of|'s|lack|lacks|lacking|have|has|with|without|no|both|"
    r"either|neither|nor|and|or|show|me|list|compare|all|which|what|about|on|suppliers?|compan(?:y|ies)|"
    r"vendors?|agreements?|contracts?|say|says|does|do|is|are|in|for|from|to|german|french|[a-z]+'s)\b", re.I)


def link_clause_types(question: str) -> tuple[list[str], dict[str, str], str | None]:
    """Types named or described in the question; also the leftover topic for relay search."""
    q = question.lower()
    found: dict[str, str] = {}
    named: list[str] = []  # English phrases that named or described a type (described-types pass)
    for phrase, tname, weight in _type_phrases_longest_first():
        if tname in found or phrase not in q:  # the regexes below need the phrase as a substring
            continue
        if CJK.search(phrase):
            if phrase in question:
                found[tname] = f"keyword '{phrase}'"
            continue
        if weight >= 1.0 or len(phrase) >= 4:
            stem = re.escape(phrase) + r"(?:s|es)?"
            if re.search(r"(?<![a-z])" + stem + r"(?![a-z])", q):
                # body keywords count only when they describe a clause, not a company or a topic
                if weight >= 1.0 or re.search(r"(?<![a-z])" + stem + r"(?![a-z])[\w\s-]{0,25}\b(clauses?|provisions?|sections?|terms)\b", q):
                    found[tname] = f"{'name' if weight >= 1.0 else 'keyword'} '{phrase}'"
                    named.append(phrase)
    # Chinese "<词>条款": match the words before 条款 against the types' Chinese keywords.
    for m in re.finditer(r"([\u4e00-\u9fff]{2,10})(?:条款|规定|条)", question):
        phrase = m.group(1)
        for size in (4, 3, 2):
            tail = phrase[-size:]
            if len(tail) < size:
                continue
            hits = {tname for p_, tname, _w in _type_phrases() if CJK.search(p_) and (tail in p_ or p_ in phrase)}
            if len(hits) == 1:
                tname = hits.pop()
                found.setdefault(tname, f"keyword '{tail}'")
                break
    # Described types: "<phrase> clause" where the phrase is no known name, e.g. "ending the agreement clause".
    topic = None
    for m in re.finditer(r"((?:[a-z\-']+\s+){1,4})(clauses?|provisions?)\b", q):
        words = [w for w in m.group(1).split() if not PHRASE_STOP.fullmatch(w)]
        phrase = " ".join(words)
        # "... lack a liability clause": the words before "clause" end with a type already named, so
        # there is nothing left to interpret (and embedding the phrase would cost a model call)
        if phrase and not any(phrase in p for p in found.values()) and not any(
                re.search(r"(?<![a-z])" + re.escape(n) + r"(?:s|es)?$", phrase) for n in named):
            tname, sim = semantic_type(phrase)
            if tname and tname not in found:
                found[tname] = f"meaning of '{phrase}' ({sim:.2f})"
                named.append(phrase)
    t = TOPIC.search(question)
    if t:
        topic = (t.group(2) or t.group(3) or "").strip(" ?.!。？")
        if topic and not found:
            tl = topic.lower()
            for phrase, tname, weight in _type_phrases_longest_first():
                if phrase not in tl and phrase not in topic:
                    continue
                if (CJK.search(phrase) and phrase in topic) or (
                        not CJK.search(phrase) and re.search(r"(?<![a-z])" + re.escape(phrase) + r"(?:s|es)?(?![a-z])", tl)):
                    if len(phrase) >= len(tl) * 0.5 or CJK.search(phrase):
                        found[tname] = f"topic '{phrase}'"
                        break
            if found:
                topic = None
        if topic and not found and len(topic.split()) <= 3:  # a longer topic is searched, not typed
            tname, sim = semantic_type(topic, threshold=0.62)
            if tname:
                found[tname] = f"meaning of '{topic}' ({sim:.2f})"
                topic = None
    return list(found), found, topic


def split_type_conjunction(question: str, types: list[str]) -> str:
    """'all' when every type is required (both/and), 'any' for or/either."""
    if len(types) < 2:
        return "all"
    if re.search(r"\b(or|either|any of)\b|或|或者|任一", question, re.I):
        return "any"
    return "all"


# ---------------------------------------------------------------------------------------
# numbers, years, dates
# ---------------------------------------------------------------------------------------

def _amount(m: re.Match) -> float:
    num = float(re.sub(r"[,\s]", "", m.group("num")))
    mult = (m.group("mult") or "").lower().strip()
    return num * MULT.get(mult, 1.0)


def parse_spend(question: str, high_threshold: float) -> tuple[float | None, float | None, str | None]:
    """(min, max, how) for spend filters: explicit amounts win over 'high-spend'."""
    q = question.lower()
    lo = hi = None
    how = None
    m = re.search(r"between\s+" + AMOUNT + r"\s+and\s+" + AMOUNT.replace("?P<", "?P<b_"), q)
    if m:
        a = float(re.sub(r"[,\s]", "", m.group("num"))) * MULT.get((m.group("mult") or "").strip(), 1.0)
        b = float(re.sub(r"[,\s]", "", m.group("b_num"))) * MULT.get((m.group("b_mult") or "").strip(), 1.0)
        return min(a, b), max(a, b), "between"
    for pat, kind in ((GT + r"\s*" + AMOUNT, "gt"), (LT + r"\s*" + AMOUNT, "lt"),
                      (ZH_GT + r"\s*" + AMOUNT, "gt"), (ZH_LT + r"\s*" + AMOUNT, "lt"),
                      (AMOUNT + r"\s*(?:以上|或以上|及以上)", "gt"), (AMOUNT + r"\s*(?:以下|以内)", "lt")):
        for m in re.finditer(pat, q):
            value = _amount(m)
            has_unit = m.group("mult") or m.group("cur1") or m.group("cur2")
            if not has_unit and 1950 <= value <= 2100 and float(value).is_integer():
                continue  # a year, not an amount
            if kind == "gt" and lo is None:
                lo, how = value, "explicit amount"
            elif kind == "lt" and hi is None:
                hi, how = value, "explicit amount"
    if lo is None and hi is None:
        if HIGH_SPEND.search(question):
            return high_threshold, None, f"high-spend threshold ({high_threshold:,.0f})"
        if LOW_SPEND.search(question):
            return None, high_threshold, f"low-spend threshold ({high_threshold:,.0f})"
    return lo, hi, how


def parse_year(question: str, years: list[int]) -> int | None:
    for m in YEAR.finditer(question):
        y = int(m.group(1))
        if y in years:
            return y
    return None


def parse_effective_dates(question: str) -> tuple[str | None, str | None]:
    q = question.lower()
    m = re.search(r"\b(effective|signed|dated|started|starting|starts|commenc\w*|生效)\b.{0,20}?"
                  r"\b(after|since|from|before|until|prior to|by)\b\s*(\d{4}-\d{2}-\d{2}|\d{4})", q)
    if not m:
        m2 = re.search(r"(\d{4}-\d{2}-\d{2}|\d{4})\s*年?(之后|以后|之前|以前)生效", q)
        if not m2:
            return None, None
        word, val = m2.group(2), m2.group(1)
        after = word in {"之后", "以后"}
    else:
        word, val = m.group(2), m.group(3)
        after = word in {"after", "since", "from"}
    if len(val) == 4:
        val = f"{val}-01-01" if after and word in {"since", "from"} else (f"{val}-12-31" if after else f"{val}-01-01")
    return (val, None) if after else (None, val)


# ---------------------------------------------------------------------------------------
# the planner
# ---------------------------------------------------------------------------------------

MODES = ("document", "clause_type", "attribute", "relay", "hybrid")


def plan_question(question: str, vocab: Vocabulary, context: SessionContext | None = None,
                  forced_mode: str | None = None) -> Plan:
    cfg = settings()
    q = normalize(question)
    lang = "zh" if CJK.search(q) else "en"
    linked: dict[str, Any] = {}

    how_c, company_spans = link_company_spans(q, vocab)
    companies = list(how_c)
    sla_ids = link_sla_ids(q, vocab)
    # a company's own words ("Belmira Payments SA", "Deutsche Health GmbH") name no type or filter
    rest = mask_spans(q, company_spans) if company_spans else q
    types, how_t, topic = link_clause_types(rest)
    countries = _match_values(rest, _alias_map(vocab, "countries"))
    industries = _match_values(rest, _alias_map(vocab, "industries"))
    cities = _match_values(rest, _alias_map(vocab, "cities"))
    laws = {}
    if re.search(r"\blaws?\b|governed|jurisdiction|法律|管辖|适用", rest, re.I):
        laws = _match_values(rest, _alias_map(vocab, "governing_laws"), guard_clause_words=False)
        # a country named only as the law is no company filter
        for law_word in laws.values():
            for cname, phrase in list(countries.items()):
                if phrase == law_word:
                    countries.pop(cname)
    spend_min, spend_max, spend_how = parse_spend(q, cfg.high_spend_threshold)
    year = parse_year(q, vocab.spend_years)
    date_from, date_to = parse_effective_dates(q)
    negated = bool(NEGATION.search(q))
    if companies:
        linked["companies"] = how_c
        # a company's own words (e.g. its country in its name) are no extra filter
    if how_t:
        linked["clause_types"] = how_t
    for key, val in (("countries", countries), ("industries", industries), ("cities", cities), ("governing_law", laws)):
        if val:
            linked[key] = val
    if spend_how:
        linked["spend"] = spend_how

    # Session context: a follow-up inherits what it refers to.
    inherited = []
    if context and context.turns and ANAPHORA.search(q):
        own_filters = bool(countries or industries or cities or laws or spend_min is not None or spend_max is not None)
        if not companies and not sla_ids and not own_filters and (context.companies or context.sla_ids):
            companies, sla_ids = list(context.companies), list(context.sla_ids)
            inherited.append("companies")
        if not types and context.clause_types and not topic:
            types = list(context.clause_types)
            inherited.append("clause types")
        if not (countries or industries or cities or spend_min or spend_max or companies) and context.filters:
            f = context.filters
            countries = {c: c for c in f.get("countries", [])}
            industries = {c: c for c in f.get("industries", [])}
            cities = {c: c for c in f.get("cities", [])}
            spend_min, spend_max = f.get("spend_min"), f.get("spend_max")
            inherited.append("filters")
    if inherited:
        linked["from_session"] = inherited

    spend_year = year or vocab.latest_year
    params: dict[str, Any] = {
        "companies": companies, "sla_ids": sla_ids, "types": types,
        "countries": list(countries), "industries": list(industries), "cities": list(cities),
        "governing_laws": list(laws.keys()), "spend_min": spend_min, "spend_max": spend_max,
        "spend_year": spend_year, "date_from": date_from, "date_to": date_to,
        "type_match": split_type_conjunction(q, types),
    }
    has_filters = bool(countries or industries or cities or laws or spend_min is not None
                       or spend_max is not None or date_from or date_to)
    asks_text = bool(re.search(r"\b(say|says|said|state|states|provide|provides|promise|promises|wording|text)\b|"
                               r"\b(show|list|give|read)\b.{0,30}\b(clauses?|provisions?)\b|(条款|规定)(内容|是什么|怎么|如何)|内容", q, re.I))
    if lang == "en":
        wants_companies = bool(re.search(
            r"\b(which|what|list|name|find|show|are there any|any)\s+(?:\S+\s+){0,3}?(suppliers?|vendors?|compan(?:y|ies)|"
            r"providers?|firms?|partners?|ones)\b|\bwhich of\b|\bwho\b", q, re.I)) and not asks_text \
            and not re.search(r"\b(which|what)\s+(clauses?|provisions?|sections?|terms)\b", q, re.I)
    else:
        wants_companies = bool(re.search(r"哪些|哪家|哪几家|哪个", q)) and not asks_text
    yes_no = bool(re.search(r"^\s*(does|do|did|is|are|has|have|can)\b|\bwhich of\b|是否|有没有|吗[？?]?\s*$", q, re.I))
    counting = bool(COUNT_WORDS.search(q))
    summing = bool(SUM_WORDS.search(q))
    counts_agreements = counting and bool(re.search(
        r"\b(how many|number of|count)\s+(?:\S+\s+){0,2}?(agreements?|contracts?|slas?)\b|多少(份|个)?(协议|合同)", q, re.I))
    if counts_agreements:
        params["count_unit"] = "agreements"
    if summing or (year and (spend_min is not None or spend_max is not None or summing)):
        params["require_spend"] = True  # a company without spend in that year has no spend to compare or add

    def make(intent: str, mode: str, why: str) -> Plan:
        return Plan(intent=intent, mode=forced_mode or mode, params=params, why=why, language=lang, linked=linked)

    # 0. a follow-up about the clause next to the one just shown ("what comes after it?")
    positional = bool(POSITION_AFTER.search(q) or POSITION_BEFORE.search(q))
    if positional and context and context.clause_ids and "companies" in inherited_keys(linked) and not how_t:
        params["direction"] = "before" if POSITION_BEFORE.search(q) and not POSITION_AFTER.search(q) else "after"
        params["anchor_ids"] = list(context.clause_ids[:1])
        params["types"] = []
        return make("next_clause", "document", f"asks for the clause {params['direction']} the clause just shown")
    # 1. companies without any agreement
    if NO_AGREEMENT.search(q) and not types:
        return make("no_agreement", "attribute", "asks for companies that have no agreement")
    # 2. a known company or agreement: read its document
    if companies or sla_ids:
        if counting:
            params["count_unit"] = params.get("count_unit") or "clauses"
            if params["count_unit"] == "agreements":
                return make("count", "document", "counts the agreements of a known company")
            return make("count", "document", "counts the clauses of a known company's agreements")
        if types and negated and not positional:
            params["gap"] = True
            return make("gap", "attribute", "asks whether the named companies lack a clause type")
        if positional:
            params["direction"] = "before" if POSITION_BEFORE.search(q) and not POSITION_AFTER.search(q) else "after"
            anchor = re.search(r"\b(?:after|before|following|follows|precedes|preceding)\s+(?:the\s+)?[\"']?(.+?)[\"']?"
                               r"(?:\s+(?:clause|section|provision))?\s+(?:in|of|within)\s+", q, re.I)
            params["anchor_text"] = (anchor.group(1).strip() if anchor else "") or topic or ""
            return make("next_clause", "document", f"asks for the clause {params['direction']} another clause in a known agreement")
        if types and (yes_no or (wants_companies and len(companies) > 1)):
            params["gap"] = False
            return make("presence", "attribute", "asks whether the named companies have a clause type")
        if types:
            return make("document_type", "document", "names a company/agreement and a clause type")
        if topic:
            params["text"] = topic
            return make("document_topic", "document", "names a company/agreement and asks about a topic")
        return make("document", "document", "names a company or agreement")
    # 3. gap / presence / counts over filtered companies
    if types and negated:
        intent = "sum_spend" if summing else ("count" if counting else "gap")
        params["gap"] = True
        return make(intent, "attribute", "asks which companies lack a clause type (none of the types among their classified clauses)")
    if types and wants_companies and not COMPARE.search(q):
        intent = "count" if counting else "presence"
        params["gap"] = False
        return make(intent, "attribute", "asks which companies have a clause type")
    if types and has_filters:
        return make("attribute_clauses", "attribute", "filters companies by attributes, then reads their clauses of a type")
    if types and topic and not wants_companies and re.search(r"\b(about|regarding|concerning|mention)", q, re.I):
        params["text"] = topic
        return make("clause_type", "clause_type", "collects one clause type across agreements (ranked by the topic)")
    if types:
        return make("clause_type", "clause_type", "collects one clause type across agreements")
    # 4. no type: a topic means semantic search, filtered by attributes when given
    quoted = re.findall(r"[\"'“「『]([^\"'”」』]{2,80})[\"'”」』]", q)
    wording = WORDING.search(q)
    filter_phrases = [ph for key in ("countries", "industries", "cities", "governing_law")
                      for ph in (linked.get(key) or {}).values()]
    text_query = (quoted[0] if quoted else None) or topic or (
        q[wording.end():].strip(" ?.!。？") if wording and len(q[wording.end():].split()) >= 1 else None) \
        or _semantic_text(q, filter_phrases) or _residual_topic(q)
    if text_query and (wording or quoted):
        params["text"] = text_query
        return make("hybrid", "hybrid", "asks about wording: full-text and vector search, fused")
    if (has_filters and (counting or summing or wants_companies or not text_query)) or \
            ((counting or summing) and not text_query) or (summing and re.search(r"\b(all|every|each)\b|所有|全部", q)):
        intent = "sum_spend" if summing else ("count" if counting else "companies")
        return make(intent, "attribute", "filters companies by attributes")
    if text_query and (CLAUSE_WORDS.search(q) or has_filters or topic):
        params["text"] = text_query
        return make("relay", "relay", "asks about a meaning: vector search, then walk back to companies and filter")
    if forced_mode in {"relay", "hybrid"}:
        params["text"] = text_query or q
        return make(forced_mode, forced_mode, f"{forced_mode} mode chosen: the question's words are the search text")
    plan = make("unknown", forced_mode or "none", "could not map the question to companies, clause types or attributes")
    plan.suggestions = [
        "Which high-spend suppliers lack a termination clause?",
        "Show me data protection clauses of German healthcare companies.",
        f"What does {vocab.companies[0]['name'] if vocab.companies else 'Acme'}'s agreement say about liability?",
        "Compare the termination clauses of all suppliers.",
        "Clauses of technology suppliers about restoring data after an outage.",
    ]
    return plan


def inherited_keys(linked: dict) -> list[str]:
    return list(linked.get("from_session") or [])


SCAFFOLD = re.compile(
    r"\b(which|what|show|list|find|give|me|all|any|the|of|in|among|from|for|clauses?|provisions?|sections?|"
    r"suppliers?|vendors?|compan(?:y|ies)|providers?|agreements? of|contracts? of|high[- ]spend(?:ing)?|"
    r"do|does|that|whose|our)\b|[?？。!.]", re.I)


def _semantic_text(q: str, filter_phrases: list[str]) -> str | None:
    """The question without its filters and scaffolding: what the clauses should be about."""
    text = q
    for ph in sorted(filter_phrases, key=len, reverse=True):
        text = re.sub(r"(?<![A-Za-z])" + re.escape(ph) + r"(?![A-Za-z])", " ", text, flags=re.I)
    text = SCAFFOLD.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;:")
    return text if len(text.split()) >= 2 or (CJK.search(text) and len(text) >= 2) else None


def _residual_topic(q: str) -> str | None:
    words = [w for w in _words(q) if w not in STOPWORDS and not w.isdigit()]
    return " ".join(words) if len(words) >= 2 else None
