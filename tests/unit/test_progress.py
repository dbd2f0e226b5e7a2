"""Progress output: bars only on a terminal; logs and CI get plain lines, no carriage-return floods."""
import io

from core.progress import stage_progress


class TerminalStream(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_plain_lines_at_the_start_periodically_and_at_the_end():
    out = io.StringIO()
    progress = stage_progress(out, every_s=3600)
    for done in range(0, 10_001, 50):
        progress("write", done, 10_000)
    progress("write", 10_000, 10_000)           # reported twice: still one end line
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines == ["write: 0/10,000 (0%)", "write: 10,000/10,000 (100%)"]


def test_lines_come_every_interval_and_a_stage_may_run_again():
    out = io.StringIO()
    progress = stage_progress(out, every_s=0)
    for done in (0, 1, 2):
        progress("embed", done, 2)
    progress("embed", 0, 4)                      # a second batch of the same stage
    assert out.getvalue().splitlines() == ["embed: 0/2 (0%)", "embed: 1/2 (50%)", "embed: 2/2 (100%)",
                                           "embed: 0/4 (0%)"]


def test_a_terminal_gets_a_redrawn_bar():
    out = TerminalStream()
    progress = stage_progress(out)
    for done in range(0, 101, 10):
        progress("parse", done, 100)
    assert "\r" in out.getvalue() and "parse" in out.getvalue()
