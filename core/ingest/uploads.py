"""Uploaded corpora, unpacked safely before ingestion.

An upload is untrusted: a zip may try to write outside its folder (absolute paths, `..`),
carry links or devices, or unpack to far more than it weighs (a zip bomb). Everything here
refuses those with an `UnsafeArchive` whose message can be shown to the uploader as is.
"""
from __future__ import annotations

import io
import re
import stat
import zipfile
from pathlib import Path, PurePosixPath

from core.errors import ClauseGraphError

MAX_UPLOAD_BYTES = 200 * 1024 * 1024
MAX_ZIP_MEMBERS = 20_000
CORPUS_TABLES = ("companies.csv", "addresses.csv", "spend.csv", "agreements.csv", "rates.csv")
CONTRACT_SUFFIXES = (".md", ".markdown", ".txt", ".htm", ".html")


class UnsafeArchive(ClauseGraphError, ValueError):
    """The zip would write outside its folder, holds links, or is too large."""


def safe_extract_zip(data: bytes, dest: Path, max_bytes: int = MAX_UPLOAD_BYTES,
                     max_members: int = MAX_ZIP_MEMBERS) -> list[Path]:
    """Unpack an uploaded zip into `dest`, refusing absolute paths, `..`, links, devices and
    archives whose declared or actual size exceeds `max_bytes` (zip bombs)."""
    dest = Path(dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UnsafeArchive(f"not a zip archive ({exc})") from exc
    with zf:
        infos = zf.infolist()
        if len(infos) > max_members:
            raise UnsafeArchive(f"the archive has {len(infos)} entries; at most {max_members} are accepted")
        declared = sum(i.file_size for i in infos)
        if declared > max_bytes:
            raise UnsafeArchive(f"the archive unpacks to {declared:,} bytes; the limit is {max_bytes:,}")
        plan: list[tuple[zipfile.ZipInfo, Path]] = []
        for info in infos:
            name = info.filename.replace("\\", "/")
            pure = PurePosixPath(name)
            if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or pure.is_absolute():
                raise UnsafeArchive(f"{info.filename}: absolute paths are not allowed")
            if any(part == ".." for part in pure.parts):
                raise UnsafeArchive(f"{info.filename}: '..' in a path is not allowed")
            ftype = stat.S_IFMT((info.external_attr >> 16) & 0xFFFF)  # 0: no Unix type recorded
            if ftype not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise UnsafeArchive(f"{info.filename}: links and special files are not allowed")
            if name.startswith("__MACOSX/") or pure.name in {".DS_Store"}:
                continue
            target = (dest / Path(*pure.parts)).resolve() if pure.parts else dest
            if target != dest and dest not in target.parents:
                raise UnsafeArchive(f"{info.filename}: would be written outside the upload folder")
            plan.append((info, target))
        written = 0
        out: list[Path] = []
        for info, target in plan:
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("wb") as dst:
                while chunk := src.read(1 << 20):
                    written += len(chunk)
                    if written > max_bytes:  # the declared sizes lied
                        raise UnsafeArchive(f"the archive unpacks to more than {max_bytes:,} bytes")
                    dst.write(chunk)
            out.append(target)
    return out


def find_corpus_root(folder: Path) -> Path:
    """The folder holding the corpus tables: the upload itself or its single top folder."""
    folder = Path(folder)
    if any((folder / t).is_file() for t in CORPUS_TABLES):
        return folder
    candidates = sorted({p.parent for t in CORPUS_TABLES for p in folder.rglob(t)}, key=lambda p: len(p.parts))
    return candidates[0] if candidates else folder


def save_uploaded_files(files: list[tuple[str, bytes]], dest: Path, max_bytes: int = MAX_UPLOAD_BYTES) -> list[str]:
    """Lay individually uploaded files out as a corpus: tables at the top, contracts in contracts/.
    Returns the notes worth showing (ignored files)."""
    dest = Path(dest)
    (dest / "contracts").mkdir(parents=True, exist_ok=True)
    total = 0
    notes = []
    for name, data in files:
        base = PurePosixPath(name.replace("\\", "/")).name
        if not base or base in {".", ".."}:
            notes.append(f"{name}: ignored (no file name)")
            continue
        total += len(data)
        if total > max_bytes:
            raise UnsafeArchive(f"the uploaded files exceed {max_bytes:,} bytes")
        if base.lower() in CORPUS_TABLES:
            (dest / base.lower()).write_bytes(data)
        elif base.lower().endswith(CONTRACT_SUFFIXES):
            (dest / "contracts" / base).write_bytes(data)
        else:
            notes.append(f"{base}: ignored (expected {', '.join(CORPUS_TABLES)} or .md/.txt/.htm contracts)")
    return notes
