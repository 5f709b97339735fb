"""Where the app's resources live: injected scripts, styles, icons, translations.

In the repository they are the folder `resources/`; installed (a wheel, an editable install, the PyInstaller
bundle) the same folder is the data package `app.assets` (setup.py maps it), found through
`importlib.resources`. A checkout used without installing it (no `app.assets` importable) falls back to the
folder next to `app/`. Qt and QtWebEngine read files by name, so the resources must be real files on disk: an
install from a zip is refused with a clear error rather than failing at the first page action.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

ASSETS_PACKAGE = "app.assets"


def find_resources_dir() -> Path:
    """The folder holding `js/`, `styles/`, `icons/` and `i18n/`, wherever the app was installed from."""
    try:
        root = importlib.resources.files(ASSETS_PACKAGE)
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "resources"
    if not isinstance(root, Path):
        raise RuntimeError(f"BrowserPilot's resources must be files on disk, found {root!r}: install it unzipped")
    return root


RESOURCES_DIR = find_resources_dir()
# Resources read from a source checkout (editable install or none), where a developer may edit them.
FROM_CHECKOUT = (RESOURCES_DIR.parent / "pyproject.toml").is_file()
JS_DIR = RESOURCES_DIR / "js"
APP_ICON = RESOURCES_DIR / "icons" / "browserpilot.svg"
APP_STYLE = RESOURCES_DIR / "styles" / "app.qss"
I18N_DIR = RESOURCES_DIR / "i18n"
