"""Test set-up: QtWebEngine needs its environment before Qt starts, and every test gets its own data folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from app.startup.runtime import prepare_qt_environment

# In-process Qt tests run offscreen; QtWebEngine must be imported before the QApplication exists.
prepare_qt_environment(headless=True)
import PySide6.QtWebEngineWidgets  # noqa: E402,F401

from PySide6.QtWidgets import QApplication  # noqa: E402

from app.startup.i18n import install_translations  # noqa: E402
from tests.support.server import LocalServer  # noqa: E402

# Tests read the English UI whatever the machine's locale (tests/test_i18n.py switches to Chinese and back).
os.environ["BROWSERPILOT_LANG"] = "en"
# Every operation's answer is checked against its declared result model (app/ops/registry.py), here and in
# the apps the tests start.
os.environ["BROWSERPILOT_CHECK_RESULTS"] = "1"


@pytest.fixture(scope="session")
def qapp(qapp: QApplication) -> QApplication:
    """pytest-qt's application with the translators the app installs (English plurals: "1 row", "3 rows")."""
    install_translations(qapp)
    return qapp


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as local:
        yield local


@pytest.fixture(autouse=True)
def _no_inherited_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BROWSERPILOT_HOME", raising=False)
    os.environ.pop("QTWEBENGINE_REMOTE_DEBUGGING", None)
