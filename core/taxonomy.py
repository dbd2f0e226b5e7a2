"""The clause-type taxonomy: which types exist and the words and examples that describe them.

It lives in a JSON file (default `data/clause_types.json`, overridable with
`CLAUSEGRAPH_TAXONOMY` or an explicit path) so a deployment can add or rename types without
touching the classifiers. Validation is strict because a silently half-loaded taxonomy would
mis-type every clause ingested afterwards.
"""
from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from core.config import PROJECT_ROOT
from core.errors import ClauseGraphError

DEFAULT_TAXONOMY_PATH = PROJECT_ROOT / "data" / "clause_types.json"
OTHER = "Other"


class TaxonomyError(ClauseGraphError, ValueError):
    """The taxonomy file is missing or malformed; the message names the file."""


@dataclass(frozen=True)
class Facet:
    """A detail inside a type that a question may ask for ("an arbitration clause" is a Governing
    Law clause that provides for arbitration). `patterns` (regular expressions, case-insensitive,
    both languages) find it in a question and in a clause alike; core.retrieval.facets reads them."""
    name: str
    name_zh: str
    patterns: tuple[str, ...]
    # written anywhere in a contract, not only in clauses of its type ("delete the data on
    # termination" sits in termination clauses): a question that does not name the type by its
    # name finds it in any clause. Only for patterns precise enough to stand alone.
    anywhere: bool = False


@dataclass(frozen=True)
class ClauseTypeDef:
    name: str
    description: str
    description_zh: str
    keywords_en: list[str]
    keywords_zh: list[str]
    examples: list[str]
    # Related wording (bilingual) that the hybrid classifier counts as weaker evidence than
    # keywords; the keyword baseline ignores it so it stays the seed's rule.
    concepts: list[str] = field(default_factory=list)
    # Chinese display name; optional so older taxonomy files still load (falls back to name).
    name_zh: str = ""
    # Details a question may narrow the type to; they do not type clauses (no classifier reads them).
    facets: tuple[Facet, ...] = ()

    @property
    def is_catch_all(self) -> bool:
        return self.name == OTHER


_REQUIRED_STR = ("name", "description", "description_zh")
_REQUIRED_LIST = ("keywords_en", "keywords_zh", "examples")


def taxonomy_path(path: str | os.PathLike | None = None) -> Path:
    """The taxonomy file in use: `path`, else $CLAUSEGRAPH_TAXONOMY, else the default.

    Public because ingestion hashes the file's text into its pipeline version: a changed
    taxonomy must re-type the clauses on the next ingest."""
    if path is not None:
        return Path(path)
    env = os.environ.get("CLAUSEGRAPH_TAXONOMY")
    return Path(env) if env else DEFAULT_TAXONOMY_PATH


def _parse(path: Path) -> list[ClauseTypeDef]:
    def fail(msg: str) -> TaxonomyError:
        return TaxonomyError(f"Invalid clause taxonomy {path}: {msg}")

    try:
        raw_text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TaxonomyError(f"Clause taxonomy file not found: {path}") from None
    except OSError as exc:
        raise TaxonomyError(f"Cannot read clause taxonomy {path}: {exc}") from exc
    try:
        raw = json.loads(raw_text)
    except json.JSONDecodeError as exc:
        raise TaxonomyError(f"Invalid clause taxonomy {path}: not valid JSON at line {exc.lineno}, "
                            f"column {exc.colno}: {exc.msg}") from exc
    entries = raw.get("types") if isinstance(raw, dict) else raw
    if not isinstance(entries, list) or not entries:
        raise fail('expected a non-empty list of types (top-level list or {"types": [...]})')
    types: list[ClauseTypeDef] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"type #{i + 1}"
        if not isinstance(entry, dict):
            raise fail(f"{where} is not an object")
        name = entry.get("name")
        if isinstance(name, str) and name.strip():
            where = f"type #{i + 1} ({name!r})"
        for key in _REQUIRED_STR:
            value = entry.get(key)
            if not isinstance(value, str) or not value.strip():
                raise fail(f"{where}: field {key!r} must be a non-empty string")
        name_zh = entry.get("name_zh", "")
        if not isinstance(name_zh, str):
            raise fail(f"{where}: field 'name_zh' must be a string")
        for key in (*_REQUIRED_LIST, "concepts"):
            value = entry.get(key, [] if key == "concepts" else None)
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise fail(f"{where}: field {key!r} must be a list of non-empty strings")
        name = entry["name"].strip()
        if name.lower() in seen:
            raise fail(f"{where}: duplicate type name {name!r}")
        seen.add(name.lower())
        if name != OTHER and not (entry["keywords_en"] or entry["keywords_zh"] or entry.get("concepts")):
            raise fail(f"{where}: needs at least one keyword or concept")
        types.append(ClauseTypeDef(
            name=name,
            description=entry["description"].strip(),
            description_zh=entry["description_zh"].strip(),
            keywords_en=[k.strip() for k in entry["keywords_en"]],
            keywords_zh=[k.strip() for k in entry["keywords_zh"]],
            examples=[e.strip() for e in entry["examples"]],
            concepts=[c.strip() for c in entry.get("concepts", [])],
            name_zh=name_zh.strip() or name,
            facets=_facets(entry.get("facets", []), lambda msg, w=where: fail(f"{w}: {msg}")),
        ))
    if OTHER.lower() not in seen:
        raise fail(f"the catch-all type {OTHER!r} is missing")
    # The catch-all goes last so "first matching type" rules never pick it before a real type.
    types.sort(key=lambda t: t.is_catch_all)
    return types


def _facets(raw, fail) -> tuple[Facet, ...]:
    """The optional `facets` of a type: objects with a name, an optional name_zh and patterns that
    must compile (a pattern that cannot would fail every question naming it, at query time)."""
    if not isinstance(raw, list):
        raise fail("field 'facets' must be a list of objects")
    out, seen = [], set()
    for k, item in enumerate(raw):
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name.strip():
            raise fail(f"facet #{k + 1} needs a non-empty 'name'")
        patterns = item.get("patterns")
        if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) and p.strip() for p in patterns):
            raise fail(f"facet {name!r}: field 'patterns' must be a non-empty list of non-empty strings")
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise fail(f"facet {name!r}: pattern {pattern!r} is not a valid regular expression ({exc})") from None
        if name.strip().lower() in seen:
            raise fail(f"duplicate facet name {name!r}")
        seen.add(name.strip().lower())
        name_zh = item.get("name_zh", "")
        anywhere = item.get("anywhere", False)
        if not isinstance(anywhere, bool):
            raise fail(f"facet {name!r}: field 'anywhere' must be true or false")
        out.append(Facet(name.strip(), (name_zh.strip() if isinstance(name_zh, str) else "") or name.strip(),
                         tuple(p.strip() for p in patterns), anywhere))
    return tuple(out)


_cache: dict[tuple[str, int, int], list[ClauseTypeDef]] = {}
_cache_lock = threading.Lock()


def load_taxonomy(path: str | os.PathLike | None = None) -> list[ClauseTypeDef]:
    """The taxonomy at `path` (or the configured default), parsed once per file version."""
    resolved = taxonomy_path(path).resolve()
    try:
        st = resolved.stat()
        key = (str(resolved), st.st_mtime_ns, st.st_size)
    except OSError:
        key = (str(resolved), -1, -1)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is None:
        cached = _parse(resolved)
        with _cache_lock:
            _cache[key] = cached
    return list(cached)


def typing_text(path: str | os.PathLike | None = None) -> str:
    """The taxonomy as typing reads it, for ingestion's pipeline version: every field but the
    facets and the comment, which questions read at query time (editing them re-types nothing)."""
    raw_text = taxonomy_path(path).read_text(encoding="utf-8")
    try:
        raw = json.loads(raw_text)
    except json.JSONDecodeError:
        return raw_text
    entries = raw.get("types") if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        return raw_text
    typed = [{k: v for k, v in e.items() if k != "facets"} if isinstance(e, dict) else e for e in entries]
    return json.dumps(typed, ensure_ascii=False, sort_keys=True)


def type_names(path: str | os.PathLike | None = None) -> list[str]:
    return [t.name for t in load_taxonomy(path)]
