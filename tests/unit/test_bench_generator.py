"""The benchmark's corpus generator: seeded, and what it writes reads back as a valid corpus.

The harness end to end (on the test database) is in tests/test_bench.py.
"""
from __future__ import annotations

from bench.generate import generate


def test_generator_is_seeded_and_valid(tmp_path):
    from core.ingest.reading import read_corpus

    a = generate(tmp_path / "a", suppliers=12, seed=7)
    b = generate(tmp_path / "b", suppliers=12, seed=7)
    c = generate(tmp_path / "c", suppliers=12, seed=8)
    files = sorted(p.name for p in (tmp_path / "a" / "contracts").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "b" / "contracts").iterdir())
    assert all((tmp_path / "a" / "contracts" / f).read_bytes() == (tmp_path / "b" / "contracts" / f).read_bytes()
               for f in files)
    assert (tmp_path / "a" / "companies.csv").read_bytes() != (tmp_path / "c" / "companies.csv").read_bytes()
    corpus = read_corpus(tmp_path / "a", max_file_bytes=1_000_000)
    assert corpus.errors == []
    assert (a.suppliers, a.agreements, a.clauses) == (12, 12, 120)
    assert sum(len(t.clauses) for t in corpus.texts.values()) == a.clauses == b.clauses
    assert len({t.split.title for t in corpus.texts.values()}) > 1
    assert c.clauses == 120
