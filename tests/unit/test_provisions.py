"""Provision-level multi-label typing (core.ingest.provisions) and its training command.

Uses the committed artifact and the real embedding model; the training test trains on a tiny
CUAD-format folder written to tmp (never the committed artifact).
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.evaluation.cuad import MAPPING
from core.ingest.provisions import (ARTIFACT_BASE, ProvisionLabel, ProvisionModel, get_provision_classifier,
                                    split_sentences, taxonomy_hash)
from core.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[2]


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def test_sentence_splitter_keeps_legal_abbreviations_and_numbers_together():
    text = ("This Agreement is governed by the laws of the State of New York, U.S.A., subject to Sec. 2.1 "
            "of the Code. Acme Inc. shall pay the fees. See No. 5 and Art. 3 hereto.")
    assert _sentences(text) == [
        "This Agreement is governed by the laws of the State of New York, U.S.A., subject to Sec. 2.1 of the Code.",
        "Acme Inc. shall pay the fees.",
        "See No. 5 and Art. 3 hereto."]


def test_sentence_splitter_enumerations_wraps_and_markers():
    text = ("The Supplier shall:\n(a) deliver the goods on time; and\n(b) keep records of every\n"
            "delivery for two years.\n\n1.\nDefinitions apply throughout. e.g. the term applies.\n"
            "12.3 Notices. All notices must be in writing.")
    got = _sentences(text)
    assert got[0] == "The Supplier shall:"
    assert got[1] == "(a) deliver the goods on time; and"
    assert got[2] == "(b) keep records of every\ndelivery for two years."   # soft wrap kept inside
    assert got[3].startswith("1.\nDefinitions apply throughout.")          # a lone marker joins its text
    assert "e.g. the term applies." in " ".join(got)
    assert got[-1] == "All notices must be in writing." and got[-2] == "12.3 Notices."
    for a, b in split_sentences(text):
        assert text[a:b] == text[a:b].strip() and a < b


def test_chinese_sentences_without_commas_are_sentences_of_their_own():
    """Chinese has no spaces: a sentence without a comma is one \\w run, and counting words merged
    it into the next, so a notice-period termination and a for-cause one were read as one."""
    text = "任何一方可提前三十日书面通知对方解除本合同。一方严重违约的，守约方有权立即解除本合同。（一）费用。"
    got = _sentences(text)
    assert got[0] == "任何一方可提前三十日书面通知对方解除本合同。"
    assert got[1] == "一方严重违约的，守约方有权立即解除本合同。（一）费用。"   # a marker with one word joins


def test_long_run_on_sentence_is_cut_at_semicolons():
    text = "; ".join(f"item {i} of the obligations of the Supplier under this Agreement" for i in range(30)) + "."
    spans = split_sentences(text)
    assert len(spans) > 1 and all(b - a <= 800 for a, b in spans)
    assert "".join(text[a:b] for a, b in spans).replace(" ", "") == text.replace(" ", "").replace(";", ";")


def test_artifact_loads_and_matches_the_taxonomy():
    taxonomy = load_taxonomy()
    clf = get_provision_classifier()
    assert clf.types == [t.name for t in taxonomy if not t.is_catch_all]
    assert not clf.stale and clf.model.meta["taxonomy_hash"] == taxonomy_hash(taxonomy)
    for t in clf.types:
        assert 0.0 < clf.review_floor(t) < clf.threshold(t) < 1.0
    size = ARTIFACT_BASE.with_suffix(".npz").stat().st_size + ARTIFACT_BASE.with_suffix(".json").stat().st_size
    assert size < 2 * 1024 * 1024
    cv = clf.model.meta["cv"]
    assert set(cv["presence"]["default"]) == set(MAPPING.values())   # out-of-fold figures stored
    assert cv["mean_f1"]["default"] > cv["mean_f1"]["keyword"]
    # joined with the wording readers, as ingestion reads a clause (thresholds chosen for the two together)
    assert set(cv["presence"]["with_wording"]) == set(cv["presence"]["default"])
    assert cv["mean_f1"]["with_wording"] > cv["mean_f1"]["default"]


MISC = ("Section 14.7 Miscellaneous.\n"
        "Neither party may assign or transfer this Agreement without the prior written consent of the other "
        "party. All notices under this Agreement shall be in writing and delivered to the addresses above. "
        "This Agreement shall be governed by and construed in accordance with the laws of the State of "
        "Delaware, U.S.A., without regard to its conflict of laws principles. The headings are for "
        "convenience only.")


def test_governing_law_inside_miscellaneous_is_found_with_offsets():
    clf = get_provision_classifier()
    labels = clf.label("Miscellaneous", MISC)
    assert all(isinstance(lab, ProvisionLabel) for lab in labels)
    by_type = {lab.type: lab for lab in labels if lab.confident}
    assert "Governing Law" in by_type and "Assignment" in by_type, labels
    gl = by_type["Governing Law"]
    assert MISC[gl.start:gl.end] == gl.sentence and "laws of the State of Delaware" in gl.sentence
    assert gl.method == "sentence" and gl.confidence >= clf.threshold("Governing Law")
    assert "assign" in by_type["Assignment"].sentence
    for lab in labels:  # every label, confident or for review, carries exact evidence offsets
        assert MISC[lab.start:lab.end] == lab.sentence
        assert lab.confident == (lab.confidence >= clf.threshold(lab.type))
        assert lab.confidence >= clf.review_floor(lab.type)
    assert [lab.confidence for lab in labels] == sorted((lab.confidence for lab in labels), reverse=True)


def test_label_many_matches_label_and_heading_only_evidence():
    clf = get_provision_classifier()
    items = [("Miscellaneous", MISC), ("Insurance", ""),
             ("Payment", "The Customer shall pay each invoice within thirty days of receipt."),
             ("Definitions", '"Products" means the goods listed in Exhibit A.')]
    many = clf.label_many(items)
    assert many[0] == clf.label(*items[0])
    heading = [lab for lab in many[1] if lab.type == "Insurance"]
    assert heading and heading[0].method == "heading" and (heading[0].start, heading[0].end) == (0, 0)
    assert heading[0].sentence == ""
    assert "Payment" in {lab.type for lab in many[2] if lab.confident}
    assert not [lab for lab in many[3] if lab.confident]   # a definition is no provision type (Other)
    assert clf.label_many([]) == [] and clf.label("", "") == []


def test_learned_ngrams_are_stored_small_and_used(tmp_path):
    """The n-gram part is in the artifact, survives a save/load round trip and moves scores:
    without it the model would be the embedding + lexicon model alone."""
    import dataclasses

    import numpy as np

    from core.ingest.provisions import NgramVocabulary, clause_units, word_grams

    model = get_provision_classifier().model
    vocab = model.vocabulary
    assert vocab is not None and 0 < len(vocab) <= 300 * len(model.types)
    assert model.ngram_weights.shape == (len(vocab), len(model.types))
    gl = model.types.index("Governing Law")
    top = {vocab.terms[i] for i in np.argsort(-model.ngram_weights[:, gl])[:40]}
    assert top & {"governed", "governed by", "law", "laws of", "governing law"}, top
    assert "change of" in word_grams("upon a Change of Control") and "control" in word_grams("controls")
    units = clause_units(0, "Miscellaneous", MISC)
    emb = np.zeros((len(units), 384), dtype=np.float32)
    with_grams = model.unit_scores(units, emb)
    without = dataclasses.replace(model, vocabulary=NgramVocabulary([], np.zeros(0)),
                                  ngram_weights=np.zeros((0, len(model.types)))).unit_scores(units, emb)
    assert not np.allclose(with_grams, without)
    model.save(tmp_path / "copy")
    again = ProvisionModel.load(tmp_path / "copy")
    assert again.vocabulary.terms == vocab.terms
    assert np.allclose(again.unit_scores(units, emb), with_grams, atol=1e-3)


def test_missing_artifact_is_a_clear_error(tmp_path):
    from core.ingest.provisions import ProvisionModelError

    with pytest.raises(ProvisionModelError, match="train-classifier"):
        ProvisionModel.load(tmp_path / "nothing")


# ------------------------------------------------------------------ training on a tiny CUAD folder

_CONTRACT = """{name} SUPPLY AGREEMENT

This Supply Agreement is entered into by {name} Corp. and Buyer Ltd.

1. Definitions
"Products" means the goods listed in Exhibit A.

2. Termination
{tfc}

3. Miscellaneous
{law} Neither party may assign this Agreement without the prior written consent of the other party.
All notices shall be in writing.
"""


def write_tiny_cuad(root: Path, n: int = 6) -> Path:
    (root / "contracts").mkdir(parents=True)
    columns = sorted(set(MAPPING))
    with (root / "labels.csv").open("w", encoding="utf-8", newline="") as fh, \
            (root / "excerpts.jsonl").open("w", encoding="utf-8") as ex:
        w = csv.writer(fh)
        w.writerow(["file", "contract_type", *columns])
        for i in range(n):
            name = f"Vendor{i}"
            law = f"This Agreement is governed by the laws of the State of {['Texas', 'Ohio', 'Utah'][i % 3]}."
            has_law, has_tfc = i % 3 != 2, i % 2 == 0
            tfc = ("Either party may terminate this Agreement for convenience upon thirty days written notice."
                   if has_tfc else "This Agreement ends on the fifth anniversary of its signature.")
            file = f"{name} Supply Agreement.txt"
            (root / "contracts" / file).write_text(
                _CONTRACT.format(name=name, tfc=tfc, law=law if has_law else ""), encoding="utf-8")
            answers = {c: "No" for c in columns}
            answers["Governing Law"] = law.split("State of ")[1].rstrip(".") if has_law else ""
            answers["Termination for Convenience"] = "Yes" if has_tfc else "No"
            answers["Anti-Assignment"] = "Yes"
            w.writerow([file, "Supply", *(answers[c] for c in columns)])
            for cat, text, on in (("Governing Law", law, has_law), ("Termination for Convenience", tfc, has_tfc),
                                  ("Anti-Assignment", "Neither party may assign this Agreement", True)):
                if on:
                    ex.write(json.dumps({"file": file, "category": cat, "text": text}) + "\n")
    return root


def test_train_command_on_tiny_cuad_writes_a_loadable_artifact(tmp_path):
    root = write_tiny_cuad(tmp_path / "cuad")
    out = tmp_path / "model" / "provisions"
    env = dict(os.environ, CLAUSEGRAPH_EVAL_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, "-m", "core", "train-classifier", "--cuad", str(root), "--out", str(out),
                          "--folds", "3", "--json"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr
    cv = json.loads(run.stdout)
    assert set(cv["presence"]["default"]) == set(MAPPING.values())
    assert cv["presence"]["default"]["Governing Law"]["support"] == 4
    assert set(cv["presence"]["with_wording"]) == set(MAPPING.values())
    assert out.with_suffix(".npz").is_file() and list((tmp_path / "cache").glob("provision-sentences-*.npz"))
    model = ProvisionModel.load(out)
    assert model.meta["contracts"] == 6 and model.meta["folds"] == 3 and model.meta["dataset"] == "cuad"
    clf = get_provision_classifier(out)
    labels = clf.label("Miscellaneous", "This Agreement is governed by the laws of the State of Texas.")
    assert labels and labels[0].type == "Governing Law"
    bad = subprocess.run([sys.executable, "-m", "core", "train-classifier", "--cuad", str(tmp_path / "missing")],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert bad.returncode == 2 and "not found" in bad.stderr


def test_a_definition_is_review_evidence_not_a_provision(embedder):
    """'"Change of Control" shall mean ...' names the provision without being one: below the
    sentence that is one, or alone as evidence for review."""
    from core.ingest.provisions import get_provision_classifier

    clf = get_provision_classifier()
    definition = ('"Change of Control" shall mean the acquisition by any person of more than fifty percent '
                  "of the voting shares of a party.")
    provision = ("Either party may terminate this Agreement upon written notice if the other party undergoes "
                 "a Change of Control.")
    alone = {lab.type: lab for lab in clf.label("Definitions", definition)}
    assert all(not lab.confident for lab in alone.values()), alone
    both = {lab.type: lab for lab in clf.label("Termination", f"{definition} {provision}")}
    coc = both.get("Change of Control")
    assert coc is not None and coc.sentence == provision, both


def test_related_wording_matches_with_one_word_between_and_keywords_only_as_written():
    from core.ingest.provisions import Lexicon

    lex = Lexicon({"Termination for Convenience": {"strong": ["for convenience"], "weak": ["months notice"]}})
    weak = lambda text: lex._counts(text)[1]
    strong = lambda text: lex._counts(text)[0]
    assert weak("on six months' notice") == 1
    assert weak("on six months' written notice") == 1      # "written" between the two words
    assert weak("six months after the notice") == 0        # two words between: no
    assert strong("terminate for convenience") == 1
    assert strong("terminate for its own convenience") == 0  # a keyword matches only as written


def test_a_term_under_the_prefix_non_is_counted_apart_from_the_term():
    """"non-exclusive" says the opposite of "exclusive": its own feature slots, so the model
    learns per type what the negated word means (Exclusivity: against; Assignment: for)."""
    from core.ingest.provisions import Lexicon

    lex = Lexicon({"Exclusivity": {"strong": ["exclusive"], "weak": []}})
    assert list(lex._counts("an exclusive distributor")) == [1, 0, 0, 0]
    assert list(lex._counts("a non-exclusive distributor")) == [0, 0, 1, 0]
    assert list(lex._counts("a non exclusive licence")) == [0, 0, 1, 0]
    assert list(lex._counts("a nonexclusive licence")) == [0, 0, 0, 0]   # one word, not the term
    zh = Lexicon({"Exclusivity": {"strong": ["独家"], "weak": []}})
    assert list(zh._counts("授予非独家许可")) == [0, 0, 1, 0]
    assert list(zh._counts("授予独家许可")) == [1, 0, 0, 0]
    assert list(zh._counts("除非独家经销商同意")) == [1, 0, 0, 0]   # 除非 is "unless", not a negation
    row = lex.features(["a non-exclusive distributor"], ["Exclusive Rights"])[0]
    assert list(row) == [0, 0, 1, 0, 1, 0]   # sentence | heading | sentence under "non-"
    nc = Lexicon({"Non-Compete": {"strong": [], "weak": ["compet*"]}})
    row = nc.features(["The Consultant shall not compete."], ["NON-COMPETITION"])[0]
    assert np.allclose(row, [0, 1 / 3, 0, 1 / 3, 0, 0])   # a heading names its topic: "non" flips nothing there


def test_the_trained_model_reads_non_exclusive_as_less_exclusive():
    from core.ingest.provisions import get_provision_classifier

    clf = get_provision_classifier()
    plain, negated = clf.label_many([("", "The Supplier appoints the Distributor as its exclusive distributor "
                                          "for the Products in the Territory."),
                                     ("", "The Supplier appoints the Distributor as its non-exclusive distributor "
                                          "for the Products in the Territory.")])
    score = lambda labels: max((l.confidence for l in labels if l.type == "Exclusivity"), default=0.0)
    assert score(plain) >= clf.threshold("Exclusivity") > score(negated), (plain, negated)
