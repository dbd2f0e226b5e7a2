"""Loading and curating data (the admin's Data page and `python -m core ingest`)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.ingest.uploads import (MAX_UPLOAD_BYTES, UnsafeArchive, find_corpus_root, safe_extract_zip,
                                 save_uploaded_files)

__all__ = ["MAX_UPLOAD_BYTES", "UnsafeArchive", "PreparedUpload", "prepare_upload", "ingest", "review_queue",
           "correct_clause_type", "correct_clause_types", "reclassify", "segmentation_warnings"]


@dataclass
class PreparedUpload:
    root: Path          # the folder holding the corpus tables, ready for `ingest`
    notes: list[str]    # files that were ignored, worth showing to the uploader


def prepare_upload(files: list[tuple[str, bytes]], dest: Path, as_zip: bool) -> PreparedUpload:
    """Lay an upload out as a corpus under `dest`: one zip (unpacked safely) or individual
    files (tables at the top, contracts in contracts/). Raises UnsafeArchive to refuse it."""
    dest = Path(dest)
    if as_zip:
        if len(files) != 1:
            raise UnsafeArchive(f"upload one zip archive, not {len(files)} files")
        safe_extract_zip(files[0][1], dest)
        notes: list[str] = []
    else:
        notes = save_uploaded_files(files, dest)
    return PreparedUpload(root=find_corpus_root(dest), notes=notes)


def ingest(corpus_dir, reset: bool = False, progress=None):
    from core.ingest.pipeline import ingest_corpus

    return ingest_corpus(corpus_dir, reset=reset, progress=progress)


def review_queue(threshold: float | None = None, limit: int = 500) -> list[dict]:
    from core.ingest.pipeline import low_confidence_clauses

    return low_confidence_clauses(threshold, limit)


def correct_clause_type(clause_id: str, type_name: str) -> dict:
    from core.ingest.pipeline import set_clause_type

    return set_clause_type(clause_id, type_name)


def correct_clause_types(clause_id: str, type_names: list[str]) -> dict:
    """A reviewer's types for a clause (one or several); they replace the automatic ones."""
    from core.ingest.pipeline import set_clause_types

    return set_clause_types(clause_id, type_names)


def reclassify(progress=None):
    """Re-type the stored clauses with the current taxonomy and models (see pipeline.reclassify)."""
    from core.ingest.pipeline import reclassify as run

    return run(progress=progress)


def segmentation_warnings() -> list[dict]:
    """Agreements split by paragraphs (no recognisable headings): their types are less certain."""
    from core.graph.db import get_database
    from core.graph.queries import reports as qr

    return get_database().read(qr.PARAGRAPH_SEGMENTED_AGREEMENTS)
