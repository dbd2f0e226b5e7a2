"""The offline planner: question -> intent, mode and parameters, without an LLM.

Everything it proposes is linked to values that exist in the graph (companies, countries,
industries, cities, laws, clause types, spend years), so a filter can never silently match
nothing because of spelling. Unmappable questions get a plain "I could not map this" plan
with suggestions instead of a guess.

A question is planned in three steps: `extract_facts` reads it once into `QuestionFacts`
(`facts`), `inherit_context` completes a follow-up from the session (`follow_up`), and `route` takes the first rule of
the `ROUTES` table that applies. The table is the routing policy, read top to bottom; its order
matters (a named company outranks a clause type, a clause type outranks a topic).

The clause types a question names are read by `type_links`, its spend terms (amounts, years, rankings) by `spend_terms`,
its agreement conditions (dates, governing law, positions) by `conditions`.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable

from core.config import settings
from core.graph.vocabulary import Vocabulary
from core.retrieval import conditions as cond
from core.retrieval.facets import facet_owners, facet_spans, question_facets, type_by_facet
from core.retrieval.facts import WORDING, QuestionFacts, word_tokens
from core.retrieval.follow_up import FOLLOW_UP_LEAD, SessionContext, inherit_context
from core.retrieval.linking import (CJK, STOPWORDS, alias_map, fuzzy_values, lexicon, link_agreement_by_service,
                                    link_agreement_by_what_it_supplies,
                                    link_company_spans, link_sla_ids, mask_spans, match_values, normalize,
                                    region_countries)
from core.retrieval.quantities import question_quantities, without_comparisons
from core.retrieval.term_questions import read_term_question
from core.retrieval.reader import question_reader, settle_types
from core.retrieval.spend_terms import (SPEND_DOWN, SPEND_UP, SPEND_WORDS, SUM_WORDS, SpendFacts, parse_spend, parse_year, parse_years,
                                         read_spend_question)
from core.retrieval.type_links import TOPIC, link_clause_types, narrowed_types
from core.types import RETRIEVAL_MODES, SEARCH_MODES, Intent, Mode, Plan, PlanParams

# a negated verb, whatever the verb: "do not protect", "doesn't cap", "can we not terminate",
# "does Kestrel's contract not mention"
# (not across a preposition: "charge us for not buying enough" negates the buying, not the charging)
_NEGATED_VERB = (r"(?:(?:do|does|did|can|could|may|will|would|should|must|have|has|had|is|are|was|were)"
                 r"(?:\s+(?!(?:for|of|about|by|after|from|on|upon|with|without|to|in)\b)[\w'’]+){0,3}?\s+not|don't|doesn't|didn't|can't|cannot|won't|wouldn't|shouldn't|"
                 r"mustn't|haven't|hasn't|hadn't|isn't|aren't|wasn't|weren't)\s+[a-z]+")
NEGATED_VERB = re.compile(_NEGATED_VERB, re.I)
# "which suppliers may not transfer our data abroad?": a prohibition the contract states, not a
# missing clause ("may we not", "can we not", "do not" still negate)
# why a negation linked with the type asks for no gap ("terminate without cause", "cannot subcontract")
NOT_A_GAP_NOTE = ("part of the words that named the clause type, or the act that type forbids (\"cannot subcontract\"): "
                  "not a gap question")
# and so is a promise not to act ("which suppliers have agreed not to work for our competitors?", "are obliged not to")
PROHIBITION = re.compile(r"(?:may|must|shall)\s+not\s|mustn't\s|shan't\s|(?:[\w'’]+\s+){0,2}?(?:agreed?|agrees|promised?|"
                         r"promises|undert(?:ake|akes|aken|ook)|committed|commits?|covenant(?:s|ed)?|obliged|obligated|"
                         r"required|bound|contracted)\s+not\s+to\b", re.I)
OUR_SIDE = re.compile(r"\b(?:we|us|i|me)\b|我们|我方", re.I)
PROHIBITED_UNLESS = re.compile(_NEGATED_VERB + r"\b[^.?!;]{0,80}?\bwithout\b", re.I)
NEGATION = re.compile(
    r"\b(lack|lacks|lacking|without|missing|miss|misses|no|none|absent|not have|not include|fail to include|"
    r"fails to include|neither|omit|omits|omitted|never|nothing|silent|absence|not (?:a|an|any)|yet to|"
    r"still (?:needs?|requires?)|" + _NEGATED_VERB + r")\b|"
    # 没 before any verb ("没签", "没提到"; not 没收, confiscate); 未 before the verbs of putting in writing
    r"缺少|缺乏|没(?!收)|无|未包含|不包含|缺失|未约定|找不到|不含|不包括|未包括|未写|未规定|尚未|还未|未签|未提|未涉及", re.I)
# "count" only as a verb or noun of counting ("what does not count against uptime" counts nothing);
# "是多少" asks for a value ("the liability cap is how much"), not a count
COUNT_WORDS = re.compile(r"\b(how many|number of|count)\b(?!\s+(?:against|towards?|as|for)\b)|(?<![是为])多少(?!钱|美元|欧元|英镑|日元|人民币|元|金额|费用|支出|采购额)|(?<!哪)几(?:个|家|份|条|项)|数量",
                         re.I)
# "in total" in Chinese: a sum of money, or of things counted ("一共有多少家供应商": a count)
TOTAL_ZH = re.compile(r"一共|总计|合计|总共")
# "missing an SLA uptime commitment", "lack a contract termination clause": the agreement word
# qualifies a clause, which is what is missing
_NOT_A_MODIFIER = (r"(?!\s+(?:[a-z\-]+\s+)?(?:clauses?|provisions?|commitments?|terms?|obligations?|guarantees?|"
                   r"sections?|wording|language)\b)")
NO_AGREEMENT = re.compile(
    r"\b(without|no|lack|lacks|lacking|missing|don't have|do not have|doesn't have|does not have|have no|has no)\b"
    r"\s+(an?\s+|any\s+)?(signed\s+)?(agreements?|contracts?|slas?)\b" + _NOT_A_MODIFIER + r"|(?:\bnever|\bnot|n't|\byet\s+to)\s+(?:been\s+|yet\s+)?(?:sign(?:ed)?|agreed|concluded|executed)\s+(?:an?\s+|any\s+)?(?:agreements?|contracts?|slas?)\b|"
    # "have signed nothing with us", "haven't signed anything yet"
    r"\b(?:signed|concluded|executed)\s+nothing\b|\bnothing\s+signed\b|"
    r"(?:\bnever|\bnot|n't|\byet\s+to)\s+(?:been\s+|yet\s+)?(?:sign(?:ed)?|concluded|executed)\s+anything\b|"
    r"(?:没有|没|未|尚未|还没有?)签.{0,4}(协议|合同)|没有.{0,6}(协议|合同)|无(协议|合同)|缺少.{0,4}(协议|合同)|未签.{0,4}(协议|合同)", re.I)
COMPANY_SUBJECT = re.compile(
    r"\b(which|what|list|show|name|find)\b.{0,40}\b(suppliers?|vendors?|compan(y|ies)|providers?|firms?|partners?)\b|"
    r"^\W*(who|whom)\b(?=.*\b(we|us|our)\b)|"   # "who can we ...", "who lets us ...": our counterparties
    r"\b(which|what)\s+(?:of\s+(?:our|the|these|those)\s+)?(?:\w+\s+){0,2}?(contracts?|agreements?|slas?)\b|"   # their contracts
    # "are there contracts where ...", "do any of our agreements let us ...": their contracts too
    r"\b(?:are|is)\s+there\s+(?:any\s+)?(?:contracts?|agreements?|slas?)\b|"
    r"\bdo(?:es)?\s+any\s+(?:of\s+(?:our|the|these)\s+)?(?:contracts?|agreements?|slas?)\b|"
    r"哪些|哪家|哪几家|供应商|公司", re.I)
CLAUSE_WORDS = re.compile(r"\b(clauses?|provisions?|sections?|terms?|wording|text)\b|条款|规定|内容", re.I)
# "before ending the contract", "after giving notice": before / after an act is a time, no place
_NOT_AN_ACT = r"(?!\s+(?!following\b|preceding\b)[a-z]+ing\b)"
POSITION_AFTER = re.compile(r"\b(after|following|follows|follow|next to|succeeding|succeeds)\b" + _NOT_AN_ACT +
                            r"|之后|后面|下一条|下一个|紧接", re.I)
POSITION_BEFORE = re.compile(r"\b(before|preced(?:es|e|ed|ing)|prior to|previous to|ahead of|in front of)\b" + _NOT_AN_ACT +
                             r"|之前|前面|上一条|上一个", re.I)
# "every supplier" compares across them, unless a relative clause picks some ("every supplier
# that has both ...": a list of companies)
COMPARE = re.compile(r"\b(compare|comparison|across|(?:all suppliers|every supplier|each supplier)"
                     r"(?!\s+(?:that|which|who|whose|with|having)\b))\b|比较|对比", re.I)
# "our biggest suppliers" with no number: the high-spend group (a number makes it a ranking: RANKED)
KEY_SUPPLIERS = re.compile(r"\b(?:biggest|largest|major|key|main|principal|most important|critical)\s+"
                           r"(?:suppliers?|vendors?|providers?)\b|重要供应商|主要供应商|核心供应商"
                           # 大 glued to a word is part of it: 加拿大供应商 is a Canadian supplier
                           r"|(?:(?<![\u4e00-\u9fff])|(?<=[的些个家位最]))大供应商", re.I)
HOW_MUCH = re.compile(r"\bhow much\b|多少|几何", re.I)


# "X but no Y", "with X and without Y", "有X但没有Y": the types on the side without a negation
# are required, the others lacked
CONTRAST = re.compile(
    r"\b(?:but|yet|while|whereas|though|although)\b|,?\s+and\s+(?=(?:no|not|without|lacks?|lacking|"
    r"don't|doesn't|do not|does not|has no|have no)\b)|但是|但|却|而|不过", re.I)


def present_and_lacked(q: str, types: list[str], type_links: dict[str, str]
                       ) -> tuple[list[str], list[str], str, str] | None:
    """(required, lacked, the lacked side's text, the held side's text) when a contrast splits the question into a
    side that names types plainly and a side that negates the others ("which suppliers have a
    termination clause but no service credits"); None when the types cannot be placed (one
    linked by meaning) or both sides, or neither, are negated."""
    if len(types) < 2:
        return None
    m = CONTRAST.search(q)
    if not m:
        return None
    sides = (_without_yes_no(q[:m.start()]), q[m.end():])
    placed: dict[str, int] = {}
    for t in types:
        words = _type_words({t: type_links.get(t, "")})
        where = [i for i, side in enumerate(sides) if words and words[0].lower() in side.lower()]
        if len(where) != 1:
            return None
        placed[t] = where[0]
    negated = [bool(NEGATION.search(side)) for side in sides]
    if negated[0] == negated[1]:
        return None
    required = [t for t in types if not negated[placed[t]]]
    lacked = [t for t in types if negated[placed[t]]]
    return (required, lacked, sides[negated.index(True)], sides[negated.index(False)]) \
        if required and lacked else None


def _gap_types(f: QuestionFacts, p: PlanParams) -> None:
    _gap_of_whom(f, p)
    split = present_and_lacked(f.q, f.types, f.linked.get("clause_types") or {})
    if split:
        p.present_types, p.types, lacked_side, held_side = split
        p.type_match = split_type_conjunction(lacked_side, p.types)
        p.present_match = split_type_conjunction(held_side, p.present_types)


def _gap_of_whom(f: QuestionFacts, p: PlanParams) -> None:
    """A gap of suppliers, or of agreements when the agreements are what is listed ("which contracts
    have no governing-law clause?", "哪些合同没有不可抗力条款？"): a supplier's other agreement does
    not fill the gap of the one asked about."""
    p.gap = True
    if _lists_agreements_not_companies(f) or WHICH_OF_OUR_AGREEMENTS.search(f.q):
        p.count_unit = "agreements"


# "which of our contracts lack X?", "which of Waldquell's contracts ..." (a presence question so worded
# lists the suppliers with the clauses)
WHICH_OF_OUR_AGREEMENTS = re.compile(r"\bwhich\s+of\s+(?:our|the|these|those|\S+['’]s)\s+(?:\w+\s+)?"
                                     r"(?:agreements|contracts|slas)\b", re.I)


def split_type_conjunction(question: str, types: list[str]) -> str:
    """'all' when every type is required (both/and), 'any' for or/either."""
    if len(types) < 2:
        return "all"
    if re.search(r"\b(or|either|any of)\b|或|或者|任一", question, re.I):
        return "any"
    return "all"


# ---------------------------------------------------------------------------------------
# the planner: extract -> inherit -> route
# ---------------------------------------------------------------------------------------

MODES = RETRIEVAL_MODES

ASKS_TEXT = re.compile(r"\b(say|says|said|provide|provides|promise|promises|wording|text)\b|"
                       # "what does it state": the verb, not "the United States" or "the State of New York"
                       r"(?<!united )(?<!the )\b(?:state|states|stated)\b(?!\s+of\b)|"
                       r"\b(show|list|give|read)\b.{0,30}\b(clauses?|provisions?)\b|(条款|规定)(内容|是什么|怎么|如何)|内容",
                       re.I)
# "which of Kaldera and Marisol ...?" asks it of each, "which of our contracts ...?" asks for suppliers;
# "which of Marisol's contracts ...?" picks among one supplier's agreements, a question about their clauses
WHICH_OF = r"\bwhich of\b(?!\s+\S+['’]s\s+(?:\S+\s+)?(?:agreements|contracts|slas)\b)"
WANTS_COMPANIES_EN = re.compile(
    r"\b(which|what|list|name|find|show|count|are there(?: any)?|is there(?: any)?|any|how many|number of)\s+"
    r"(?:(?!(?:do|does|did|must|should|can|will|would)\b)\S+\s+){0,3}?"
    r"(suppliers?|vendors?|compan(?:y|ies)|"
    r"providers?|firms?|partners?|ones)\b|" + WHICH_OF + r"|\bwho\b|^\s*whose\b|"
    # "Among suppliers we paid more than USD 1 million in 2025, which ...": the suppliers named first
    r"^\s*(?:among|of|from)\s+(?:(?:the|our|those|these|all)\s+)?(?:(?!clauses?\b|provisions?\b)\S+\s+){0,2}?"
    r"(?:suppliers|vendors|companies|providers|firms)\b[^?]{0,120}?,\s*which\b|"
    # a bare noun phrase headed by the suppliers: "suppliers with both X and Y clauses"
    r"^\s*(?:(?:all|our|the)\s+)?(?:suppliers|vendors|companies|providers|firms)\s+"
    r"(?:with|without|that|who|having|lacking|missing|whose|where|in|from|based|located|under)\b", re.I)
ASKS_FOR_CLAUSES = re.compile(r"\b(which|what)\s+(clauses?|provisions?|sections?|terms)\b", re.I)
WANTS_COMPANIES_ZH = re.compile(r"哪些|哪家|哪几家|哪个|几家|多少家|多少(?:个)?(?:供应商|公司|企业)|有没有(?:供应商|公司|企业)")
# a question whose last noun is the suppliers ("列出所有没有终止条款的供应商", "…的中国供应商"): they are what is asked for
ZH_HEADED_BY_COMPANIES = re.compile(r"的[\u4e00-\u9fff\s]{0,6}?(?:供应商|公司|企业|厂商)(?:有哪些|是哪些|名单)?[？?。!！\s]*$")
# "所有服务补偿条款有哪些", "有哪些条款": the clauses are asked for, unless companies are ("哪些供应商")
ZH_ASKS_FOR_CLAUSES = re.compile(r"(?:条款|规定|条文)(?:都|分别)?(?:有哪些|包括哪些|是哪些)|哪些(?:条款|规定|条文)")
ZH_NAMES_COMPANIES = re.compile(r"(?:哪些|哪家|哪几家|哪个|几家|多少家)(?:[\u4e00-\u9fff]{0,4}?)(?:供应商|公司|企业|厂商)")
YES_NO = re.compile(r"^\s*(does|do|did|is|are|has|have|can)\b|" + WHICH_OF + r"|是否|有没有|吗[？?]?\s*$", re.I)
COUNTS_HOLDERS = re.compile(
    r"\b(?:how\s+many|number\s+of)\s+(?:of\s+(?:our|the)\s+)?(?:(?!clauses?\b|provisions?\b|sections?\b)[\w'’-]+\s+){0,2}?"
    r"(?:suppliers?|vendors?|compan(?:y|ies)|providers?|contracts?|agreements?|firms?|contractors?)\b|"
    r"(?:几|多少)(?:家|份)|(?:几|多少)个(?:供应商|合同|协议)", re.I)
COUNTS_AGREEMENTS = re.compile(
    r"\b(how many|number of|count)\s+(?:\S+\s+){0,2}?(agreements?|contracts?|slas?)\b|多少(份|个)?(协议|合同)|"
    r"(协议|合同)\S{0,4}?(几份|多少份)|几份(协议|合同)", re.I)
LAW_WORDS = re.compile(r"\blaws?\b|governed|jurisdiction|法律|管辖|适用", re.I)
ABOUT_WORDS = re.compile(r"\b(about|regarding|concerning|mention)", re.I)
ALL_WORDS = re.compile(r"\b(all|every|each)\b|所有|全部")
NEIGHBOUR_ANCHOR = re.compile(r"\b(?:after|before|following|follows|precedes|preceding|ahead of|in front of)\s+(?:the\s+)?"
                              r"(?:[\"'“‘]([^\"'”’]{2,80})[\"'”’]|(.+?)(?:\s+(?:clause|section|provision))?\s+(?:in|of|within|at|for|from)\s+)", re.I)
SUGGESTIONS = (
    "Which high-spend suppliers lack a termination clause?",
    "Show me data protection clauses of German healthcare companies.",
    "What does {company}'s agreement say about liability?",
    "Compare the termination clauses of all suppliers.",
    "Clauses of technology suppliers about restoring data after an outage.",
)


# a greeting, a lead-in or thanks around the question ("Hi, could you tell me does X ...? Thanks!"):
# the rules read the question itself (a yes/no question starts with its verb)
LEAD_IN = re.compile(
    r"^(?:(?:(?:hi|hello|hey)(?:\s+(?:team|all|there|everyone|folks))?|dear\s+\w+|good\s+(?:morning|afternoon|evening))\b[\s,!.:;-]*)?"
    r"(?:(?:a\s+|one\s+)?(?:quick|short|simple)?\s*question\s*[:,-]\s*)?"
    # "could you tell me if we decided X, which ...": that "if" is the question's own condition
    r"(?:(?:could|can|would)\s+you\s+(?:please\s+)?(?:tell|let)\s+me\s+(?:know\s+)?"
    r"(?:whether\s+|if\s+(?![^?]*,\s*(?:which|what|who|whose|how|where)\b))?|"
    r"i(?:'d| would)\s+like\s+to\s+know\s+(?:whether\s+|if\s+)?|i\s+(?:want|need)\s+to\s+know\s+(?:whether\s+|if\s+)?|"
    r"(?:please\s+)?tell\s+me\s+(?:whether\s+|if\s+)?(?=(?:do|does|did|is|are|has|have|can|which|what|who|how)\b))?", re.I)
LEAD_IN_ZH = re.compile(r"^(?:你好|您好)?[，,！!\s]*(?:请问|麻烦问一下|想问一下|问一下)?[，,：:\s]*")
THANKS = re.compile(r"[\s,.;!-]*\b(?:thanks(?:\s+a\s+lot)?|thank\s+you|thx|cheers|many\s+thanks)\b[\s!.]*$|[，,\s]*(?:谢谢|多谢)[！!。]*$", re.I)


def without_pleasantries(q: str) -> str:
    """The question without a greeting, a lead-in ("could you tell me", "quick question:") or
    thanks around it; the question itself when nothing is left."""
    core = THANKS.sub("", LEAD_IN_ZH.sub("", LEAD_IN.sub("", q, count=1), count=1)).strip()
    if not core:
        return q
    return core[0].upper() + core[1:] if core != q and core[0].islower() else core


def extract_facts(question: str, vocab: Vocabulary, forced_mode: str | None = None, reading=None) -> QuestionFacts:
    """Read the question alone: linked names and values, numbers, and the words that route it."""
    q = without_pleasantries(normalize(question))
    how_c, company_spans = link_company_spans(q, vocab)
    # "other than Quantix", "except GitHub and Brightwave", "除了华信以外": left out, not asked about
    excluded = _excluded_companies(q, company_spans, vocab) if how_c else {}
    how_c = {name: how for name, how in how_c.items() if name not in excluded}
    # a company's own words ("Belmira Payments SA", "Deutsche Health GmbH") name no type or filter
    rest = mask_spans(q, company_spans) if company_spans else q
    # hybrid searches for a type read into the words but never requires one: a question sent
    # there does not pay a model call to link a type by meaning (see _route_by_meaning)
    types, how_t, topic = link_clause_types(rest, by_meaning=forced_mode != Mode.HYBRID.value)
    countries = match_values(rest, alias_map(vocab, "countries"))
    by_region, empty_region = region_countries(rest, vocab)
    for country, phrase in by_region.items():
        countries.setdefault(country, phrase)
    countries = _apply_exclusions(rest, _drop_data_places(rest, countries), vocab.countries)
    industries = _apply_exclusions(rest, match_values(rest, alias_map(vocab, "industries")), vocab.industries)
    cities = match_values(rest, alias_map(vocab, "cities"))
    # "based in Singapore or Ireland": a city named like a country already matched is that country
    matched_phrases = {ph.lower() for ph in countries.values()}
    cities = {c: ph for c, ph in cities.items() if ph.lower() not in matched_phrases}
    # "suppliers in Germny": a slip of the keyboard, not a filter silently dropped; only in words
    # no value already named ("Singaporean" named the country, not a misspelt city)
    unnamed = _without_phrases(rest, [p for found in (countries, industries, cities) for p in found.values()])
    for found, key in ((countries, "countries"), (industries, "industries"), (cities, "cities")):
        if not found:
            found.update(fuzzy_values(unnamed, alias_map(vocab, key)))
    for found, key in ((countries, "countries"), (industries, "industries"), (cities, "cities")):
        _drop_topic_words(rest, found)
        _drop_possessed_words(rest, found)
        _settle_shared_words(rest, found, types, how_t, lambda text, k=key: match_values(text, alias_map(vocab, k)))
    _drop_line_of_business(rest, types, how_t)
    laws = {}
    if LAW_WORDS.search(rest):
        laws = _as_laws(rest, match_values(rest, alias_map(vocab, "governing_laws"), guard_clause_words=False))
        # a country named only as the law is no company filter
        for law_word in laws.values():
            for cname, phrase in list(countries.items()):
                if phrase == law_word:
                    countries.pop(cname)
    spend_min, spend_max, spend_how = parse_spend(q, settings().high_spend_threshold)
    linked: dict[str, Any] = {}
    if empty_region and not countries:
        linked["not_in_graph"] = f"no supplier is in {empty_region}: the filter is applied and matches none"
        countries = {c: empty_region for c in lexicon()["regions"][empty_region]["countries"]}
    for key, val in (("companies", how_c), ("clause_types", how_t), ("countries", countries),
                     ("industries", industries), ("cities", cities), ("governing_law", laws), ("spend", spend_how)):
        if val:
            linked[key] = val
    sla_ids = link_sla_ids(q, vocab)
    by_service = None if sla_ids else _agreement_by_service(rest, vocab, how_c, how_t, types)
    if "clause_types" in linked and not how_t:
        del linked["clause_types"]
    supplies = None
    if not (by_service or sla_ids or how_c or types) and WANTS_COMPANIES_EN.search(q) and not ASKS_FOR_CLAUSES.search(q):
        by_service = supplies = link_agreement_by_what_it_supplies(rest, vocab)   # "who provides our colocation?"
        if _words_of_a_type_wording(rest, by_service):
            by_service = supplies = None   # "who hasn't signed a data processing agreement?"
    if by_service:   # "Alpenkraft's backup agreement": one of the company's agreements
        sla_ids = [by_service[0]]
        linked["agreements"] = {by_service[0]: by_service[1]}
    counting = bool(COUNT_WORDS.search(q))
    spend = read_spend_question(rest, vocab, (countries, industries, cities))
    key = KEY_SUPPLIERS.search(q)
    if key and spend_min is None and spend_max is None and _key_suppliers_are_a_group(q, spend, bool(types)):
        spend_min = settings().high_spend_threshold
        linked["spend"] = f"\"{key.group(0)}\": the high-spend threshold ({spend_min:,.0f})"
    if spend.categories:
        linked["spend_categories"] = spend.categories
        types, how_t = _category_not_type(rest, spend, types, how_t, linked)
    types, how_t = _spend_verb_not_type(q, spend, types, how_t)
    facts = QuestionFacts(
        q=q, language="zh" if CJK.search(q) else "en", companies=list(how_c), sla_ids=sla_ids,
        types=types, topic=topic, countries=countries, industries=industries, cities=cities, laws=laws,
        spend_min=spend_min, spend_max=spend_max, year=parse_year(q, vocab.spend_years),
        years=parse_years(q, vocab.spend_years),
        linked=linked,
        negated=_negated(q, how_t, _about_holders(q)),
        counting=counting, summing=bool(SUM_WORDS.search(q)) or (spend.asks and bool(HOW_MUCH.search(q)))
        or (bool(TOTAL_ZH.search(q)) and not counting)
        or _asks_group_spend(q, spend, bool(how_c or types or counting), (countries, industries, cities, laws)),
        counts_agreements=counting and bool(COUNTS_AGREEMENTS.search(q)),
        wants_companies=_wants_companies(_without_phrases(q, [p for found in (countries, industries, cities)
                                                              for p in found.values()])),
        yes_no=bool(YES_NO.search(q)),
        after=bool(POSITION_AFTER.search(q)), before=bool(POSITION_BEFORE.search(q)),
        forced_mode=Mode(forced_mode) if forced_mode else None, categories=spend.categories, asks_spend=spend.asks,
        top=spend.top, group_by=spend.group_by, top_named=spend.top_named, spend_lowest=spend.lowest,
        asked_of_document=_asked_of_document(rest) if how_c else None, by_what_it_supplies=bool(supplies))
    facts.company_spans = list(company_spans or [])
    facts.reading = reading   # an LLM's reading (core.text2cypher.reader_llm), else the learned reader reads
    facts.term_ask = _term_ask(q)
    if excluded:
        facts.exclude_companies = excluded
        facts.linked["excluded_companies"] = dict(excluded)
    _read_spend_change(facts, vocab)
    return read_conditions(facts, rest, vocab)


def _term_ask(q: str):
    """A question about what the terms say (expiry, notice periods, cap, payment days): routed to the
    terms only with a condition on them, or when it asks for the notice to stop a renewal ("by when
    must we give notice?"); "which contracts renew automatically?" stays a clause question."""
    ask = read_term_question(q)
    if ask is None or ask.field == "auto_renewal" and ask.term_flag is not False \
            or not ask.said and ask.field != "renewal_notice":
        return None   # "which contracts renew automatically?" is answered from the clauses (a facet)
    if re.search(r"\b(clauses?|provisions?|sections?|wording)\b|条款|条文", q):
        return None   # "which termination clauses require 30 days' notice?" asks for clauses

    return ask


def _set_terms(f: QuestionFacts, p: PlanParams) -> None:
    p.terms = f.term_ask.to_dict()


def _read_spend_change(f: QuestionFacts, vocab: Vocabulary) -> None:
    """"Which suppliers did we spend more with in 2024 than in 2023?", "whose spend fell?": the
    later year's spend against the earlier one's (the two years named, the year named and the
    one before it, or the latest two); a comparison, so no sum and no threshold."""
    if not f.asks_spend or f.types or f.named:
        return
    up, down = SPEND_UP.search(f.q), SPEND_DOWN.search(f.q)
    if bool(up) == bool(down):
        return
    years = sorted(vocab.spend_years)
    named = sorted(y for y in f.years if y in years)
    if len(named) >= 2:
        a, b = named[0], named[-1]
    else:
        b = named[0] if named else (years[-1] if years else None)
        a = max((y for y in years if b is not None and y < b), default=None)
    if a is None or b is None:
        return
    f.spend_change, f.spend_from_year, f.year = ("up" if up else "down"), a, b
    f.summing = False
    f.linked["spend_change"] = {f"{b} vs {a}": (up or down).group(0)}


# what comes between the excluding word and the place or industry left out: "except those from
# German suppliers", "excluding any of the suppliers in Germany", "but not the ones based in France"
_LEFT_OUT_FILLER = (r"(?:(?:those|ones|any|all|anything|anyone|of|from|in|by|with|based|located|the|our|suppliers?|vendors?|"
                    r"companies|clauses|contracts|agreements)\s+){0,6}")
_LEAVING_ASIDE = r"(?:leaving|setting|putting)\s+aside|aside\s+from|not\s+counting|ignoring|save\s+for|barring|with\s+the\s+exception\s+of"
EXCLUDING_BEFORE = re.compile(r"(?:outside(?:\s+of)?|non-?|not\s+(?:in|from|based\s+in|located\s+in)|excluding|except(?:\s+for)?|"
                              r"other\s+than|besides|apart\s+from|but\s+not|" + _LEAVING_ASIDE + r")\s*" + _LEFT_OUT_FILLER + r"$|(?:非|除了?|不在)$",
                              re.I)
EXCLUDING_AFTER = re.compile(r"^\s*(?:以外|之外|除外)")


def _excluded_companies(q: str, spans: list[tuple[int, int]], vocab: Vocabulary) -> dict[str, str]:
    """Companies named to be left out: after "except", "other than", "besides", "excluding",
    "除了" (or before "以外"), and the ones listed right after such a company ("except GitHub and
    Brightwave"). Name -> the words that named it."""
    out: dict[str, str] = {}
    previous_end = None
    for a, b in sorted(spans):
        listed = previous_end is not None and re.fullmatch(r"[\s,、]*(?:and|or|&|和|及|与)?[\s,、]*", q[previous_end:a], re.I)
        if EXCLUDING_BEFORE.search(q[max(0, a - 60):a].lower()) or EXCLUDING_AFTER.search(q[b:]) or listed:
            for name in link_company_spans(q[a:b], vocab)[0]:
                out.setdefault(name, q[a:b])
            previous_end = b
        else:
            previous_end = None
    return out


# a law named to be left out: "not governed by Swiss law", "under a law other than German law", 不适用德国法律
LAW_EXCLUDED_BEFORE = re.compile(r"(?:\bnot|n't|other\s+than|except(?:\s+for)?|excluding|besides|apart\s+from|outside|"
                                 + _LEAVING_ASIDE + r")\s+"
                                 r"(?:(?:be(?:ing)?\s+)?(?:governed|covered)\s+by\s+|under\s+|subject\s+to\s+)?"
                                 r"(?:the\s+)?(?:laws?\s+of\s+)?(?:the\s+)?$|(?:不适用|非)$", re.I)


# where data goes or stays: "transfer personal data outside Europe", "keep patient data in the EU",
# "数据存储在中国境内"
DATA_PLACE_BEFORE = re.compile(
    r"\b(?:transfer|move|send|store|host|keep|export|process)\w*\b(?:\s+[\w'’-]+){0,3}?\s+"
    r"(?:data|information|records|files|backups?)\b(?:\s+[\w'’-]+){0,2}?\s+"
    r"(?:in|inside|within|outside(?:\s+of)?|to|out\s+of|beyond)\s+(?:the\s+)?$|"
    r"\b(?:data|information|records|files|backups?)\s+(?:[\w'’-]+\s+){0,2}(?:stay|remain|be\s+(?:stored|kept|hosted|processed))"
    r"\w*\s+(?:in|inside|within)\s+(?:the\s+)?$|"
    r"(?:数据|信息)\S{0,6}(?:存储|存放|传输|转移|留存|出境|传至|位于)(?:在|于|到|至)?$", re.I)


def _drop_data_places(q: str, countries: dict[str, str]) -> dict[str, str]:
    """A place named as where data goes or stays is no filter on the suppliers: "which vendors
    can't transfer personal data outside Europe without standard contractual clauses?" asks about
    every supplier (the place is a detail of the clause, as its text says it)."""
    return {country: phrase for country, phrase in countries.items()
            if not _said_after(q, phrase, DATA_PLACE_BEFORE, reach=80)}


def _said_after(q: str, phrase: str, before: re.Pattern, reach: int = 60) -> bool:
    """Whether the words just before where the question says `phrase` match `before`."""
    i = q.lower().find(phrase.lower())
    return i >= 0 and before.search(q[max(0, i - reach):i]) is not None


def _apply_exclusions(q: str, countries: dict[str, str], values: list[str],
                      before: re.Pattern = EXCLUDING_BEFORE) -> dict[str, str]:
    """"Suppliers outside the EU", "non-European", "not in Germany", "欧盟以外", "non-healthcare":
    the values in the graph (`values`: its countries or industries) that the named ones leave out."""
    ql = q.lower()
    left_out = set()
    for country, phrase in countries.items():
        i = ql.find(phrase.lower())
        if _said_after(ql, phrase, before) or (i >= 0 and EXCLUDING_AFTER.search(q[i + len(phrase):])):
            left_out.add(country)
    if not left_out:
        return countries
    said = {countries[c] for c in left_out}
    kept = {c: ph for c, ph in countries.items() if c not in left_out}
    for country in values:
        if country not in left_out and country not in kept:
            kept[country] = "not " + "/".join(sorted(said))
    return kept


def _agreement_by_service(rest: str, vocab: Vocabulary, how_c: dict[str, str], how_t: dict[str, str],
                          types: list[str]) -> tuple[str, str] | None:
    """One agreement named by its service. With a company named, by a word of its service that the
    company's other agreements lack, where words that named a clause type ("maintenance windows")
    count for nothing. With none, by the words just before "agreement", type words included: there
    "the imaging maintenance agreement" and "the payment processing contract" name an agreement,
    so a type whose word the question says only inside that name goes (its clauses are not asked
    for); unless those words belong to a longer wording of a type ("a data processing agreement")."""
    if how_c:
        return link_agreement_by_service(_without_type_words(rest, how_t), vocab, list(how_c))
    found = link_agreement_by_service(rest, vocab, [])
    if not found or _words_of_a_type_wording(rest, found):
        return None
    name = _service_name_span(rest, found[1])
    for tname, how in list(how_t.items()):
        tw = _type_words({tname: how})
        if name and tw and all(name.start() <= m.start() < name.end()
                               for m in re.finditer(r"(?<![A-Za-z])" + re.escape(tw[0]), rest, re.I)):
            how_t.pop(tname)
            if tname in types:
                types.remove(tname)
    return found


def _words_of_a_type_wording(rest: str, link: tuple[str, str] | None) -> bool:
    """The words that named an agreement ("service name 'processing'") belong to a longer wording of
    a clause type in the question ("a data processing agreement"): they name no agreement of ours."""
    said = re.search(r"'(.+)'", link[1]) if link else None
    return bool(said and cond.longer_type_phrase(rest, said.group(1)))


def _service_name_span(rest: str, how: str) -> re.Match | None:
    """Where the question names an agreement by its service ("the imaging maintenance agreement"),
    from the link's words ("service name 'imaging maintenance'") to the noun after them."""
    said = re.fullmatch(r"service name '(.+)'", how)
    if not said:
        return None
    words = said.group(1).split()
    return re.search(r"(?<![A-Za-z])" + re.escape(words[0]) + r"(?:\W+\w+){%d,%d}?\W+(?:agreements?|contracts?|slas?)\b"
                     % (len(words) - 1, len(words) + 3), rest, re.I)


def _without_agreement_name(rest: str, agreements: dict[str, str] | None) -> str:
    """The question without the words that named an agreement by its service: they name no type."""
    for how in (agreements or {}).values():
        span = _service_name_span(rest, how)
        if span:
            rest = rest[:span.start()] + " " * (span.end() - span.start()) + rest[span.end():]
    return rest


def _type_words(type_links: dict[str, str]) -> list[str]:
    """The words that named or described each linked type ("name 'liability'" -> liability; a
    misspelt one as typed; a detail of it: "cannot subcontract")."""
    words = []
    for how in type_links.values():
        head, _, narrowed = how.partition(", narrowed by '")
        if m := re.fullmatch(r"(?:name|keyword|topic) '(.+)'|spelling '(.+?)' read as '.+'|detail '(.+)' of the type", head):
            words.append(m.group(1) or m.group(2) or m.group(3))
        if narrowed:   # "keyword '解除', narrowed by '无理由'": the narrowing words named the type too
            words.append(narrowed.removesuffix("'"))
    return words


def _settle_shared_words(q: str, found: dict[str, str], types: list[str], type_links: dict[str, str],
                         values_in: Callable[[str], dict[str, str]]) -> None:
    """One word that names both a clause type and a filter value ("insurance": the Insurance
    clause, the insurance industry) is read once: as the value when it qualifies the suppliers
    ("insurance companies", "保险公司"), so the type goes; otherwise as the type ("vendors that
    must carry insurance"), so the value goes. A value the question names again in other words
    ("科技供应商的技术支持条款") stays. `values_in(text)`: the values named in a text."""
    for tname, how in list(type_links.items()):
        words = _type_words({tname: how})
        if not words:
            continue
        word = words[0].lower()
        for value, phrase in list(found.items()):
            ph = phrase.lower()
            if not (contains_phrase_ci(word, ph) or contains_phrase_ci(ph, word)):   # "eu" is no word of "force majeure"
                continue
            if value in values_in(_without_type_words(q, {tname: how})):
                continue
            qualifies = [bool(SUPPLIER_AFTER.match(q[m.end():]))
                         for m in re.finditer(re.escape(phrase), q, flags=re.I)]
            if qualifies and all(qualifies):
                type_links.pop(tname, None)
                if tname in types:
                    types.remove(tname)
            elif not any(qualifies):
                found.pop(value)
            # named both ways ("insurance clauses of insurance suppliers"): both stay


def _drop_line_of_business(q: str, types: list[str], type_links: dict[str, str]) -> None:
    """"Which security vendors lack a data protection clause?": a type's word that only ever qualifies the
    suppliers ("security vendors", "maintenance firms") says what they do, not which clause is asked
    about, when another type is asked about in other words. (Alone it stays: "maintenance providers"
    may be all the question says about maintenance.)"""
    for tname in list(types):
        if len(types) < 2:
            return
        words = _type_words({tname: type_links.get(tname, "")})
        hits = [m for w in words for m in re.finditer(r"(?<![A-Za-z])" + re.escape(w) + r"(?![A-Za-z])", q, flags=re.I)]
        if hits and all(SUPPLIER_AFTER.match(q[m.end():]) for m in hits):
            types.remove(tname)
            type_links.pop(tname, None)


def _without_type_words(q: str, type_links: dict[str, str]) -> str:
    for phrase in _type_words(type_links):
        q = re.sub(re.escape(phrase) + r"\w*", " ", q, flags=re.I)
    return q


def _without_yes_no(q: str) -> str:
    """The 有没有 of a Chinese yes/no question read as 有, so its 没有 is no negation; not the 有 of
    所有 before 没有 ("列出所有没有终止条款的供应商": all suppliers without a termination clause)."""
    return re.sub(r"(?<!所)有没有", "有", q)

def _negated(q: str, type_links: dict[str, str], about_companies: bool) -> bool:
    """Whether the question negates what it asks about companies. Not a negation: words that
    named a type ("terminate without cause" names one), "without" qualifying a verb ("terminate
    without cause": no clause or type word follows), a negated verb in a question about content
    ("what does not count against uptime"), the "有没有" of a Chinese yes/no question."""
    text = _without_yes_no(q)
    phrases = _type_words(type_links)
    masked = text
    for phrase in (p for p in phrases if NEGATION.search(p)):   # "without cause", not "terminate"
        masked = re.sub(re.escape(phrase), lambda m: " " * len(m.group(0)), masked, flags=re.I)
    for a, b in cond.without_reason_spans(masked.lower()):   # 可以无理由随时解除: the keyword 随时解除 named the type
        masked = masked[:a] + " " * (b - a) + masked[b:]
    # "vendors that can't transfer personal data outside Europe without standard contractual
    # clauses", "cannot subcontract without our consent": a duty with its condition, as the clause
    # states it, not a clause the supplier lacks; what we may not do is ("don't let us terminate
    # without cause", "can't we end it without paying a fee")
    conditional = [c.span() for c in PROHIBITED_UNLESS.finditer(masked) if not OUR_SIDE.search(c.group(0))]
    for m in NEGATION.finditer(masked):
        word = m.group(0).lower()
        if any(a <= m.start() < b for a, b in conditional):
            continue
        if word == "without":
            after = text[m.end():m.end() + 40]
            if not (CLAUSE_WORDS.search(after) or any(p.lower() in after.lower() for p in phrases)):
                continue
        elif NEGATED_VERB.fullmatch(word) and (not about_companies or PROHIBITION.match(word)
                                               or _forbids_the_linked_act(word, type_links)):
            continue
        return True
    return False


CANNOT = re.compile(r"(?:can't|can’t|cannot|can\s+not)\s+([a-z]+)", re.I)


def _forbids_the_linked_act(word: str, type_links: dict[str, str]) -> bool:
    """"Which suppliers cannot subcontract?", "can't poach our staff": the negated verb is the act
    the linked type restricts, so the question asks who is bound by the restriction (as "may not"
    does), not who lacks the clause ("can't provide 24/7 support" negates "provide", no word of
    Support; "can we not terminate" is our side)."""
    m = CANNOT.fullmatch(word)
    if not m or len(m.group(1)) < 4:
        return False
    verb = m.group(1).lower()
    said = _type_words(type_links) + [link.group(1) for how in type_links.values()
                                      if (link := re.match(r"meaning of '(.+?)' \(", how))]
    return any(w[:5] == verb[:5] for w in re.findall(r"[a-z]{4,}", " ".join(said).lower()))


SUPPLIER_AFTER = re.compile(r"^(?:[\s'’s-]*|\s+\w+\s+)(suppliers?|vendors?|compan(?:y|ies)|providers?|firms?|partners?|"
                            r"ones?|sector|industry|based|headquartered)\b|^\s*(?:的)?(供应商|公司|企业|行业)", re.I)
SUPPLIER_BEFORE = re.compile(r"\b(suppliers?|vendors?|compan(?:y|ies)|providers?|firms?|based|located|headquartered)"
                             r"\s+(?:in|from)\s+(?:the\s+)?$", re.I)


def _spend_verb_not_type(q: str, spend: SpendFacts, types: list[str],
                         how_t: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """"我们向X一共支付了多少美元？" (how much did we pay X in all): in a question about what we spent that
    asks for no clause, the verb of paying is the spend, not a Payment clause named by its keyword."""
    if not (spend.asks and types) or CLAUSE_WORDS.search(q):
        return types, how_t
    paid = [m.span() for m in SPEND_WORDS.finditer(q)]

    def said_in_paying(t: str) -> bool:
        span = _type_span(q, how_t.get(t, ""))
        return bool(span) and any(a <= span[0] and span[1] <= b for a, b in paid)
    kept = [t for t in types if not said_in_paying(t)]
    return kept, {t: how for t, how in how_t.items() if t in kept}


def _category_not_type(rest: str, spend, types: list[str], how_t: dict[str, str],
                       linked: dict) -> tuple[list[str], dict[str, str]]:
    """"What did we spend on Waldquell's maintenance in 2025?": in a question about spend, a word
    that names a spend category and a clause type once is the category (said twice, "maintenance
    spend ... a maintenance clause", it is both)."""
    if not (spend.asks and types):
        return types, how_t
    named = {ph.lower() for ph in spend.categories.values()}
    shared = {t for t in types for word in re.findall(r"'([^']+)'", how_t.get(t, ""))
              if word.lower() in named and len(re.findall(re.escape(word), rest, re.I)) == 1}
    if not shared:
        return types, how_t
    how_t = {t: how for t, how in how_t.items() if t not in shared}
    if how_t:
        linked["clause_types"] = how_t
    else:
        linked.pop("clause_types", None)
    return [t for t in types if t not in shared], how_t


def _drop_topic_words(q: str, found: dict[str, str]) -> None:
    """A value word inside the topic ("about compensation when power is interrupted") is part
    of what the clauses are about, not a filter, unless it qualifies the suppliers there
    ("about liability for energy suppliers", "suppliers in Germany")."""
    topic = TOPIC.search(q)
    if not topic or not found:
        return
    start = topic.start(2) if topic.group(2) else topic.start(3)
    ql = q.lower()
    whole = re.sub(r"^(?:the|our)\s+", "", (topic.group(2) or "").strip(" ?.!").lower())
    for value, phrase in list(found.items()):
        i = ql.find(phrase.lower())
        if i < start or (whole == phrase.lower() and FOLLOW_UP_LEAD.search(q)):
            continue   # "what about France?": the follow-up asks the last question of other suppliers
        after, before = q[i + len(phrase):], q[:i]
        if not (SUPPLIER_AFTER.search(after) or SUPPLIER_BEFORE.search(before)):
            found.pop(value)


POSSESSIVE_BEFORE = re.compile(r"\b(?:their|its|his|her|your|our|my)\s+$", re.I)
# "our energy and telecom suppliers": a supplier word a few words on still makes it a sector
SUPPLIERS_SOON_AFTER = re.compile(r"^(?:[\s,/&'’-]+[\w-]+){0,3}?[\s'’s-]+(?:suppliers?|vendors?|compan(?:y|ies)|"
                                  r"providers?|firms?|partners?|sector|industry)\b", re.I)


def _drop_possessed_words(q: str, found: dict[str, str]) -> None:
    """A value word owned by someone ("a licence to use their software", "its logistics") names a
    thing the clauses are about, not the suppliers' sector or place, unless it qualifies the
    suppliers ("our software suppliers", "our energy and telecom suppliers")."""
    for value, phrase in list(found.items()):
        hits = [m for m in re.finditer(r"(?<![A-Za-z])" + re.escape(phrase) + r"(?![A-Za-z])", q, flags=re.I)]
        if hits and all(POSSESSIVE_BEFORE.search(q[:m.start()]) and not SUPPLIERS_SOON_AFTER.search(q[m.end():])
                        for m in hits):
            found.pop(value)


def _without_filter_words(f: QuestionFacts, text: str) -> str:
    """`text` without the words a filter took ("suppliers in the insurance industry": the industry, settled as such)."""
    return _without_phrases(text, [ph for key in ("countries", "industries", "cities") for ph in (f.linked.get(key) or {}).values()])


def _without_phrases(q: str, phrases: list[str]) -> str:
    """`q` with the words that named filter values blanked ("the United States" asks no text)."""
    for ph in sorted((p for p in phrases if p), key=len, reverse=True):
        edge = "" if CJK.search(ph) else r"(?<![A-Za-z])"
        q = re.sub(edge + re.escape(ph) + ("" if CJK.search(ph) else r"(?![A-Za-z])"), " ", q, flags=re.I)
    return q


def _asks_group_spend(q: str, spend: SpendFacts, about_else: bool, filters: tuple[dict, ...]) -> bool:
    """"What is our 2024 spend with Swiss suppliers?": the spend of a group of suppliers named by
    their attributes is one figure, their sum, unless the question lists, ranks or groups them."""
    return spend.asks and not (about_else or spend.top or spend.group_by or _wants_companies(q)) \
        and any(filters)


def _key_suppliers_are_a_group(q: str, spend: SpendFacts, names_types: bool) -> bool:
    """"Our biggest suppliers" is the high-spend group when the question asks something of them
    (a clause type, an agreement they lack); alone ("who are our biggest suppliers?") or with a
    number ("our 3 biggest suppliers") it is a ranking by spend (`spend.top` is set for a ranking)."""
    if spend.top_named:
        return False
    return names_types or bool(NO_AGREEMENT.search(q)) or spend.top is None


# words that ask for a document, not about something in it
DOCUMENT_WORDS = {"open", "see", "read", "view", "display", "pull", "full", "text", "copy", "sla", "slas", "signed",
                  "sign", "document", "documents", "deal", "paper", "paperwork", "latest", "current", "version"}


def _asked_of_document(rest: str) -> str | None:
    """What a question naming a company asks about when it names no type and no "about ..."
    topic ("what do Kaldera and Orbis promise if their platforms go down?": "promise platforms
    go down"): its content words once the names (masked in `rest`) and scaffolding are gone;
    None when fewer than two are left ("show me Kaldera's agreement")."""
    if CJK.search(rest):
        return None
    words = [w for w in re.findall(r"[a-z][a-z'’\-]*", rest.lower())
             if len(w) >= 3 and w not in STOPWORDS and w not in DOCUMENT_WORDS and not w.endswith(("'s", "’s"))]
    return " ".join(words) if len(words) >= 2 else None


def _wants_companies(q: str) -> bool:
    """The answer is a list of companies ("which suppliers ..."), not their clauses' text."""
    if ASKS_TEXT.search(q):
        return False
    if CJK.search(q):
        return bool(ZH_HEADED_BY_COMPANIES.search(q)) or bool(WANTS_COMPANIES_ZH.search(q)) and (
            bool(ZH_NAMES_COMPANIES.search(q)) or not ZH_ASKS_FOR_CLAUSES.search(q))
    return bool(WANTS_COMPANIES_EN.search(q)) and not ASKS_FOR_CLAUSES.search(q)


def base_plan_params(f: QuestionFacts, vocab: Vocabulary) -> PlanParams:
    """The parameters every route shares; a route adds its own (gap, direction, text ...)."""
    params = PlanParams(
        companies=f.companies, sla_ids=f.sla_ids, types=f.types, countries=list(f.countries),
        industries=list(f.industries), cities=list(f.cities), governing_laws=list(f.laws.keys()),
        spend_min=f.spend_min, spend_max=f.spend_max, spend_year=f.year or vocab.latest_year,
        date_from=f.date_from, date_to=f.date_to, type_match=split_type_conjunction(f.q, f.types))
    if f.law_scope:
        params.law_scope, params.law_countries = f.law_scope, cond.law_countries(vocab.governing_laws)
    params.agreements_min, params.agreements_max = f.agreements_min, f.agreements_max
    if f.spend_lowest:
        params.spend_order = "lowest"
    if f.agreement_rank:
        params.agreement_order, params.agreement_top = f.agreement_rank
    if f.any_gap:
        params.type_match = "any"
    if f.exclude_companies:
        params.exclude_companies = list(f.exclude_companies)
    for kind, found, values in (("countries", f.countries, vocab.countries), ("industries", f.industries, vocab.industries),
                                ("governing_laws", f.laws, vocab.governing_laws)):
        if any(phrase.startswith("not ") for phrase in found.values()):   # what `_apply_exclusions` left out
            setattr(params, f"{kind}_left_out", sorted(set(values) - set(found)))
    if f.spend_change:
        params.spend_change, params.spend_from_year = f.spend_change, f.spend_from_year
    params.currency = vocab.base_currency
    if f.categories:
        params.spend_categories = list(f.categories)
    if f.counts_agreements:
        params.count_unit = "agreements"
    # a quantity a clause of the type states ("which suppliers promise 99.9% uptime?"), read by the
    # clause lists and presence of a type, including one linked by meaning after these parameters
    quantities = [x.text for x in question_quantities(f.q)]
    if quantities:
        params.quantities = quantities
        f.linked["quantities"] = quantities
    _read_facets(f, params)
    if f.summing or (f.year and (f.spend_min is not None or f.spend_max is not None or f.summing)):
        params.require_spend = True  # a company without spend in that year has no spend to compare or add
    return params


def _details_asked(f: QuestionFacts, types: list[str]):
    """The facets the question names, less those inside the words that asked for the type's value ("which
    jurisdiction's law governs it" asks which law applies, not for the courts-and-jurisdiction detail)."""
    def said_by_the_link(hit) -> bool:
        how = _how(f, hit.type)
        span, at = _type_span(f.q, how), f.q.lower().find(hit.words.lower())
        return how.startswith("asks which") and bool(span) and at >= 0 and span[0] <= at and at + len(hit.words) <= span[1]

    return [h for h in question_facets(f.q, types) if not said_by_the_link(h)]


def _read_facets(f: QuestionFacts, params: PlanParams) -> None:
    """Details of the asked type the question names ("an arbitration clause": a Governing Law
    clause that provides for arbitration), which the clause lists, presence and gaps then require.
    A type read from the question's meaning or from the detail itself widens to every type that
    has the detail ("notify us of a data breach": Data Protection or Security clauses), as the
    model's one type is a guess between them."""
    types = list(params.types or [])
    hits = _details_asked(f, types)
    if len(types) == 1 and _linked_by_reading(f, types[0]):
        shared = next((owners for h in hits if len(owners := facet_owners(h.name)) > 1), None)
        if shared:
            why = _how(f, types[0])
            types, params.types, f.types = list(shared), list(shared), list(shared)
            f.linked["clause_types"] = {t: why for t in shared}
            hits = _details_asked(f, types)
    if len(types) > 1 and all(_linked_by_reading(f, t) for t in types):
        params.type_match = "all" if f.negated else "any"   # the types of one detail: held by any, lacked by all
    params.facets = [h.name for h in hits] or None
    # "who has to delete our data when the contract ends?" is asked of any clause; "which data
    # protection clauses require deletion?" of the type it names
    # so is a standard named by its number ("ISO 9001" sits in quality and warranty clauses as often)
    standard = any(x.standard for x in question_quantities(f.q))
    params.facets_anywhere = (((bool(hits) and all(h.anywhere for h in hits)) or (standard and bool(types)))
                              and not any(_named_by_itself(f, t) for t in types)) or None
    if hits:
        where = "any clause" if params.facets_anywhere else ", ".join(types)
        f.linked["facets"] = {h.name: f"'{h.words}' ({where})" for h in hits}
    else:
        f.linked.pop("facets", None)


def _how(f: QuestionFacts, tname: str) -> str:
    """How the type was linked ("name 'liability'", "meaning of '…' (0.61)", "detail '…' of the type")."""
    return str((f.linked.get("clause_types") or {}).get(tname, ""))


def _linked_by_reading(f: QuestionFacts, tname: str) -> bool:
    """The type was read from the question's meaning or from a detail, not named."""
    return _how(f, tname).startswith(("meaning of", "detail "))


def _unlink_inside_a_detail(f: QuestionFacts, text: str) -> None:
    """Unlinks one type named by words that lie inside longer words naming a detail of other
    types, so the detail links its own: "数据泄露后限时通知" holds Confidentiality's 泄露, but a data
    breach is a detail of the data protection and security clauses (the longer words win, as
    between details)."""
    if len(f.types) != 1 or f.forced_mode == Mode.HYBRID:
        return
    word = _type_span(f.q, _how(f, f.types[0]))
    if not word:
        return
    owners, why = type_by_facet(text)   # only for a question with one type named by its words
    detail = _type_span(f.q, why) if owners and f.types[0] not in owners else None
    if detail and detail[0] <= word[0] and word[1] <= detail[1] and detail[1] - detail[0] > word[1] - word[0]:
        f.types = []
        f.linked.pop("clause_types", None)


def _negation_named_the_type(f: QuestionFacts) -> None:
    """A question read as a gap whose negation is in the words that named its type ("terminate
    without cause", "cannot subcontract") asks who has the clause."""
    if f.negated and not _negated(f.q, f.linked["clause_types"], _about_companies(f) or _about_holders(f.q)):
        f.negated = False
        f.linked["negation"] = NOT_A_GAP_NOTE


def _link_by_facet(f: QuestionFacts, text: str) -> str | None:
    """The type(s) a question names only by a detail ("prices indexed to inflation": Payment);
    several when the detail is theirs alike. Returns the first, having set them all."""
    owners, why = type_by_facet(text)
    if owners == [GOVERNING_LAW] and (f.laws or f.law_scope):
        return None   # "governed by Swiss law and the courts of Zurich": the law condition's words
    if owners:
        f.types = list(owners)
        f.linked["clause_types"] = {t: why for t in owners}
    return owners[0] if owners else None


# -- the routing table -------------------------------------------------------------------------

def _set(**values) -> Callable[[QuestionFacts, PlanParams], None]:
    def build(f: QuestionFacts, p: PlanParams) -> None:
        for k, v in values.items():
            setattr(p, k, v)
    return build


def _presence_asked(f: QuestionFacts, p: PlanParams) -> None:
    """Which companies have the types; asked as yes or no ("do Swiss suppliers have X?"), the
    answer is only whole with those that do not."""
    p.gap = False
    if f.yes_no and not f.wants_companies:
        p.yes_no = True


def _set_text(source: Callable[[QuestionFacts], str | None]) -> Callable[[QuestionFacts, PlanParams], None]:
    def build(f: QuestionFacts, p: PlanParams) -> None:
        p.text = source(f)
    return build


def _history_years(f: QuestionFacts, p: PlanParams) -> None:
    """One named year, several ("2023 and 2024 combined"), or none (every year)."""
    p.spend_year = f.year if len(f.years) < 2 else None
    p.spend_years = f.years if len(f.years) > 1 else None


def _set_position(f: QuestionFacts, p: PlanParams) -> None:
    p.position, p.numbered = f.position, f.numbered or None


def _nothing(f: QuestionFacts, p: PlanParams) -> None:
    return None


def _follow_up_neighbour(f: QuestionFacts, p: PlanParams) -> None:
    p.direction, p.anchor_ids, p.types = f.direction, list(f.previous_clause_ids[:1]), []


def _neighbour_in_document(f: QuestionFacts, p: PlanParams) -> None:
    anchor = NEIGHBOUR_ANCHOR.search(f.q)
    p.direction = f.direction
    p.anchor_text = ((anchor.group(1) or anchor.group(2) or "").strip() if anchor else "") or f.topic or ""


def _count_or(intent: Intent) -> Callable[[QuestionFacts], Intent]:
    return lambda f: Intent.SUM_SPEND if f.summing else (Intent.COUNT if f.counting else intent)


ASKS_AGREEMENT_DATE = re.compile(
    r"\bwhen\s+(?:was|were|did|does|do|is|are)\b.{0,60}\b(?:sign\w*|start\w*|begin\w*|began|commenc\w*|conclud\w*|"
    r"effective|(?:take|took|taken|takes)\s+effect|(?:come|came|comes)\s+into\s+(?:force|effect)|execut\w*)\b|"
    r"\b(?:effective|start|signing|commencement)\s+dates?\s+of\b|"
    r"哪一年|哪年|(?:什么时候|何时|哪天|哪一天|几号|什么日期)(?:签|生效|开始)|生效日期|签订日期|签署日期|生效时间", re.I)
ASKS_LOCATION = re.compile(r"\bwhere\b.{0,40}\b(?:based|located|headquartered|registered|situated|from|seated)\b|"
                           r"\bwhich\s+(?:country|city)\b.{0,40}\b(?:based|located|headquartered|registered|in|from)\b|"
                           r"\b(?:address|headquarters|head office)\s+of\b|在哪|位于哪|总部在哪|地址", re.I)
# "show" / "find" list agreements only in the plural: "show the LIS agreement" opens the one named
_UP_TO_TWO_WORDS = r"\s+(?:(?!(?:do|does|did|is|are|was|were)\b)\w+\s+){0,2}?"
LISTS_AGREEMENTS = re.compile(r"\b(?:which|what|list)" + _UP_TO_TWO_WORDS + r"(?:agreements?|contracts?|slas?)\b|"
                              r"\b(?:show|find)" + _UP_TO_TWO_WORDS + r"(?:agreements|contracts|slas)\b|"
                              # "does Marisol have more than one agreement?": how many it has, so which
                              r"\b(?:more than one|several|multiple|other|another)\s+(?:agreements?|contracts?|slas?)\b|"
                              # a bare noun phrase: "agreements signed in March 2023", "all contracts under Swiss law"
                              r"^\s*(?:(?:all|our|the|any)\s+)*(?:agreements|contracts|slas)\b|"
                              r"(?:合同|协议)有哪些|哪些(?:合同|协议)|"
                              # "列出所有在2024年生效的协议": a list whose last noun is the agreements
                              r"(?:列出|列举|显示|给出|查看)[^，,。？?]{0,24}?(?:合同|协议)[。？?！!\s]*$|"
                              # a bare noun phrase headed by the agreements: "2023年生效的合同" (not a request to
                              # read one: "帮我概括一下Orbis的协议")
                              r"^(?![^，,。？?]*(?:概括|总结|全文|介绍|说明|解释|内容|讲|读|看|帮我|给我|告诉我))"
                              r"[^，,。？?]{0,30}的(?:合同|协议)[。？?！!\s]*$", re.I)


# "mention" as a verb ("the termination wording for every supplier" names no words to find), and
# where the words end: at the scope of suppliers or agreements ("... mention notice for German suppliers")
MENTION_VERB = re.compile(r"\b(?:mention(?:s|ed|ing)?|contain(?:s|ed|ing)?|refer(?:s|ring)?\s+to|talk(?:s|ing)?\s+about)\b",
                          re.I)
_MENTION_SCOPE = re.compile(r"\b(?:for|of|from|by|in|at|with|outside|under|across)\s+(?:\S+\s+){0,3}?"
                            r"(?:suppliers?|vendors?|companies|providers?|partners?|agreements?|contracts?|slas?)\b.*$",
                            re.I)


def _set_mentions(f: QuestionFacts, p: PlanParams) -> None:
    """"Termination clauses that mention notice": the type's clauses whose text holds the words."""
    words = _mentioned_words(f)
    if not words:
        return
    p.mentions = words
    f.linked["mentions"] = list(words)
    # a place or industry among the words found is what the clauses say, not a filter ("clauses
    # that mention Kassel"), unless the question also names it before them
    verb = MENTION_VERB.search(f.q) if f.language != "zh" else _ZH_MENTION.search(f.q)
    before = f.q[:verb.start()] if verb else f.q
    for kind in ("countries", "industries", "cities"):
        found = getattr(f, kind)
        dropped = {value for value, phrase in found.items()
                   if any(contains_phrase_ci(w, phrase) for w in words) and not contains_phrase_ci(before, phrase)}
        if dropped:
            setattr(p, kind, [v for v in getattr(p, kind) if v not in dropped])


def _mentioned_words(f: QuestionFacts) -> list[str] | None:
    """The words after "mention" (a plural as its singular, so "periods" finds "period"), or the
    quoted words; in Chinese the word after 提到 / 提及 / 写明 ... in a question naming no type."""
    if f.language == "zh":
        return None if f.types else _zh_mentioned(f.q)
    verb = MENTION_VERB.search(f.q)
    if not verb or not _searches_wording(f):
        return None
    if f.quoted:
        return [f.quoted[0].strip()]
    tail = _MENTION_SCOPE.sub(" ", CLAUSE_WORDS.sub(" ", f.q[verb.end():]))
    if CJK.search(tail):
        return None   # Chinese has no word boundaries to require words by
    said = [m for how in (f.linked.get("clause_types") or {}).values() for m in re.findall(r"'([^']+)'", how)]
    if any(contains_phrase_ci(tail, phrase) and not contains_phrase_ci(f.q[:verb.start()], phrase)
           for phrase in said):
        return None   # "which clauses mention termination?": the words name the type asked for
    words = [w for w in word_tokens(tail) if w not in STOPWORDS and len(w) > 1]
    return [_singular_stem(w) for w in words][:6] or None


def _singular_stem(word: str) -> str:
    """What a plural and its singular share, for a substring test: "periods" -> "period",
    "penalties" -> "penalt" (penalty, penalties)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# words asked for as written ("mention", "contain the words"), not a provision meant ("contain a penalty")
LITERAL_MENTION = re.compile(r"\bmention(?:s|ed|ing)?\b|\brefer(?:s|red|ring)?\s+to\b|"
                             r"\bcontain(?:s|ed|ing)?\s+(?:the\s+)?(?:words?|terms?|phrases?|expressions?|names?)\b", re.I)


def _asks_literally(f: QuestionFacts) -> bool:
    return f.language == "zh" or bool(f.quoted) or bool(LITERAL_MENTION.search(f.q))


# 提到 / 提及 / 写明 ... and the word after it, up to 的 / 条款 / the question's end ("哪些条款提到了仲裁？")
_ZH_MENTION = re.compile(r"(?:提到|提及|写到|写有|写明|载有|含有|出现)(?:了|过)?\s*[“\"「『]?"
                         r"([\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9\-]{1,11}?)[”\"」』]?"
                         r"(?:这个词|一词|字样|的|条款|内容|吗|[？?。！!，,]|$)")
_ZH_NOT_A_MENTION = {"合同", "协议", "条款", "内容", "规定", "供应商", "公司"}


def _zh_mentioned(q: str) -> list[str] | None:
    m = _ZH_MENTION.search(q)
    if not m or m.group(1) in _ZH_NOT_A_MENTION:
        return None
    return [m.group(1)]


def _searches_wording(f: QuestionFacts) -> bool:
    """Quoted words, or words after "mention" / "contain" ("... contracts contain?" asks what they
    contain; "... contain a penalty?" searches for the penalty)."""
    if f.quoted:
        return True
    if not f.wording:
        return False
    return _has_content(CLAUSE_WORDS.sub(" ", f.q[f.wording.end():]).strip(" ?.!。？"))


def _lists_agreements_not_companies(f: QuestionFacts) -> bool:
    """"List the contracts signed in 2024", "2023年签的协议有哪些？": the agreements are what is
    listed ("哪些" alone makes a Chinese question want companies unless it names no company)."""
    if not LISTS_AGREEMENTS.search(f.q):
        return False
    if f.language == "zh":
        return not (ZH_NAMES_COMPANIES.search(f.q) or ZH_HEADED_BY_COMPANIES.search(f.q))
    return not f.wants_companies


def _aggregate_over_companies(f: QuestionFacts) -> bool:
    """Companies filtered by attributes: counted, summed, listed, or the agreements that pass
    the filters ("which contracts are governed by Italian law": no topic to search for)."""
    text_query = f.text_query
    lists = f.wants_companies or (bool(LISTS_AGREEMENTS.search(f.q)) and not f.topic and not f.wording)
    return bool(f.spend_change) or \
        (f.has_filters and (f.counting or f.summing or lists or not _has_content(text_query))) or \
        (f.counting and not _has_content(text_query)) or (f.summing and (not text_query or bool(ALL_WORDS.search(f.q))))


# what is left of "how many suppliers do we have / work with / have on file?" once the filters
# and scaffolding are gone: words of having and dealing, not a topic a clause could be about
RELATION_WORDS = {"work", "working", "worked", "deal", "dealing", "use", "using", "engage", "engaged",
                  "business", "file", "record", "records", "system", "currently", "now", "today", "altogether",
                  "overall", "got", "exist", "exists", "existing", "active", "total",
                  # the verbs of an agreement's date ("signed in March 2023"): the date condition reads them
                  "signed", "effective", "started", "concluded", "executed", "entered", "dated", "commenced"}
ZH_SCAFFOLD = re.compile(r"我们|我方|咱们|我司|一共|总共|共计|合计|共|目前|现在|当前|多少|几|家|个|有|供应商|厂商|公司|企业|位于|总部|"
                         r"合作|签约|的|吗|呢|了|在|数量|总数|是|列出|列举|所有|全部|哪些|请|[？?。！!，,\s]")


def _has_content(text: str | None) -> bool:
    """Whether a search text carries a topic: a content word (not a stop word, nor a word of
    having and dealing), or Chinese beyond the scaffolding of a count."""
    if not text:
        return False
    if CJK.search(text):
        return len(ZH_SCAFFOLD.sub("", text)) >= 2
    words = [w for w in word_tokens(text) if w not in STOPWORDS and w not in RELATION_WORDS and not w.isdigit()]
    return len(words) >= 1


@dataclass(frozen=True)
class Rule:
    """One route: when `applies`, the plan gets `intent` and `mode` (unless a mode is forced),
    `build` adds the route's own parameters, and `reason` is shown to the user as the why."""

    name: str
    applies: Callable[[QuestionFacts], bool]
    intent: Intent | Callable[[QuestionFacts], Intent]
    mode: Mode
    reason: str                      # may use {direction}
    build: Callable[[QuestionFacts, PlanParams], None] = _nothing


# Read top to bottom: the first rule that applies wins, so the order is the routing policy.
ROUTES: tuple[Rule, ...] = (
    # 0. a follow-up about the clause next to the one just shown ("what comes after it?")
    Rule("follow_up_neighbour",
         lambda f: f.positional and bool(f.previous_clause_ids) and "companies" in f.inherited
         and "clause_types" not in f.linked,
         Intent.NEXT_CLAUSE, Mode.DOCUMENT, "asks for the clause {direction} the clause just shown",
         _follow_up_neighbour),
    # 0a. what the agreements' terms say: expiry, notice periods, liability cap, payment days
    Rule("contract_terms", lambda f: f.term_ask is not None and not f.named,
         Intent.TERMS, Mode.ATTRIBUTE, "asks what the agreements' terms say (read from each contract at ingest)",
         _set_terms),
    # 1. companies without any agreement
    Rule("no_agreement", lambda f: bool(NO_AGREEMENT.search(f.q) or _reader_says(f, "no_agreement")) and not f.types,
         Intent.NO_AGREEMENT, Mode.ATTRIBUTE, "asks for companies that have no agreement"),
    # 1a. suppliers ranked by their number of agreements ("who has the most contracts?"), then
    # agreements ranked by effective date ("which supplier's contract took effect earliest?")
    Rule("companies_by_agreements", lambda f: bool(f.agreement_rank) and f.agreement_rank[0] in {"most", "fewest"},
         Intent.COUNT, Mode.ATTRIBUTE, "ranks the suppliers by their number of agreements (ties kept)",
         _set(count_unit="agreements")),
    Rule("agreements_by_date", lambda f: bool(f.agreement_rank),
         Intent.COUNT, Mode.ATTRIBUTE, "ranks the agreements by effective date",
         _set(count_unit="agreements")),
    # 1b. spend figures (no clause type named): one supplier's over the years, totals per group,
    # a ranking, or the spend on named categories
    Rule("spend_history",
         lambda f: f.named and f.asks_spend and not (f.types or f.positional) and (f.summing or not f.counting),
         # several named suppliers' spend "in total": one sum, not each one's history
         lambda f: Intent.SUM_SPEND if f.summing and len(f.companies) > 1 else Intent.SPEND_HISTORY,
         Mode.ATTRIBUTE, "asks for a known supplier's spend (per year and category)",
         _history_years),
    Rule("spend_by", lambda f: bool(f.group_by) and not f.types and not f.named,
         Intent.SPEND_BY, Mode.ATTRIBUTE, "asks for spend totals per {group_by}",
         lambda f, p: setattr(p, "group_by", f.group_by)),
    Rule("spend_top", lambda f: bool(f.top) and not f.types and not f.named,
         Intent.SPEND_TOP, Mode.ATTRIBUTE, "asks for the suppliers ranked by spend (the highest, or the lowest, first)",
         lambda f, p: setattr(p, "top", f.top)),
    Rule("category_spend", lambda f: bool(f.categories) and f.asks_spend and not f.types and not f.named,
         lambda f: Intent.SPEND_TOP if f.wants_companies and not f.summing else Intent.SUM_SPEND, Mode.ATTRIBUTE,
         "asks for the spend on a spend category"),
    # "where is Ruyi based?": the named suppliers' addresses, not their documents
    Rule("named_location", lambda f: f.named and not (f.types or f.topic or f.positional) and bool(ASKS_LOCATION.search(f.q)),
         Intent.COMPANIES, Mode.ATTRIBUTE, "asks where a known supplier is based", _set(show_location=True)),
    # 2. a known company or agreement: read its document
    Rule("named_count_agreements", lambda f: f.named and f.counting and f.counts_agreements,
         Intent.COUNT, Mode.DOCUMENT, "counts the agreements of a known company"),
    # "which contracts does Marisol have?", "如意数据的合同是哪一年签的？": the agreements themselves
    Rule("named_agreements",
         lambda f: f.named and not (f.types or f.topic or f.positional) and bool(
             LISTS_AGREEMENTS.search(f.q) or ASKS_AGREEMENT_DATE.search(f.q) or f.by_what_it_supplies),
         Intent.COUNT, Mode.DOCUMENT, "lists the agreements of a known company (service, date, law)",
         _set(count_unit="agreements")),
    Rule("named_count_clauses", lambda f: f.named and f.counting,
         Intent.COUNT, Mode.DOCUMENT, "counts the clauses of a known company's agreements", _set(count_unit="clauses")),
    Rule("named_gap", lambda f: f.named and bool(f.types) and f.negated and not f.positional,
         Intent.GAP, Mode.ATTRIBUTE, "asks whether the named companies lack a clause type", _gap_of_whom),
    Rule("named_position", lambda f: f.named and f.position is not None,
         Intent.POSITION, Mode.DOCUMENT, "asks for the clause at a place in a known agreement (counted along NEXT, or by its section number)",
         _set_position),
    Rule("named_neighbour", lambda f: f.named and f.positional,
         Intent.NEXT_CLAUSE, Mode.DOCUMENT, "asks for the clause {direction} another clause in a known agreement",
         _neighbour_in_document),
    Rule("named_presence",
         lambda f: f.named and bool(f.types) and (f.yes_no or (f.wants_companies and len(f.companies) > 1)),
         Intent.PRESENCE, Mode.ATTRIBUTE, "asks whether the named companies have a clause type", _set(gap=False)),
    Rule("document_type", lambda f: f.named and bool(f.types),
         Intent.DOCUMENT_TYPE, Mode.DOCUMENT, "names a company/agreement and a clause type"),
    Rule("document_topic", lambda f: f.named and bool(f.topic or (f.asked_of_document and not DOCUMENT_REQUEST.search(f.q))),
         Intent.DOCUMENT_TOPIC, Mode.DOCUMENT, "names a company/agreement and asks about a topic",
         _set_text(lambda f: f.topic or f.asked_of_document)),
    Rule("document", lambda f: f.named,
         Intent.DOCUMENT, Mode.DOCUMENT, "names a company or agreement"),
    # 3. a clause type: gap / presence / counts over filtered companies, or the type's clauses
    Rule("type_gap", lambda f: bool(f.types) and f.negated,
         _count_or(Intent.GAP), Mode.ATTRIBUTE,
         "asks which companies lack a clause type (none of the types among their classified clauses)", _gap_types),
    # "do Swiss suppliers have X?", "医疗行业的供应商有没有约定X？": yes or no, supplier by supplier
    Rule("type_presence", lambda f: bool(f.types) and (f.wants_companies or (f.yes_no and f.has_filters)
                                                      or (f.counting and bool(COUNTS_HOLDERS.search(f.q))))
         and not COMPARE.search(f.q),
         lambda f: Intent.COUNT if f.counting else Intent.PRESENCE, Mode.ATTRIBUTE,
         "asks which companies have a clause type", _presence_asked),
    Rule("attribute_clauses", lambda f: bool(f.types) and f.has_filters,
         Intent.ATTRIBUTE_CLAUSES, Mode.ATTRIBUTE,
         "filters companies by attributes, then reads their clauses of a type", _set_mentions),
    Rule("clause_type_topic",
         lambda f: bool(f.types) and bool(f.topic) and not f.wants_companies and bool(ABOUT_WORDS.search(f.q)),
         Intent.CLAUSE_TYPE, Mode.CLAUSE_TYPE, "collects one clause type across agreements (ranked by the topic)",
         _set_text(lambda f: f.topic)),
    Rule("clause_type", lambda f: bool(f.types),
         Intent.CLAUSE_TYPE, Mode.CLAUSE_TYPE, "collects one clause type across agreements", _set_mentions),
    # "what clauses are in the French suppliers' contracts?", "芬兰供应商的合同有哪些条款？": the
    # documents of the suppliers the filters pick, clause by clause (as for a named supplier)
    Rule("filtered_documents",
         lambda f: f.has_filters and not (f.named or f.types or f.topic or f.positional or f.counting or f.summing
                                          or _searches_wording(f)) and bool(ASKS_DOCUMENT_CONTENT.search(f.q)),
         Intent.DOCUMENT, Mode.DOCUMENT, "reads the agreements of the suppliers the filters pick, clause by clause"),
    # 4. no type: "every clause that mentions arbitration" lists them all, word for word; other
    # wording or a topic means search, filtered by attributes when given
    # (English only: a Chinese word is in no English contract, which would list every one of them)
    Rule("agreements_not_mentioning", lambda f: not (f.types or f.positional) and f.negated and f.language == "en"
         and _asks_literally(f) and bool(_mentioned_words(f)),
         Intent.COUNT, Mode.ATTRIBUTE, "lists the agreements none of whose clauses holds the words asked about",
         lambda f, p: (_set_mentions(f, p), setattr(p, "count_unit", "agreements"))),
    Rule("clauses_mentioning", lambda f: not (f.types or f.positional or f.named or f.negated) and _asks_literally(f)
         and bool(_mentioned_words(f)),
         Intent.HYBRID, Mode.HYBRID, "asks for wording: every clause whose text holds the words (full-text index, "
         "then word for word)", _set_mentions),
    Rule("hybrid", lambda f: bool(f.text_query) and bool(f.wording or f.quoted),
         Intent.HYBRID, Mode.HYBRID, "asks about wording: full-text and vector search, fused",
         _set_text(lambda f: f.text_query)),
    # "when did the Swedish supplier's contract take effect?", "list the contracts signed in 2024":
    # the agreements of the suppliers the filters pick, with their dates (as for a named supplier)
    Rule("filtered_agreements",
         lambda f: f.has_filters and not (f.named or f.types or f.topic or f.positional or f.counting)
         and bool(ASKS_AGREEMENT_DATE.search(f.q) or _lists_agreements_not_companies(f)),
         Intent.COUNT, Mode.ATTRIBUTE, "lists the agreements of the suppliers the filters pick (service, date, law)",
         _set(count_unit="agreements")),
    Rule("companies", _aggregate_over_companies,
         _count_or(Intent.COMPANIES), Mode.ATTRIBUTE, "filters companies by attributes"),
    Rule("total_spend", lambda f: f.summing and f.asks_spend and not (f.types or f.named or f.topic or f.wording),
         Intent.SUM_SPEND, Mode.ATTRIBUTE, "asks for the total spend"),
    Rule("relay",
         lambda f: bool(f.text_query) and bool(CLAUSE_WORDS.search(f.q) or f.has_filters or f.topic),
         Intent.RELAY, Mode.RELAY, "asks about a meaning: vector search, then walk back to companies and filter",
         _set_text(lambda f: f.text_query)),
)


# intents asked of companies that a ranking ("our 5 biggest suppliers") narrows to its top N
RANKED_SCOPE_INTENTS = {Intent.GAP, Intent.PRESENCE, Intent.COUNT}


LOCATED = re.compile(r"\b(?:located|based|headquartered|situated|registered)\b|位于|总部", re.I)


def route(f: QuestionFacts) -> tuple[Rule, Intent] | None:
    """The first rule of `ROUTES` that applies, with the intent it gives; None when none does."""
    for rule in ROUTES:
        if rule.applies(f):
            return rule, rule.intent(f) if callable(rule.intent) else rule.intent
    return None


def plan_question(question: str, vocab: Vocabulary, context: SessionContext | None = None,
                  forced_mode: str | None = None, reading=None) -> Plan:
    """`reading`: a `QuestionReading` made elsewhere (an LLM's); by default the learned reader's."""
    facts = inherit_context(extract_facts(question, vocab, forced_mode, reading), context)
    params = base_plan_params(facts, vocab)
    forced = facts.forced_mode

    def make(intent: Intent, mode: Mode, why: str) -> Plan:
        return Plan(intent=intent, mode=forced or mode, params=params, why=why, language=facts.language,
                    linked=facts.linked)

    hit = route(facts) or _route_by_meaning(facts, params)
    if hit:
        rule, intent = hit
        rule.build(facts, params)
        if intent in RANKED_SCOPE_INTENTS and facts.types and facts.top_named and not facts.named:
            # "which of our 3 biggest suppliers lack X": the question is asked of those 3
            params.top = facts.top_named
            facts.linked["top"] = f"the {facts.top_named} suppliers with the highest spend"
        reason = rule.reason.format(direction=facts.direction, group_by=facts.group_by)
        if params.gap and params.count_unit == "agreements":
            reason = reason.replace("the named companies", "the named companies' agreements").replace(
                "which companies", "which agreements")
        return make(intent, rule.mode, reason)
    if forced in SEARCH_MODES:
        params.text = facts.text_query or facts.q
        return make(Intent(forced.value), forced, f"{forced} mode chosen: the question's words are the search text")
    if not forced and facts.text_query and COMPANY_SUBJECT.search(facts.q) and facts.language == "en" \
            and not LOCATED.search(facts.q):
        # "which vendors offer compensation for outages?": about suppliers' contracts, but no rule
        # and no clause type fits; the clauses closest in meaning beat "could not map". Not for a
        # place the graph does not know ("located in ...": an attribute, not clause content), nor
        # in Chinese (the English embedder would rank clauses by noise)
        params.text = facts.text_query
        return make(Intent.RELAY, Mode.RELAY, f"no rule or clause type fits: the clauses closest in meaning to "
                                              f"'{facts.text_query}' are searched")
    plan = make(Intent.UNKNOWN, forced or Mode.NONE, "could not map the question to companies, clause types or attributes")
    company = vocab.companies[0]["name"] if vocab.companies else "Acme"
    plan.suggestions = [s.format(company=company) for s in SUGGESTIONS]
    return plan


def _route_by_meaning(f: QuestionFacts, params: PlanParams) -> tuple[Rule, Intent] | None:
    """Before "could not map": the clause type the question describes ("what do we get back
    when a supplier misses its uptime target?"), by embedding (English) or the taxonomy's
    Chinese lexicon, then the routes again. Only questions nothing else routes pay for it, and
    not a question sent to hybrid search: hybrid searches for a type read into the words but never
    requires it, so linking one would cost a model call and change no row."""
    if f.types or f.named or f.forced_mode == Mode.HYBRID:
        return None
    if _link_by_facet(f, f.q):
        f.topic = None
    else:
        tname, why = (cond.type_by_chinese(f.q) if CJK.search(f.q) else _type_by_meaning(f, f.q))
        if not tname:
            return None
        f.types, f.topic = [tname], None
        f.linked["clause_types"] = {tname: why}
    params.types = list(f.types)
    _read_facets(f, params)
    return route(f)


# ---------------------------------------------------------------------------------------
# conditions on agreements and types by meaning (core/retrieval/conditions.py)
# ---------------------------------------------------------------------------------------

DOCUMENT_REQUEST = re.compile(
    r"\b(overview|summar\w+|whole|entire|full text|in full|walk me through|take me through|clause by clause|"
    r"section by section|pull up|what(?:'s| is) in|what does .{1,40} cover|read .{0,30}(?:agreement|contract)\b)|"
    r"全文|概括|总结|包含哪些|都写了什么|有哪些条款|内容是什么", re.I)

# what the documents of a group of suppliers contain: a reading of them, not a search
ASKS_DOCUMENT_CONTENT = re.compile(
    DOCUMENT_REQUEST.pattern + "|" + ASKS_FOR_CLAUSES.pattern + "|" + ZH_ASKS_FOR_CLAUSES.pattern +
    r"|\bwhat\s+do(?:es)?\b.{1,60}\b(?:agreements?|contracts?|slas?)\s+(?:cover|contain|say|include|provide)\b", re.I)


def _read_dates(f: QuestionFacts, vocab: Vocabulary) -> None:
    """The effective-date window; its words are no clause position and its year no spend year."""
    dates = cond.parse_agreement_dates(f.q)
    if not dates:
        return
    f.date_from, f.date_to = dates.date_from, dates.date_to
    f.linked["effective_date"] = dates.how
    undated = cond.without_dates(f.q)   # "signed after mid-2023" is a time, not a clause's place
    f.after, f.before = f.after and bool(POSITION_AFTER.search(undated)), f.before and bool(POSITION_BEFORE.search(undated))
    said = re.findall(r"'([^']+)'", dates.how)[:1]
    if said and f.year and str(f.year) in said[0] and not f.spend_change:
        # "agreements that started before 2023": the year is the date's, not a spend year
        rest_of_q = f.q.replace(said[0], " ")
        f.year, f.years = parse_year(rest_of_q, vocab.spend_years), parse_years(rest_of_q, vocab.spend_years)


def read_conditions(f: QuestionFacts, rest: str, vocab: Vocabulary) -> QuestionFacts:
    """Complete the facts with the conditions `conditions.py` reads: agreement dates, governing
    law (also one no agreement has: applied, so the answer says none), a country no supplier
    is in, a position, and a clause type named by meaning. Each is recorded in `linked`, so the
    plan shows what was understood and a recognised condition is never dropped silently."""
    _read_dates(f, vocab)
    _read_laws(f, rest, vocab)
    scope = cond.law_scope(f.q)
    if scope and not f.laws:
        f.law_scope = scope[0]
        f.linked["law_scope"] = {scope[0]: scope[1]}   # the words, masked when the meaning is read
    _law_words_are_no_type(f)
    _asks_which_law(f)
    by_count = cond.company_agreement_rank(f.q)
    ranked = cond.agreement_rank(f.q)
    if by_count and not (f.types or f.positional or f.named):
        f.agreement_rank = by_count[:2]
        f.linked["agreement_rank"] = {f"the {by_count[1]} supplier(s) with the {by_count[0]} agreements": by_count[2]}
    elif ranked and not (f.types or f.positional):
        f.agreement_rank = ranked[:2]
        f.linked["agreement_rank"] = {f"the {ranked[1]} {ranked[0]} by effective date": ranked[2]}
    counted = cond.agreement_count(f.q)
    if counted and not f.named:
        f.agreements_min, f.agreements_max = counted[0], counted[1]
        f.linked["agreement_count"] = {"at least" if counted[1] is None else "exactly": counted[2]}
    if not f.countries and not f.laws:
        for phrase, canon in cond.country_phrases().items():
            if canon not in vocab.countries and len(phrase) > 3 and contains_phrase_ci(rest, phrase):
                f.countries[canon] = phrase
                f.linked.setdefault("countries", {})[canon] = phrase
                f.linked["not_in_graph"] = f"no supplier is in {canon}: the filter is applied and matches none"
                break
    # "section 3 of the Vitaro agreement", "第三条": the clause whose heading carries that number
    numbered = cond.parse_section_number(f.q) if f.named and not f.positional else None
    pos = None if numbered else cond.parse_position(f.q)
    if numbered:
        f.position, f.numbered = numbered[0], True
        f.linked["position"] = f"'{numbered[1]}' = the clause headed {numbered[0]} (else clause {numbered[0]} in order)"
    elif pos and f.named:
        f.position = pos[0]
        where = "the last" if pos[0] == -1 else (f"clause {-pos[0]} from the end" if pos[0] < 0 else f"clause {pos[0]}")
        f.linked["position"] = f"'{pos[1]}' = {where}"
    if f.negated and not _negated(cond.main_clause(f.q), f.linked.get("clause_types") or {},
                                  _about_companies(f) or _about_holders(f.q)):
        f.negated = False   # "penalties when they miss the target": the miss is the situation, not a gap
        f.linked["negation"] = "only inside the condition: not a gap question"
    _unlink_inside_a_detail(f, rest)
    if not f.types and f.named and f.positional:
        # "after the uptime commitment in X's contract": the anchor named by a type's keyword
        tname, why = cond.type_by_words(rest)
        if tname:
            f.types = [tname]
            f.linked["clause_types"] = {tname: why}
    elif not f.types and f.forced_mode != Mode.HYBRID and _words_may_name_type(f) and _link_by_facet(
            f, cond.main_clause(_without_agreement_name(rest, f.linked.get("agreements")))):
        # a detail of a type named in its own words ("continue automatically?", "涨价的条件"), as precise as a keyword
        f.topic = None
        _negation_named_the_type(f)   # "cannot subcontract": the detail is the restriction
    elif not f.types and _meaning_may_name_type(f):
        # a type's own keyword in what the question asks for (not in its condition) first,
        # then (English only) the meaning of the rest of the question
        unnamed = _without_filter_words(f, _without_agreement_name(rest, f.linked.get("agreements")))
        tname, why = cond.type_by_words(unnamed if CJK.search(unnamed) else cond.main_clause(unnamed), related=f.named)
        if tname == GOVERNING_LAW and (f.laws or f.law_scope):
            tname = None   # "governed by Swiss law": the words of the law condition
        if not tname and not (f.counting and not f.negated):   # "how many suppliers do we have?" describes no clause
            tname, why = _type_by_meaning(f, unnamed)
            if tname == GOVERNING_LAW and (f.laws or f.law_scope):
                tname = None   # "the law of the State of New York": the law condition, by meaning
        if tname:
            f.types, f.linked["clause_types"] = [tname], {tname: why}
            f.topic = None
            if CLAUSE_WORDS.search(f.q):   # "clauses that limit how much a supplier pays": no spend figure
                f.summing = f.asks_spend = False
        if tname:
            _negation_named_the_type(f)   # "terminate without cause": the words that named the type
    elif len(f.types) > 1:
        _drop_time_condition_types(f)
        _drop_types_inside_details(f)
        spans = {t: _type_position(f.q, how) for t, how in (f.linked.get("clause_types") or {}).items()}
        split = cond.split_subject(f.q, {t: p for t, p in spans.items() if p is not None})
        if split:
            f.types = [split[0]]
            f.linked["subject"] = split[2]
    _settle_types_by_reader(f)
    if f.types and not f.negated and GAP_REPORT.search(f.q):
        # "a gap report for termination and liability": who lacks any of them, as the report does
        f.negated, f.any_gap = True, True
        f.linked["negation"] = "asks for gaps: the suppliers lacking any of the types"
    if f.named and not f.types and f.negated and ASKS_TYPES.search(f.q):
        # "what types of clauses are missing from Infosphere's contract?": every type, checked
        f.types, f.any_gap = [t for t in vocab.clause_types if t != "Other"], True
        f.linked["clause_types"] = {t: "every type (asked which are missing)" for t in f.types}
    if f.types and not f.named and not f.negated and EVERY_HAS.search(f.q):
        # "do all our suppliers have a governing law clause?": yes unless some lack one, so
        # the answer is the gap list (empty: every one has it)
        f.negated = True
        f.linked["negation"] = "asks whether every supplier has it: answered by those that lack it"
    _note_unmatched_filters(f, rest, vocab)
    return f


def _phrase_spans(q: str, phrases) -> list[tuple[int, int]]:
    low = q.lower()
    return [(at, at + len(p)) for p in phrases if p and (at := low.find(p.lower())) >= 0]


def _reader_says(f: QuestionFacts, intent: str, at_least: float = 0.8) -> bool:
    """The learned reader (or an LLM's reading) reads this intent, and is confident of it."""
    return f.reading is not None and f.reading.intent == intent and f.reading.intent_p >= at_least


def _polarity_by_reader(f: QuestionFacts) -> None:
    """A gap the wording did not show ("whcih suppliers dont have ..."): the reader's polarity, when confident."""
    r = f.reading
    if f.types and not f.negated and r.polarity == "lacks" and r.polarity_p >= 0.9 and r.intent in LACKING_INTENTS:
        f.negated = True
        f.linked["negation"] = f"read by the question reader (p {r.polarity_p:.2f})"


LACKING_INTENTS = frozenset({"lacks", "count", "spend_total", "spend_ranking"})


def _settle_types_by_reader(f: QuestionFacts) -> None:
    """The learned reader's types where the wording named none (or only by meaning); recorded in `linked`."""
    if f.forced_mode == Mode.HYBRID or (f.named and f.positional):
        return
    reader = question_reader()
    f.reading = reading = f.reading or reader.read(f.q, f.company_spans, _phrase_spans(f.q, f.industries.values()))
    if f.laws or f.law_scope:   # the law is a condition here, never the type asked
        reading = dataclasses.replace(reading, types=[t for t in reading.types if t != GOVERNING_LAW])
    # the rules settled that the words name something else: an agreement by its service, words to
    # find, a spend category, a topic searched inside the one named agreement
    words_name_else = bool(f.linked.get("agreements") or f.categories or f.quoted or WORDING.search(f.q)
                           or (f.named and (f.topic or DOCUMENT_REQUEST.search(f.q)))
                           or f.agreements_min or f.agreements_max or f.agreement_rank
                           # one agreement's provision, but no supplier or agreement is named: a general question
                           or (reading.intent == "provision" and not f.named)
                           # a quantity the clauses must state ("fix errors within one business day"): the
                           # search by meaning keeps the clauses that state it, whatever their type
                           or bool(question_quantities(f.q)))
    # a detail the taxonomy's facets name exactly ("end ... if the supplier is bought"): the rules'
    # link and the facet reading that follows when the routes run stand, as words would
    by_detail = bool(type_by_facet(f.q)[0])
    rule_links = {t: ("detail " if by_detail else "") + str((f.linked.get("clause_types") or {}).get(t, ""))
                  for t in f.types}
    types, why = settle_types(rule_links, reading, reader.threshold_of, may_add=not words_name_else,
                              add_only_if_sure=bool(f.topic),
                              words_decide=f.named or by_detail)
    f.linked["reader"] = {"intent": reading.intent, "types": reading.types, "polarity": reading.polarity,
                          "sure": not reading.unsure}
    if reading.unsure:
        f.linked["unsure_reading"] = reading.unsure_note(types)
    if set(types) != set(f.types):
        _take_types(f, types, why)
    _polarity_by_reader(f)


def _take_types(f: QuestionFacts, types: list[str], why: str) -> None:
    reading = f.reading
    f.types = types
    f.linked["clause_types"] = {t: f"read by the question reader (p {reading.type_p[t]:.2f}; {why})" for t in types}
    if not types:
        f.linked.pop("clause_types", None)
    f.topic = None if types else f.topic


GAP_REPORT = re.compile(r"\bgap\s+(?:report|analysis|check|list)\b|\bcompliance\s+gaps?\b|缺口报告|合规缺口|差距分析", re.I)
ASKS_TYPES = re.compile(r"\b(?:types?|kinds?|sorts?)\s+of\s+(?:clauses?|provisions?)\b|\bclause\s+types?\b|"
                        r"\b(?:which|what)\s+(?:clauses|provisions)\b|哪些条款|什么条款|哪些类型|哪类条款|条款类型", re.I)
EVERY_HAS = re.compile(
    r"^\s*(?:do|does|have|has|are|is)\s+(?:all|every|each)\b|"
    r"^\s*(?:do|does)\s+(?:\w+\s+){0,3}?(?:all|every|each)\s+(?:of\s+)?(?:our\s+|the\s+)?"
    r"(?:suppliers?|vendors?|contracts?|agreements?|compan(?:y|ies)|providers?)\b|"
    r"^\s*(?:do|are)\s+(?:all\s+)?(?:our\s+|the\s+)?(?:\w+\s+)?(?:suppliers|vendors|contracts|agreements|companies|providers)\s+all\b|"
    r"是否(?:所有|每(?:个|家|份|一))|(?:所有|每(?:个|家|份|一))[\u4e00-\u9fff]{0,8}都(?:有|包含|规定|约定)[\u4e00-\u9fff]*吗|"
    # "法国供应商都有数据保护条款吗？", "这些合同是否都约定了保密？": 都 asks it of every one of them
    r"^(?!.*哪)[^？?]*(?:供应商|供货商|厂商|公司|企业|合同|协议)们?"
    r"(?:是否都(?:有|包含|规定|约定)|都(?:有|包含|规定|约定)(?=[^？?]*吗))", re.I)


# "suppliers in Lagos", "vendors based in Bavaria": a place the question names after these words
PLACE_AFTER = re.compile(r"\b(?:suppliers?|vendors?|providers?|compan(?:y|ies)|firms?|partners?)\s+(?:that\s+are\s+|who\s+are\s+)?"
                         r"(?:in|from|based\s+in|located\s+in|headquartered\s+in|registered\s+in)\s+(?:the\s+)?"
                         r"([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2})"
                         r"|(?:位于|总部(?:设)?在|来自|注册在)([\u4e00-\u9fff]{2,8}?)(?:地区|市|省)?的?(?:供应商|公司|企业|厂商)")


def _note_unmatched_filters(f: QuestionFacts, rest: str, vocab: Vocabulary) -> None:
    """A filter the graph cannot match is applied and said ("retail suppliers": none), and words
    that name nothing ("suppliers in Lagos", "mining suppliers") are said, never dropped silently."""
    if not f.industries:
        # "retail suppliers" where no supplier is in retail: applied (none), never dropped
        for phrase, canon in cond.industry_phrases().items():
            at = rest.lower().find(phrase)
            if (canon not in vocab.industries and len(phrase) > 3 and contains_phrase_ci(rest, phrase)
                    and at >= 0 and SUPPLIER_AFTER.match(rest[at + len(phrase):])):
                f.industries[canon] = phrase
                f.linked.setdefault("industries", {})[canon] = phrase
                f.linked["not_in_graph"] = f"no supplier is in {canon}: the filter is applied and matches none"
                break
    if f.negated and not f.types and not f.named:
        asked = re.search(r"\b(?:an?|any|the)\s+((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:clauses?|provisions?)\b", f.q, re.I)
        if asked:   # "which suppliers lack an anti-bribery clause?": no such type to find gaps in
            f.linked["unknown_type"] = (f"'{asked.group(1)}' is no clause type of the taxonomy, so no gap can be "
                                        "computed for it (data/clause_types.json lists the types; add one there); "
                                        "the answer searches the clauses for it instead")
    qualifier = _unrecognised_qualifier(f, rest)
    if qualifier and "not_recognised" not in f.linked:
        f.linked["not_recognised"] = (f"'{qualifier}' (before 'suppliers') names no country, industry, city, spend "
                                      "group or company the graph or the lexicon knows: no filter was applied for it")
    unknown = _unrecognised_place(f, rest)
    if unknown:
        f.linked["not_recognised"] = (f"'{unknown}' is no country, city or industry the graph or the lexicon "
                                      "knows: no filter was applied for it")


# words that qualify "suppliers" without filtering them (besides linking.STOPWORDS)
_PLAIN_QUALIFIERS = {"such", "several", "some", "none", "current", "existing", "active", "remaining", "listed",
                     "different", "various", "named", "my", "your", "his", "her", "most", "fewer", "new", "main",
                     "major", "key", "top", "biggest", "largest", "smallest", "important", "number", "count",
                     "name", "you", "individual", "respective", "relevant", "affected", "possible", "potential",
                     "external", "third-party", "third", "party", "foreign", "domestic", "local", "international",
                     "global", "among", "amongst", "across", "via", "like", "including", "excluding", "except",
                     "besides", "regarding", "concerning", "whom", "only", "just", "still", "yet", "even"}


def _unrecognised_qualifier(f: QuestionFacts, rest: str) -> str | None:
    """"Which mining suppliers ...": a word before "suppliers" that names nothing the graph or the
    lexicon knows is said (the answer covers every supplier), unless it only counts or points."""
    said = " ".join(str(v) for v in f.linked.values()).lower()
    for m in re.finditer(r"\b([a-z][a-z-]{2,})\s+(?:suppliers|vendors|providers|companies|firms)\b", rest.lower()):
        word = m.group(1)
        if word in _PLAIN_QUALIFIERS or word in STOPWORDS or word in said or any(
                w in said for w in word.split("-")) or "spend" in word or word.endswith("'s"):
            continue
        return word
    return None


def _unrecognised_place(f: QuestionFacts, rest: str) -> str | None:
    """A capitalised name after "suppliers in / from / based in" that named nothing: said, so an
    answer over every supplier is not mistaken for one about that place."""
    m = PLACE_AFTER.search(rest)
    if not m:
        return None
    name = m.group(1) or m.group(2)
    said = " ".join(str(v) for key in ("countries", "cities", "industries", "governing_law", "companies", "clause_types",
                                       "effective_date", "spend")
                    for v in ((f.linked.get(key) or {}).values() if isinstance(f.linked.get(key), dict)
                              else [f.linked.get(key) or ""])).lower()
    if name.lower() in said or any(w.lower() in said for w in name.split()):
        return None
    return name


def _about_companies_text(q: str) -> bool:
    """The question asks about companies (even one asking what they "promise") or yes/no."""
    return bool(WANTS_COMPANIES_EN.search(q) or WANTS_COMPANIES_ZH.search(q) or YES_NO.search(q))


def _about_holders(q: str) -> bool:
    """The question asks which suppliers or which agreements hold something: a negated verb there
    is a gap ("which SLAs don't say anything about maintenance?"), not content ("what does not count")."""
    return _about_companies_text(q) or bool(LISTS_AGREEMENTS.search(q))


def _about_companies(f: QuestionFacts) -> bool:
    return f.wants_companies or f.yes_no or _about_companies_text(f.q)


def _type_by_meaning(f: QuestionFacts, rest: str) -> tuple[str | None, str]:
    """The type the question describes by embedding similarity (one model call, English only)."""
    if CJK.search(rest) or f.meaning_tried:
        return None, ""
    f.meaning_tried = True   # at most one question embedding for linking
    masked = [ph for key in ("countries", "industries", "cities", "governing_law", "law_scope", "agreement_count")
              for ph in (f.linked.get(key) or {}).values()]
    if f.laws or f.law_scope:   # "under Swiss law": the law condition's words ("Swiss" read as Payment)
        masked += [m.group(0) for m in cond.LAW_CONTEXT.finditer(rest)]
    # the date condition's words describe no type: a period ("in the past 6 months") reads like a
    # warranty or notice period to the model, a month ("in March 2023") like a warranty
    # and neither do the verbs that make it an agreement date ("start working with", "signed")
    if f.linked.get("effective_date"):
        masked += re.findall(r"'([^']+)'", f.linked["effective_date"])[:1] + [
            m.group(0) for m in cond.AGREEMENT_TIME.finditer(rest) if not re.fullmatch(r"(?i)agreements?|contracts?|slas?", m.group(0))]
    rest = without_comparisons(rest)   # "within 30 days or less" means what "within 30 days" does
    # "without giving a reason" narrows the type found (below); it describes none itself
    masked += [rest.lower()[a:b] for a, b in cond.without_reason_spans(rest.lower())]
    # the whole question first; when its words mix two types too evenly to link ("what do we
    # get back when a supplier misses its uptime target"), what it asks for before "when"
    tname, _sim, why = cond.type_by_meaning_first([cond.meaning_text(rest, masked),
                                                    cond.meaning_text(cond.main_clause(rest), masked)],
                                                   # computed, not cached: facts may still change
                                                   search_texts=[QuestionFacts.text_query.func(f), f.q],
                                                   provision_words=cond.provision_text(rest, masked))
    if tname:
        # narrowed by wording as a named type is ("let us exit at any time": the meaning says
        # Termination, "at any time" says Termination for Convenience)
        (tname, why), = narrowed_types(rest, {tname: why}).items()
    return tname, why


# "what law governs X's deal?", "which law applies?", "under which jurisdiction ...": the question
# asks for the governing-law clause's value, as "适用哪国法律" does (`type_links.ZH_ASKED_VALUE`)
ASKS_WHICH_LAW = re.compile(r"\b(?:what|which)\s+(?:country'?s\s+|national\s+|governing\s+)?(?:laws?|jurisdictions?)\b|"
                            r"\b(?:what|which)\s+(?:courts?|forum|venue)\b", re.I)


def _asks_which_law(f: QuestionFacts) -> None:
    """Links Governing Law when the question asks which law applies and names no type or law."""
    if f.types or f.laws or f.law_scope:
        return
    m = ASKS_WHICH_LAW.search(f.q)
    if m:
        f.types = [GOVERNING_LAW]
        f.linked.setdefault("clause_types", {})[GOVERNING_LAW] = f"asks which law applies ('{m.group(0)}')"


def _law_words_are_no_type(f: QuestionFacts) -> None:
    """"Under French law", "governed by Swiss law", "英国法律管辖": law words that set the
    governing-law condition name no Governing Law clause; only a clause asked for by those
    words ("governing law clauses of ...") still is."""
    how = (f.linked.get("clause_types") or {}).get(GOVERNING_LAW)
    if not (f.laws or f.law_scope) or not how:
        return
    phrase = re.search(r"'([^']+)'", how)
    if phrase and re.search(re.escape(phrase.group(1)) + r"\s*(clauses?|provisions?|sections?|terms|条款|规定)",
                            f.q, re.I):
        return   # "the governing law clauses of contracts under Swiss law": the clause is asked for
    f.types = [t for t in f.types if t != GOVERNING_LAW]
    f.linked["clause_types"].pop(GOVERNING_LAW)
    if not f.linked["clause_types"]:
        f.linked.pop("clause_types")
    f.linked["law_words"] = f"'{phrase.group(1) if phrase else 'law'}' sets the governing-law condition, not a clause type"


GOVERNING_LAW = "Governing Law"


def contains_phrase_ci(text: str, phrase: str) -> bool:
    if CJK.search(phrase):
        return phrase in text
    low = text.lower()
    # the substring test first: most phrases are absent, and it spares building a regex for them
    return phrase.lower() in low and re.search(r"(?<![a-z])" + re.escape(phrase) + r"(?![a-z])", low) is not None


# a place word that describes the companies ("our Spanish supplier", "德国供应商"), not a law
DESCRIBES_COMPANIES = re.compile(r"\s*(?:(?!laws?\b)[a-z-]+\s+){0,2}?(?:suppliers?|vendors?|compan(?:y|ies)|providers?|"
                                 r"firms?|partners?|manufacturers?)\b|(?:(?!法)[\u4e00-\u9fff]){0,4}?(?:供应商|公司|厂商)", re.I)


def _as_laws(q: str, laws: dict[str, str]) -> dict[str, str]:
    """The matched law phrases that name a law: not one that only ever describes the companies
    ("the governing law clauses of our Spanish supplier": Spain is where the supplier is)."""
    low = q.lower()
    out = {}
    for law, phrase in laws.items():
        spots = [m.end() for m in re.finditer(re.escape(phrase.lower()), low)]
        if spots and all(DESCRIBES_COMPANIES.match(low, end) for end in spots):
            continue
        out[law] = phrase
    return out


def _read_laws(f: QuestionFacts, rest: str, vocab: Vocabulary) -> None:
    """Governing law is the agreement's, not the supplier's country: "under Swiss law" filters
    agreements; a country word used only as the law is no company filter."""
    if not LAW_WORDS.search(rest):
        return
    laws = _as_laws(rest, match_values(rest, cond.law_phrases(vocab.governing_laws), guard_clause_words=False))
    missing = cond.unmatched_law(rest, laws)
    # "US law": the laws of its states the graph holds (New York, Colorado), when no agreement
    # names the country itself
    states = {law: missing for law in vocab.governing_laws if missing and cond.law_country(law) == missing
              and law != missing} if missing else {}
    if states:
        laws.update(states)
        f.linked["law_of_states"] = f"{missing} law: the agreements under {', '.join(sorted(states))} law"
    elif missing and missing not in laws:
        laws[missing] = missing.lower()
        f.linked["not_in_graph"] = f"no agreement is governed by {missing} law: the filter is applied and matches none"
    if not laws:
        return
    # "not governed by Swiss law": the other laws in the graph are the filter
    laws = _apply_exclusions(rest, {**f.laws, **laws}, vocab.governing_laws, before=LAW_EXCLUDED_BEFORE)
    f.laws.clear()
    f.laws.update(laws)
    f.linked["governing_law"] = dict(f.laws)
    words = set(laws.values())
    law_places = set(laws) | ({missing} if missing else set())
    for attr, key in (("countries", "countries"), ("cities", "cities")):   # "Singapore law" is no city
        found = getattr(f, attr)
        for value, phrase in list(found.items()):
            if phrase in words or cond.country_phrases().get(phrase) in law_places or phrase in " ".join(words):
                found.pop(value)
                (f.linked.get(key) or {}).pop(value, None)
        if key in f.linked and not f.linked[key]:
            f.linked.pop(key)


def _words_may_name_type(f: QuestionFacts) -> bool:
    """Whether a question's words may name a type it does not name outright: not a request for the
    whole document, a spend figure, quoted wording, a count of clauses or companies without agreements."""
    spend_figure = (f.asks_spend and not f.negated) or f.summing
    if f.quoted or f.wording or NO_AGREEMENT.search(f.q) or (spend_figure and not CLAUSE_WORDS.search(f.q)):
        return False
    if f.position is not None or f.positional or DOCUMENT_REQUEST.search(f.q):
        return False
    # "how many clauses does X have": a count, not a type; "how many suppliers' contracts let us audit their
    # records?" counts holders of what the words describe
    return not (f.counting and not f.negated and not COUNTS_HOLDERS.search(f.q))


def _meaning_may_name_type(f: QuestionFacts) -> bool:
    """Whether a question with no type named may describe one (`_words_may_name_type`), and is
    not a listing by filters or a topic search."""
    if not _words_may_name_type(f):
        return False
    if f.named:
        return True
    if CJK.search(f.q) and not (f.negated or f.yes_no):
        return False    # a Chinese listing by filters: its words describe the filters, not a type
    # without a company: a gap, a yes/no or a listing of clauses; a topic search stays a search
    # "which contracts let us audit the supplier?": their agreements, listed by what a clause grants
    return f.negated or f.yes_no or f.wants_companies or bool(ALL_WORDS.search(f.q)) or \
        bool(COMPARE.search(f.q)) or (f.has_filters and not f.topic) or bool(LISTS_AGREEMENTS.search(f.q)) or \
        bool(f.counting and COUNTS_HOLDERS.search(f.q))   # "how many contracts let us audit ...": a count of a listing


def _link_span(f: QuestionFacts, tname: str) -> tuple[int, int] | None:
    """Where the words that linked the type stand in the question."""
    return _type_span(f.q, _how(f, tname))


def _drop_types_inside_details(f: QuestionFacts) -> None:
    """"Whose confidentiality obligations survive termination?": "termination" is part of
    Confidentiality's detail (survival after the end), not a second type asked about."""
    inside = set()
    for t in f.types:
        span = _link_span(f, t)
        if span and any(a <= span[0] and span[1] <= b for o in f.types if o != t for a, b in facet_spans(f.q, o)):
            inside.add(t)
    _drop_types(f, inside, "detail_words")


def _drop_types(f: QuestionFacts, dropped: set[str], note: str) -> None:
    """Leave out types whose words said something else, when another type is left."""
    if dropped and len(dropped) < len(f.types):
        f.types = [t for t in f.types if t not in dropped]
        f.linked["clause_types"] = {t: v for t, v in (f.linked.get("clause_types") or {}).items() if t not in dropped}
        f.linked[note] = sorted(dropped)


def _named_by_itself(f: QuestionFacts, tname: str) -> bool:
    """The question names the type by its name, not only inside the words of a detail ("a
    breach of data security" names Security's detail, not a security clause)."""
    if not _how(f, tname).startswith("name "):
        return False
    span = _link_span(f, tname)
    return not (span and any(a <= span[0] and span[1] <= b for a, b in facet_spans(f.q, tname)))


# "在合同终止后" / "合同结束时" / "到期以后": the words name a time, as "when the contract ends" does
ZH_AFTER = re.compile(r"^(?:之?后|以后|时|之时|的时候)")


def _drop_time_condition_types(f: QuestionFacts) -> None:
    """"哪些供应商的保密义务在合同终止后继续有效？" asks about Confidentiality: 终止 names the time
    the obligation lasts past, not a second type. A type whose words are followed by 后 / 时 is
    dropped when another type is left."""
    if not CJK.search(f.q):
        return
    timed = {t for t in f.types if (span := _link_span(f, t)) and ZH_AFTER.match(f.q[span[1]:])}
    _drop_types(f, timed, "time_words")


def _type_span(q: str, how: str) -> tuple[int, int] | None:
    """Where the first quoted words of a link ("keyword '终止'") stand in the question."""
    m = re.search(r"'([^']+)'", how or "")
    i = q.lower().find(m.group(1).lower()) if m else -1
    return (i, i + len(m.group(1))) if i >= 0 else None


def _type_position(q: str, how: str) -> int | None:
    span = _type_span(q, how)
    return span[0] if span else None
