"""Cached views of what the graph contains (names, countries, types, years).

The planner links question words to these values, so it only ever proposes filters that
exist. Ingestion and manual edits call `invalidate()`; for other writers an expired copy is
reloaded in the background while questions go on with the old one.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from functools import cached_property

from core.graph.db import Database, get_database
from core.graph.queries import vocab as q
from core.graph.selectivity import ClauseStatistics

TTL_S = 300.0


@dataclass
class Vocabulary:
    companies: list[dict] = field(default_factory=list)      # name, aliases, country, industry, cities
    agreements: list[dict] = field(default_factory=list)     # id, company, service_name, governing_law
    clause_types: list[str] = field(default_factory=list)
    spend_years: list[int] = field(default_factory=list)
    spend_categories: list[str] = field(default_factory=list)   # SpendCategory names, as in the data
    base_currency: str | None = None                            # the currency of every spend total
    clause_type_counts: dict[str, int] = field(default_factory=dict)  # clauses classified as each type

    @cached_property
    def clause_statistics(self) -> ClauseStatistics:
        """Filter selectivity from these values (relay's pool sizing); `_load` builds it."""
        return ClauseStatistics(self)

    @cached_property
    def countries(self) -> list[str]:
        return sorted({c["country"] for c in self.companies if c.get("country")})

    @cached_property
    def industries(self) -> list[str]:
        return sorted({c["industry"] for c in self.companies if c.get("industry")})

    @cached_property
    def cities(self) -> list[str]:
        return sorted({city for c in self.companies for city in c.get("cities") or [] if city})

    @cached_property
    def agreement_ids(self) -> frozenset[str]:
        return frozenset(a["id"] for a in self.agreements)

    @cached_property
    def governing_laws(self) -> list[str]:
        return sorted({a["governing_law"] for a in self.agreements if a.get("governing_law")})

    @property
    def latest_year(self) -> int | None:
        return max(self.spend_years) if self.spend_years else None


_lock = threading.Lock()
_cache: dict[str, tuple[float, Vocabulary]] = {}
_generation = 0


def invalidate() -> None:
    global _generation
    with _lock:
        _cache.clear()
        _generation += 1


def generation() -> int:
    return _generation


def _load(db: Database) -> Vocabulary:
    types = db.read(q.CLAUSE_TYPES)
    vocab = Vocabulary(
        companies=db.read(q.COMPANIES),
        agreements=db.read(q.AGREEMENTS),
        clause_types=[r["name"] for r in types],
        spend_years=[r["year"] for r in db.read(q.SPEND_YEARS)],
        spend_categories=[r["name"] for r in db.read(q.SPEND_CATEGORIES)],
        base_currency=_one_currency(db),
        clause_type_counts={r["name"]: r["clauses"] for r in types},
    )
    vocab.clause_statistics  # noqa: B018 - tens of ms at 10,000 suppliers: here (often in the
    # background refresh), not inside whichever relay question first needs it
    return vocab


def _one_currency(db: Database) -> str | None:
    """The base currency the totals were written in (one per graph; None when the data named none)."""
    found = [r["currency"] for r in db.read(q.SPEND_CURRENCIES)]
    return found[0] if len(found) == 1 else None


_refreshing: set[str] = set()
_unfreeze_registered = False


def freeze_long_lived() -> None:
    """Move what is alive now (vocabularies, linking indexes, the model) out of the garbage
    collector's reach. With ten thousand companies these are millions of objects, and every
    full collection walked them all: 50-200 ms stalls at random points of a question."""
    import atexit
    import gc

    global _unfreeze_registered
    gc.freeze()
    if not _unfreeze_registered:
        _unfreeze_registered = True
        atexit.register(gc.unfreeze)  # let interpreter shutdown free them as usual


def _refresh_in_background(db: Database, key: str, gen: int) -> None:
    """Reload an expired vocabulary while questions keep using the old one (thousands of
    companies take a second or more to read; no question should wait for that)."""
    def work():
        try:
            vocab = _load(db)
            with _lock:
                if _generation == gen:
                    _cache[key] = (time.monotonic(), vocab)
            freeze_long_lived()
        except Exception:  # noqa: BLE001 - the stale copy stays; the next question retries
            pass
        finally:
            with _lock:
                _refreshing.discard(key)

    threading.Thread(target=work, name="vocabulary-refresh", daemon=True).start()


def vocabulary(db: Database | None = None) -> Vocabulary:
    db = db or get_database()
    key = db.uri
    with _lock:
        hit = _cache.get(key)
        gen = _generation
        if hit:
            if time.monotonic() - hit[0] >= TTL_S and key not in _refreshing:
                _refreshing.add(key)
                _refresh_in_background(db, key, gen)
            return hit[1]
    vocab = _load(db)
    with _lock:
        if _generation == gen:
            _cache[key] = (time.monotonic(), vocab)
    freeze_long_lived()
    return vocab
