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


def test_page_cache_estimate_is_rss_less_the_jvms_own_memory():
    from bench.scale import page_cache_estimate_mb

    jvm = {"heap_resident_mb": 2048.0, "non_heap_committed_mb": 150.0, "direct_buffers_mb": 2.0}
    assert page_cache_estimate_mb(3200.0, jvm) == 1000.0
    assert page_cache_estimate_mb(1000.0, jvm) == 0.0            # never negative
    assert page_cache_estimate_mb(None, jvm) is None
    assert page_cache_estimate_mb(3200.0, {"heap_resident_mb": 2048.0}) is None   # a bean missing: no guess


SMAPS = """7f0000000000-7f0040000000 rw-p 00000000 00:00 0
Size:            1048576 kB
Rss:              737792 kB
7f0040000000-7f0040400000 rw-p 00000000 00:00 0
Size:               4096 kB
Rss:                4096 kB
7f0050000000-7f0090000000 r--p 00000000 fe:01 1234                       /usr/lib/some-1g-file
Size:            1048576 kB
Rss:              900000 kB
"""


def test_heap_resident_is_the_rss_of_the_anonymous_heap_sized_mapping():
    from bench.measure import heap_resident_mb

    assert heap_resident_mb(None, 1024.0, smaps=SMAPS) == 720.5     # not the file mapping of the same size
    assert heap_resident_mb(None, 2048.0, smaps=SMAPS) is None      # no mapping of the heap's size
    assert heap_resident_mb(None, None, smaps=SMAPS) is None
