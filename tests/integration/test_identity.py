"""An identity per environment: the user agent (with its client hints), languages, time zone and geolocation
that one environment sets reach its server requests (page, sub-resources, direct requests) and its pages'
scripts, while another environment keeps the browser's defaults.

Real QtWebEngine offscreen against a real local server: what counts is what the server received and what the
page's own JavaScript reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.documents import chain, node
from tests.support.qt import run_js, run_op, saved, view_of
from tests.support.server import LocalServer, Request

WINDOWS_CHROME = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0.6478.127 Safari/537.36")
TOKYO = {"latitude": 35.6895, "longitude": 139.6917, "accuracy": 25}

PAGE = """<!doctype html><title>who</title><script>
window.seen = (async () => {
  // Without an identity the real API asks for a permission nobody grants here: give up after 2 s.
  const position = await Promise.race([
    new Promise((resolve) => navigator.geolocation.getCurrentPosition(resolve, () => resolve(null))),
    new Promise((resolve) => setTimeout(() => resolve(null), 2000))]);
  const permission = await navigator.permissions.query({name: 'geolocation'});
  const brands = navigator.userAgentData ? navigator.userAgentData.brands.map((b) => b.brand + '/' + b.version) : [];
  await fetch('/sub');
  return {ua: navigator.userAgent, languages: navigator.languages, language: navigator.language,
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone, offset: new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset(),
    hours: new Date(Date.UTC(2026, 0, 1, 0, 30)).getHours(),
    localMidnight: new Date(2026, 0, 1).toISOString(),
    setter: (() => { const d = new Date(2026, 2, 29, 1, 30); d.setHours(3); return d.toISOString(); })(),
    text: new Date(Date.UTC(2026, 6, 1, 12)).toString(),
    locale: new Date(Date.UTC(2026, 0, 1, 0, 30)).toLocaleString('en-GB'),
    lat: position && position.coords.latitude, lon: position && position.coords.longitude,
    accuracy: position && position.coords.accuracy,
    permission: permission.state, brands, platform: navigator.userAgentData && navigator.userAgentData.platform,
    native: [Date, Date.prototype.getHours, Intl.DateTimeFormat, navigator.geolocation.getCurrentPosition]
      .map((f) => f.name + ': ' + Function.prototype.toString.call(f)),
    dates: new Date() instanceof Date && typeof Date.now() === 'number' && new Intl.DateTimeFormat() instanceof
      Intl.DateTimeFormat};
})().then((v) => { window.result = v; }, (e) => { window.result = {error: String(e && e.message || e)}; });
</script>"""


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def seen_by(qtbot: QtBot, shell: BrowserPilotApp, env_id: str, server: LocalServer) -> tuple[dict[str, Any], str]:
    tab = ok(run_op(qtbot, shell, "tab_open", {"env": env_id}))["tabId"]
    ok(run_op(qtbot, shell, "page_navigate", {"tabId": tab, "url": server.url("/who")}))
    view = view_of(shell, tab)
    qtbot.waitUntil(lambda: run_js(qtbot, view, "window.result || null") is not None, timeout=15_000)
    return run_js(qtbot, view, "window.result"), tab


def requests_to(server: LocalServer, path: str) -> list[Request]:
    return [r for r in server.requests if r.path == path]


@pytest.fixture
def identity_server(server: LocalServer) -> LocalServer:
    server.route("/who", PAGE)
    server.route("/sub", "{}", content_type="application/json")
    server.route("/direct", "direct", content_type="text/plain")
    server.route("/node", "from a workflow", content_type="text/plain")
    server.route("/report.csv", "a,b\r\n1,2", content_type="text/csv",
                 headers=[("Content-Disposition", 'attachment; filename="report.csv"')])
    return server


def test_an_environment_s_identity_reaches_its_server_and_its_pages_and_no_other(
        qtbot: QtBot, shell: BrowserPilotApp, identity_server: LocalServer) -> None:
    server = identity_server
    created = ok(run_op(qtbot, shell, "env_create", {
        "name": "Tokyo shopper", "userAgent": WINDOWS_CHROME, "languages": ["ja-JP", "en_us"],
        "timezone": "Asia/Tokyo", "geolocation": TOKYO}))["environment"]
    assert created["userAgent"] == WINDOWS_CHROME and created["languages"] == ["ja-JP", "en-US"]
    assert created["timezone"] == "Asia/Tokyo" and created["geolocation"] == {**TOKYO, "accuracy": 25.0}
    listed = next(e for e in ok(run_op(qtbot, shell, "env_list", {}))["environments"] if e["id"] == created["id"])
    assert listed["timezone"] == "Asia/Tokyo" and listed["languages"] == ["ja-JP", "en-US"]
    saved(qtbot, shell)
    on_disk = json.loads(shell.data.envs_json.read_text("utf-8"))["environments"][1]
    assert on_disk["userAgent"] == WINDOWS_CHROME and on_disk["geolocation"]["latitude"] == TOKYO["latitude"]

    page, tab = seen_by(qtbot, shell, created["id"], server)
    assert "error" not in page, page
    # The server saw the identity on the document and on the page's fetch.
    for request in (requests_to(server, "/who")[-1], requests_to(server, "/sub")[-1]):
        assert request.headers["user-agent"] == WINDOWS_CHROME
        assert request.headers["accept-language"].startswith("ja-JP,")
        assert "en-US" in request.headers["accept-language"]
        assert '"Google Chrome";v="126"' in request.headers["sec-ch-ua"]
        assert request.headers["sec-ch-ua-platform"] == '"Windows"'
    # The page's scripts see it.
    assert page["ua"] == WINDOWS_CHROME
    assert page["languages"] == ["ja-JP", "en-US"] and page["language"] == "ja-JP"
    assert "Google Chrome/126" in page["brands"] and page["platform"] == "Windows"
    assert page["zone"] == "Asia/Tokyo" and page["offset"] == -540 and page["hours"] == 9
    assert page["localMidnight"] == "2025-12-31T15:00:00.000Z" and page["setter"] == "2026-03-28T18:30:00.000Z"
    assert page["text"] == "Wed Jul 01 2026 21:00:00 GMT+0900 (Japan Standard Time)"
    assert page["locale"] == "01/01/2026, 09:30:00"
    assert (page["lat"], page["lon"], page["accuracy"]) == (35.6895, 139.6917, 25)
    assert page["permission"] == "granted"
    # What the environment changes still reads as the browser's own (names, native source text).
    assert page["native"] == [f"{name}: function {name}() {{ [native code] }}"
                              for name in ("Date", "getHours", "DateTimeFormat", "getCurrentPosition")]
    assert page["dates"] is True

    # A request the app sends for the tab carries the same identity.
    ok(run_op(qtbot, shell, "net_request", {"tabId": tab, "url": server.url("/direct")}))
    direct = requests_to(server, "/direct")[-1]
    assert direct.headers["user-agent"] == WINDOWS_CHROME and direct.headers["accept-language"].startswith("ja-JP")
    assert '"Google Chrome";v="126"' in direct.headers["sec-ch-ua"]
    # So do a download and a workflow's http-request node (in the page and direct) run in that environment.
    downloaded = ok(run_op(qtbot, shell, "page_download", {"tabId": tab, "url": server.url("/report.csv")}))
    assert Path(downloaded["path"]).read_bytes() == b"a,b\r\n1,2"
    assert requests_to(server, "/report.csv")[-1].headers["user-agent"] == WINDOWS_CHROME
    for via in ("page", "direct"):
        document = chain(f"Ask {via}", node("start", "start"), node("open", "goto", url=server.url("/who")),
                         node("ask", "http-request", url=server.url("/node"), via=via))
        run = ok(run_op(qtbot, shell, "workflow_run", {"workflow": document, "env": created["id"]},
                        timeout=60_000))["run"]
        assert run["status"] == "ok", run.get("error")
        asked = requests_to(server, "/node")[-1]
        assert asked.headers["user-agent"] == WINDOWS_CHROME and asked.headers["accept-language"].startswith("ja-JP")

    # Another environment keeps the browser's own identity.
    default_page, _tab = seen_by(qtbot, shell, "env-default", server)
    default_request = requests_to(server, "/who")[-1]
    assert "QtWebEngine" in default_request.headers["user-agent"] and "QtWebEngine" in default_page["ua"]
    assert "ja" not in default_request.headers.get("accept-language", "") and "ja-JP" not in default_page["languages"]
    assert "Google Chrome" not in default_request.headers.get("sec-ch-ua", "")
    assert default_page["zone"] != "Asia/Tokyo" and default_page["offset"] == 0  # this machine runs in UTC
    assert default_page["lat"] is None and default_page["permission"] != "granted"


def test_changing_and_clearing_an_identity_applies_to_the_next_page(
        qtbot: QtBot, shell: BrowserPilotApp, identity_server: LocalServer) -> None:
    server = identity_server
    env = shell.envs.create("Berlin")
    page, _tab = seen_by(qtbot, shell, env.id, server)
    assert "QtWebEngine" in page["ua"]
    ok(run_op(qtbot, shell, "env_update", {"env": env.id, "userAgent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) "
                                                                       "Gecko/20100101 Firefox/128.0",
                                           "languages": ["de-DE"], "timezone": "Europe/Berlin",
                                           "geolocation": {"latitude": 52.52, "longitude": 13.405}}))
    page, _tab = seen_by(qtbot, shell, env.id, server)
    request = requests_to(server, "/who")[-1]
    assert request.headers["user-agent"].endswith("Firefox/128.0")
    assert "Google Chrome" not in request.headers["sec-ch-ua"]  # QtWebEngine always sends its own low-entropy hints
    assert not any("Chrome" in brand for brand in page["brands"])
    assert page["zone"] == "Europe/Berlin" and page["offset"] == -60 and page["text"].endswith(
        "GMT+0200 (Central European Summer Time)")
    assert (page["lat"], page["accuracy"]) == (52.52, 50)
    assert page["setter"] == "2026-03-29T01:30:00.000Z"  # 03:30 the night the clocks go forward: CEST
    assert page["languages"] == ["de-DE"] and request.headers["accept-language"] == "de-DE"

    bad = run_op(qtbot, shell, "env_update", {"env": env.id, "timezone": "Europe/Atlantis"})
    assert not bad["ok"] and "not a known time zone" in bad["error"]
    bad = run_op(qtbot, shell, "env_update", {"env": env.id, "geolocation": {"latitude": 91, "longitude": 0}})
    assert not bad["ok"] and "latitude must be between -90 and 90" in bad["error"]
    bad = run_op(qtbot, shell, "env_update", {"env": env.id, "languages": ["english please"]})
    assert not bad["ok"] and "not a language tag" in bad["error"]
    assert shell.envs.get(env.id).timezone == "Europe/Berlin"  # a refused change loses nothing

    ok(run_op(qtbot, shell, "env_update", {"env": env.id, "userAgent": "", "languages": [], "timezone": "",
                                           "geolocation": {}}))
    page, _tab = seen_by(qtbot, shell, env.id, server)
    assert "QtWebEngine" in page["ua"] and page["zone"] != "Europe/Berlin" and page["lat"] is None
    assert "de" not in requests_to(server, "/who")[-1].headers.get("accept-language", "")
    assert not shell.envs.get(env.id).has_identity


def test_the_settings_dialog_sets_the_identity(qtbot: QtBot, shell: BrowserPilotApp) -> None:
    from app.ui.env_panel import EnvSettingsDialog

    env = shell.envs.create("Phone")
    dialog = EnvSettingsDialog(shell.envs.get(env.id))
    qtbot.addWidget(dialog)
    ok_button = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    dialog.user_agent.setText(WINDOWS_CHROME)
    dialog.languages.setText("zh-CN, en")
    dialog.timezone.setCurrentText("Asia/Shanghai")
    dialog.latitude.setText("31.23")
    dialog.longitude.setText("121.47")
    assert ok_button.isEnabled() and dialog.problem.isHidden()
    assert dialog.changes() == {"userAgent": WINDOWS_CHROME, "languages": ["zh-CN", "en"], "timezone": "Asia/Shanghai",
                                "geolocation": {"latitude": 31.23, "longitude": 121.47, "accuracy": 50.0}}
    dialog.timezone.setCurrentText("Asia/Atlantis")
    assert not ok_button.isEnabled() and "not a known time zone" in dialog.problem.text()
    dialog.timezone.setCurrentText("Asia/Shanghai")
    dialog.latitude.setText("north")
    assert not ok_button.isEnabled() and "latitude" in dialog.problem.text()
    dialog.latitude.setText("31.23")
    ok(run_op(qtbot, shell, "env_update", {"env": env.id, **dialog.changes()}))
    assert shell.envs.get(env.id).timezone == "Asia/Shanghai"
    again = EnvSettingsDialog(shell.envs.get(env.id))
    qtbot.addWidget(again)
    assert again.changes() == {}  # a dialog opened on the record shows it as it is


def test_the_command_line_sets_the_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli.main import main

    folder = str(tmp_path / "cli-data")
    assert main(["--data-dir", folder, "env", "update", "env-default", "--user-agent", WINDOWS_CHROME,
                 "--languages", "fr-FR", "fr", "--timezone", "Europe/Paris", "--geolocation", "48.85,2.35,10",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["userAgent"] == WINDOWS_CHROME and record["languages"] == ["fr-FR", "fr"]
    assert record["timezone"] == "Europe/Paris"
    assert record["geolocation"] == {"latitude": 48.85, "longitude": 2.35, "accuracy": 10.0}
    assert main(["--data-dir", folder, "env", "update", "env-default", "--timezone", "Paris"]) == 1
    assert "not a known time zone" in capsys.readouterr().err
    assert main(["--data-dir", folder, "env", "update", "env-default", "--clear-identity"]) == 0
    assert "identity:\t(the browser's)" in capsys.readouterr().out
