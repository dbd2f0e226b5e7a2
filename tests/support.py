"""Helpers shared by the unit tier (tests/unit) and the database tier (tests/).

Kept in one importable module so that a test moving between tiers takes nothing with it: the
scripted LLM server's fixtures, the test users' secrets file, the tiny ACORD folder. Fixtures
defined here are used by importing them into the test module by name.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.config import settings
from llm_server import ScriptedLLM

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------
# the scripted OpenAI-compatible server (tests/llm_server.py)

API_KEY = "sk-test-T2C-SECRET-0123456789abcdef"
LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "CLAUSEGRAPH_LLM_TIMEOUT", "CLAUSEGRAPH_LLM_BACKOFF",
           "CLAUSEGRAPH_LLM_RETRIES", "CLAUSEGRAPH_LOG_DIR")


@pytest.fixture(scope="module")
def server():
    srv = ScriptedLLM()
    yield srv
    srv.close()


@pytest.fixture()
def llm(server, tmp_path):
    """Settings pointed at the scripted server (fast timeouts and back-off), a private request log."""
    saved = {k: os.environ.get(k) for k in LLM_ENV}
    os.environ.update({"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": API_KEY, "OPENAI_MODEL": "scripted",
                       "CLAUSEGRAPH_LLM_TIMEOUT": "1", "CLAUSEGRAPH_LLM_BACKOFF": "0.01",
                       "CLAUSEGRAPH_LLM_RETRIES": "2", "CLAUSEGRAPH_LOG_DIR": str(tmp_path / "log")})
    settings.cache_clear()
    server.reset()
    yield server
    server.reset()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    settings.cache_clear()


# ---------------------------------------------------------------------------------------
# login: a secrets file with two users

HASH_ITERATIONS = 2_000  # cheap hashes for tests; the CLI default is 600k


@pytest.fixture()
def secrets_with_users(tmp_path, monkeypatch):
    from core.service import auth

    path = tmp_path / "secrets.toml"
    path.write_text(
        "[auth]\n"
        f'[auth.users.alice]\npassword_hash = "{auth.hash_password("alice-pw", iterations=HASH_ITERATIONS)}"\n'
        'role = "admin"\n'
        f'[auth.users.bob]\npassword_hash = "{auth.hash_password("bob-pw", iterations=HASH_ITERATIONS)}"\n'
        'role = "analyst"\n',
        encoding="utf-8")
    monkeypatch.setenv("CLAUSEGRAPH_SECRETS", str(path))
    return path


# ---------------------------------------------------------------------------------------
# a tiny ACORD folder (corpus.jsonl, queries.jsonl, qrels/*.tsv) in the benchmark's format

ACORD_CORPUS = {
    "gl01": "This Agreement shall be governed by the laws of the State of New York.",
    "gl02": "This Agreement is governed by the laws of Delaware, without regard to conflict of laws.",
    "gl03": "The laws of England and Wales govern this Agreement.",
    "tc01": "Either party may terminate this Agreement for convenience on thirty days notice.",
    "tc02": "Customer may terminate for convenience at any time without penalty.",
    "tc03": "This Agreement renews automatically unless a party gives notice of non-renewal.",
    "li01": "In no event shall either party's liability exceed the fees paid in the prior twelve months.",
    "li02": "Neither party is liable for indirect, incidental or consequential damages or lost profits.",
    "li03": "The liability cap does not apply to fraud, gross negligence or willful misconduct.",
    "cf01": "Each party shall keep the other party's Confidential Information secret.",
    "cf02": "Confidential Information excludes information that is publicly available.",
    "cf03": "The receiving party may disclose Confidential Information when required by law.",
}
ACORD_QUERIES = [
    {"_id": "New York governing law", "split": "valid", "category": "Governing Law"},
    {"_id": "Termination for Convenience", "split": "valid", "category": "Term"},
    {"_id": '"as is" cap on liability', "split": "valid", "category": "Limitation of Liability"},
    {"_id": "Confidentiality carveouts", "split": "train", "category": "Confidentiality"},
]
ACORD_QRELS = [  # (query, doc, score); only gl01 is relevant for the first query -> NDCG@5 = 1 when it ranks first
    ("New York governing law", "gl01", 4), ("New York governing law", "gl02", 0), ("New York governing law", "gl03", 0),
    ("Termination for Convenience", "tc01", 4), ("Termination for Convenience", "tc02", 3),
    ("Termination for Convenience", "tc03", 1),
    ('"as is" cap on liability', "li01", 3), ('"as is" cap on liability', "li03", 2), ('"as is" cap on liability', "li02", 1),
]


def write_acord(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for cid, text in ACORD_CORPUS.items():
            fh.write(json.dumps({"_id": cid, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for q in ACORD_QUERIES:
            fh.write(json.dumps({"_id": q["_id"], "text": q["_id"], "metadata": {
                "category": q["category"], "parent_query_id": "", "type": "cuad1", "split": q["split"]}}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"]
    for qid, doc, score in ACORD_QRELS:
        quoted = '"' + qid.replace('"', '""') + '"' if '"' in qid else qid
        lines.append(f"{quoted}\t{doc}\t{score}")
    (root / "qrels" / "valid.tsv").write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    (root / "qrels" / "train.tsv").write_bytes(b"query-id\tcorpus-id\tscore\r\nConfidentiality carveouts\tcf02\t4\r\n")
    return root
