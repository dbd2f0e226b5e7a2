"""Progress of long commands: a live bar on a terminal, plain periodic lines everywhere else.

Logs and CI capture stderr to a file, where a redrawn bar turns into thousands of carriage-return
updates glued onto one line; there a line every few seconds, and one when a stage ends, tells
the same story and stays readable."""
from __future__ import annotations

import os
import sys
import time
from typing import Callable, TextIO

Progress = Callable[[str, int, int], None]   # (stage, done, total)
LINE_EVERY_S = 10.0


def is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):   # closed or replaced streams
        return False


def stage_progress(stream: TextIO | None = None, every_s: float = LINE_EVERY_S) -> Progress:
    """A progress callback for `stream` (stderr by default): bars if it is a terminal, lines if not."""
    stream = stream if stream is not None else sys.stderr
    return _bars(stream) if is_terminal(stream) else _lines(stream, every_s)


def _lines(stream: TextIO, every_s: float) -> Progress:
    last_line: dict[str, float] = {}
    ended: set[str] = set()

    def progress(stage: str, done: int, total: int) -> None:
        if stage in ended and done < total:
            ended.discard(stage)            # the stage runs again (a second batch of work)
            last_line.pop(stage, None)
        if stage in ended:
            return
        now = time.monotonic()
        finished = done >= total
        if stage not in last_line or finished or now - last_line[stage] >= every_s:
            share = f" ({done / total:.0%})" if total else ""
            print(f"{stage}: {done:,}/{total:,}{share}", file=stream, flush=True)
            last_line[stage] = now
        if finished:
            ended.add(stage)

    return progress


def _bars(stream: TextIO) -> Progress:
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None or bar.disable:
            bar = bars[stage] = tqdm(total=total, desc=stage, unit="item", file=stream, leave=False)
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()
            bars.pop(stage, None)

    return progress


def quiet_library_bars(stream: TextIO | None = None) -> None:
    """Switch off the model libraries' own bars ("Loading weights ...") when stderr is no terminal."""
    if is_terminal(stream if stream is not None else sys.stderr):
        return
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if "transformers" in sys.modules:   # already imported: its switch was read at import time
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
