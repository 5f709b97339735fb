"""Process set-up that must happen before QtWebEngine starts: sandbox, platform, Chromium flags, display.

QtWebEngine reads these variables once, when it first loads; `prepare_qt_environment` is therefore called
by the entry point before anything imports `PySide6.QtWebEngine*`.
"""

from __future__ import annotations

import os
import sys

QUIET_CHROMIUM_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--no-first-run",
    "--log-level=3",
)


class NoDisplayError(RuntimeError):
    """The GUI was asked for on a machine without a display."""


def has_display() -> bool:
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def prepare_qt_environment(headless: bool) -> None:
    """Set what QtWebEngine needs: sandbox off for root only, offscreen when headless, quiet Chromium."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium's sandbox refuses to run as root; for any other user it stays on.
        os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
    if headless:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    elif not os.environ.get("QT_QPA_PLATFORM") and not has_display():
        raise NoDisplayError(
            "no display found (DISPLAY and WAYLAND_DISPLAY are not set); run `browserpilot --headless` for "
            "the app without a window, or start it inside a desktop session (or under xvfb-run)"
        )
    existing = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "").split()
    wanted = list(QUIET_CHROMIUM_FLAGS)
    if headless:
        # Nothing is shown: software compositing in the renderers is enough, and leaving out the GPU
        # process saves about 50 MB for the first environment (measured with bench/envs_memory.py).
        wanted.append("--disable-gpu")
    flags = existing + [flag for flag in wanted if flag not in existing]
    os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = " ".join(flags)
    # Never expose an unauthenticated DevTools port inherited from the caller's environment.
    os.environ.pop("QTWEBENGINE_REMOTE_DEBUGGING", None)
    from app.startup.pyside_fix import protect_bools, protect_none, skip_feature_scan

    skip_feature_scan()
    protect_none()
    protect_bools()
