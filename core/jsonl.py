"""Reading JSON-lines files with errors that name the file and line."""
from __future__ import annotations

import json
from pathlib import Path


def read_jsonl(path: Path | str, error: type[Exception] = ValueError, required: tuple[str, ...] = (),
               newline_only: bool = False) -> list[tuple[int, dict]]:
    """(line number, object) for each non-blank line; `required` keys must be non-empty strings.

    `newline_only` splits on "\\n" alone, for files whose values may contain U+2028 and friends.
    """
    path = Path(path)
    if not path.is_file():
        raise error(f"{path} is missing")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read {path}: {exc}") from None
    rows = []
    for lineno, line in enumerate(text.split("\n") if newline_only else text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or any(not isinstance(obj.get(k), str) or not obj[k] for k in required):
            keys = ", ".join(f'"{k}"' for k in required)
            raise error(f"{path}:{lineno}: expected an object" + (f" with string fields {keys}" if keys else ""))
        rows.append((lineno, obj))
    return rows
