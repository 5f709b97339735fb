"""No code asks a QWebEnginePage for its `profile()`: PySide6 then counts the profile's Python object as the page's
child, and deleting the page (closing its tab) invalidates the profile's object while the profile lives on — the
environment could not open a tab again ("QWebEngineProfile already deleted"). Pages keep the profile
they were made with (`BrowserPage.env_profile`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
ASKING = re.compile(r"page(?:\(\))?\.profile\(\)")


def test_no_page_is_asked_for_its_profile() -> None:
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in sorted((ROOT / "app").rglob("*.py"))
             for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
             if ASKING.search(line) and not line.lstrip().startswith("#")]
    assert not found, found
