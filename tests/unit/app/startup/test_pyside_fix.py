"""PySide6 work-arounds (`app.startup.pyside_fix`), each in a fresh interpreter: they change process-wide state."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]

# Imports a module nothing has loaded yet (`wave`) after PySide6, and says whether its source was read into
# linecache (what PySide6's __feature__ import hook does to every module) and whether the module works.
IMPORT_AFTER_PYSIDE = """
import json, linecache, sys
import PySide6.QtCore
from app.startup.pyside_fix import skip_feature_scan
applied = skip_feature_scan() if sys.argv[1] == "skip" else None
import wave
print(json.dumps({"applied": applied, "read": any(name.endswith("/wave.py") for name in linecache.cache),
                  "works": callable(wave.open)}))
"""


def import_after_pyside(mode: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", IMPORT_AFTER_PYSIDE, mode], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_modules_imported_after_pyside6_are_not_read_into_memory() -> None:
    # PySide6 as installed reads each new module's whole source (when this fails, the scan is gone upstream and
    # skip_feature_scan can go too)...
    assert import_after_pyside("plain") == {"applied": None, "read": True, "works": True}
    # ...and not once the app has switched that off.
    assert import_after_pyside("skip") == {"applied": True, "read": False, "works": True}
