"""The environment window as a person sees it: icon buttons, load progress in the address bar, the control
chip, and the Downloads list (real QtWebEngine offscreen, one app for the module)."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtCore import QLocale, QSize, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QLineEdit, QMenu, QToolButton
from pytestqt.qtbot import QtBot

from app.browser.downloads import arm_download
from app.wiring.shell import BrowserPilotApp
from app.ui.control_overlay import HANDOFF_COLOR
from app.ui import theme
from app.ui.env_window import EnvWindow
from tests.support.qt import running_app, wait_loaded
from tests.support.server import LocalServer, Request, Response
from tests.support.theme import restored  # noqa: F401  (fixture)

PAYLOAD = bytes(range(256)) * 1200  # 300 KiB


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("env-window-data"), windows=True) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        release = threading.Event()

        def stalled(request: Request) -> Response:
            release.wait(30)
            return Response("<title>Finally</title><h1>Here</h1>")

        local.routes["/stalled"] = stalled
        local.route("/page", "<title>Page</title><h1>Page</h1>")
        local.route("/report.bin", PAYLOAD, content_type="application/octet-stream",
                    headers=[("Content-Disposition", 'attachment; filename="report.bin"')])
        local.release = release  # type: ignore[attr-defined]
        yield local
        release.set()


@pytest.fixture(scope="module")
def window(app: BrowserPilotApp, site: LocalServer) -> EnvWindow:
    return app.show_environment("env-default")


def opaque_colours(image: QImage, rows: range | None = None) -> list[QColor]:
    return [image.pixelColor(x, y) for y in (rows or range(image.height())) for x in range(image.width())
            if image.pixelColor(x, y).alpha() == 255]


def close_to(a: QColor, b: QColor, tolerance: int = 24) -> bool:
    return all(abs(x - y) <= tolerance for x, y in ((a.red(), b.red()), (a.green(), b.green()), (a.blue(), b.blue())))


def test_every_toolbar_button_has_an_icon(window: EnvWindow) -> None:
    buttons = [window.navigation.widgetForAction(action) for action in window.navigation.actions()]
    tool_buttons = [b for b in buttons if isinstance(b, QToolButton)]
    assert any(isinstance(b, QLineEdit) and b.objectName() == "address" for b in buttons)
    names = {b.defaultAction().objectName() if b.defaultAction() else b.objectName() for b in tool_buttons}
    assert {"record", "downloads", "main-menu", "control-state"} <= names, names
    assert len(tool_buttons) >= 10  # back, forward, reload, stop, home, chip, record, agent, downloads, menu
    agent = window.findChild(QDockWidget, "agent-dock")
    assert agent is not None and agent.toggleViewAction() in window.navigation.actions()
    view_menu = window.findChild(QMenu, "view-menu")
    assert view_menu is not None and agent.toggleViewAction() in view_menu.actions()
    assert not agent.isVisible()  # the Agent panel waits until the person opens it
    for button in tool_buttons:
        drawn = button.icon().pixmap(QSize(18, 18)).toImage()
        assert opaque_colours(drawn), f"{button.objectName() or button.text()} has no icon"
    # The menu button's menu holds the window's menus; the menu bar itself is hidden.
    assert not window.menuBar().isVisible()
    assert [a.text() for a in window.main_menu.actions() if a.menu()] == ["&File", "&View", "&Window"]


def test_load_progress_shows_in_the_address_bar_while_a_page_stalls(qtbot: QtBot, window: EnvWindow,
                                                                    site: LocalServer) -> None:
    tab = window.current_tab()
    assert tab is not None
    accent = window.address.palette().color(QPalette.ColorRole.Highlight)

    def accent_along_the_bottom() -> int:
        image = window.address.grab().toImage()
        rows = range(image.height() - 5, image.height())
        return sum(1 for colour in opaque_colours(image, rows) if close_to(colour, accent))

    assert window.address.load_progress is None or not tab.loading
    tab.open(site.url("/stalled"))
    qtbot.waitUntil(lambda: window.address.load_progress is not None and window.stop_action.isVisible(),
                    timeout=10_000)
    assert not window.reload_action.isVisible()
    qtbot.waitUntil(lambda: accent_along_the_bottom() > 0)
    site.release.set()  # type: ignore[attr-defined]
    wait_loaded(qtbot, tab)
    qtbot.waitUntil(lambda: window.address.load_progress is None and window.reload_action.isVisible())
    assert not window.stop_action.isVisible()
    assert accent_along_the_bottom() == 0
    assert window.tabs.tabText(window.tabs.indexOf(tab)) == "Finally"
    assert not window.tabs.tabIcon(window.tabs.indexOf(tab)).isNull()  # no favicon: the globe


def test_the_control_chip_follows_the_tabs_state(qtbot: QtBot, window: EnvWindow) -> None:
    tab = window.current_tab()
    assert tab is not None
    control = window.control_of(tab)
    chip = window.control_label

    def chip_colour() -> QColor:
        image = chip.grab().toImage()
        return image.pixelColor(image.width() - 9, image.height() // 2)

    control.set_state("agent")
    assert chip.text() == "Agent" and "operating this tab" in chip.toolTip()
    assert close_to(chip_colour(), window.palette().color(QPalette.ColorRole.Highlight))
    control.set_state("handoff", "Solve the captcha")
    assert chip.text() == "Your turn" and "Solve the captcha" in chip.toolTip()
    assert close_to(chip_colour(), HANDOFF_COLOR)
    control.set_state("shared")
    assert chip.text() == "Shared" and "share this tab" in chip.toolTip()
    shared = chip_colour()
    assert not close_to(shared, HANDOFF_COLOR) and not close_to(shared, window.palette().color(QPalette.ColorRole.Highlight))
    # Another tab in another state: the chip shows the front tab's.
    other = window.service.new_tab("env-default", "about:blank", control="agent").view
    assert chip.text() == "Agent"
    window.tabs.setCurrentWidget(tab)
    assert chip.text() == "Shared"
    window.close_tab(other)


def test_a_theme_change_redraws_the_chip_and_the_toolbar_icons(window: EnvWindow, restored: QApplication) -> None:
    tab = window.current_tab()
    assert tab is not None
    window.control_of(tab).set_state("shared")

    def chip_colour() -> QColor:
        image = window.control_label.grab().toImage()
        return image.pixelColor(image.width() - 9, image.height() // 2)

    def home_ink() -> QColor:
        button = window.navigation.widgetForAction(window.home_action)
        image = button.icon().pixmap(QSize(24, 24)).toImage()
        return QColor(Counter(c.name() for c in opaque_colours(image)).most_common(1)[0][0])

    theme.apply_theme(restored, scheme="dark")
    assert close_to(chip_colour(), QColor(theme.DARK.hover), 6)
    assert home_ink().lightness() > 180
    theme.apply_theme(restored, scheme="light")
    assert close_to(chip_colour(), QColor(theme.LIGHT.hover), 6)
    assert home_ink().lightness() < 80


def test_a_download_appears_in_the_list_with_its_size_and_opens_its_folder(qtbot: QtBot, app: BrowserPilotApp,
                                                                          window: EnvWindow,
                                                                          site: LocalServer) -> None:
    tab = window.current_tab()
    assert tab is not None
    panel = window.downloads_panel
    opened: list[QUrl] = []
    panel.open_url = lambda url: opened.append(url) or True  # type: ignore[method-assign]
    window.downloads_dock.hide()
    tab.page().download(QUrl(site.url("/report.bin")))  # as a person's "Save link as"
    qtbot.waitUntil(lambda: panel.row_for("report.bin") is not None, timeout=10_000)
    assert window.downloads_dock.isVisible()  # a person's download opens the list
    row = panel.row_for("report.bin")
    assert row is not None
    qtbot.waitUntil(lambda: row.record.state == "completed", timeout=15_000)
    assert row.progress.isVisible() and row.progress.value() == row.progress.maximum() == 100
    assert QLocale().formattedDataSize(len(PAYLOAD)) in row.meta.text() and "Done" in row.meta.text()
    saved = Path(row.record.path)
    assert saved.read_bytes() == PAYLOAD
    folder = app.data.downloads("env-default")
    assert saved.parent == folder

    qtbot.mouseClick(row.folder_button, Qt.MouseButton.LeftButton)
    assert opened[-1] == QUrl.fromLocalFile(str(folder))
    assert opened[-1].toLocalFile() == str(saved.parent)
    qtbot.mouseClick(row.open_button, Qt.MouseButton.LeftButton)
    assert opened[-1] == QUrl.fromLocalFile(str(saved))


def test_an_operations_download_counts_on_the_badge_without_opening_the_list(qtbot: QtBot, window: EnvWindow,
                                                                             site: LocalServer) -> None:
    tab = window.current_tab()
    assert tab is not None
    panel = window.downloads_panel
    window.downloads_dock.hide()
    before = len(panel.rows)
    expectation = arm_download(tab.page(), name="for-the-agent.bin")
    tab.page().download(QUrl(site.url("/report.bin")))
    qtbot.waitUntil(lambda: len(panel.rows) == before + 1, timeout=10_000)
    row: Any = panel.rows[0]
    assert row.record.path.name == "for-the-agent.bin"
    qtbot.waitUntil(lambda: row.record.state == "completed", timeout=15_000)
    expectation.disarm()
    assert not window.downloads_dock.isVisible()
    badge = window.downloads_button.badge
    assert badge.isVisible() and badge.text() == "1"
    window.downloads_action.trigger()
    assert window.downloads_dock.isVisible() and not badge.isVisible()
    panel.clear_finished()
    assert not panel.rows and panel.empty.isVisible()
