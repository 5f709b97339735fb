"""Logins from the browsers people already use, and to and from Playwright, with real browsers: Debian's
chromium and firefox-esr log in to two local sites (the servers set the cookies) in profiles of their own; the
chosen sites' cookies, read and decrypted from those profiles, log a new environment in, and the other site's stay
behind; a Playwright storage_state written by an environment opens the logged-in page in Playwright's Chromium, and
one Playwright wrote logs an environment in. Real QtWebEngine offscreen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.browser_profiles import (CHROMIUM, FIREFOX, chromium_login, firefox_login, login_site,
                                            playwright_page_text, playwright_storage_state)
from tests.support.qt import run_js, run_op, running_app, view_of
from tests.support.server import LocalServer

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (./dev.sh installs it)")


@pytest.fixture(scope="module")
def shell(qapp: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("logins-data")) as app:
        yield app


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[LocalServer, LocalServer]]:
    """The shop (127.0.0.1) and another site (127.0.0.2): two sites to the browsers' cookie rules."""
    with LocalServer() as shop, LocalServer("127.0.0.2") as other:
        yield login_site(shop, "alice"), login_site(other, "bob")


@pytest.fixture(scope="module")
def chromium_profile(sites: tuple[LocalServer, LocalServer], tmp_path_factory: pytest.TempPathFactory) -> Path:
    shop, other = sites
    folder = tmp_path_factory.mktemp("chromium-user-data")
    chromium_login(folder, [shop.url("/login"), other.url("/login")])
    return folder


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def page_text(qtbot: QtBot, shell: BrowserPilotApp, env_id: str, url: str) -> str:
    tab = ok(run_op(qtbot, shell, "tab_open", {"env": env_id}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": url}))
    text = str(run_js(qtbot, view_of(shell, tab), "document.body.innerText"))
    ok(run_op(qtbot, shell, "tab_close", {"tabId": tab}))
    return text


def test_a_chromium_profiles_login_moves_into_a_new_environment_for_the_chosen_sites_only(
        qtbot: QtBot, shell: BrowserPilotApp, sites: tuple[LocalServer, LocalServer], chromium_profile: Path) -> None:
    shop, other = sites
    source = f"chromium:{chromium_profile}"
    envs_before = len(shell.envs.list())
    # No sites given: nothing is copied, and the sites the profile has cookies for are listed to choose from.
    asked = run_op(qtbot, shell, "env_import", {"fromBrowser": source})
    assert not asked["ok"] and asked["code"] == "sites_needed"
    assert sorted((s["site"], s["cookies"]) for s in asked["sites"]) == [("127.0.0.1", 2), ("127.0.0.2", 2)]
    assert "127.0.0.1 (2)" in asked["error"] and len(shell.envs.list()) == envs_before

    imported = ok(run_op(qtbot, shell, "env_import", {"fromBrowser": source, "domains": ["127.0.0.1"],
                                                      "name": "From Chromium"}))
    assert imported["created"] and imported["cookies"] == 2 and imported["failed"] == 0
    assert imported["sites"] == [{"site": "127.0.0.1", "cookies": 2}] and imported["undecryptable"] == 0
    assert imported["database"].startswith(str(chromium_profile))
    env = imported["env"]
    assert shell.envs.get(env).name == "From Chromium"
    assert "Welcome alice" in page_text(qtbot, shell, env, shop.url("/account"))
    assert "please log in" in page_text(qtbot, shell, env, other.url("/account"))  # left behind
    # The cookies kept their flags: the session stays HttpOnly, the preference SameSite=Strict, with expiries.
    exported = ok(run_op(qtbot, shell, "env_export", {"env": env, "format": "playwright"}))
    cookies = {c["name"]: c for c in json.loads(Path(exported["path"]).read_text("utf-8"))["cookies"]}
    assert set(cookies) == {"sid", "theme"} and all(c["domain"] == "127.0.0.1" for c in cookies.values())
    assert cookies["sid"]["httpOnly"] and cookies["theme"]["sameSite"] == "Strict"
    assert all(c["expires"] > 0 for c in cookies.values())

    # Into an existing environment; a domain with its subdomains; a site the profile never visited.
    into = ok(run_op(qtbot, shell, "env_import", {"fromBrowser": "chromium", "profile": str(chromium_profile),
                                                  "domains": ["http://127.0.0.2:1/"], "env": env}))
    assert not into["created"] and into["sites"] == [{"site": "127.0.0.2", "cookies": 2}]
    assert "Welcome bob" in page_text(qtbot, shell, env, other.url("/account"))
    none = run_op(qtbot, shell, "env_import", {"fromBrowser": source, "domains": ["example.org"]})
    assert not none["ok"] and none["code"] == "no_cookies"
    missing = run_op(qtbot, shell, "env_import", {"fromBrowser": f"chromium:{chromium_profile / 'nothing'}",
                                                  "domains": ["*"]})
    assert not missing["ok"] and missing["code"] == "browser_unreadable" and "no chromium cookies" in missing["error"]
    both = run_op(qtbot, shell, "env_import", {"fromBrowser": "chromium", "path": "/x"})
    assert not both["ok"] and "either path" in both["error"]


def test_a_browser_in_its_usual_place_is_found_with_its_profiles(
        qtbot: QtBot, shell: BrowserPilotApp, sites: tuple[LocalServer, LocalServer], chromium_profile: Path,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chromium's user data where Chromium keeps it on Linux ($XDG_CONFIG_HOME/chromium): listed with its profile,
    and read without naming a profile (the most recently used one)."""
    import shutil

    shop, _other = sites
    config = tmp_path / "config"
    shutil.copytree(chromium_profile, config / "chromium", symlinks=True,
                    ignore=shutil.ignore_patterns("Singleton*"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    listed = ok(run_op(qtbot, shell, "env_browser_profiles", {}))
    assert {"browser": "chromium", "profiles": ["Default"]} in listed["browsers"]
    assert all(b["browser"] not in ("chrome", "brave", "edge") for b in listed["browsers"])  # not installed here
    imported = ok(run_op(qtbot, shell, "env_import", {"fromBrowser": "chromium", "domains": ["127.0.0.1"]}))
    assert imported["source"] == "chromium" and imported["database"] == str(config / "chromium" / "Default" / "Cookies")
    assert shell.envs.get(imported["env"]).name.startswith("From chromium")
    assert "Welcome alice" in page_text(qtbot, shell, imported["env"], shop.url("/account"))


def test_the_import_dialog_asks_which_sites_and_says_what_it_copied(
        qtbot: QtBot, shell: BrowserPilotApp, sites: tuple[LocalServer, LocalServer], chromium_profile: Path) -> None:
    """Environment → Import Login from Browser…, as a person uses it: the profile's folder, Find Sites, one site
    ticked, Import; the report names the site, its cookies and the new environment, which is logged in there."""
    import shiboken6
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QListWidget

    from app.ui.browser_login_dialog import NEW_ENV

    shop, other = sites
    qtbot.waitUntil(lambda: shell.main_window is not None, timeout=15_000)
    dialog = shell.main_window.import_browser_login()  # type: ignore[union-attr]
    dialog.into.setCurrentIndex(dialog.into.findData(NEW_ENV))  # not the environment selected in the main window
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.find_button.isEnabled(), timeout=10_000)  # the browsers found here are listed
    dialog.browser.setCurrentIndex(dialog.browser.findData("chromium"))
    dialog.profile.setEditText(str(chromium_profile))
    assert not dialog.import_button.isEnabled()
    qtbot.mouseClick(dialog.find_button, Qt.MouseButton.LeftButton)
    sites_list = dialog.findChild(QListWidget, "browser-login-sites")
    qtbot.waitUntil(lambda: sites_list.count() == 2, timeout=30_000)
    shown = sorted(sites_list.item(i).text() for i in range(2))
    assert shown == ["127.0.0.1 — 2 cookies", "127.0.0.2 — 2 cookies"]
    assert all(sites_list.item(i).checkState() == Qt.CheckState.Unchecked for i in range(2))  # none chosen for them
    assert not dialog.import_button.isEnabled()
    row = next(i for i in range(2) if sites_list.item(i).text().startswith("127.0.0.2"))
    sites_list.item(row).setCheckState(Qt.CheckState.Checked)
    assert dialog.import_button.isEnabled() and dialog.name.isVisible()
    dialog.name.setText("Bob from Chromium")
    # While it is open an agent makes an environment: "Into" offers it, the person's choice stays.
    made = run_op(qtbot, shell, "env_create", {"name": "Made by an agent"})["env"]
    qtbot.waitUntil(lambda: dialog.into.findData(made) >= 0, timeout=5_000)
    assert dialog.into.currentData() == NEW_ENV and dialog.name.isVisible()
    envs_before = len(shell.envs.list())
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_view is not None or "Not imported" in dialog.status.text(), timeout=30_000)
    assert dialog.status.text() == "Copied 2 of 2 cookies into Bob from Chromium: 127.0.0.2 (2).", dialog.status.text()
    assert len(shell.envs.list()) == envs_before + 1
    env = dialog.result_view.env
    assert "Welcome bob" in page_text(qtbot, shell, env, other.url("/account"))
    assert "please log in" in page_text(qtbot, shell, env, shop.url("/account"))
    dialog.close()
    if shiboken6.isValid(dialog):
        shiboken6.delete(dialog)  # no window left behind for the next module's tests


def test_a_storage_state_export_opens_the_logged_in_page_in_playwright(
        qtbot: QtBot, shell: BrowserPilotApp, sites: tuple[LocalServer, LocalServer]) -> None:
    shop, _other = sites
    env = shell.envs.create("Alice in the app")
    tab = ok(run_op(qtbot, shell, "tab_open", {"env": env.id}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": shop.url("/login")}))
    qtbot.waitUntil(lambda: bool(shop.hits("/seen")), timeout=10_000)  # the page kept its note
    exported = ok(run_op(qtbot, shell, "env_export", {"env": env.id, "format": "playwright"}))
    path = Path(exported["path"])
    assert exported["format"] == "playwright" and path.name.endswith("-storage-state.json")
    assert path.stat().st_mode & 0o777 == 0o600
    state = json.loads(path.read_text("utf-8"))
    assert {"origin": shop.url("/").rstrip("/"), "localStorage": [{"name": "user", "value": "alice"}]} \
        in state["origins"]
    shown = playwright_page_text(path, shop.url("/account"),
                                 "document.body.innerText + ' / ' + localStorage.getItem('user')")
    assert "Welcome alice" in shown and shown.endswith(" / alice")


def test_playwrights_own_storage_state_logs_an_environment_in(
        qtbot: QtBot, shell: BrowserPilotApp, sites: tuple[LocalServer, LocalServer], tmp_path: Path) -> None:
    _shop, other = sites
    state = tmp_path / "state.json"
    playwright_storage_state(other.url("/login"), state)
    imported = ok(run_op(qtbot, shell, "env_import", {"path": str(state), "name": "From Playwright"}))
    assert imported["format"] == "playwright" and imported["cookies"] == 2 and imported["created"]
    env = imported["env"]
    tab = ok(run_op(qtbot, shell, "tab_open", {"env": env}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": other.url("/account")}))
    view = view_of(shell, tab)
    assert "Welcome bob" in str(run_js(qtbot, view, "document.body.innerText"))
    assert run_js(qtbot, view, "localStorage.getItem('user')") == "bob"  # its origin's local storage came along


@pytest.mark.skipif(FIREFOX is None, reason="Debian's firefox-esr is not installed (./dev.sh installs it)")
def test_a_firefox_profiles_login_moves_into_an_environment(
        qtbot: QtBot, shell: BrowserPilotApp, tmp_path: Path) -> None:
    """Firefox ended while running (SIGTERM): its newest cookies are only in its write-ahead log, and still read."""
    with LocalServer() as server:
        login_site(server, "carol")
        profile = tmp_path / "firefox-profile"
        profile.mkdir()
        firefox_login(profile, server, "/login", "/seen", "sid-carol")
        imported = ok(run_op(qtbot, shell, "env_import", {"fromBrowser": f"firefox:{profile}",
                                                          "domains": ["127.0.0.1"]}))
        assert imported["source"] == f"firefox:{profile}" and imported["cookies"] == 2
        assert "Welcome carol" in page_text(qtbot, shell, imported["env"], server.url("/account"))
