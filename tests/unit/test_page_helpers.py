"""What the pages rely on that needs no database: evaluation results, safe uploads, no Cypher.

The pages themselves run under Streamlit's AppTest against the real graph in tests/test_pages.py.
"""
from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_evaluation_results_tolerates_shapes(tmp_path):
    from core import service

    assert service.evaluation_results(tmp_path / "none") == []
    (tmp_path / "acord-test-2026-01-02.json").write_text(json.dumps(
        {"date": "2026-01-02", "split": "test", "methods": {"hybrid": {"ndcg@10": 0.6}}, "per_query": [{"x": 1}]}))
    (tmp_path / "other-2026-01-01.json").write_text(json.dumps({"generated_at": "2026-01-01T00:00:00Z", "acc": 0.9}))
    (tmp_path / "broken-2026-01-03.json").write_text("{not json")
    runs = service.evaluation_results(tmp_path)
    assert [r.name for r in runs] == ["other", "acord-test", "broken"]
    assert runs[0].metrics == {"acc": 0.9}
    assert runs[1].metrics == {"methods.hybrid.ndcg@10": 0.6} and runs[1].meta["split"] == "test"
    assert runs[2].error and not runs[2].metrics


def test_safe_zip_extraction_refuses_escapes(tmp_path):
    from core.ingest.uploads import UnsafeArchive, find_corpus_root, safe_extract_zip

    def make(entries):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for name, data, mode in entries:
                info = zipfile.ZipInfo(name)
                if mode:
                    info.external_attr = mode << 16
                zf.writestr(info, data)
        return buf.getvalue()

    for bad, why in [([("../evil.txt", b"x", 0)], "'..'"), ([("/etc/evil", b"x", 0)], "absolute"),
                     ([("link", b"/etc/passwd", 0o120777)], "links")]:
        with pytest.raises(UnsafeArchive, match=re.escape(why)):
            safe_extract_zip(make(bad), tmp_path / "out")
    with pytest.raises(UnsafeArchive, match="limit"):
        safe_extract_zip(make([("big.txt", b"x" * 5000, 0)]), tmp_path / "out", max_bytes=1000)
    assert not (tmp_path / "evil.txt").exists()
    files = safe_extract_zip(make([("corpus/companies.csv", b"name\n", 0), ("corpus/contracts/a.md", b"# A", 0)]),
                             tmp_path / "ok")
    assert len(files) == 2 and find_corpus_root(tmp_path / "ok") == tmp_path / "ok" / "corpus"


def test_pages_hold_no_cypher_or_driver():
    for page in (ROOT / "pages").glob("*.py"):
        src = page.read_text(encoding="utf-8")
        assert not re.search(r"GraphDatabase|execute_query|session\.run|MATCH \(|MERGE \(|import neo4j|from neo4j",
                             src), page
