"""Issue 26 as a person meets it: the order flow is recorded once with the recorder (trusted input: clicks, typing,
the keyboard in a select, the real file dialog, a slider clicked at a point) on the unchanged form, saved, and
replayed after every kind of change (tests/support/heal_site.py); the server decides each replay."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.integration.test_recorder import (open_person_tab, person_chooses_file, person_clicks, person_presses,
                                             person_types, wait_steps)
from tests.support.heal_site import KINDS, SLIDER_AT, TARGETS, VALUES, HealSite
from tests.support.qt import run_js, run_op, running_app
from tests.support.server import LocalServer

NAME = "Order tea, recorded"


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("data"), windows=True) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[HealSite]:
    with LocalServer() as server:
        yield HealSite(server)


def record_the_flow(qtbot: QtBot, app: BrowserPilotApp, site: HealSite, upload: Path) -> str:
    site.reset("same")
    tab = open_person_tab(qtbot, app, site.url)
    assert run_op(qtbot, app, "record_start", {"tabId": tab.tab_id})["ok"]
    person_clicks(qtbot, tab, TARGETS["fullname"])
    person_types(tab, VALUES["fullname"])
    person_clicks(qtbot, tab, TARGETS["email"])
    person_types(tab, VALUES["email"])
    person_presses(tab, Qt.Key.Key_Tab)   # to the size select; choose Large by keyboard
    for _ in range(3):
        person_presses(tab, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: run_js(qtbot, tab, "document.querySelector('#f-size').value") == "l", timeout=5_000)
    person_clicks(qtbot, tab, TARGETS["gift"])
    person_clicks(qtbot, tab, TARGETS["note"])
    person_types(tab, VALUES["note"])
    person_chooses_file(qtbot, tab, TARGETS["doc"], upload)
    person_clicks(qtbot, tab, TARGETS["qty"], fx=SLIDER_AT)
    wait_steps(qtbot, app, tab, lambda steps: steps[-1]["type"] == "click" and "offset" in steps[-1]["data"])
    person_clicks(qtbot, tab, TARGETS["place"])
    qtbot.waitUntil(lambda: bool(site.orders), timeout=10_000)
    assert site.verdict() == ("ok", ""), "the recording itself"
    wait_steps(qtbot, app, tab, lambda steps: steps[-1]["words"].startswith("Click button 'Place order'"))
    stopped = run_op(qtbot, app, "record_stop", {"tabId": tab.tab_id, "name": NAME})
    assert stopped["ok"] and stopped["saved"]
    located = [n["data"]["locator"] for n in stopped["workflow"]["workflow"]["graph"]["nodes"] if n["data"].get("locator")]
    assert len(located) >= 8 and all(loc.get("fingerprint", {}).get("kind") for loc in located), located
    return tab.tab_id


def test_a_recorded_flow_replays_after_every_kind_of_change_and_never_acts_on_the_wrong_element(
        qtbot: QtBot, app: BrowserPilotApp, site: HealSite, tmp_path: Path) -> None:
    upload = tmp_path / VALUES["doc_name"]
    upload.write_bytes(VALUES["doc_bytes"])
    tab_id = record_the_flow(qtbot, app, site, upload)
    verdicts = {}
    for kind in KINDS:
        site.reset(kind)
        result = run_op(qtbot, app, "workflow_run", {"name": NAME, "tabId": tab_id}, timeout=120_000)
        if result["ok"]:
            qtbot.waitUntil(lambda: bool(site.orders or site.subscriptions), timeout=10_000)
        verdicts[kind] = site.verdict()[0] if result["ok"] else f"failed: {result.get('error')}"
    assert verdicts == {kind: "ok" for kind in KINDS}, verdicts
