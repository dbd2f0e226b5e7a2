"""Entity linking: the companies, agreements and attribute values a question names.

Shared by the offline planner and Text2Cypher's candidate recall, so both read a question's
names the same way. Every value proposed is one that exists in the graph's vocabulary, so a
filter can never silently match nothing because of spelling.
"""
from __future__ import annotations

import json
import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz

from core.config import PROJECT_ROOT
from core.graph.vocabulary import Vocabulary
from core.words import known_words
from core.zh_script import to_simplified

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
SLA_ID = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,6}-\d{1,6}(?![0-9])")   # "SLA-002的": CJK next to it is no word boundary here


# the note-taker's "w/o" and "w/" ("suppliers w/o a termination clause"), read as the words they stand for
SHORTHAND_WITHOUT = re.compile(r"(?<![A-Za-z0-9/])w/o(?![A-Za-z0-9/])", re.I)
SHORTHAND_WITH = re.compile(r"(?<![A-Za-z0-9/])w/(?=\s)", re.I)
# a negation typed without its apostrophe ("which suppliers dont have a help desk"), read with it
APOSTROPHE_LESS = re.compile(r"\b(do|does|did|have|has|had|is|are|was|were|ca|could|should|would|wo|must|need)nt\b", re.I)


def normalize(text: str) -> str:
    """A question as the planner reads it: NFKC, straight quotes, single spaces, shorthand and
    apostrophe-less negations spelt out, and Traditional Chinese read as Simplified (the lexicon's
    and the taxonomy's script)."""
    text = to_simplified(unicodedata.normalize("NFKC", text))
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = SHORTHAND_WITHOUT.sub("without", SHORTHAND_WITH.sub("with", text))
    text = APOSTROPHE_LESS.sub(r"\1n't", text)
    return re.sub(r"\s+", " ", text).strip()


@lru_cache(maxsize=1)
def lexicon() -> dict:
    with open(PROJECT_ROOT / "data" / "lexicon.json", encoding="utf-8") as fh:
        data = json.load(fh)
    return {k: v for k, v in data.items() if not k.startswith("_")}


# ---------------------------------------------------------------------------------------
# companies, agreements and attribute values
# ---------------------------------------------------------------------------------------

def core_name(name: str) -> str:
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


def phrase_span(haystack: str, phrase: str) -> tuple[int, int] | None:
    """Where `phrase` occurs in `haystack` as whole words (a possessive 's allowed), or None."""
    if not phrase:
        return None
    if CJK.search(phrase):
        i = haystack.find(phrase)
        return (i, i + len(phrase)) if i >= 0 else None
    if re.fullmatch(r"[A-Z][A-Z0-9&]{1,5}", phrase):
        # an abbreviation in capitals; typed in lower case only when it is no English word ("mvh", not "it")
        pattern = r"(?<![A-Za-z0-9])" + re.escape(phrase) + r"(?:'s)?(?![A-Za-z0-9])"
        m = re.search(pattern, haystack)
        if m is None and len(phrase) >= 3 and known_words() and phrase.lower() not in known_words():
            m = re.search(pattern, haystack, re.I)
    else:
        m = _phrase_regex(phrase).search(haystack.lower())
    return m.span() if m else None


def contains_phrase(haystack: str, phrase: str) -> bool:
    return phrase_span(haystack, phrase) is not None


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
_REGISTERED_ZH = re.compile(r"(?:公司|集团|企业|事务所|银行)$")
# what follows a shortened Chinese company name: a particle, an agreement word, a word that leaves it out
# or lists it (以外, 及) or punctuation, so the two characters are a name there and not the start of another word
_CJK_HEAD_END = re.compile(r"(?=的|合同|协议|公司|签|和|与|跟|及|或|有|没|是|在|方面|以外|之外|除外|[，,。？?！!、：:\s]|$)")
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
    cjk_heads: dict[str, tuple[str, str]] = field(default_factory=dict)  # 2-character head -> (company, alias)
    # first three letters of a service-name word -> (agreement id, the name's content words): the agreements a
    # phrase's last word can name ("lab" reaches "Laboratory Analytics Platform")
    services: dict[str, list[tuple[str, list[str]]]] = field(default_factory=dict)
    service_word_counts: Counter = field(default_factory=Counter)   # word -> how many agreements' names hold it


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
        if to_simplified(name) != name:   # questions are read in Simplified script (normalize)
            add(to_simplified(name), name, "exact")
        for alias in comp.get("aliases") or []:
            if alias and not _generic(alias):
                add(alias, name, f"alias '{alias}'")
                if to_simplified(alias) != alias:
                    add(to_simplified(alias), name, f"alias '{alias}'")
        core = core_name(name)
        if core != name and not _generic(core):
            add(core, name, f"name '{core}'")
        tok = core.split()[0].strip(",.").lower() if core.strip() else ""
        if len(tok) >= 5 and not _generic(tok) and not CJK.search(tok):
            firsts[tok] = None if tok in firsts else name
        for cand in {core} | {a for a in comp.get("aliases") or [] if a}:
            if cand and not _generic(cand):
                fuzzy.append((cand.lower(), name, len(cand.split())))
    ends: dict[tuple[str, str], tuple[list[int], list[str]]] = {}
    heads: dict[str, tuple[str, str] | None] = {}
    opened_by: dict[str, set[str]] = {}
    for comp in vocab.companies:
        names = [a for a in [comp["name"], *(comp.get("aliases") or [])] if a and CJK.match(a)]
        for a in names:
            opened_by.setdefault(a[:2], set()).add(comp["name"])
        # a Chinese name is shortened to its first two characters ("莲华" for 莲华智能): the head of
        # the company's shortest brand alias (a registered "…公司" name may open with its city)
        brands = sorted((a for a in names if not _REGISTERED_ZH.search(a)), key=len)
        if brands and len(brands[0]) > 2:
            heads.setdefault(brands[0][:2], (comp["name"], brands[0]))
    # only a head no other company's Chinese name opens with
    heads = {h: v for h, v in heads.items() if v and opened_by.get(h) == {v[0]}}
    for i, (cand, _, _) in enumerate(fuzzy):
        for key in (("head", cand[:2]), ("tail", cand[-2:])):
            ids, strings = ends.setdefault(key, ([], []))
            ids.append(i)
            strings.append(cand)
    services: dict[str, list[tuple[str, list[str]]]] = {}
    service_word_counts: Counter = Counter()
    for a in vocab.agreements:
        words = _service_name_words(a.get("service_name") or "")
        service_word_counts.update(set(words))
        acronyms = {"".join(w[0] for w in words[i:j]) for i in range(len(words)) for j in range(i + 3, len(words) + 1)}
        for stem in dict.fromkeys([w[:3] for w in words] + sorted(acronyms)):   # "LIS": Laboratory Information System
            services.setdefault(stem[:3], []).append((a["id"], words))
    return _CompanyIndex(by_run, other, {k: v for k, v in firsts.items() if v}, fuzzy, ends,
                         {k: v for k, v in heads.items() if v}, services, service_word_counts)


def _service_name_words(name: str) -> list[str]:
    """A service name's content words, plural "s" dropped; "service" names no service (every
    agreement here is a service agreement)."""
    return [w for w in (w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][A-Za-z\-]{2,}", name))
            if w not in STOPWORDS and w != "service"]


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
        span = phrase_span(q, phrase)
        if span:
            hits.append((span[0], span[1], name, how))
    found: dict[str, str] = {}
    spans: list[tuple[int, int]] = []
    if hits:
        # drop a match that lies inside a longer match of another phrase
        kept = [h for h in hits if not any(o is not h and o[0] <= h[0] and h[1] <= o[1] and (o[1] - o[0]) > (h[1] - h[0])
                                           for o in hits)]
        kept.sort(key=lambda h: (h[0], -(h[1] - h[0])))
        kept = _narrow_shared_phrases(q, kept)
        for a, b, name, how in kept:
            found.setdefault(name, how)
            spans.append((a, b))
    # a distinctive leading word of one company's name ("Alpenkraft's colocation agreement"),
    # also beside a name matched in full ("Kestrel and Belmira")
    shortened = [(m.span(), index.first_tokens.get(m.group(0)), f"distinctive name word '{m.group(0)}'")
                 for m in re.finditer(r"[a-z0-9][a-z0-9\-]*", ql)]
    if index.cjk_heads:   # looked up by the question's character pairs: cost independent of the company count
        for i in range(len(q) - 1):
            head = index.cjk_heads.get(q[i:i + 2])
            if head and _CJK_HEAD_END.match(q, i + 2):
                shortened.append(((i, i + 2), head[0], f"first characters '{q[i:i + 2]}' of '{head[1]}'"))
    for (a, b), name, how in shortened:
        if name and name not in found and not any(x <= a < y or x < b <= y for x, y in spans):
            found[name] = how
            spans.append((a, b))
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
                scored = sorted(((fuzz.ratio(window, core_name(h[2]).lower()), h) for h in group), reverse=True)
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


def _service_words(name: str) -> set[str]:
    """Content words (plural "s" dropped) and Chinese character bigrams: of a service name, or
    of a question, so the two compare."""
    words = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][A-Za-z\-]{3,}", name)}
    grams = {run[i:i + 2] for run in CJK.findall(name) for i in range(len(run) - 1)}
    return (words - STOPWORDS) | grams


def link_agreement_by_service(question: str, vocab: Vocabulary, companies: list[str]) -> tuple[str, str] | None:
    """One of a named company's several agreements, named by a word of its service that none
    of the company's other agreements has ("Alpenkraft's backup agreement"): (id, how). With no
    company named, an agreement named by its service alone (`_agreement_named_by_its_service`)."""
    if not companies:
        return _agreement_named_by_its_service(question, vocab)
    if len(companies) != 1:
        return None
    own = [a for a in vocab.agreements if a.get("company") == companies[0] and a.get("service_name")]
    if len(own) < 2:
        return None
    words = {a["id"]: _service_words(a["service_name"]) for a in own}
    asked = _service_words(question)
    hits = {}
    for sla_id, ws in words.items():
        others = set().union(*(v for k, v in words.items() if k != sla_id))
        distinctive = (ws - others) & asked
        if distinctive:
            hits[sla_id] = sorted(distinctive)
    if len(hits) != 1:
        return None
    sla_id, said = next(iter(hits.items()))
    return sla_id, f"service word '{said[0]}'"


# the words right before "agreement" / "contract" / "SLA" ("the lab analytics platform agreement")
_BEFORE_AGREEMENT_NOUN = re.compile(r"((?:[A-Za-z][A-Za-z\-]*\s+){1,6})(?:agreements?|contracts?|slas?)\b", re.I)


def _matches_service_word(asked: str, service_word: str) -> bool:
    """The same word, another form of it ("hosting" for "Hosted"), or its abbreviation: three
    letters or more that begin it ("lab" for "laboratory")."""
    return asked == service_word or (len(asked) >= 3 and service_word.startswith(asked)) or \
        _word_stem(asked) == _word_stem(service_word)


def _word_stem(word: str) -> str:
    """A word without its inflection ("hosting", "hosted", "hosts": "host"), stems of four letters or more."""
    m = re.fullmatch(r"([a-z\-]{4,}?)(?:ing|ed|es|s)?", word)
    return m.group(1) if m else word


def _agreement_named_by_its_service(question: str, vocab: Vocabulary) -> tuple[str, str] | None:
    """An agreement named by its service and no company ("the liability terms in the lab analytics
    platform agreement", "the colocation agreement"): the words just before "agreement" (or
    "contract", "SLA") name it as `_agreement_whose_service_ends` reads them."""
    return _agreement_whose_service_ends([m.group(1).split() for m in _BEFORE_AGREEMENT_NOUN.finditer(question)],
                                         vocab, "service name")


# a preposition left at the end of a question ("who do we buy natural gas from?") ends no name
_STRANDED = frozenset({"from", "to", "for", "with", "by", "of", "at", "on", "in"})


def link_agreement_by_what_it_supplies(question: str, vocab: Vocabulary) -> tuple[str, str] | None:
    """"Which supplier does our cosmetic packaging?", "Who provides our colocation?": the words
    the question ends with name what one agreement supplies, as `_agreement_whose_service_ends`
    reads them; for a question that asks for a supplier and names none."""
    words = re.findall(r"[A-Za-z][A-Za-z\-']*", question)
    while words and words[-1].lower() in _STRANDED:   # "who do we buy natural gas from?"
        words.pop()
    return _agreement_whose_service_ends([words], vocab, "supplies")


# words read past inside a service's name ("Operation and Support"); any other word not in the
# name ends it ("what maintenance does the imaging maintenance agreement ...": not past "does the")
_INSIDE_NAMES = frozenset({"and", "&", "of", "for", "or"})


def _a_name_of_its_own(said: list[str], service: list[str], index: _CompanyIndex) -> bool:
    """A word said that is no English word and is in this service's name only ("the SD-WAN
    agreement" for "SD-WAN Managed Network"): a name, even where it is under half the name's words."""
    known = known_words()
    return bool(known) and any(w.lower().rstrip("s") in service and w.lower() not in known
                               and index.service_word_counts[w.lower().rstrip("s")] == 1 for w in said)


def _initials_of(word: str, service: list[str]) -> bool:
    """An upper-case word of three to five letters that spells the initials of consecutive words of
    the service's name ("LIS" in "Laboratory Information System Operation and Support")."""
    if not (3 <= len(word) <= 5 and word.isalpha() and word.isupper()):
        return False
    initials = "".join(w[0] for w in service)
    return word.lower() in initials


def _agreement_whose_service_ends(phrases: list[list[str]], vocab: Vocabulary, how: str) -> tuple[str, str] | None:
    """The one agreement whose service name a phrase's last words say: read back from its end to
    the first word that is not in the service's name, they are at least half of its words (the
    agreement most of whose name is said, when several fit). One word must be the whole word, not
    an abbreviation ("lab" for "laboratory" only beside another word). "Service" names no service
    (every agreement here is a service agreement), and fewer words name a kind of agreement ("a
    platform agreement"), not one of ours. (id, how) or None."""
    hits: dict[str, tuple[int, list[str]]] = {}
    index = _company_index(vocab)
    services = index.services
    for phrase in phrases:
        words = [w.lower() for w in phrase]
        last = next((w for w in reversed(words) if w not in STOPWORDS and w.rstrip("s") != "service"), "")
        # under the word as said ("LIS") and as the service's words are indexed ("gas" as "ga")
        keys = dict.fromkeys((last[:3], last.rstrip("s")[:3])) if len(last) >= 3 else {}
        candidates = {sla_id: service for key in keys for sla_id, service in services.get(key, [])}
        for sla_id, service in candidates.items():
            said, covered = [], 0
            for original, w in zip(reversed(phrase), reversed(words)):
                if w in _INSIDE_NAMES or w.rstrip("s") == "service":   # "logistics and warehousing": read past
                    continue
                if _initials_of(original, service):   # "the LIS support agreement": one word for three
                    said.append(original)
                    covered += len(original)
                    continue
                if not any(_matches_service_word(w.rstrip("s"), sw) for sw in service):
                    break
                said.append(w)
                covered += 1
            whole = covered >= 2 or (said and said[0].rstrip("s") in service and len(said[0]) >= 4)
            if whole and (2 * covered >= len(service) or _a_name_of_its_own(said, service, index)):
                hits[sla_id] = (covered, said[::-1])
    most = max((n for n, _said in hits.values()), default=0)
    best = [(sla_id, said) for sla_id, (n, said) in hits.items() if n == most]   # the most of a name said
    if len(best) != 1:
        return None
    sla_id, said = best[0]
    return sla_id, f"{how} '{' '.join(said)}'"


_ALIAS_CACHE: dict[tuple[int, str], tuple[Vocabulary, dict[str, str]]] = {}


def alias_map(vocab: Vocabulary, kind: str) -> dict[str, str]:
    """phrase -> graph value for a vocabulary's countries, industries, cities or laws (plus lexicon
    synonyms), longest phrase first; built once per vocabulary."""
    hit = _ALIAS_CACHE.get((id(vocab), kind))
    if hit and hit[0] is vocab:
        return hit[1]
    out: dict[str, str] = {}
    if kind == "cities":
        out = {c.lower(): c for c in vocab.cities}
        known = {c.lower(): c for c in vocab.cities}
        for canon, syns in lexicon().get("cities", {}).items():   # other spellings, Chinese names
            names = [canon.lower(), *(x.lower() for x in syns)]
            city = next((known[n] for n in names if n in known), None)
            if city:
                for n in names:
                    out.setdefault(n, city)
    elif kind == "governing_laws":
        for law in vocab.governing_laws:
            out[law.lower()] = law
            for canon, syns in jurisdiction_names():
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
    for phrase, value in list(out.items()):   # questions are read in Simplified script (normalize)
        out.setdefault(to_simplified(phrase), value)
    out = {k: out[k] for k in sorted(out, key=len, reverse=True) if k}
    if len(_ALIAS_CACHE) > 32:
        _ALIAS_CACHE.clear()
    _ALIAS_CACHE[(id(vocab), kind)] = (vocab, out)
    return out


def fuzzy_values(question: str, mapping: dict[str, str]) -> dict[str, str]:
    """Values named with a slip of the keyboard ("Germny", "helthcare", "Untied States"): a run of
    the question's words one edit from a value's name or synonym of at least 6 letters (two edits
    from one of 9 or more), same first letter, with a word in the run that is no English word
    (so "retain" is never "Retail"). Value -> the words as typed."""
    from rapidfuzz.distance import DamerauLevenshtein

    known = known_words()
    if not known:
        return {}
    words = [(m.group(0).lower(), m.start(), m.end()) for m in re.finditer(r"[A-Za-z][A-Za-z'-]*", question)]
    found: dict[str, str] = {}
    for key, value in mapping.items():
        if len(key) < 6 or not re.fullmatch(r"[a-z][a-z .'-]*", key):
            continue
        size, limit = len(key.split()), (2 if len(key) >= 9 else 1)
        for i in range(len(words) - size + 1):
            run = words[i:i + size]
            typed = " ".join(w for w, _, _ in run)
            if typed == key or typed[0] != key[0] or abs(len(typed) - len(key)) > limit:
                continue
            if all(w in known for w, _, _ in run) or DamerauLevenshtein.distance(typed, key) > limit:
                continue
            if re.match(r"\s*(clauses?|provisions?|条款)", question[run[-1][2]:run[-1][2] + 12], re.I):
                continue
            found.setdefault(value, question[run[0][1]:run[-1][2]])
    return found


def jurisdiction_names() -> list[tuple[str, list[str]]]:
    """(name, synonyms) of every country and sub-national jurisdiction (New York, England and
    Wales, Hong Kong) the lexicon knows: what a governing law may be called, in both languages."""
    lex = lexicon()
    return list(lex["countries"].items()) + list(lex.get("jurisdictions", {}).items())


def region_countries(question: str, vocab: Vocabulary) -> tuple[dict[str, str], str | None]:
    """Countries named through a region ("Asian suppliers", "欧洲供应商"): country -> the region
    word, for the region's countries the graph holds; and the region when it holds none of
    them (the filter then applies and matches none, and the plan says so)."""
    regions = lexicon().get("regions", {})
    phrases = {name: region for region, spec in regions.items() for name in spec["names"]}
    found = match_values(question, phrases)
    out: dict[str, str] = {}
    empty = None
    for region, phrase in found.items():
        held = [c for c in regions[region]["countries"] if c in vocab.countries]
        if not held:
            empty = empty or region
        for country in held:
            out.setdefault(country, phrase)
    return out, empty


def match_values(question: str, mapping: dict[str, str], guard_clause_words: bool = True) -> dict[str, str]:
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
            if phrase in {"us", "it"} and question[m.start():m.end()] != phrase.upper() and not re.match(
                    r"\s+(?:-?based\s+)?(?:(?!(?:all|the|our|any|every|some|those|these|of|with|for)\b)[a-z]+\s+)?"
                    r"(?:suppliers?|vendors?|compan(?:y|ies)|firms?|providers?|partners?)\b",
                    ql[m.end():m.end() + 40]):
                continue  # "us"/"it" as ordinary words: upper case, or lower case before "suppliers"
            if len(phrase) <= 3 and re.match(r"-(?!(?:based|headquartered|located|registered|owned)\b)[a-z]", after):
                continue  # part of a compound name ("IT-Grundschutz"), not the abbreviation
            found.setdefault(mapping[phrase], phrase)
            break
    return found
