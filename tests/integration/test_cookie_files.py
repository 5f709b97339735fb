"""Cookies other tools read: a login exported as a Netscape cookies.txt lets real curl fetch the logged-in
page; one exported in a cookie editor's JSON logs a new environment in; curl's own cookie jar logs an
environment in. Real QtWebEngine offscreen, a real local server, the real curl."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.qt import run_js, run_op, view_of
from tests.support.server import LocalServer, Request, Response

CURL = shutil.which("curl")


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def shop(server: LocalServer) -> LocalServer:
    def login(request: Request) -> Response:
        return Response("<title>in</title>logged in", headers=[
            ("Set-Cookie", "sid=s3cr3t-alice; Path=/; HttpOnly; Max-Age=3600"),
            ("Set-Cookie", "theme=dark; Path=/")])

    def account(request: Request) -> Response:
        if "sid=s3cr3t-alice" in request.headers.get("cookie", ""):
            return Response("<title>account</title><p id=who>Welcome alice</p>")
        return Response("<title>denied</title>please log in", status=403)

    server.routes["/login"] = login
    server.routes["/account"] = account
    return server


def logged_in(qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> Any:
    """A new environment that logged in to the shop in a tab, as a person does."""
    shop(server)
    env = shell.envs.create("Alice")
    tab = ok(run_op(qtbot, shell, "tab_open", {"env": env.id}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/login")}))
    return env


def account_text(qtbot: QtBot, shell: BrowserPilotApp, env_id: str, server: LocalServer) -> str:
    tab = ok(run_op(qtbot, shell, "tab_open", {"env": env_id}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/account")}))
    return str(run_js(qtbot, view_of(shell, tab), "document.body.innerText"))


def curl(*args: str) -> subprocess.CompletedProcess[str]:
    assert CURL is not None
    return subprocess.run([CURL, "-s", "-w", "\n%{http_code}", *args], capture_output=True, text=True, timeout=30)


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_a_login_exported_as_cookies_txt_lets_curl_in(qtbot: QtBot, shell: BrowserPilotApp,
                                                      server: LocalServer) -> None:
    env = logged_in(qtbot, shell, server)
    exported = ok(run_op(qtbot, shell, "env_export", {"env": env.id, "format": "netscape"}))
    path = Path(exported["path"])
    assert exported["format"] == "netscape" and exported["cookies"] == 2 and path.name.endswith("-cookies.txt")
    assert os.stat(path).st_mode & 0o777 == 0o600
    text = path.read_text("utf-8")
    assert text.startswith("# Netscape HTTP Cookie File")
    assert "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t" in text  # HttpOnly kept, host-only, with its expiry
    assert "\tsid\ts3cr3t-alice" in text

    assert curl(server.url("/account")).stdout.endswith("\n403")  # without the cookies: refused
    fetched = curl("-b", str(path), server.url("/account"))
    assert fetched.stdout.endswith("\n200") and "Welcome alice" in fetched.stdout


def test_a_cookie_editor_export_logs_a_new_environment_in(qtbot: QtBot, shell: BrowserPilotApp,
                                                          server: LocalServer) -> None:
    env = logged_in(qtbot, shell, server)
    exported = ok(run_op(qtbot, shell, "env_export", {"env": env.id, "format": "cookie-editor"}))
    entries = json.loads(Path(exported["path"]).read_text("utf-8"))
    sid = next(entry for entry in entries if entry["name"] == "sid")
    assert sid["domain"] == "127.0.0.1" and sid["hostOnly"] is True and sid["httpOnly"] is True
    assert sid["session"] is False and sid["expirationDate"] > 0 and sid["storeId"] == "0"

    imported = ok(run_op(qtbot, shell, "env_import", {"path": exported["path"], "name": "Alice again"}))
    assert imported["created"] and imported["format"] == "cookie-editor" and imported["cookies"] == 2
    assert "Welcome alice" in account_text(qtbot, shell, imported["env"], server)
    assert "please log in" in account_text(qtbot, shell, "env-default", server)  # the others stay logged out


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_curl_s_cookie_jar_logs_an_environment_in_and_bad_files_lose_nothing(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer, tmp_path: Path) -> None:
    shop(server)
    jar = tmp_path / "jar.txt"
    assert curl("-c", str(jar), server.url("/login")).stdout.endswith("\n200")
    assert "#HttpOnly_" in jar.read_text()  # curl writes HttpOnly cookies with its prefix
    env = shell.envs.create("From curl")
    imported = ok(run_op(qtbot, shell, "env_import", {"path": str(jar), "env": env.id}))
    assert imported["format"] == "netscape" and not imported["created"] and imported["cookies"] == 2
    assert "Welcome alice" in account_text(qtbot, shell, env.id, server)

    bad = tmp_path / "bad.txt"
    bad.write_text("# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\tsoon\tsid\tx\n")
    before = len(shell.envs.list())
    refused = run_op(qtbot, shell, "env_import", {"path": str(bad)})
    assert not refused["ok"] and "line 2: the expiry 'soon' is not a number" in refused["error"]
    assert len(shell.envs.list()) == before  # no environment was made for a file that cannot be read


def test_the_json_export_carries_the_identity_to_the_imported_environment(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    env = shell.envs.create("Tokyo", timezone="Asia/Tokyo", languages=["ja-JP"])
    exported = ok(run_op(qtbot, shell, "env_export", {"env": env.id}))
    document = json.loads(Path(exported["path"]).read_text("utf-8"))
    assert document["kind"] == "browserpilot-environment" and exported["format"] == "json"
    assert document["identity"] == {"languages": ["ja-JP"], "timezone": "Asia/Tokyo"}
    imported = ok(run_op(qtbot, shell, "env_import", {"path": exported["path"]}))
    assert imported["identity"] and imported["format"] == "json"
    copy = shell.envs.get(imported["env"])
    assert copy.timezone == "Asia/Tokyo" and copy.languages == ["ja-JP"]
