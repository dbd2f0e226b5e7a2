"""The types of a clause: the section classifier's verdict joined with the provisions it contains.

The section classifier (classifier.py) reads a clause as a whole and is what the demo corpus
and its gold questions were calibrated on; the provision classifier (provisions.py) reads it
sentence by sentence and finds what a "Miscellaneous" section bundles (governing law,
assignment, notices). Neither alone is right on real contracts, so a clause carries the union:
every type either is confident about, each with its confidence, the method that found it and,
where a sentence carries it, that sentence's character offsets (what evidence cards highlight).
What only reaches the review floor is kept apart as review evidence, never as a type, so a
gap report can tell "nothing" from "only low-confidence evidence". So is a weakly learned
provision type (no lawyer labels: learned from headings and the taxonomy's examples) that the
section classifier, reading its evidence sentence alone, does not clearly prefer over the
section's own type: the sentence is the section's subject in a neighbouring type's words.
Clauses mainly in Chinese, which the provision model (trained on English CUAD) cannot read, get
their provisions from the section classifier (bilingual) reading each sentence alone. A section
verdict of a type the provision model learned from lawyers' labels needs that model's backing (a
sentence of the clause at the type's review floor) when it is below the review bar or rests on the
body alone (the heading does not name the type); without it the verdict is review evidence: on
CUAD's real contracts such verdicts were mostly wrong ("COMPENSATION" read as Liability, a
distributor appointment read as exclusivity by its embedding), and the provision model's silence
there is informed.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from core.ingest.classifier import ABSTAINED, REVIEW_THRESHOLD, Classification, clean_title, get_classifier
from core.ingest.headings import short_title
from core.ingest.provisions import DEFINITION, METHOD_SENTENCE, ProvisionLabel, get_provision_classifier, split_sentences
from core.ingest.wording import (NON_RENEWAL, RULES, TERMINATION, TERMINATION_FOR_CONVENIENCE, WordingRule,
                                 ends_on_a_condition, in_so_many_words, names_a_cause)
from core.taxonomy import OTHER, load_taxonomy
from core.zh_script import cjk_share

# bumped when a typing rule changes what is stored, so re-ingest re-types what was stored before
TYPING_RULES = 7
METHOD_MANUAL = "manual"
METHOD_NONE = "none"      # the Other edge of a clause in which nothing was found
# How much likelier than its section's own type a sentence (read alone) must be of a weakly
# learned type for that type to be a second type of the clause (ClauseTyper._beside_the_section).
SECTION_CONTEXT_ODDS = 2.0
# How sure the section classifier must be of one English sentence read alone (ClauseTyper._sentences_read_alone):
# above its bar for a whole section (REVIEW_THRESHOLD), as one sentence says less. Chosen on the
# product's own corpora: at 0.5 "Unavailability caused by scheduled maintenance ... is excluded"
# (0.55) made an availability clause a maintenance clause.
SENTENCE_BAR = 0.6
CJK_LIMIT = 0.3           # share of CJK characters above which a clause is not given to the provision model


@dataclass(frozen=True)
class TypeLabel:
    """One type of one clause. start/end: the evidence sentence's offsets in the clause text
    (None when the type rests on the whole clause or its heading, not on one sentence).
    by_section: the section classifier's verdict, whose confidence must reach REVIEW_THRESHOLD
    to meet a requirement (core.gaps); a provision label passed its own type's threshold."""
    type: str
    confidence: float
    method: str
    start: int | None = None
    end: int | None = None
    by_section: bool = False

    @property
    def span(self) -> tuple[int, int] | None:
        return None if self.start is None or self.end is None or self.end <= self.start else (self.start, self.end)


@dataclass
class ClauseTypes:
    """What a clause is written with: `labels` are its types (the primary first: the section
    classifier's confident verdict, else the most confident provision; never empty: Other when
    nothing applies), `review` the types with only low-confidence evidence."""
    labels: list[TypeLabel]
    review: list[TypeLabel] = field(default_factory=list)
    runner_up: str | None = None

    @property
    def primary(self) -> TypeLabel:
        return self.labels[0]

    @property
    def type(self) -> str:
        return self.primary.type

    @property
    def types(self) -> list[str]:
        return [lab.type for lab in self.labels]

    @property
    def manual(self) -> bool:
        return self.primary.method == METHOD_MANUAL

    @property
    def needs_review(self) -> bool:
        """Listed in the review queue: an automatic verdict that is weak or leaves doubts."""
        return not self.manual and (self.primary.confidence < REVIEW_THRESHOLD or bool(self.review))

    @classmethod
    def manual_types(cls, types: Sequence[str], runner_up: str | None = None) -> "ClauseTypes":
        """A reviewer's types replace every automatic label (and review candidate)."""
        names = list(dict.fromkeys(t for t in types if t)) or [OTHER]
        return cls([TypeLabel(t, 1.0, METHOD_MANUAL) for t in names], [], runner_up)


@functools.lru_cache(maxsize=256)
def _type_words(name: str, heading: bool = False) -> re.Pattern:
    """A type's name as words of a sentence, either number ("Service Credit", "service credits");
    for a run-in sub-heading ("2.1 Response Times.") its English keywords too, as a heading's are."""
    t = next((t for t in load_taxonomy() if t.name == name), None)
    words = [name] + (list(t.keywords_en) if heading and t else [])
    return re.compile("|".join(r"\b" + r"\s+".join(map(re.escape, w.split())) + r"s?\b" for w in words), re.I)


def _best(labels: list[TypeLabel]) -> dict[str, TypeLabel]:
    out: dict[str, TypeLabel] = {}
    for lab in labels:
        if lab.type not in out or lab.confidence > out[lab.type].confidence:
            out[lab.type] = lab
    return out


def combine(section: Classification, provisions: Sequence[ProvisionLabel]) -> ClauseTypes:
    """The union rule, in one place (see the module docstring).

    A type found by both keeps the higher confidence and the provision's evidence sentence
    (the section verdict has no span). The section classifier's non-Other verdict is always a
    type, as it always was: it has its own assignment floor (classifier.ASSIGN_FLOOR, below
    which it abstains to Other), and REVIEW_THRESHOLD only asks a person to confirm it
    (needs_review); ClauseTyper turns a weak or body-only one that the provision model does not
    back into an abstention first (_uncorroborated_to_review). Provision labels below their type's threshold are
    review evidence only."""
    confident: list[TypeLabel] = []
    review: list[TypeLabel] = []
    prov = {p.type: p for p in provisions}
    sec_conf = float(section.confidence)
    if section.type != OTHER:
        target = confident
        p = prov.get(section.type)
        if p is not None and p.method != "heading" and p.end > p.start:
            target.append(TypeLabel(section.type, sec_conf, section.method, p.start, p.end, by_section=True))
        else:
            target.append(TypeLabel(section.type, sec_conf, section.method, by_section=True))
    elif section.method == ABSTAINED and section.runner_up and section.runner_up != OTHER:
        # the section leaned to a type below its assignment floor: evidence for review, so a gap
        # answer says "only low-confidence evidence" here instead of "no clause"
        review.append(TypeLabel(section.runner_up, sec_conf, ABSTAINED))
    for p in provisions:
        span = (p.start, p.end) if p.end > p.start else (None, None)
        (confident if p.confident else review).append(TypeLabel(p.type, float(p.confidence), p.method, *span))
    best = _best(confident)
    # primary: the section verdict when confident (it reads the whole section, the unit of
    # reading order, and is what c.type always meant); otherwise the most confident provision
    lead = section.type if section.type in best else None
    labels = sorted(best.values(), key=lambda lab: (lab.type != lead, -lab.confidence, lab.type))
    # a type found by both: the provision's evidence span and standing, whichever confidence wins
    labels = [_with_provision(lab, prov.get(lab.type)) for lab in labels]
    review_best = {t: lab for t, lab in _best(review).items() if t not in best}
    reviews = sorted(review_best.values(), key=lambda lab: (-lab.confidence, lab.type))
    if not labels:
        other_conf = sec_conf if section.type == OTHER else 0.0
        labels = [TypeLabel(OTHER, other_conf, section.method if section.type == OTHER else METHOD_NONE,
                            by_section=section.type == OTHER)]
    return ClauseTypes(labels, reviews, section.runner_up)


def _reading_scores(reading: Classification) -> dict[str, float]:
    return reading.scores or {reading.type: 1.0}


def _overrules_the_section(reading: Classification, type_name: str, section_type: str) -> bool:
    """Whether a sentence read alone is about `type_name` rather than its section's own type:
    that type leads the reading (the type scored highest, even where the reader abstained to
    Other) and is at least SECTION_CONTEXT_ODDS times as likely as the section's type. A
    sentence is read in its section, so the section's type is the default reading of it; a
    sentence about as close to both (a credit "against the next invoice": Service Credits or
    Payment) stays with its section."""
    scores = _reading_scores(reading)
    leading = max(sorted(scores), key=lambda t: scores[t])
    return leading == type_name and scores[type_name] >= SECTION_CONTEXT_ODDS * scores.get(section_type, 0.0)


def _leads_the_section(reading: Classification, type_name: str, section_type: str) -> bool:
    """The sentence read alone leans to `type_name` over its section's own type, if not clearly."""
    scores = _reading_scores(reading)
    return scores.get(type_name, 0.0) > scores.get(section_type, 0.0)


def _uncorroborated_to_review(section: Classification, provisions: Sequence[ProvisionLabel]) -> Classification:
    """A section verdict that the provision reading of the same clause does not back (no
    sentence of that type even at its review floor) stands alone only when it is confident and
    its heading names the type (its name, a keyword or a related concept: "Applicable Law").
    Otherwise it is low-confidence evidence, not a type: it becomes review evidence (as an
    abstention leaning to it), so a gap report lists the clause for review instead of counting a
    "COMPENSATION" section as a liability clause, or an "APPOINTMENT" of a non-exclusive
    distributor, whose body merely sounds like an exclusive appointment to the embedding, as an
    exclusivity clause. A confident verdict under a heading that names its type stands ("German
    law applies." under "Applicable Law" is a governing-law clause whatever the CUAD-trained
    reader makes of it)."""
    if section.type == OTHER or any(p.type == section.type for p in provisions):
        return section
    named = section.heading_lexical is None or section.heading_lexical > 0
    if section.confidence >= REVIEW_THRESHOLD and named:
        return section
    return dataclasses.replace(section, type=OTHER, method=ABSTAINED, runner_up=section.type)


def _with_provision(lab: TypeLabel, p: ProvisionLabel | None) -> TypeLabel:
    """A type found by both readers: the provision's evidence sentence, and, where the provision
    passed its own threshold, the standing of one that did (it meets a requirement)."""
    if p is not None and p.confident and lab.by_section:
        lab = dataclasses.replace(lab, by_section=False)
    if lab.span is not None or p is None or p.end <= p.start:
        return lab
    return dataclasses.replace(lab, start=p.start, end=p.end)


def _not_convenience(labels: list[ProvisionLabel]) -> list[ProvisionLabel]:
    """A Termination for Convenience found in a sentence about a renewal term ("continues for
    successive periods of two years unless terminated with twelve months' notice") or in one that
    names the cause that allows the ending (`names_a_cause`: "may then terminate on 60 days' notice"
    after a change of control, a breach, an insolvency, a price increase) or makes it wait on an event
    (`ends_on_a_condition`: "if availability falls below 92%") is review evidence, not that type: the
    provision model, trained on few such sentences, scores them high. The sentence is a Termination
    provision all the same: a notice that ends the agreement. (Of the 53 CUAD dev excerpts lawyers marked
    Termination for Convenience, 2 name such a cause without a no-cause phrase.)"""
    out, ended = [], []
    for lab in labels:
        if lab.type == TERMINATION_FOR_CONVENIENCE and lab.confident and (
                NON_RENEWAL.search(lab.sentence) or names_a_cause(lab.sentence) or ends_on_a_condition(lab.sentence)):
            out.append(dataclasses.replace(lab, confident=False))
            ended.append(dataclasses.replace(lab, type=TERMINATION))
        else:
            out.append(lab)
    if ended and not any(lab.type == TERMINATION and lab.confident for lab in out):
        out.append(ended[0])   # last: the clause's Termination label (`combine` reads one per type, the last)
    return out


def _convenience_is_termination(labels: list[ProvisionLabel]) -> list[ProvisionLabel]:
    """A right to end without cause is a termination provision too (the taxonomy's Termination is every
    provision on ending the agreement): "Either of us may end this agreement for any reason, or for no
    reason, on 30 days' written notice" was the only ending a purchase order had, and it lacked Termination."""
    tfc = next((lab for lab in labels if lab.type == TERMINATION_FOR_CONVENIENCE and lab.confident), None)
    if tfc is None or any(lab.type == TERMINATION and lab.confident for lab in labels):
        return labels
    return labels + [dataclasses.replace(tfc, type=TERMINATION)]


class ClauseTyper:
    """Types clauses in batches: one section-classifier call and one provision call for all."""

    def __init__(self, section=None, provisions=None, wording_rules: Sequence[WordingRule] = RULES):
        self.section = section if section is not None else get_classifier("hybrid")
        self.provisions = provisions if provisions is not None else get_provision_classifier()
        self.wording_rules = tuple(wording_rules)   # the readers of what sentences say in so many words
        # Types the model learned from lawyer labels have thresholds chosen on real contracts;
        # the others (weak labels from headings and the taxonomy) only count at the product's
        # review bar, below it they are evidence for review.
        cv = (getattr(self.provisions.model, "meta", {}) or {}).get("cv") or {}
        self.supervised = set(((cv.get("presence") or {}).get("default") or {}).keys())
        self.weakly_learned = [t.name for t in load_taxonomy() if not t.is_catch_all and t.name not in self.supervised]

    def type_many(self, items: Sequence[tuple[str, str]], embeddings: np.ndarray | None = None,
                  embedder=None) -> list[ClauseTypes]:
        """`embeddings`: the clauses' vectors (the section classifier reuses them); `embedder`: the
        one the ingest embeds with, used for the provision model's sentences too."""
        items = [(t or "", x or "") for t, x in items]
        if not items:
            return []
        sections = list(self.section.classify_many(items, embeddings))
        # the provision model learned English sentences (CUAD); on mainly Chinese clauses its
        # features are noise, so those are typed by the section classifier (bilingual), as a whole
        # and sentence by sentence (_chinese_sentences)
        english, chinese = [], []
        for i, (title, text) in enumerate(items):
            (english if cjk_share(text or title) < CJK_LIMIT else chinese).append(i)
        found = self.provisions.label_many([items[i] for i in english], embedder) if english else []
        provisions: list[list[ProvisionLabel]] = [[] for _ in items]
        for i, labels in zip(english, found):
            provisions[i] = [self._weakly_learned(lab) for lab in labels]
        provisions = self._beside_the_section(sections, provisions, embedder)
        provisions = [_not_convenience(labels) for labels in provisions]
        for i in english:
            if sections[i].type in self.supervised:
                sections[i] = _uncorroborated_to_review(sections[i], provisions[i])
        if chinese:
            provisions = self._sentences_read_alone(items, chinese, sections, provisions, embedder)
        if english:
            # the provision model's weak types were learned from headings, so a service credit worded
            # as money ("a credit of 10% of the monthly fee") scores as Payment there; the section
            # classifier reading the sentence alone knows it, and so does a run-in sub-heading
            # ("2.2 Service Credits."). Lawyer-trained types keep the provision model's reading. A
            # section typed Other (a services description, a definitions list) has no topic of its own
            # to read a sentence against: "payment" in a payment processor's services is no payment term.
            provisions = self._sentences_read_alone(items, [i for i in english if sections[i].type != OTHER],
                                                    sections, provisions, embedder, names=self._weak_types_named)
        provisions = [_convenience_is_termination(in_so_many_words(text, sec.type, labels, self.wording_rules))
                      for (_t, text), sec, labels in zip(items, sections, provisions)]
        return [combine(s, p) for s, p in zip(sections, provisions)]

    def _sentences_read_alone(self, items: Sequence[tuple[str, str]], which: Sequence[int],
                              sections: Sequence[Classification], provisions: list[list[ProvisionLabel]],
                              embedder=None,
                              names: Callable[[str], set[str]] | None = None) -> list[list[ProvisionLabel]]:
        """Provisions the section classifier finds reading each sentence of a clause alone. For
        clauses mainly in Chinese these are all their provisions (the provision model cannot read
        them). English clauses get the weakly learned types this way (`names`: the types a sentence
        names, ClauseTyper._weak_types_named); only sentences that name one are read, and the
        reading counts when it is one of them at SENTENCE_BAR.
        A type that leads that reading clearly ahead of the section's own type
        (SECTION_CONTEXT_ODDS, as for weakly learned types) is a type of the clause when the
        reading reaches REVIEW_THRESHOLD (the bar its verdict on a whole section must reach to
        meet a requirement), review evidence from its assignment floor up. So a "其他" section
        holds governing law and assignment at once, as its English twin does. A type that leads
        the reading ahead of the section's own type, but not clearly, is review evidence (a
        notice-period termination, 提前三十日书面通知对方解除, in a termination section); English
        clauses have the provision model's leanings, so there such a reading is dropped."""
        asks = [(ci, a, b) for ci in which for a, b in split_sentences(items[ci][1])]
        named = {ask: names(items[ask[0]][1][ask[1]:ask[2]]) for ask in asks} if names else {}
        if names:
            asks = [ask for ask in asks if named[ask]]
        if not asks:
            return provisions
        reading = self._read_alone([items[ci][1][a:b] for ci, a, b in asks], embedder)
        out = [list(labels) for labels in provisions]
        for ci, a, b in asks:
            sentence, own = items[ci][1][a:b], sections[ci].type
            r = reading[sentence]
            if r.type in (OTHER, own) or r.method == ABSTAINED:
                continue
            if names and (r.type not in named[(ci, a, b)] or r.confidence < SENTENCE_BAR):
                continue
            clear = _overrules_the_section(r, r.type, own)
            if not clear and not (not names and _leads_the_section(r, r.type, own)):
                continue
            out[ci].append(ProvisionLabel(r.type, float(r.confidence), a, b, sentence, METHOD_SENTENCE,
                                          confident=clear and r.confidence >= REVIEW_THRESHOLD))
        return out

    def _weak_types_named(self, sentence: str) -> set[str]:
        """The types without lawyer labels an English sentence names: by name ("entitled to Service
        Credits", "any breach of data security"), or by a keyword when the sentence is only a
        run-in sub-heading ("2.1 Response Times."); none when it defines a term. Read alone, a
        sentence about the end of a duty ("survives for five years after the end of the
        agreement"), a credit "applied to the next invoice" or a definition ('"Downtime" means
        ...') sounds like a type it is not about."""
        bare = clean_title(sentence.replace("*", ""))
        if DEFINITION.match(bare):
            return set()
        heading = short_title(bare)
        return {t for t in self.weakly_learned if _type_words(t, heading).search(sentence)}

    def _read_alone(self, sentences: Sequence[str], embedder=None) -> dict[str, Classification]:
        """The section classifier's verdict on each sentence read without its heading (vectors
        reused from the provision model's embedding where it just embedded them)."""
        texts = list(dict.fromkeys(sentences))
        vectors = self.provisions.sentence_vectors(texts, embedder)
        return dict(zip(texts, self.section.classify_many([("", t) for t in texts], vectors)))

    def _weakly_learned(self, label: ProvisionLabel) -> ProvisionLabel:
        if label.type in self.supervised or not label.confident or label.confidence >= REVIEW_THRESHOLD:
            return label
        return dataclasses.replace(label, confident=False)

    def _beside_the_section(self, sections: Sequence[Classification], provisions: list[list[ProvisionLabel]],
                            embedder=None) -> list[list[ProvisionLabel]]:
        """A weakly learned type is a second type of a section typed otherwise only when the
        section classifier, reading the evidence sentence alone, also leads with that type, and
        clearly ahead of the section's own type (SECTION_CONTEXT_ODDS).

        Weak types' provision scores were learned from headings (a sentence under "Fees" that
        uses fee words), so a sentence that is the section's own subject in neighbouring words
        (a service credit "against the next invoice" scored as Payment) passes their threshold;
        two independent readers agreeing on the sentence is what admits it. Types learned from
        lawyer labels keep their own thresholds, and a section typed Other (a "Miscellaneous"
        one) admits every confident provision, as before. Refused labels stay review evidence."""
        asks = [(ci, li) for ci, (sec, labels) in enumerate(zip(sections, provisions)) for li, lab in enumerate(labels)
                if sec.type != OTHER and lab.confident and lab.type != sec.type and lab.type not in self.supervised
                and lab.method == METHOD_SENTENCE and lab.sentence.strip()]
        if not asks:
            return provisions
        reading = self._read_alone([provisions[ci][li].sentence for ci, li in asks], embedder)
        out = [list(labels) for labels in provisions]
        for ci, li in asks:
            lab = out[ci][li]
            if not _overrules_the_section(reading[lab.sentence], lab.type, sections[ci].type):
                out[ci][li] = dataclasses.replace(lab, confident=False)
        return out

    def type_one(self, title: str, text: str) -> ClauseTypes:
        return self.type_many([(title, text)])[0]

    @property
    def version(self) -> str:
        """Changes with the section classifier's kind and the provision model's artifact (weights,
        thresholds, lexicon), so a retrained model re-types what the ingest stored."""
        model = self.provisions.model
        payload = {"section": type(self.section).__name__, "rules": TYPING_RULES, "meta": model.meta, "types": model.types,
                   "wording": [rule.type for rule in self.wording_rules],
                   "thresholds": [round(float(x), 6) for x in model.thresholds],
                   "floors": [round(float(x), 6) for x in model.floors]}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]


_typers: dict[str, ClauseTyper] = {}
_lock = threading.Lock()


def get_clause_typer(section_name: str = "hybrid") -> ClauseTyper:
    """The process-wide typer: the named section classifier plus the committed provision model
    (raises ProvisionModelError, saying how to rebuild it, when the artifact is missing)."""
    # CLAUSEGRAPH_PROVISION_MODEL: another artifact (path without suffix), e.g. one just trained
    # to var/ and not yet committed; reloaded by its own cache when the artifact changes
    provisions = get_provision_classifier(os.environ.get("CLAUSEGRAPH_PROVISION_MODEL") or None)
    with _lock:
        typer = _typers.get(section_name)
        if typer is None or typer.provisions is not provisions:
            typer = _typers[section_name] = ClauseTyper(get_classifier(section_name), provisions)
        return typer
