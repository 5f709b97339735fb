"""GPU or software drawing for an app with windows (`app.startup.rendering`): the choice, and that it is applied.

The choice is applied in a fresh process each time (it sets Qt Quick's process-wide graphics API and
Chromium's flags, which a pytest process that already made web views could not undo)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.startup.rendering import is_software_renderer

# "quick": what Qt Quick reads when the first web view's window is made (QT_QUICK_BACKEND); that it takes effect
# when set after the QApplication was verified under Xvfb, where Qt Quick otherwise picks llvmpipe's OpenGL.
CHOOSE = """
import json, os, sys
from PySide6.QtWidgets import QApplication
from app.startup import rendering
app = QApplication([])
chosen = rendering.choose(headless=False)
print(json.dumps({"chosen": chosen, "flags": os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", ""),
                  "quick": os.environ.get("QT_QUICK_BACKEND") == "software"}))
"""


def choose_in_fresh_process(rendering: str | None) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key not in ("BROWSERPILOT_RENDERING",
                                                                         "QTWEBENGINE_CHROMIUM_FLAGS",
                                                                         "QT_QUICK_BACKEND")}
    env["QT_QPA_PLATFORM"] = "offscreen"  # no display, hence no OpenGL
    if rendering is not None:
        env["BROWSERPILOT_RENDERING"] = rendering
    done = subprocess.run([sys.executable, "-c", CHOOSE], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("renderer, software", [
    ("llvmpipe (LLVM 15.0.6, 256 bits)", True),
    ("softpipe", True),
    ("Google SwiftShader", True),
    ("Mesa Intel(R) UHD Graphics 620 (KBL GT2)", False),
    ("NVIDIA GeForce RTX 3060/PCIe/SSE2", False),
    ("AMD Radeon RX 6600 (radeonsi, navi23, LLVM 15.0.6, DRM 3.49)", False),
    (None, True),
])
def test_software_rasterizers_are_told_from_gpus(renderer: str | None, software: bool) -> None:
    assert is_software_renderer(renderer) is software


def test_without_opengl_an_app_with_windows_draws_in_software() -> None:
    result = choose_in_fresh_process(None)
    assert result["chosen"] == "software"
    assert "--disable-gpu" in str(result["flags"]).split()
    assert result["quick"] is True


def test_gpu_drawing_can_be_forced_and_software_asked_for() -> None:
    forced = choose_in_fresh_process("gpu")
    assert forced == {"chosen": "gpu", "flags": "", "quick": False}
    asked = choose_in_fresh_process("software")
    assert asked["chosen"] == "software" and asked["quick"] is True
