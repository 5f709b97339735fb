"""Recording in another site's frame with real X input: the app on an Xvfb desktop shows a
shop on 127.0.0.1 whose checkout embeds a card form served by 127.0.0.2; a person (xdotool: the window system's
own mouse and keyboard) records filling and submitting the form in the frame; the saved workflow is then replayed
headless by `browserpilot run` in a fresh process, and the payment site receives the same values again.

The frame's fields are found again through chains from the page (`iframe[name="pay"] >> …`): the shop's own
"Code" field has the same label as the frame's.

A custom select widget in another site's frame (tests/fixtures/widgets: select2 4, which takes the option on
mouseup and removes its list before the click; Tom Select) is chosen with the mouse: the recording has one
"Select 'Workshop' in combobox 'Category'" step, not a point in a container, and its replay opens the widget in
the frame and picks the option by its text; the frame's site receives the choice."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from PySide6.QtGui import QColor, QImage

from app.mcp.client import forward_operation
from app.stores.settings import SettingsStore
from plumbing.datadir import DataDir
from tests.support.app_process import app_on_desktop, run_cli
from tests.support.desktop import Desktop, desktop, missing_tools, wait_until  # noqa: F401 (a fixture)
from tests.support.frame_sites import PaySite, shop_routes
from tests.support.server import LocalServer, Response
from tests.support.widget_site import WidgetSite
from tests.support.x_person import XApp, x_app

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(bool(missing_tools()), reason=f"no desktop tools: {', '.join(missing_tools())} "
                                                                "(./dev.sh setup installs them)")]

CARD = "4000 0000 0000 0002"
# Marks the page's corner on the screen (a person finds the page by looking at it; so does the test).
CORNER = "(() => { const d = document.createElement('div'); d.id = 'corner'; d.style.cssText = " \
         "'position:fixed;left:0;top:0;width:6px;height:6px;background:rgb(255,0,255);z-index:99'; " \
         "document.body.appendChild(d); return devicePixelRatio; })()"
MAGENTA = QColor(255, 0, 255)


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[LocalServer, PaySite]]:
    with LocalServer("127.0.0.2") as other, LocalServer() as shop:
        pay = PaySite(other)
        shop_routes(shop, pay)
        yield shop, pay


def marker(image: QImage) -> tuple[int, int] | None:
    """The screen point of the page's top-left corner: the first pixel of its 6x6 magenta marker."""
    for y in range(image.height()):
        for x in range(0, image.width(), 3):
            if image.pixelColor(x, y) == MAGENTA and image.pixelColor(x, y + 5) == MAGENTA:
                while x > 0 and image.pixelColor(x - 1, y) == MAGENTA:
                    x -= 1
                return x, y
    return None


def call(data: Path, operation: str, /, **params: Any) -> dict[str, Any]:
    result = forward_operation(DataDir(data), operation, params)
    assert result.get("ok"), result
    return result


def test_a_person_records_the_frames_form_and_the_workflow_replays_it(
        desktop: Desktop, sites: tuple[LocalServer, PaySite], tmp_path: Path) -> None:
    shop, pay = sites
    data = tmp_path / "data"
    data.mkdir()
    SettingsStore(DataDir(data)).update(welcome_shown=True)
    with app_on_desktop(data, desktop.env(), tmp_path / "app.log"):
        wait_until(lambda: desktop.window_titled(r"^BrowserPilot$"), 60, "the main window")
        tab = call(data, "tab_open", url=shop.url("/checkout"))["tabId"]
        call(data, "page_unlock", tabId=tab)  # the person's tab: no agent overlay over it
        window = wait_until(lambda: desktop.window_titled(r"^Checkout — "), 30, "the checkout's window")
        desktop.run("xdotool", "windowactivate", "--sync", str(window))
        wait_until(lambda: call(data, "page_query", tabId=tab, locator={"selector": "#pay"})["count"] == 1, 20,
                   "the card form in its frame")
        ratio = call(data, "page_script", tabId=tab, source=CORNER)["value"]
        screen_x, screen_y = wait_until(lambda: marker(QImage(str(desktop.screenshot(tmp_path / "page.png")))), 10,
                                        "the page's corner on the screen")

        def at(selector: str, dx: float = 0.5, dy: float = 0.5) -> tuple[int, int]:
            row = call(data, "page_query", tabId=tab, locator={"selector": selector})["elements"][0]
            rect = row["rect"]
            return (round(screen_x + (rect["x"] + rect["width"] * dx) * ratio),
                    round(screen_y + (rect["y"] + rect["height"] * dy) * ratio))

        def click(selector: str, dx: float = 0.5) -> None:
            x, y = at(selector, dx)
            desktop.run("xdotool", "mousemove", "--sync", str(x), str(y), "click", "1")

        call(data, "record_start", tabId=tab)
        click("label=Card number")
        desktop.run("xdotool", "type", "--delay", "30", CARD)
        click('iframe[name="pay"] >> label=Name on card')
        desktop.run("xdotool", "type", "--delay", "30", "Grace Hopper")
        click('iframe[name="pay"] >> label=Code')
        desktop.run("xdotool", "type", "--delay", "30", "F-9")
        click("label=Plan")  # the select's own popup: the person picks with the keyboard
        desktop.run("xdotool", "key", "--delay", "80", "Down", "Return")
        click("text=Save card", 0.1)
        click("#pay")
        wait_until(lambda: len(pay.received) == 1, 20, "the payment site to receive the form")
        recorded = pay.received[0]
        assert recorded == {"card": [CARD], "holder": ["Grace Hopper"], "code": ["F-9"], "plan": ["Pro"],
                            "save": ["yes"]}, recorded

        def steps() -> list[dict[str, Any]]:
            return call(data, "record_status", tabId=tab)["steps"]

        wait_until(lambda: [s["type"] for s in steps()] == ["goto", "fill", "fill", "fill", "select", "click",
                                                           "click"], 20, "the recorded steps")
        for step in steps()[1:]:
            locator = step["data"]["locator"]
            chains = [a["selector"] for a in locator.get("alternatives") or [] if ">>" in a.get("selector", "")]
            assert chains and all(c.startswith('iframe[name="pay"] >> ') for c in chains), step
        # The frame's "Code" field: its primary locator also names the shop's own Code field, so replay tries the
        # chain through the frame first; the frame's own `label=Code` is no alternative (the shop's has it too).
        code = steps()[3]["data"]["locator"]
        assert code["prefer"] == 0 and code["alternatives"][0]["selector"].startswith('iframe[name="pay"] >> '), code
        assert {"label": "Code"} not in [{k: v for k, v in a.items() if k != "exact"} for a in code["alternatives"]]
        stopped = call(data, "record_stop", tabId=tab, name="Pay in the frame (recorded)")
        assert stopped["workflow"]["app"]["name"] == "Pay in the frame (recorded)"

    # Replayed headless in a fresh process, as `browserpilot run` does.
    variables = stopped["workflow"]["workflow"]["graph"]["nodes"][0]["data"]["variables"]
    inputs = [f"{v['variable']}={CARD}" for v in variables if v.get("type") == "secret"]
    assert len(inputs) == 1, variables
    ran = run_cli(data, "run", "Pay in the frame (recorded)", "--headless", "--json",
                  *[arg for value in inputs for arg in ("--input", value)], timeout=180)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert pay.received[1:] == [recorded], pay.received


# -- a custom select widget in another site's frame ----------------------------------------------------------------
@pytest.fixture(scope="module")
def embedded() -> Iterator[tuple[LocalServer, WidgetSite]]:
    """A portal on 127.0.0.1 whose page embeds the widget form of 127.0.0.2 in a frame (`/portal/<library>`)."""
    with LocalServer("127.0.0.2") as other, LocalServer() as portal:
        widgets = WidgetSite(other)

        def page(library: str) -> Response:
            return Response(f'<!doctype html><title>Portal</title><body style="margin:0;font:16px sans-serif">'
                            f'<h1 style="margin:10px 20px">Community portal</h1><iframe title="Event form" '
                            f'src="{widgets.url(library)}" style="margin-left:20px;width:540px;height:560px">'
                            f'</iframe></body>')

        for library in ("select2-4", "tom-select"):
            portal.route(f"/portal/{library}", lambda request, library=library: page(library))
        yield portal, widgets


@pytest.fixture(scope="module")
def xapp(desktop: Desktop, tmp_path_factory: pytest.TempPathFactory) -> Iterator[XApp]:
    yield from x_app(desktop, tmp_path_factory.mktemp("xapp"))


OPENERS = {"select2-4": ".select2-selection", "tom-select": ".ts-control"}


@pytest.mark.parametrize("library", ["select2-4", "tom-select"])
def test_a_choice_in_a_custom_select_widget_in_another_sites_frame_is_one_step_that_replays(
        xapp: XApp, embedded: tuple[LocalServer, WidgetSite], library: str) -> None:
    portal, widgets = embedded
    frame = 'iframe[title="Event form"] >> '
    person = xapp.open(portal.url(f"/portal/{library}"))
    wait_until(lambda: xapp.ok("page_query", tabId=person.tab, locator={"selector": frame + OPENERS[library]})["count"],
               20, "the widget in its frame")
    xapp.ok("record_start", tabId=person.tab)
    person.click(frame + "#id_title")
    person.type("Pottery")
    person.click(frame + OPENERS[library])
    option = {"selector": frame + "xpath=//*[@role='option'][normalize-space(.)='Workshop']"}
    listbox = {"selector": frame + "xpath=//*[@role='listbox'][.//*[@role='option'][normalize-space(.)='Workshop']]"}
    wait_until(lambda: xapp.ok("page_query", tabId=person.tab, locator=option)["count"], 10, "the open list")
    for _ in range(30):  # the wheel over the list until the option shows in it, as a person scrolls
        shown, inside = person.rect(listbox), person.rect(option)
        if shown["y"] <= inside["y"] and inside["y"] + inside["height"] <= shown["y"] + shown["height"]:
            break
        person.wheel(2, over=listbox)
    person.click(option)
    sent = len(widgets.sent)
    person.click(frame + "input[type=submit]")
    wait_until(lambda: len(widgets.sent) > sent, 10, "the frame's form at its site")
    assert widgets.sent[-1] == {"title": ["Pottery"], "category": ["workshop"], "_save": ["Save"]}
    steps = person.steps_when(lambda steps: steps[-1]["type"] == "click" and steps[-1]["words"].endswith("'Save'"))
    assert [s["words"] for s in steps[1:]] == ["Type 'Pottery' into textbox 'Title'",
                                               "Select 'Workshop' in combobox 'Category'", "Click button 'Save'"]
    choice = steps[2]["data"]
    assert choice["option"] == "Workshop", choice
    for locator in (choice["locator"], choice["native"]):  # the widget and its <select>, through the frame
        assert any(a.get("selector", "").startswith(frame) for a in locator["alternatives"]), locator
    stopped = xapp.ok("record_stop", tabId=person.tab, name=f"Workshop in a frame ({library})")
    assert "notes" not in stopped, stopped["notes"]
    before = len(widgets.sent)
    result = xapp.call("workflow_run", workflow=stopped["workflow"], tabId=person.tab)
    assert result["ok"], result.get("error")
    wait_until(lambda: len(widgets.sent) > before, 10, "the replayed form at the frame's site")
    assert widgets.sent[before:] == [{"title": ["Pottery"], "category": ["workshop"], "_save": ["Save"]}]
