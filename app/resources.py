"""Where the app's resources live (`resources/` at the top of the repository): scripts, icons, styles."""

from __future__ import annotations

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parents[1] / "resources"
JS_DIR = RESOURCES_DIR / "js"
APP_ICON = RESOURCES_DIR / "icons" / "browserpilot.svg"
APP_STYLE = RESOURCES_DIR / "styles" / "app.qss"
