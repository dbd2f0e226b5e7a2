"""The command line's entry point: how it ends when its reader or its user stops it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a command that writes far more than a pipe holds, run through core.cli.main
_CHILD = """
import argparse, sys
import core.cli as cli

class Parser:
    def parse_args(self, argv):
        return argparse.Namespace(func=lambda args: [sys.stdout.write("x" * 65536 + "\\n") for _ in range(64)])

cli.build_parser = lambda: Parser()
sys.exit(cli.main([]))
"""


def test_a_reader_that_leaves_early_ends_the_command_quietly():
    """`report gaps --format csv | head` printed a BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, "-c", _CHILD], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.read(10) == b"x" * 10
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and "Traceback" not in err and "BrokenPipe" not in err, err
