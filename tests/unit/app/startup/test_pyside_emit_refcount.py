"""PySide6 6.12's `Signal.emit()` drops a reference to `True` on each call (app/startup/pyside_fix.py `protect_bools`):
emitting more signals than `True` has references kills the interpreter, unless the work-around is applied.
Each case in a fresh interpreter: the work-around changes process-wide state."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]

EMIT_MANY = """
import gc, sys
from PySide6.QtCore import QObject, Signal
from app.startup.pyside_fix import protect_bools
count = sys.getrefcount(True) + 5000  # more emits than True has references
applied = protect_bools() if sys.argv[1] == "protect" else None

class Source(QObject):
    fired = Signal()

source = Source()
for _ in range(count):
    source.fired.emit()
gc.collect()
print("alive", applied)
"""


def emit_many(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", EMIT_MANY, mode], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="True is immortal from Python 3.12 (PEP 683)")
def test_signals_emitted_by_the_thousand_do_not_kill_the_process() -> None:
    # PySide6 as installed kills the process (when this fails, the bug is gone upstream and protect_bools can
    # go too)...
    assert emit_many("plain").returncode != 0
    # ...and not once the app has protected True and False.
    protected = emit_many("protect")
    assert protected.returncode == 0, protected.stderr
    assert protected.stdout.strip() == "alive True"
