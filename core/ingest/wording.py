"""What a sentence says in so many words: clause types that its wording settles whatever the models score.

The provision model learned from CUAD's lawyer labels (SEC filings) and, for the types CUAD has no
category for, from headings; the section classifier reads whole sections. Plain supplier wording of a
provision the models never saw phrased that way ("Either of us may bring this arrangement to an end ...
for any reason"; "Provider will respond to a reported outage within 30 minutes"; a sub-processor consent
sentence inside "General") falls under both. Each reader here is the few parts a reviewer looks for
together (an act, its object and what makes it that provision: a notice period with no cause, a time limit
on answering a fault, a party's staff as what may not be solicited), in English and Chinese, so it names
no contract's phrasing. A reader adds its type to a clause only where no confident label of that type is
there already; the sentence is the type's evidence (METHOD_WORDING).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from core.ingest.classifier import clean_title
from core.ingest.provisions import DEFINITION, ProvisionLabel, split_sentences

TERMINATION, TERMINATION_FOR_CONVENIENCE = "Termination", "Termination for Convenience"
# a renewal term that goes on unless notice is given, or a notice of non-renewal: ending the agreement
# at the close of such a period is a non-renewal, which CUAD's lawyers label apart ("Notice Period to
# Terminate Renewal") and the product's readers do not count as termination for convenience either
# (a termination right "during the initial term or any renewal term" is no such sentence)
NON_RENEWAL = re.compile(r"\bnon-?renewal\b|\bnot\s+to\s+renew\b|"
                         r"\b(?:renew\w*|successive|continu\w*|extend\w*)\b[^.;]{0,120}\bunless\b|"
                         r"\bunless\b[^.;]{0,120}\brenew\w*|不再续|自动续|自动延续|自动顺延", re.I)


# A right to end the agreement with no cause, said in so many words. The CUAD-trained reader scores
# supplier wording low ("Either of us may bring this arrangement to an end by giving the other not less
# than three months' written notice, for any reason": 0.10 against a threshold of 0.11) and never reads
# Chinese; the words themselves are what a reviewer looks for. A right ("may", "is entitled to", 可以 /
# 有权) to terminate, cancel or end, and either a no-cause phrase ("for convenience", "without cause",
# "for any reason", "at will", 无理由), "at any time" with a notice, or a notice period with no condition
# ("on ninety days' written notice"; not "if the other party ...") and no cause named (breach,
# insolvency, a change of control, force majeure, expiry, a price increase); never a non-renewal (NON_RENEWAL).
# On CUAD's dev split such a sentence is in 28 contracts, 26 of them labelled Termination for Convenience.
_END_VERB = r"(?:terminat\w*|cancel\w*|end\b|bring\s+(?:\w+\s+){0,3}to\s+(?:an\s+end|a\s+close)|withdraw\w*\s+from)"
_A_RIGHT_TO_END = re.compile(
    r"(?:\bmay|\bcan|\bshall\s+(?:have|be\s+entitled)\s+(?:the\s+right\s+(?:[\w,]+\s+){0,8}?)?to|\b(?:is|are)\s+entitled\s+to|"
    r"\bha(?:s|ve)\s+the\s+right\s+(?:[\w,]+\s+){0,8}?to|\breserves?\s+the\s+right\s+to|\b(?:is|are)\s+free\s+to)\s+"
    r"(?:[\w,()'’]+\s+){0,12}?" + _END_VERB + r"|(?:可以|可|有权|得以|希望|要求)[^。；]{0,30}?(?:解除|终止|结束)", re.I)
# an agreement of no fixed term that lasts until a party ends it ("This agreement continues until either party cancels
# it by giving six months' written notice"; 直至任何一方提前三个月书面通知解除) grants that party the right to end it; not
# the evergreen term after a fixed one ("... and thereafter until terminated by either party on notice"), which is a
# renewal that notice stops (CUAD: Notice Period to Terminate Renewal)
_LASTS_UNTIL_ENDED = re.compile(
    r"\buntil\b[^.;]{0,80}?\b(?:either|any|one|each|both)\s+(?:of\s+(?:the|us)\s+)?(?:party|parties|of\s+us)?[^.;]{0,40}?"
    + _END_VERB + r"|\buntil\s+(?:it\s+is\s+|being\s+)?(?:terminated|cancell?ed|ended)\s+by\s+(?:either|any|one|each)\b|"
    r"直(?:至|到)[^。；]{0,30}?(?:解除|终止)", re.I)
_THEREAFTER = re.compile(r"\bthereafter\b|此后|其后", re.I)
_A_RIGHT_OR_A_TERM_TO_END = re.compile(_A_RIGHT_TO_END.pattern + "|" + _LASTS_UNTIL_ENDED.pattern, re.I)
_NO_CAUSE_NAMED = re.compile(r"for\s+(?:its\s+|their\s+)?convenience|without\s+cause|无理由", re.I)
_NO_CAUSE = re.compile(
    r"for\s+any\s+(?:or\s+no\s+)?reason|for\s+no\s+reason|at\s+will|"
    r"without\s+(?:giving|stating|assigning|having\s+to\s+give|the\s+need\s+to\s+give)\s+(?:a\s+|any\s+)?reasons?|"
    r"无需(?:任何)?理由|不需(?:要)?(?:说明)?(?:任何)?理由|随时解除|"
    r"at\s+any\s+time\b[^.;]{0,80}\b(?:notice|days|months|weeks)\b|\b(?:notice|days|months|weeks)\b[^.;]{0,40}\bat\s+any\s+time\b|"
    # nothing but a notice is needed ("solely by giving written notice", "by simply serving notice")
    r"\b(?:(?:solely|simply|just|merely|only)\s+by|by\s+(?:solely|simply|just|merely|only))\s+"
    r"(?:(?:giving|serving|providing|sending|delivering)\s+)?(?:[\w'’]+\s+){0,3}?notice\b",
    re.I)
# a figure in digits or words, with its bracketed digits: "30", "4.5", "ninety (90)"; or redacted, as filings are
# ("[*] months", "[***] days")
_REDACTED = r"\[[^\]\n]{0,12}\]"
_PERIOD = r"(?:\d+(?:\.\d+)?|[a-z]+(?:[\s-][a-z]+)?|" + _REDACTED + r")\s*(?:\((?:\d+|" + _REDACTED + r")\)\s*)?"
_NOTICE_PERIOD = re.compile(
    r"(?:\b|(?=\[))" + _PERIOD + r"(?:calendar\s+|business\s+|working\s+)?(?:days?|weeks?|months?)(?:['’]s?)?\s*(?:\(\d+\)\s*)?"
    r"(?:prior\s+|advance\s+|written\s+)*notice|" + _REDACTED + r"\s*(?:(?:prior|advance|written)\s+)+notice|"
    r"notice\s+of\s+(?:at\s+least\s+|not\s+less\s+than\s+)?" + _PERIOD +
    r"(?:days?|weeks?|months?)|提前\s*[\d一二两三四五六七八九十百]+\s*(?:个)?(?:工作)?(?:日|天|个月|周)", re.I)
_CONDITION = re.compile(r"\b(?:if|in\s+the\s+event|upon\s+the\s+occurrence|should|where|in\s+case|unless|provided\s+that|"
                        r"following|after)\b|如果|若|如|在.{0,10}情况下", re.I)
_A_CAUSE = re.compile(r"\b(?:breach\w*|default\w*|insolven\w*|bankrupt\w*|fail\w*\s+to|violat\w*|cause\b|"
                      r"change\s+of\s+control|acquir\w*|liquidat\w*|receiver|force\s+majeure|expir\w*|increase[sd]?)|"
                      r"违约|违反|破产|清算|不可抗力|届满|涨价|提价|上调", re.I)
METHOD_WORDING = "wording"
WORDING_CONFIDENCE = 0.9


_EXPIRY = re.compile(r"\bexpir\w*|届满", re.I)
_ANOTHER_RIGHT = re.compile(r",?\s+or\s+|;\s*", re.I)


def names_a_cause(sentence: str) -> bool:
    """Whether the sentence names what allows an ending (a breach, an insolvency, a change of control)
    and no phrase that says no cause is needed ("for convenience", "for any reason"). Not a cause: the
    end of a period ("with three months' notice after the minimum term has expired"), nor one of two
    rights when the other ends without cause ("on six months' notice, or immediately if the other party
    commits a material breach")."""
    bare = _EXPIRY.sub(" ", sentence)
    if _NO_CAUSE_NAMED.search(sentence) or _NO_CAUSE.search(sentence) or not _A_CAUSE.search(bare):
        return False
    return not any(ends_without_cause(part) for part in _ANOTHER_RIGHT.split(bare))


# A right to end that waits on an event ("may terminate on 30 days' notice if availability falls below 92%"; "If the
# event continues for more than 60 days, either party may terminate") is a right for cause, whatever the event; a
# proviso after the right ("provided that if Sanofi desires to terminate ... only with respect to the U.S.") is not
# its condition. None of the 53 CUAD dev excerpts that lawyers marked Termination for Convenience is such a sentence.
_IF = re.compile(r"\b(?:if|in\s+the\s+event(?:\s+that)?|should|in\s+case|upon\s+the\s+occurrence)\b|如果|若|如遇|一旦|"
                 r"(?:^|[，,；;])\s*如(?![下上此何期实])", re.I)
_PROVISO = re.compile(r"\bprovided\s*,?\s*(?:that|however)\s*,?\s*$", re.I)


def ends_on_a_condition(sentence: str) -> bool:
    """Whether the sentence's right to end the agreement depends on an event ("if", "in the event"), with no
    phrase saying no cause is needed and no second right that needs none."""
    if not _A_RIGHT_TO_END.search(sentence) or _NO_CAUSE_NAMED.search(sentence) or _NO_CAUSE.search(sentence):
        return False
    # one of two rights ("on six months' notice, or immediately if the other party commits a material breach")
    if any(ends_without_cause(part) for part in _ANOTHER_RIGHT.split(_EXPIRY.sub(" ", sentence))):
        return False
    return any(not _PROVISO.search(sentence[:m.start()]) for m in _IF.finditer(sentence))


_A_PROVISO = re.compile(r"[,;]?\s*\bprovided\s*,?\s*(?:that|however)\b", re.I)


def ends_without_cause(sentence: str) -> bool:
    """Whether the sentence grants a right to end the agreement with no cause, in so many words."""
    lasts_until_ended = _LASTS_UNTIL_ENDED.search(sentence) and not _THEREAFTER.search(sentence)
    if not (_A_RIGHT_TO_END.search(sentence) or lasts_until_ended) or NON_RENEWAL.search(sentence):
        return False
    if _NO_CAUSE_NAMED.search(sentence):
        return True
    if _A_CAUSE.search(sentence):
        return False
    # a proviso after the right ("provided that if Sanofi terminates only in part, ...") qualifies it, not conditions it
    right = _A_PROVISO.split(sentence, maxsplit=1)[0]
    return bool(_NO_CAUSE.search(sentence) or (_NOTICE_PERIOD.search(right) and not _CONDITION.search(right)))


def _operative(sentence: str) -> bool:
    """Not the definition of a term ('"Sub-processor" means ...'): a definition grants, forbids or requires nothing."""
    return not DEFINITION.match(clean_title(sentence))


def _says(sentence: str, pattern: re.Pattern, unless: re.Pattern) -> bool:
    """An operative sentence (no definition) that matches `pattern` and nothing that undoes it (`unless`)."""
    return _operative(sentence) and bool(pattern.search(sentence)) and not unless.search(sentence)


def _in_so_many_words(type_name: str, reads: Callable[[str], bool], hint: re.Pattern, text: str,
                      labels: list[ProvisionLabel]) -> list[ProvisionLabel]:
    """The clause's labels with `type_name` for the first sentence that `reads` as one in so many
    words, unless a confident one is there (`hint`: a word no such sentence lacks, checked first)."""
    if any(lab.type == type_name and lab.confident for lab in labels) or not hint.search(text):
        return labels
    for a, b in split_sentences(text):
        if reads(text[a:b]):
            found = ProvisionLabel(type_name, WORDING_CONFIDENCE, a, b, text[a:b], METHOD_WORDING)
            return [lab for lab in labels if lab.type != type_name] + [found]
    return labels



# A service credit, said in so many words: a credit, rebate or deduction of a share of the fees when a
# service level is missed ("If availability falls below that level, Customer will receive a credit of 10% of
# the monthly fee"; "the Carrier shall rebate 3% of that month's freight charges" for each month it delivers
# less than 97% on time). The provision model learned this weak type from headings, and the section
# classifier reading such a sentence alone leans to Payment or Availability (its money and its level);
# the three parts together are what a reviewer recognises.
SERVICE_CREDITS = "Service Credits"
_A_REMEDY = re.compile(r"\b(?:credit(?:s|ed)?|rebat\w*|deduct\w*|reduc\w*|refund\w*)\b|抵扣|抵减|减免|扣减|返还", re.I)
_A_SHARE_OF_FEES = re.compile(
    r"(?:\d+(?:\.\d+)?\s*(?:%|％|per\s*cent\b|percent\b))[^.;。；]{0,80}?\b(?:fees?|charges?|prices?|invoice\w*)\b|"
    r"(?:\d+(?:\.\d+)?\s*(?:%|％))[^。；]{0,30}?(?:费用|服务费|月费|价款)|(?:费用|服务费|月费|价款)[^。；]{0,20}?\d+(?:\.\d+)?\s*(?:%|％)", re.I)
_A_LEVEL_MISSED = re.compile(
    r"\b(?:falls?\s+(?:short|below)|fails?\s+to\s+(?:meet|achieve|reach)|miss(?:es|ed)?|not\s+(?:met|achieved)|"
    r"shortfall)\b|\b(?:below|less\s+than|under)\s+(?:\d+(?:\.\d+)?\s*(?:%|per\s*cent|percent)|"
    r"(?:the|that|its|any|a)\s+(?:\w+\s+)?(?:level|target|threshold|commitment|standard))|低于|未达到|未能达到|未达", re.I)


def credits_a_missed_level(sentence: str) -> bool:
    """Whether the sentence grants a credit of a share of the fees for a missed service level."""
    if not _operative(sentence):
        return False
    return bool(_A_REMEDY.search(sentence) and _A_SHARE_OF_FEES.search(sentence) and _A_LEVEL_MISSED.search(sentence))



# Subcontracting, said in so many words: the act of subcontracting (the verb: "shall not subcontract any part
# of the Services", "may not assign or subcontract"), or sub-contractors and sub-processors as what a party
# engages, appoints, adds, replaces or lists, or answers for ("responsible for the acts and omissions of its
# subcontractors"), or third parties used to perform the services. A sentence that only mentions them beside others ("its employees and subcontractors shall
# keep ... confidential") is about something else.
SUBCONTRACTING = "Subcontracting"
_SUBCONTRACTORS = r"sub-?(?:contractors?|processors?)"
_SUBCONTRACTS = re.compile(
    r"\bsub-?contract(?:s|ed|ing)?\b|\bsub-?processing\b|"
    r"\b(?:engag|appoint|us|add|replac|chang|approv|authori[sz]|retain|list|objec|select)\w*\s+(?:[^\s.;]+\s+){0,4}?\(?"
    + _SUBCONTRACTORS + r"\b|\b" + _SUBCONTRACTORS + r"\s+(?:[\w'’-]+\s+){0,6}?(?:be\s+)?"
    r"(?:engaged|appointed|used|added|replaced|approved|authori[sz]ed|listed)\b|"
    r"\b(?:responsib\w+|liable)\s+for\s+(?:[\w'’-]+\s+){0,6}?" + _SUBCONTRACTORS + r"\b|"
    r"\bdelegat\w+\s+(?:the\s+|any\s+(?:of\s+)?|all\s+(?:of\s+)?|its\s+)*(?:performance|obligations?|duties)\b|"
    r"\b(?:us\w*|engag\w*|appoint\w*|employ\w*|rel(?:y|ies|ying)\s+on)\s+(?:[\w-]+\s+){0,2}?third[\s-]+part(?:y|ies)\s+"
    r"(?:[\w-]+\s+){0,2}?to\s+(?:perform|provide|deliver|carry\s+out|fulfil)\w*|委托(?:任何)?第三方(?:履行|提供|完成|处理|实施)|"
    r"(?:不得|禁止|未经|须经|应经|经[^。；]{0,12}同意|可以|有权)[^。；]{0,30}?(?:分包|转包|次级处理者|分处理者|转委托)|"
    r"(?:分包|转包|次级处理者|分处理者)[^。；]{0,30}?(?:同意|批准|通知|负责|承担)", re.I)
_SUBCONTRACT_HINT = re.compile(r"sub-?contract|sub-?process|delegat|third[\s-]+part|分包|转包|处理者|委托", re.I)


def governs_subcontracting(sentence: str) -> bool:
    """Whether the sentence permits, forbids or conditions subcontracting, or answers for subcontractors."""
    return _operative(sentence) and bool(_SUBCONTRACTS.search(sentence))


# Support, said in so many words: a time limit, in minutes or hours, on answering or fixing a fault ("respond to
# a reported outage within 30 minutes and restore service within 4 hours"; "attend any fault ... within four
# hours"; 接到通知后二十四小时内响应). A notice of a breach or incident within hours is no support term.
SUPPORT = "Support"
_A_FAULT = re.compile(r"\b(?:faults?|incidents?|outages?|defects?|failures?|malfunctions?|breakdowns?|issues?|tickets?|"
                      r"problems?|requests?|priority|severity|p[1-4]|errors?|disruptions?|interruptions?)\b|"
                      r"故障|事件|问题|报修|缺陷|中断", re.I)
_AN_ANSWER_IN_TIME = re.compile(
    r"\b(?:respond\w*|response|acknowledg\w*|attend\w*|arriv\w*|on[\s-]site|restor\w*|resolv\w*|resolution|"
    r"repair\w*|fix\w*|rectif\w*|remed\w*|work-?around)\b[^.;]{0,80}?\b(?:within|in|no\s+later\s+than|not\s+later\s+than)"
    r"\s+(?:[a-z]+\s+){0,2}?" + _PERIOD + r"(?:business\s+|working\s+|clock\s+)?(?:minutes?|hours?|hrs?)\b|"
    r"\b(?:within|in)\s+" + _PERIOD + r"(?:business\s+|working\s+)?(?:minutes?|hours?|hrs?)\b[^.;]{0,60}?"
    r"\b(?:respond\w*|response|acknowledg\w*|attend\w*|arriv\w*|restor\w*|resolv\w*|repair\w*|fix\w*|rectif\w*)\b|"
    r"[\d一二两三四五六七八九十百]+\s*(?:个)?(?:工作)?(?:小时|分钟)(?:内|以内)?[^。；，,]{0,6}(?:响应|到场|修复|恢复|解决|排除)",
    re.I)


def times_a_fault_answer(sentence: str) -> bool:
    """Whether the sentence sets a time, in minutes or hours, within which a fault is answered or fixed."""
    return bool(_A_FAULT.search(sentence) and _AN_ANSWER_IN_TIME.search(sentence))


# Maintenance, said in so many words: planned work on the service with its notice period or its window
# ("scheduled maintenance announced at least five business days in advance"; 提前三日通知的计划维护). An
# availability exclusion that only points elsewhere ("maintenance announced in accordance with clause 3") is none.
MAINTENANCE = "Maintenance"
_MAINTENANCE = re.compile(r"\bmaintenance\b(?!\s+(?:logs?|records?|reports?|costs?|fees?|charges?|manuals?|staff))|维护|保养",
                          re.I)
_AHEAD_OR_WINDOWED = re.compile(
    r"\b" + _PERIOD + r"(?:calendar\s+|business\s+|working\s+)?(?:days?|hours?|weeks?)['’]?\s*(?:\(\d+\)\s*)?"
    r"(?:(?:prior|advance|written)\s+)*(?:notice|in\s+advance|ahead|beforehand)\b|"
    r"\bnotice\s+of\s+(?:at\s+least\s+|not\s+less\s+than\s+)?" + _PERIOD + r"(?:calendar\s+|business\s+|working\s+)?"
    r"(?:days?|hours?|weeks?)\b|\b(?:maintenance\s+)?windows?\b|\bweekends?\b|\bovernight\b|"
    r"\b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?)\b|"
    r"\b\d{1,2}[:.]\d{2}\s*(?:to|-|–|and)\s*\d{1,2}[:.]\d{2}\b|"
    r"\b(?:midnight|\d{1,2}\s*[ap]\.?m\.?)\s*(?:to|-|–|and|until)\s*(?:midnight|\d{1,2}\s*[ap]\.?m\.?)|"
    r"提前[^。；]{0,10}通知|维护窗口|周末|夜间|凌晨", re.I)


def announces_maintenance(sentence: str) -> bool:
    """Whether the sentence sets the notice or the window of planned maintenance."""
    return bool(_MAINTENANCE.search(sentence) and _AHEAD_OR_WINDOWED.search(sentence))


# Force majeure, said in so many words: no liability (or an excuse, a suspension) for a failure or delay caused by
# what is beyond a party's reasonable control, whether or not the words "force majeure" appear. Failures "beyond
# the provider's reasonable control" excluded from an uptime calculation excuse no one: that is the service level.
FORCE_MAJEURE = "Force Majeure"
_BEYOND_CONTROL = re.compile(r"\bbeyond\s+(?:[\w'’]+\s+){0,3}?(?:reasonable\s+)?control\b|\boutside\s+(?:[\w'’]+\s+){0,3}?"
                             r"reasonable\s+control\b|不可抗力|无法控制|不能预见", re.I)
_EXCUSED = re.compile(r"\b(?:liab\w+|responsib\w+|excus\w*|suspend\w*|breach\w*|default)\b|"
                      r"免除|免责|不承担|延迟|迟延|不能履行|无法履行", re.I)


def excuses_what_no_one_controls(sentence: str) -> bool:
    """Whether the sentence excuses a party's failure or delay caused by events beyond its control."""
    return bool(_BEYOND_CONTROL.search(sentence) and _EXCUSED.search(sentence))


# Non-solicitation, said in so many words: a party may not solicit, hire, engage, poach or approach with an offer
# of employment the other party's staff or customers ("Neither party shall solicit the other's drivers or dispatch
# staff"; 不得招揽对方员工). The staff must be the other side's ("the other party's", "our", "your", "of the
# Customer"): "shall not employ workers under the age of sixteen" is no such term.
NON_SOLICITATION = "Non-Solicitation"
_STAFF = (r"(?:employees?|staff|personnel|workers?|people|team\s+members?|individuals?|consultants?|contractors?|officers?|"
          r"agents?|customers?|clients?)")
_OTHERS = r"(?:the\s+other(?:\s+party)?['’]s|our|your|(?:the\s+)?[\w-]+['’]s?|any\s+of\s+(?:our|your|the\s+other(?:\s+party)?['’]s))"
_OF_THE_OTHER = r"(?:of|employed\s+by|engaged\s+by)\s+(?:the\s+other\b|us\b|you\b|the\s+\w+)"
_NOT_TO = (r"\b(?:(?:shall|will|may|must|can|agrees?\s+to|undertakes?\s+to)\s+not|(?:shall|will|may)\s+neither|not\s+to|"
           r"neither\s+party\s+(?:shall|will|may)|cannot|can['’]t|won['’]t|refrain\s+from)\b[^.;]{0,80}?")
# soliciting, poaching or recruiting is only ever done to people, so anyone of the other side's is enough; hiring,
# engaging or approaching needs its object to be staff (or customers)
_NOT_SOLICIT = re.compile(
    _NOT_TO + r"\b(?:solicit\w*|poach\w*|recruit\w*|entic\w*|lure|headhunt\w*)\b[^.;]{0,80}?(?:" + _OTHERS + r"\s+\w+|\w+\s+"
    + _OF_THE_OTHER + r")|" +
    _NOT_TO + r"\b(?:hire|hiring|employ|employing|engag\w*|induc\w*|approach\w*)\b[^.;]{0,80}?(?:" + _OTHERS +
    r"\s+(?:[\w-]+\s+){0,3}?" + _STAFF + r"\b|\b" + _STAFF + r"\s+(?:[\w-]+\s+){0,3}?" + _OF_THE_OTHER + r")|"
    r"(?:不得|不会|不应|禁止)[^。；]{0,20}?(?:招揽|挖角|聘用|雇用|雇佣|录用|劝诱|引诱)[^。；]{0,20}?(?:员工|雇员|人员|客户)", re.I)
_SOLICIT_HINT = re.compile(r"solicit|hir|employ|engag|recruit|poach|entic|induc|approach|招揽|挖角|聘用|雇|录用|劝诱|引诱", re.I)


def forbids_soliciting(sentence: str) -> bool:
    """Whether the sentence forbids soliciting or hiring the other party's staff or customers."""
    return bool(_NOT_SOLICIT.search(sentence))


# Governing law, said in so many words: the agreement is governed by, subject to, or construed under the law(s)
# of a place ("This Agreement is subject to the law of the Federal Republic of Germany"), or that law governs or
# applies to it; 本合同适用中华人民共和国法律. A duty to comply with "the laws of" a place is no choice of law.
GOVERNING_LAW = "Governing Law"
_THIS_AGREEMENT = r"(?:agreement|contract|letter|terms|order(?:\s+form)?|conditions|arrangement|deed|schedule|it)"
_CHOSEN_LAW = re.compile(
    r"\b" + _THIS_AGREEMENT + r"\b[^.;]{0,80}?\b(?:is|are|shall\s+be|will\s+be|be)\s+(?:\w+\s+){0,3}?"
    r"(?:governed|subject|construed|interpreted)\b[^.;]{0,40}?\blaws?\s+(?:of|in\s+force\s+in)\b|"
    r"\blaws?\s+of\s+[^.;]{1,60}?\s+(?:shall\s+|will\s+)?(?:govern|governs|appl(?:y|ies))\b[^.;]{0,20}\b" + _THIS_AGREEMENT + r"\b|"
    r"本(?:合同|协议|订单|条款)[^。；]{0,20}?(?:适用|受|依照|依据|按照)[^。；]{0,25}?法律|"
    r"(?:适用|受)[^。；]{0,15}?法律(?:管辖|约束)", re.I)
_LAW_HINT = re.compile(r"\blaws?\b|法律", re.I)


def chooses_the_law(sentence: str) -> bool:
    """Whether the sentence chooses the law that governs the agreement."""
    return _operative(sentence) and bool(_CHOSEN_LAW.search(sentence))


# Data protection, said in so many words: personal data handled under a duty or a data protection law ("shall
# process personal data only on documented instructions"; 患者个人信息应依照《个人信息保护法》予以保护).
DATA_PROTECTION = "Data Protection"
_PERSONAL_DATA = re.compile(r"\bpersonal\s+(?:data|information)\b|\bpersonally\s+identifiable\b|\bprotected\s+health\s+"
                            r"information\b|个人信息|个人数据|隐私", re.I)
_HANDLED = re.compile(r"\b(?:process\w*|protect\w*|transfer\w*|delet\w*|eras\w*|destroy\w*|retain\w*|stor\w*|"
                      r"breach\w*|GDPR|privacy\s+(?:law|act)s?|data\s+protection\s+(?:law|act|legislation|regulation)s?)\b|"
                      r"处理|保护|传输|出境|境外|删除|销毁|泄露|存储|保存", re.I)


# a reference to the provision elsewhere ("for breaches of the personal data clause the limit is three times that
# amount" sits in a liability clause) is no duty on the data
_A_REFERENCE = re.compile(r"\b(?:personal\s+(?:data|information)|data\s+protection|privacy)\s+(?:clause|section|provision|"
                          r"schedule|annex|exhibit|addendum|agreement|terms)s?\b|个人信息(?:保护)?条款|数据保护条款", re.I)


def handles_personal_data(sentence: str) -> bool:
    """Whether the sentence puts a duty on the handling of personal data."""
    bare = _A_REFERENCE.sub(" ", sentence)
    return (_operative(sentence) and bool(_PERSONAL_DATA.search(bare))
            and bool(_HANDLED.search(bare)))


# Audit rights, said in so many words: a right to audit, inspect, examine, check or review the other party's records,
# books, accounts, premises or systems ("We may check your till records and turnover statements at any reasonable
# time"; 甲方有权查阅乙方的账簿). On CUAD's dev split such a sentence is in 13 contracts, 12 of them labelled Audit Rights.
AUDIT_RIGHTS = "Audit Rights"
_A_RIGHT = (r"(?:\bmay|\bcan|\bshall\s+(?:have|be\s+entitled)\s+(?:the\s+right\s+)?to|\b(?:is|are)\s+entitled\s+to|"
            r"\bha(?:s|ve)\s+the\s+right\s+to|\breserves?\s+the\s+right\s+to|\bshall\s+(?:permit|allow)\s+(?:[\w'’]+\s+){1,4}?to)[\s,]+")
_AUDITS = re.compile(
    _A_RIGHT + r"(?:[\w,'’]+\s+){0,4}?(?:audit|inspect|examine|check|review)\w*\b[^.;]{0,80}?"
    r"\b(?:records?|books?|accounts?|statements?|ledgers?|premises|facilities|sites?|systems?|documents?|documentation|"
    r"returns?|till)\b|(?:有权|可以|可)[^。；]{0,20}?(?:审计|检查|查阅|核查|稽核)[^。；]{0,20}?(?:账|记录|凭证|场所|设施|系统)", re.I)
_AUDIT_HINT = re.compile(r"audit|inspect|examin|check|review|verif|审计|检查|查阅|核查|稽核", re.I)


def grants_an_audit(sentence: str) -> bool:
    """Whether the sentence gives a party the right to audit or inspect the other's records or premises."""
    return bool(_AUDITS.search(sentence))


# Exclusivity, said in so many words: a party made the exclusive, sole or only supplier, distributor, agent (any trading
# role) of the other ("appoints Distributor as its exclusive distributor in the Territory"; "shall be the sole supplier of
# Customer's requirements"; 独家经销商), or an exclusive right or licence granted ("the sole and exclusive right to market
# the Product"; "on an exclusive basis"; 独家许可). The CUAD-trained model scores such sentences low, because lawyers
# mark one of a contract's repeated mentions and the rest teach it "exclusive" means little, and it scores
# "non-exclusive distributor" higher than "exclusive distributor"; a negation ("non-exclusive", "not the exclusive",
# "nothing herein creates an exclusive arrangement"), a definition or a recital ("WHEREAS ... desires to acquire the
# exclusive right") grants nothing.
EXCLUSIVITY = "Exclusivity"
# a trading role: one who supplies, sells, carries or acts for another (supplier, caterer, distributor, licensee,
# agent); not a thing ("order", "manner") nor one who settles disputes or runs a company ("arbitrator", "officer")
_TRADING_ROLE = (r"(?:(?!(?:order|manner|matter|number|other|under|letter|paper|power|water|transfer|offer|later|after|"
                 r"together|whether|member|owner|holder|remainder|behaviou?r|factor|error|sector|interior|exterior|fee|"
                 r"committee|guarantee|degree|decree|arbitrator|mediator|expert|referee|auditor|director|officer|trustee|"
                 r"employee|manager|controller|processor)s?\b)[a-z]{3,}(?:ers?|ors?|ees?)|"
                 r"agents?|sources?|partners?|representatives?|consultants?|merchants?|franchisees?|brokers?)")
_NOT_A_WORD_BETWEEN = r"(?!(?:of|to|and|or|for|in|the|a|an|with|by|on|at|from|as|that|which|any)\b)"
_EXCLUSIVE_GRANT = re.compile(
    r"\b(?:the|as|its|an?|their|his|her|our|your|be|become|remain)\s+(?:sole\s+and\s+)?(?:exclusive|sole|only)\s+"
    r"(?:and\s+exclusive\s+)?(?:" + _NOT_A_WORD_BETWEEN + r"[\w-]+\s+){0,3}?" + _TRADING_ROLE + r"\b|"
    r"\b(?:sole\s+and\s+)?exclusive\s+(?:[\w-]+\s+){0,2}?(?:rights?|licen[sc]es?|basis)\b|"
    r"(?:独家|唯一|排他性?|独占)[^，,。；;]{0,8}?(?:供应商|供货商|服务商|承运人|经销商|分销商|代理商?|运营商|合作方|合作伙伴|许可|授权|"
    r"权利|代理权|经营权|销售权)", re.I)
# exclusive dealing as a duty rather than a title: all of a party's requirements bought from the other ("shall purchase
# from Acme all of its requirements for the Components"); dealing with the other exclusively ("sell the Products in the
# Territory exclusively through Distributor"); or no dealing with anyone else ("shall not appoint any other distributor";
# "shall not sell the Products to any person other than Buyer"; 不得向任何第三方采购同类原材料)
_DEALING = (r"(?:purchas(?:e|es|ing)|buy(?:s|ing)?|procur(?:e|es|ing)|sourc(?:e|es|ing)|sell(?:s|ing)?|resell(?:s|ing)?|"
            r"distribut(?:e|es|ing)|market(?:s|ing)?|suppl(?:y|ies|ying)|provid(?:e|es|ing)|appoint(?:s|ing)?|"
            r"licen[sc](?:e|es|ing)|grant(?:s|ing)?|collaborat(?:e|es|ing)|enter(?:s|ing)?\s+into)")
_EXCLUSIVE_DEALING = re.compile(
    r"\b(?:purchas\w*|buy\w*|procur\w*|sourc\w*|obtain\w*|order\w*|suppl\w*|fulfil\w*|fill\w*|meet\w*|furnish\w*|provid\w*)"
    r"\s+(?:[\w'’-]+\s+){0,3}?(?:all|one\s+hundred\s+percent|100\s*%)\s+(?:\(100%\)\s+)?(?:of\s+)?(?:its|their|his|her|"
    r"[\w'’-]+['’]s?)\s+(?:[\w-]+\s+){0,3}?requirements\b|\brequirements\b[^.;]{0,60}?\b(?:exclusively|solely|only)\s+from\b|"
    r"\b" + _DEALING + r"\b[^.;,]{0,60}?(?<!subject\s)(?<!governed\s)\b(?:solely\s+and\s+)?exclusively\s+(?:to|with|through|from)\b|"
    r"\b(?:shall|will|may|must|agrees?\s+to|undertakes?\s+to|covenants?\s+to)\s+not\b[^.;]{0,60}?\b" + _DEALING + r"\b"
    r"[^.;]{0,100}?\b(?:any\s+other\s+(?:[\w-]+\s+){0,2}?(?:distributors?|suppliers?|agents?|representatives?|resellers?|"
    r"sources?|vendors?|licensees?|persons?|part(?:y|ies)|sponsors?|sponsorships?)|(?:any\s+)?(?:persons?|part(?:y|ies)|"
    r"suppliers?|entit(?:y|ies)|one|anyone)\s+other\s+than)\b|"
    r"\b(?:from|through|with|to)\s+no\s+(?:other\s+(?:person|part(?:y|ies)|supplier|source|vendor|company|entity|distributor|"
    r"customer|buyer|manufacturer)s?|one\s+else)\b|"
    r"(?:全部|所有|一切)[^。；;]{0,20}?(?:均|都|只|仅)?(?:应|须|必须|只能)?(?:向|从)[^。；;]{0,10}?(?:采购|购买|进货)|"
    r"(?:只能|仅能|仅可|只可)(?:向|从|通过)[^。；;]{0,10}?(?:采购|购买|销售|进货|经销)|"
    r"不得(?:另行)?(?:向|从|在)?[^。；;]{0,20}?(?:其他|任何第三方|第三方)[^。；;]{0,10}?(?:采购|购买|经销|销售|指定|授权|赞助|合作)|"
    r"不得[^。；;]{0,20}?(?:另行)?(?:指定|授权|接受)[^。；;]{0,6}?(?:其他|任何第三方|第三方)", re.I)
_NOT_EXCLUSIVE = re.compile(r"\bnon-?\s?exclusive|\bnothing\b|^\W*whereas\b|非独家|非排他|不具有排他", re.I)
_NEGATED_BEFORE = re.compile(r"\b(?:not|no|never|neither|nor)\b|n['’]t\b", re.I)
_NEGATED_BEFORE_ZH = re.compile(r"(?:不是|并非|不作为|不属于|不为|非)$")


def _negated(sentence: str, at: int) -> bool:
    return bool(_NEGATED_BEFORE.search(sentence[max(0, at - 60):at]) or _NEGATED_BEFORE_ZH.search(sentence[max(0, at - 6):at]))


def grants_exclusivity(sentence: str) -> bool:
    """Whether the sentence makes a party the exclusive (sole, only) trading partner of the other, grants an exclusive
    right, or binds a party to deal with the other alone."""
    if not _operative(sentence) or _NOT_EXCLUSIVE.search(sentence):
        return False
    if _EXCLUSIVE_DEALING.search(sentence):
        return True
    return any(not _negated(sentence, m.start()) for m in _EXCLUSIVE_GRANT.finditer(sentence))


# A warranty with its period, said in so many words: a warranty or guarantee about defects, workmanship or conformity
# that runs for a stated time ("warrants that, for twelve (12) months from delivery, the Products will meet the
# specifications"; 质保期为十二个月), or the time within which defects or non-conformity must be notified or remedied
# ("shall notify Supplier of any non-conforming lot within thirty (30) days of receipt"), which CUAD's lawyers label as a
# warranty's duration too. The survival of representations and warranties after termination is no warranty period.
WARRANTY = "Warranty"
_A_WARRANTY = re.compile(r"\bwarrant(?:s|y|ies|ed)?\b|\bguarantee[sd]?\b", re.I)
_FOR_A_TIME = re.compile(
    r"\b(?:for|during|within|throughout)\s+(?:a|the)?\s*(?:(?:warranty\s+)?period\s+of\s+)?" + _PERIOD +
    r"(?:calendar\s+)?(?:days?|weeks?|months?|years?)\b|\b" + _PERIOD + r"(?:calendar\s+)?(?:days?|weeks?|months?|years?)\s+"
    r"(?:from|after|following|of)\s+(?:the\s+)?(?:date|delivery|receipt|shipment|installation|acceptance|completion)", re.I)
_QUALITY = re.compile(r"\b(?:defect\w*|conform\w*|specifications?|workmanship|free\s+(?:of|from)|malfunction\w*|errors?|"
                      r"repair\w*|replace\w*|perform\s+(?:substantially|materially|in\s+accordance))\b", re.I)
_SURVIVES = re.compile(r"\bsurviv\w*", re.I)
_DEFECT = (r"(?:defect\w*|non-?\s?conform\w*|fail\w*\s+to\s+conform|not\s+conform\w*|"
           r"does\s+not\s+(?:meet|comply\s+with)\s+(?:the\s+)?specifications?)")
_WITHIN = r"(?:within|no\s+later\s+than|not\s+later\s+than)\s+(?:\[[^\]]*\]|" + _PERIOD + r"(?:calendar\s+|business\s+|working\s+)?(?:days?|weeks?|months?|years?))"
_DEFECTS_WITHIN = re.compile(r"\b" + _DEFECT + r"\b[^.;]{0,150}?\b" + _WITHIN + r"|\b" + _WITHIN + r"[^.;]{0,150}?\b" +
                             _DEFECT + r"\b", re.I)
# a warranty period that is set ("自验收合格之日起二十四个月为质保期"; "保修期为一年"), not one that is only mentioned
# ("质保期满后，维修按附件三的价格收费" is a repair price after it)
_ZH_TERM = r"[\d一二两三四五六七八九十百]+\s*(?:个)?(?:月|年|日|天)"
_WARRANTY_PERIOD_ZH = re.compile(r"(?:质保|保修|质量保证)期(?:限)?(?:为|是|自|从|：|:)[^。；，,]{0,20}?" + _ZH_TERM + r"|" + _ZH_TERM +
                                 r"(?:为|的|作为)?(?:质保|保修|质量保证)期|(?:质保|保修|质量保证)" + _ZH_TERM + r"|"
                                 r"(?:缺陷|瑕疵|不合格|质量问题|不符合)[^。；]{0,30}?[\d一二两三四五六七八九十百]+\s*(?:个)?(?:工作)?(?:日|天|月)内|"
                                 r"[\d一二两三四五六七八九十百]+\s*(?:个)?(?:工作)?(?:日|天|月)内[^。；]{0,30}?(?:缺陷|瑕疵|不合格|质量问题|不符合)")
# the warranty itself, as a noun, given a term ("The warranty shall extend for a period of [***] years"; "Seller's warranty
# obligations shall continue for ten (10) years"), not representations and warranties that survive
_THE_WARRANTY = re.compile(r"\bwarrant(?:y|ies)\b(?:\s+(?:period|term)\b|[^.;]{0,80}?\b(?:remain\w*|continu\w*|extend\w*|run(?:s|ning)?|"
                           r"last(?:s|ing)?|expir\w*|valid|commenc\w*|begin\w*|in\s+(?:effect|force))\b)", re.I)
_REPS_AND_WARRANTIES = re.compile(r"\brepresentations?,?\s+(?:and|or)\s+warrant(?:y|ies)\b", re.I)


def warrants_for_a_period(sentence: str) -> bool:
    """Whether the sentence gives a warranty against defects for a stated time, or a time to notify or remedy defects."""
    if not _operative(sentence):
        return False
    if _SURVIVES.search(sentence) or not (_FOR_A_TIME.search(sentence) or _DEFECTS_WITHIN.search(sentence)):
        return bool(_WARRANTY_PERIOD_ZH.search(sentence))
    warranty_for_a_time = (_FOR_A_TIME.search(sentence) and (
        (_A_WARRANTY.search(sentence) and _QUALITY.search(sentence))
        or (_THE_WARRANTY.search(sentence) and not _REPS_AND_WARRANTIES.search(sentence))))
    return bool(warranty_for_a_time or _DEFECTS_WITHIN.search(sentence) or _WARRANTY_PERIOD_ZH.search(sentence))


# Ownership of what the agreement creates, said in so many words: a party assigns or transfers its right, title and
# interest, the intellectual property, inventions or work product ("MSL assigns and will assign all intellectual property
# rights for ... all Products delivered"), or a party shall own the inventions, results or deliverables made under it
# (工作成果的知识产权归甲方所有). A party keeping what it already had ("retains all right, title and interest in its
# Marks"), "nothing herein shall be construed as an assignment" and "successors and assigns" transfer nothing.
IP_OWNERSHIP = "IP Ownership"
_CREATED = (r"(?:inventions?|improvements?|intellectual\s+property|work\s+product|deliverables?|developments?|enhancements?|"
            r"modifications?|data|results|reports?|designs?|formulations?|foreground(?:\s+ip)?|works?\s+of\s+authorship)")
_OWNERSHIP_PASSES = re.compile(
    r"\b(?:hereby\s+|shall\s+|will\s+|agrees?\s+to\s+)(?:irrevocably\s+)?(?:assigns?|transfers?|conveys?)\b[^.;]{0,120}?"
    r"\b(?:right,?\s+title\s+and\s+interest|intellectual\s+(?:and\s+industrial\s+)?property|inventions?|copyrights?|"
    r"patents?|work\s+product|deliverables?)\b|"
    r"\b(?:shall|will)\s+(?:solely\s+|exclusively\s+|jointly\s+)?own\b[^.;]{0,80}?\b" + _CREATED + r"\b|"
    r"(?:成果|交付物|开发|改进|发明|知识产权|著作权|专利)[^。；]{0,40}?(?:(?:归|属于)[^。；]{0,15}?所有|由[^。；]{0,15}?(?:共有|所有|享有))", re.I)
# keeping what one had, or disclaiming a transfer: "retains all right, title and interest in its pre-existing materials";
# 甲方在本合同签订前已拥有的专利仍归甲方所有
_TRANSFERS_NOTHING = re.compile(r"\bnothing\b|\bno\s+(?:right|title|licen[sc]e)|\bnot\s+(?:be\s+)?(?:construed|deemed)|"
                                r"\bsuccessors\s+and\s+assigns\b|\bretain\w*|\bpre-?existing\b|\bremain\w*\s+(?:the\s+)?"
                                r"(?:sole\s+|exclusive\s+)?property|已拥有|原有|既有|签订前|仍归|仍属", re.I)
_IP_HINT = re.compile(r"assign|transfer|convey|own|归|属于|共有|享有", re.I)


def passes_ownership_of_work(sentence: str) -> bool:
    """Whether the sentence assigns rights in, or allots the ownership of, what is created or delivered under the agreement."""
    return _says(sentence, _OWNERSHIP_PASSES, unless=_TRANSFERS_NOTHING)


# A covenant not to compete, said in so many words: a party shall not (agrees not to, is prohibited from) do business
# that competes with the other ("shall not, directly or indirectly, manufacture or sell any product competitive with the
# Products"; 不得从事与甲方相竞争的业务), whether it names the business or the competition. Not a freedom to compete
# ("nothing herein shall prevent either party from developing competing products"), and not soliciting the other's
# staff or customers, which is Non-Solicitation.
NON_COMPETE = "Non-Compete"
_NOT_TO_DO = (r"(?:\b(?:shall|will|may|must|agrees?\s+to|undertakes?\s+to|covenants?\s+to)\s+not\b|\bnot\s+to\b|"
              r"\bneither\b[^.;]{0,60}?\b(?:shall|will|may)\b|\b(?:prohibit\w*|restrict\w*|refrain\w*)\b)")
_NOT_COMPETING = re.compile(
    _NOT_TO_DO + r"[^.;]{0,150}?\b(?:compete|competes|competing|competitive|competition|competitively)\b|"
    r"竞业(?:限制|禁止)|(?:不得|禁止|不会|不以|不能|不再)[^。；]{0,40}?(?:相?竞争(?!对手|者)|同类|相同或(?:相)?类似|功能相同|功能类似)", re.I)
# a restraint on where a party may trade, which names no competition: "shall not, during the term and for one year after,
# own, operate or supply any retail fuel dock within the limits of the Harbour"; "within a ten (10) mile radius"
_NOT_TRADING_THERE = re.compile(
    _NOT_TO_DO + r"[^.;]{0,120}?\b(?:own|operate|open|establish|run|carry\s+on|engage\s+in|manage|franchise)\b[^.;]{0,120}?"
    r"\b(?:within\s+(?:the\s+(?:limits|boundaries|area)\s+of|a\s+radius|an?\s+area|" + _PERIOD +
    r"(?:miles?|kilomet(?:er|re)s?|km))|anywhere\s+in|in\s+the\s+territory)\b", re.I)
_FREE_TO_COMPETE = re.compile(r"\b(?:prevent|preclude|limit|restrict|prohibit)\w*\s+(?:[\w'’]+\s+){0,4}?from\s+"
                              r"(?:[\w,]+\s+){0,6}?(?:develop|acquir|sell|market|compet|offer|provid|enter)|\bnothing\b|"
                              r"\bsolicit\w*|\bnon-?\s?solicit", re.I)
_COMPETE_HINT = re.compile(r"compet|within|anywhere|territor|竞业|竞争|同类|类似|相同", re.I)


def forbids_competing(sentence: str) -> bool:
    """Whether the sentence forbids a party to do business in competition with the other."""
    return (_says(sentence, _NOT_COMPETING, unless=_FREE_TO_COMPETE)
            or _says(sentence, _NOT_TRADING_THERE, unless=_FREE_TO_COMPETE))


@dataclass(frozen=True)
class WordingRule:
    """One reader: its type, the sentence test and a word no such sentence lacks (checked on the clause first)."""
    type: str
    reads: Callable[[str], bool]
    hint: re.Pattern
    beside_its_own_section: bool = True   # False: not read in a section already typed so


RULES: tuple[WordingRule, ...] = (
    WordingRule(TERMINATION_FOR_CONVENIENCE, ends_without_cause, _A_RIGHT_OR_A_TERM_TO_END),
    WordingRule(SERVICE_CREDITS, credits_a_missed_level, _A_REMEDY, beside_its_own_section=False),
    WordingRule(SUBCONTRACTING, governs_subcontracting, _SUBCONTRACT_HINT),
    WordingRule(SUPPORT, times_a_fault_answer, _A_FAULT),
    WordingRule(MAINTENANCE, announces_maintenance, _MAINTENANCE),
    WordingRule(FORCE_MAJEURE, excuses_what_no_one_controls, _BEYOND_CONTROL),
    WordingRule(NON_SOLICITATION, forbids_soliciting, _SOLICIT_HINT),
    WordingRule(GOVERNING_LAW, chooses_the_law, _LAW_HINT),
    WordingRule(DATA_PROTECTION, handles_personal_data, _PERSONAL_DATA),
    WordingRule(AUDIT_RIGHTS, grants_an_audit, _AUDIT_HINT),
    WordingRule(EXCLUSIVITY, grants_exclusivity, re.compile(r"exclusiv|sole|only|requirements|other|独家|唯一|排他|独占|全部|所有|一切|"
                                                           r"只能|仅能|仅可|只可|其他|第三方", re.I)),
    WordingRule(WARRANTY, warrants_for_a_period, re.compile(r"warrant|guarantee|defect|conform|specification|质保|保修|质量保证|缺陷|瑕疵|不合格|质量问题|不符合", re.I)),
    WordingRule(IP_OWNERSHIP, passes_ownership_of_work, _IP_HINT),
    WordingRule(NON_COMPETE, forbids_competing, _COMPETE_HINT),
)


def in_so_many_words(text: str, section_type: str, labels: list[ProvisionLabel],
                     rules: Sequence[WordingRule] = RULES) -> list[ProvisionLabel]:
    """The clause's provision labels with every type its sentences carry in so many words (`rules`)."""
    for rule in rules:
        if rule.beside_its_own_section or section_type != rule.type:
            labels = _in_so_many_words(rule.type, rule.reads, rule.hint, text, labels)
    return labels
