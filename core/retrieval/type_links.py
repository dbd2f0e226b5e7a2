"""Which clause types a question names or describes, in either language.

The taxonomy's names, keywords and related wording are matched longest first, Chinese
"<词>条款" phrases against the Chinese keywords, a misspelt type word before "clause" by edit
distance, and, where no word names a type, "<phrase> clause" or the question's topic by
embedding similarity to the types' texts. A type is then narrowed by the question's wording
("a termination clause that lets us exit at any time": Termination for Convenience).
"""
from __future__ import annotations

import re
from functools import lru_cache

from core.retrieval import conditions as cond
from core.retrieval.linking import CJK
from core.retrieval.quantities import question_quantities
from core.words import known_words

TOPIC = re.compile(r"\b(about|on|regarding|concerning|covering|dealing with|relating to|related to|that (?:cover|address|deal with|discuss))\s+(.+)$|关于(.+)"
                   # "对责任有什么规定", "对于数据备份是如何约定的": what the provisions are about
                   r"|对于?(?!方)([\u4e00-\u9fffA-Za-z]{1,12}?)(?:有什么|有何|有哪些|是怎么|是如何|怎么|如何)(?:规定|约定|安排|要求)", re.I)
ZH_ASKS_END = r"(?:有哪些|是什么|吗|呢)?[?？。!！\s]*$"
# "关于责任是怎么规定的", "…有什么约定", "…是如何安排的": the asking, not the topic
ZH_HOW_PROVIDED = r"(?:(?:是|有)?(?:怎么|怎样|如何|什么|何|哪些)(?:规定|约定|安排|写|说)(?:的|了)?(?:什么)?)?"
ZH_TOPIC_TAIL = re.compile(r"(?:的)?(?:条款|规定|条文|内容|约定)?" + ZH_HOW_PROVIDED + ZH_ASKS_END)
ZH_CLAUSES_TAIL = re.compile(r"(?:的)?(?:条款|规定|条文)" + ZH_ASKS_END)


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
            elif not CJK.search(c) and len(c) >= 4:
                out.append((concept.lower(), t.name, 0.6))   # "exit", "cancel*": only before a clause word
    return out


@lru_cache(maxsize=1)
def _type_phrases_longest_first() -> list[tuple[str, str, float]]:
    """Longest first, then strongest: a word that is one type's keyword and another's related
    wording ("audit") names the keyword's type."""
    return sorted(_type_phrases(), key=lambda p: (-len(p[0].rstrip("*")), -p[2]))


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


def warm_up() -> None:
    """Load the embedding model and the clause-type prototypes now, so the first question pays
    the one-time cost rather than whichever later question first needs them."""
    _prototype_matrix()


def semantic_type(phrase: str, threshold: float = 0.55) -> tuple[str | None, float]:
    """Nearest clause type to a short English phrase by embedding similarity."""
    phrase = phrase.strip()
    if not phrase or CJK.search(phrase):
        return None, 0.0
    from core.embeddings import encode_kept

    vecs, owners = _prototype_matrix()
    v = encode_kept([phrase])[0]   # kept: a relay topic linked here is what the search embeds next
    sims = vecs @ v
    i = int(sims.argmax())
    return (owners[i], float(sims[i])) if sims[i] >= threshold else (None, float(sims[i]))


PHRASE_STOP = re.compile(
    r"\b(a|an|the|any|their|its|his|her|our|your|of|'s|lack|lacks|lacking|have|has|with|without|no|both|"
    r"either|neither|nor|and|or|show|me|list|compare|all|which|what|about|on|suppliers?|compan(?:y|ies)|"
    r"vendors?|providers?|firms?|partners?|agreements?|contracts?|say|says|does|do|is|are|in|for|from|to|german|"
    r"french|[a-z]+'s)\b", re.I)


# "适用哪国法律" asks for the value of 适用法律: the question word inside a term is left out
ZH_ASKED_VALUE = re.compile(r"哪(?:一)?国(?:家)?的?|哪个国家的?|什么样的?|什么|哪种|何种|哪类")


def narrowed_types(question: str, found: dict[str, str]) -> dict[str, str]:
    """Each type replaced by the narrower type the question's wording points to ("a termination
    clause that lets us exit at any time": Termination for Convenience), in place."""
    for tname in list(found):
        narrowed, phrase = cond.narrow_type(tname, question)
        if phrase and narrowed not in found:
            found = {(narrowed if t == tname else t): (f"{how}, narrowed by '{phrase}'" if t == tname else how)
                     for t, how in found.items()}
    return found


_STATED_OF = re.compile(r"\s+(?:of|at|within|in)\s+(?:at\s+least\s+|only\s+)?|\s*[:=]\s*")


def _stated_as_quantity(question: str, word: tuple[int, int], quantities: list[tuple[int, int]]) -> bool:
    """A clause's word with a quantity stated of it is a clause's promise, not a topic: "an uptime
    of 99.9%", "99.9% uptime", "a response time within 4 hours"."""
    start, end = word
    return any(0 <= start - b <= 2 or (a >= end and _STATED_OF.fullmatch(question[end:a]))
               for a, b in quantities)


def link_clause_types(question: str, by_meaning: bool = True) -> tuple[list[str], dict[str, str], str | None]:
    """Types named or described in the question; also the leftover topic for relay search.
    `by_meaning=False` links only types named by their words (no model call)."""
    q = question.lower()
    zh_terms = ZH_ASKED_VALUE.sub("", question)
    found: dict[str, str] = {}
    named: list[str] = []  # English phrases that named or described a type (described-types pass)
    cjk_words: list[tuple[str, int, int, float]] = []   # every Chinese word matched: (type, start, end, weight)
    en_spans: dict[str, tuple[int, int]] = {}
    quantities = [x.span for x in question_quantities(q)]
    for phrase, tname, weight in _type_phrases_longest_first():
        word = phrase.rstrip("*")
        if word not in q and word not in zh_terms:  # the regexes below need a substring
            continue
        if CJK.search(phrase):
            # longest first: "赔偿" inside an already matched "服务赔偿" names no second type
            free = [i for i in (m.start() for m in re.finditer(re.escape(phrase), zh_terms))
                    if not any(a <= i and i + len(phrase) <= b for _t, a, b, _w in cjk_words)]
            cjk_words += [(tname, i, i + len(phrase), 1.0 if phrase in _chinese_names() else weight) for i in free]
            if free and tname not in found:
                found[tname] = f"keyword '{phrase}'"
            continue
        if tname in found:
            continue
        if weight >= 1.0 or len(phrase) >= 4:
            stem = re.escape(word) + (r"[a-z]*" if phrase.endswith("*") else r"(?:s|es)?")
            hit = re.search(r"(?<![a-z])" + stem + r"(?![a-z])", q)
            # one word names one type: the longest, strongest phrase that matched it
            if hit and not any(a <= hit.start() and hit.end() <= b for a, b in en_spans.values()):
                # body keywords count only when they describe a clause, not a company or a topic,
                # and not a clause another type already names ("outside Europe lack a force majeure
                # clause": "euro*" is no Payment clause)
                # ... a clause or what one holds: "uptime commitments", "security requirements"
                described = re.search(r"(?<![a-z])" + stem + r"(?![a-z])[\w\s-]{0,25}\b(clauses?|provisions?|sections?|terms|"
                                      r"commitments?|obligations?|guarantees?|undertakings?|requirements?|promises?)\b",
                                      q[hit.start():]) if hit else None
                if described and any(hit.end() <= a < hit.start() + described.start(1) for a, _b in en_spans.values()):
                    described = None
                if weight >= 1.0 or described or (hit and _stated_as_quantity(q, hit.span(), quantities)):
                    found[tname] = f"{'name' if weight >= 1.0 else 'keyword'} '{word}'"
                    named.append(word)
                    en_spans[tname] = hit.span()
    _keep_compound_heads(found, cjk_words)
    _drop_what_insurance_covers(q, found, en_spans)
    if not found:
        found = _misspelt_types(q)
        named += [m.group(1) for how in found.values() if (m := re.match(r"spelling '(.+?)'", how))]
    # Chinese "<词>条款": match the words before 条款 against the types' Chinese keywords.
    for m in re.finditer(r"((?:(?!条款)[\u4e00-\u9fff]){2,10})(条款|规定|条)", question):   # one 条款 each
        phrase = m.group(1)
        for size in (4, 3, 2):
            tail = phrase[-size:]
            if len(tail) < size:
                continue
            # "规定" and "条" are also verbs and counters ("哪些合同规定了…": which contracts
            # stipulate): there a two-character tail names a type only as a whole keyword, not as
            # part of one ("合同" in "合同结束"); before "条款" it may ("责任条款")
            partial = size > 2 or m.group(2) == "条款"
            hits = {tname for p_, tname, _w in _type_phrases()
                    if CJK.search(p_) and ((tail in p_ and (partial or tail == p_)) or p_ in phrase)}
            if len(hits) == 1:
                tname = hits.pop()
                found.setdefault(tname, f"keyword '{tail}'")
                break
    _drop_topic_details(question, found)
    # Described types: "<phrase> clause" where the phrase is no known name, e.g. "ending the agreement clause".
    for m in re.finditer(r"((?:[a-z\-']+\s+){1,4})(clauses?|provisions?)\b", q):
        words = [w for w in m.group(1).split() if not PHRASE_STOP.fullmatch(w)]
        phrase = " ".join(words)
        # "... lack a liability clause": the words before "clause" end with a type already named, so
        # there is nothing left to interpret (and embedding the phrase would cost a model call)
        if by_meaning and phrase and not any(phrase in p for p in found.values()) and not any(
                re.search(r"(?<![a-z])" + re.escape(n) + r"(?:s|es)?$", phrase) for n in named):
            tname, sim = semantic_type(phrase)
            if tname and tname not in found:
                found[tname] = f"meaning of '{phrase}' ({sim:.2f})"
                named.append(phrase)
    topic = _type_the_topic(question, found, by_meaning)
    # last, so that a type read from the topic or by meaning is narrowed as a named one is
    found = narrowed_types(question, found)
    # "无理由提前终止": the narrower type's own words (无理由) and the general one's (终止) name one type
    found = {t: how for t, how in found.items()
             if how.startswith("name ") or not any(n in found for n in cond.narrower_types(t))}
    return list(found), found, topic


def _type_the_topic(question: str, found: dict[str, str], by_meaning: bool) -> str | None:
    """The "about ..." topic, typed into `found` (in place) when a type's words carry it or,
    for a short one, its meaning is close to a type; the topic left to search, else None."""
    t = TOPIC.search(question)
    if not t:
        return None
    # "关于数据备份的条款": the topic is 数据备份; "的条款" only says clauses are wanted and,
    # searched for, ranks any clause that repeats 条款 (the re-ranker's term coverage)
    topic = ZH_TOPIC_TAIL.sub("", (t.group(2) or t.group(3) or t.group(4) or "").strip(" ?.!。？")) or None
    if topic and not found:
        tl = topic.lower()
        for phrase, tname, weight in _type_phrases_longest_first():
            if phrase not in tl and phrase not in topic:
                continue
            if (CJK.search(phrase) and phrase in topic) or (
                    not CJK.search(phrase) and re.search(r"(?<![a-z])" + re.escape(phrase) + r"(?:s|es)?(?![a-z])", tl)):
                if _carries_topic(phrase, tl):
                    found[tname] = f"topic '{phrase}'"
                    break
        if not found and CJK.search(topic) and len(topic) >= 2:
            # "关于责任": a topic that is part of one type's Chinese keywords only (责任限制, 违约责任)
            hits = {tname for p_, tname, _w in _type_phrases() if CJK.search(p_) and topic in p_}
            if len(hits) == 1:
                found[hits.pop()] = f"topic '{topic}'"
        if found:
            topic = None
    # a longer topic is searched, not typed (articles and such do not make it longer)
    if by_meaning and topic and not found and len([w for w in topic.split() if not PHRASE_STOP.fullmatch(w)]) <= 3:
        tname, sim = semantic_type(topic, threshold=0.62)
        if tname:
            found[tname] = f"meaning of '{topic}' ({sim:.2f})"
            topic = None
    return topic


@lru_cache(maxsize=1)
def _type_spellings() -> dict[str, str]:
    """Single English words of at least 6 letters that name one type (name or keyword words)."""
    owners: dict[str, set[str]] = {}
    for phrase, tname, weight in _type_phrases():
        if weight < 0.8 or CJK.search(phrase):
            continue
        for w in re.findall(r"[a-z]{6,}", phrase):
            owners.setdefault(w, set()).add(tname)
    # a word several types share names the type it is the whole name of ("termination")
    named = {t.lower(): t for ts in owners.values() for t in ts}
    return {w: (next(iter(t)) if len(t) == 1 else named[w]) for w, t in owners.items() if len(t) == 1 or w in named}


@lru_cache(maxsize=1)
def _joined_spellings() -> dict[str, str]:
    """Names and keywords of several words, run together ("dataprotection", "servicecredits"), for
    the one type each names."""
    owners: dict[str, set[str]] = {}
    for phrase, tname, weight in _type_phrases():
        if weight >= 0.8 and not CJK.search(phrase) and re.fullmatch(r"[a-z]+(?:[ -][a-z]+)+", phrase):
            owners.setdefault(re.sub(r"[ -]", "", phrase), set()).add(tname)
    return {w: next(iter(t)) for w, t in owners.items() if len(t) == 1 and len(w) >= 6}


def _joined_phrase(word: str) -> str:
    return next((p for p, _t, _w in _type_phrases() if re.sub(r"[ -]", "", p) == word), word)


def _misspelt_types(q: str) -> dict[str, str]:
    """"Which suppliers lack a termnation clause?": a word one or two edits from a word that names
    exactly one type (two only for long words), when nothing else named a type. Before "clause"
    any word; elsewhere only a word that is no English word ("lack insurence"), since a near word
    there is as likely a different word ("retain" is not "retail")."""
    from rapidfuzz.distance import DamerauLevenshtein

    joined = _joined_spellings()
    words = _type_spellings() | joined
    english = known_words()
    out: dict[str, str] = {}
    for m in re.finditer(r"\b([a-z]{6,})\b", q):
        word = m.group(1)
        if word in joined:   # "dataprotection", "forcemajeure": the words run together
            out.setdefault(joined[word], f"spelling '{word}' read as '{_joined_phrase(word)}'")
            continue
        if word in words:
            continue
        if not re.match(r"\s+(?:clauses?|provisions?|sections?|terms)\b", q[m.end():]) and (not english or word in english):
            continue
        limit = 2 if len(word) >= 9 else 1
        # a slip keeps the first letter ("viability" is another word, not "liability")
        best = min((w for w in words if w[0] == word[0]), key=lambda w: (DamerauLevenshtein.distance(word, w), w),
                   default=None)
        if best is None:
            continue
        if DamerauLevenshtein.distance(word, best) <= limit:
            out.setdefault(words[best], f"spelling '{word}' read as '{best}'")
    return out


@lru_cache(maxsize=1)
def _chinese_names() -> frozenset[str]:
    from core.taxonomy import load_taxonomy

    return frozenset(t.name_zh for t in load_taxonomy() if t.name_zh and not t.is_catch_all)


def _keep_compound_heads(found: dict[str, str], words: list[tuple[str, int, int, float]]) -> None:
    """Chinese compounds end in their head: in "停机维护" (downtime maintenance) and "赔偿上限"
    (a cap on compensation) the first word only qualifies the second, so a type all of whose words
    directly precede another type's word is dropped; unless the first is a type's own Chinese name
    and the head a weaker word: "不可抗力免责条款" is a force majeure clause, its 免责 (exemption) what
    the clause does."""
    def qualifies(t: str, a: int, b: int, w: float) -> bool:
        return any(t2 != t and a2 == b and not (w >= 1.0 > w2) for t2, a2, _b2, w2 in words)

    def qualified(t: str, a: int, b: int, w: float) -> bool:
        return any(t1 != t and b1 == a and w1 >= 1.0 > w for t1, _a1, b1, w1 in words)

    for t in {t for t, *_ in words}:
        own = [x for x in words if x[0] == t]
        if t in found and all(qualifies(*x) or qualified(*x) for x in own):
            del found[t]


# a line of insurance is named by what it covers: "product liability insurance", "cyber security cover"
_COVER_AFTER = re.compile(r"[\s-]+(?:insurance|insured|cover(?:age)?|polic(?:y|ies))\b")


def _drop_what_insurance_covers(q: str, found: dict[str, str], spans: dict[str, tuple[int, int]]) -> None:
    """A type's word that names what an insurance covers ("liability" in "product liability
    insurance") is the kind of insurance, not a clause type asked about, when the insurance names one."""
    insurance = [t for t, (start, _e) in spans.items() if q.startswith("insur", start)]
    if not insurance:
        return
    for t, (_s, end) in list(spans.items()):
        if t not in insurance and t in found and _COVER_AFTER.match(q, end):
            del found[t]


def _carries_topic(word: str, topic: str) -> bool:
    """A type's word types a topic only when it carries it, in either language: "逾期" (a payment
    word) inside "逾期交货违约金" is one detail of a topic about delivery penalties."""
    return len(word) >= 0.5 * len(topic)


def _drop_topic_details(question: str, found: dict[str, str]) -> None:
    """A type read from Chinese words that are only a detail of the "关于…的条款" topic (its
    words there cover under half of it: the payment word "逾期" in "逾期交货违约金") does not
    type the question: the topic is searched instead, as an English topic a type word covers
    under half of is."""
    t = TOPIC.search(question)
    tail = ZH_CLAUSES_TAIL.search(t.group(3)) if t and t.group(3) else None
    if not tail or not found:  # only the noun phrase of "关于X的条款", not "关于X是怎么约定的"
        return
    topic = t.group(3)[:tail.start()].strip()
    before = question[:t.start(3)]
    for tname in list(found):
        words = [p for p, name, _w in _type_phrases() if name == tname and CJK.search(p)]
        inside = [p for p in words if p in topic]
        if inside and not any(p in before for p in words) and not _carries_topic(max(inside, key=len), topic):
            del found[tname]
