"""Another site's frames: a shop on 127.0.0.1 embeds a payment form served by 127.0.0.2 (two
hosts: two sites, so the frame runs in a renderer of its own and the shop's scripts cannot read it).

Locators of every kind reach into the frame (and a chain through it), the snapshot shows its content with refs
that act, trusted input lands on its fields, the workflow engine's page nodes fill and submit it (the other
host receives the values), the input fence ends on the frame's own report, the domain policy and the bound
secrets are checked against the frame's own address. What counts is what the servers received."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser import frames, locators as L
from app.browser.input_driver import InputDriver
from app.browser.js import APP_WORLD, run_js as run_js_in
from app.browser.tab import BrowserTab
from app.wiring.shell import BrowserPilotApp
from tests.support.frame_sites import PaySite, shop_routes
from tests.support.qt import call, fails, open_view, run_js, run_op, running_app, wait_loaded
from tests.support.server import LocalServer
from workflows.ports import Locator


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("frames-data"), windows=True) as shell:
        yield shell


@pytest.fixture(scope="module")
def pay() -> Iterator[PaySite]:
    with LocalServer("127.0.0.2") as server:
        yield PaySite(server)


@pytest.fixture(scope="module")
def shop(pay: PaySite) -> Iterator[LocalServer]:
    with LocalServer() as server:
        shop_routes(server, pay)
        yield server


def frame_of(tab: BrowserTab) -> Any:
    children = tab.page().mainFrame().children()
    return children[0] if children else None


def open_checkout(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer, env: str = "env-default") -> BrowserTab:
    tab = open_view(app, env, shop.url("/checkout"))
    wait_loaded(qtbot, tab)
    qtbot.waitUntil(lambda: frame_of(tab) is not None and frame_of(tab).url().host() == "127.0.0.2", timeout=10_000)
    page = tab.page()
    qtbot.waitUntil(lambda: call(qtbot, L.count(page, "#pay")) == 1, timeout=10_000)
    return tab


def frame_js(qtbot: QtBot, tab: BrowserTab, source: str) -> Any:
    """An expression evaluated in the payment frame's own document (its page world)."""
    box: list[Any] = []
    frame_of(tab).runJavaScript(f"JSON.stringify({source})", 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=10_000)
    import json
    return json.loads(box[0]) if box[0] not in ("", None) else None


def test_locators_of_every_kind_reach_into_the_frame(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer,
                                                      pay: PaySite) -> None:
    tab = open_checkout(qtbot, app, shop)
    page = tab.page()
    found = call(qtbot, frames.scopes(page))
    assert [(s.main, s.url) for s in found] == [(True, shop.url("/checkout")), (False, pay.server.url("/card"))]

    # CSS, XPath, role + name, label, placeholder-free text, and a chain through the frame's <iframe>.
    for locator in ("#pay", 'role=button[name="Pay now"]', "text=Pay now", 'iframe[name="pay"] >> button',
                    Locator(xpath="//button[@id='pay']")):
        assert call(qtbot, L.resolve(page, locator)) == "<button id=pay>Pay now</button>", locator
    assert call(qtbot, L.resolve(page, "label=Card number")) == "<input name=card>"
    # "Code" names a field of the page and one of the frame: two matches, each said where it is.
    message = fails(qtbot, L.resolve(page, "label=Code"), L.AmbiguousMatch)
    assert message == ('2 elements match "label=Code": <input id=code name=code>, <input name=code> '
                       f"(in a frame of {pay.site})")
    assert call(qtbot, L.resolve(page, 'iframe[title="Payment"] >> label=Code')) == "<input name=code>"

    # Rects are in the top-level viewport: the frame's content starts at (24, 124) inside its 4px border.
    inside = frame_js(qtbot, tab, "(() => { const r = document.getElementById('pay').getBoundingClientRect(); "
                                  "return [r.x, r.y, r.width, r.height]; })()")
    row = call(qtbot, L.query(page, "#pay")).rows[0]
    assert (row.rect.x, row.rect.y, row.rect.width, row.rect.height) == \
        pytest.approx((inside[0] + 24, inside[1] + 124, inside[2], inside[3]), abs=0.01)
    assert row.ref.startswith("f") and row.visible and row.hittable
    assert row.frame == f'<iframe name=pay> ({pay.site})'
    target = call(qtbot, L.wait_actionable(page, Locator(ref=row.ref)))
    assert (target.x, target.y) == pytest.approx((row.rect.x + row.rect.width / 2, row.rect.y + row.rect.height / 2),
                                                 abs=0.01)
    assert target.frame_url == pay.server.url("/card")

    # The snapshot shows the frame's content under its iframe line, with refs that act.
    text = call(qtbot, L.snapshot(page)).text
    assert f'- iframe "Payment" ({pay.site}):' in text, text
    pay_ref = re.search(r'button "Pay now" \[ref=(f\d+e\d+)\]', text)
    assert pay_ref, text
    assert call(qtbot, L.resolve(page, Locator(ref=pay_ref.group(1)))) == "<button id=pay>Pay now</button>"

    # A cover over the frame is found at the page's level.
    run_js(qtbot, tab, "(() => { const d = document.createElement('div'); d.id = 'veil'; d.style.cssText = "
                       "'position:absolute;left:0;top:100px;width:600px;height:400px;background:rgba(0,0,0,.3)'; "
                       "document.body.appendChild(d); return 1; })()")
    message = fails(qtbot, L.wait_actionable(page, "#pay", timeout=0.3), L.Covered)
    assert message == '<button id=pay>Pay now</button> is covered by <div id=veil>'
    run_js(qtbot, tab, "(document.getElementById('veil').remove(), 1)")
    app.service.close(tab.tab_id)


def test_the_input_fence_ends_on_the_frames_own_report(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer,
                                                       pay: PaySite) -> None:
    """After input that the frame handles, the fence hears the frame's probe (its document, not the page's), so
    an action there does not wait the fence's limit; input to the page is still heard from the page."""
    tab = open_checkout(qtbot, app, shop)
    page = tab.page()
    driver = InputDriver(tab)
    field = call(qtbot, L.wait_actionable(page, "label=Card number"))
    call(qtbot, driver.click(field.x, field.y))
    fenced = call(qtbot, driver.fence())
    assert fenced.frame is not None and fenced.frame.url().host() == "127.0.0.2"
    assert fenced.document == call(qtbot, run_js_in(frame_of(tab), "window.__bpDocumentId", world=APP_WORLD))
    call(qtbot, driver.type_text("4242"))
    fenced = call(qtbot, driver.fence())
    assert fenced.frame is not None and not fenced.replaced
    assert frame_js(qtbot, tab, "document.querySelector('[name=card]').value") == "4242"
    own = call(qtbot, L.wait_actionable(page, "#code"))
    call(qtbot, driver.click(own.x, own.y))
    fenced = call(qtbot, driver.fence())
    assert fenced.frame is None and fenced.document is not None
    app.service.close(tab.tab_id)


def test_the_agents_page_operations_act_in_the_frame(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer,
                                                     pay: PaySite) -> None:
    """As an MCP client or the agent calls them: the snapshot's refs of the frame act (trusted input), a select
    and a chain work, and page_script runs in the frame given a part of its address."""
    tab = open_checkout(qtbot, app, shop)
    tab_id = tab.tab_id

    def op(name: str, **params: Any) -> dict[str, Any]:
        result = run_op(qtbot, app, name, {"tabId": tab_id, **params})
        assert result["ok"], result
        return result

    snapshot = op("page_snapshot")["snapshot"]
    refs = dict(re.findall(r'- (\w+ "[^"]+") \[ref=(f\d+e\d+)\]', snapshot))
    assert set(refs) >= {'textbox "Name on card"', 'checkbox "Save card"', 'combobox "Plan"', 'button "Pay now"'}, \
        snapshot
    op("page_type", locator={"ref": refs['textbox "Name on card"']}, text="Ada Lovelace")
    op("page_click", locator={"ref": refs['checkbox "Save card"']})
    assert op("page_select", locator={"selector": "label=Plan"}, option="Team")["text"] == "Team"
    found = op("page_query", locator={"selector": 'iframe[name="pay"] >> role=button'})
    assert found["count"] == 1 and found["elements"][0]["frame"] == f"<iframe name=pay> ({pay.site})"
    state = op("page_script", frame="127.0.0.2", source="""({holder: document.querySelector('[name=holder]').value,
        save: document.querySelector('[name=save]').checked, plan: document.querySelector('[name=plan]').value,
        trusted: window.trusted})""")["value"]
    assert state == {"holder": "Ada Lovelace", "save": True, "plan": "Team", "trusted": [True, True]}, state
    assert op("page_script", source="document.title")["value"] == "Checkout"  # the page itself, as before
    app.service.close(tab_id)


def test_a_submission_in_the_frame_that_the_policy_blocks_fails_the_action(
        qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer, pay: PaySite) -> None:
    """The frame's form posts to a third host, which the environment blocks: Enter in the frame fails, naming
    the rule, instead of "ok" for a payment that went nowhere."""
    with LocalServer("127.0.0.3") as third:
        third.route("/pay", "<title>Paid elsewhere</title>")
        pay.server.route("/card-elsewhere", f"<form method=post action={third.url('/pay')}><label>Code "
                                            f"<input name=code></label></form>")
        shop.route("/elsewhere", f"<iframe name=pay src={pay.server.url('/card-elsewhere')}></iframe>")
        tab = open_view(app, "env-default", shop.url("/elsewhere"))
        wait_loaded(qtbot, tab)
        assert run_op(qtbot, app, "env_update", {"env": "env-default", "blockedDomains": ["127.0.0.3"]})["ok"]
        try:
            typed = run_op(qtbot, app, "page_type", {"tabId": tab.tab_id, "locator": {"selector": "label=Code"},
                                                     "text": "7"})
            assert typed["ok"], typed
            sent = run_op(qtbot, app, "page_key", {"tabId": tab.tab_id, "shortcut": "enter"}, timeout=60_000)
            assert not sent["ok"] and sent["code"] == "blocked", sent
            assert sent["error"] == "blocked by the policy of env-default: 127.0.0.3 (blockedDomains: 127.0.0.3)"
            assert third.hits("/pay") == []
        finally:
            assert run_op(qtbot, app, "env_update", {"env": "env-default", "blockedDomains": []})["ok"]
            app.service.close(tab.tab_id)


def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "data": {"type": kind, **data}}


def workflow(name: str, *nodes: dict[str, Any], variables: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    every = [node("start", "start", variables=variables or []), *nodes, node("end", "end")]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": every, "edges": [{"source": a["id"], "target": b["id"]}
                                                            for a, b in zip(every, every[1:])]}}}


def secret(name: str, *domains: str) -> dict[str, Any]:
    return {"variable": name, "label": name, "type": "secret", "required": True, "domains": list(domains)}


CARD = "4242 4242 4242 4242"
CODE = "SHOP-Ü-7"


def pay_flow(shop: LocalServer, card_site: str = "127.0.0.2", code_site: str = "127.0.0.1") -> dict[str, Any]:
    """The checkout as a workflow: the frame's fields by label, role, text and a chain through the <iframe>; the
    page's own field by id; the card number and the shop's code are secrets bound to their sites."""
    return workflow(
        "Pay in the frame",
        node("go", "goto", url=shop.url("/checkout")),
        node("scode", "fill", locator={"selector": "#code"}, text="{{#input.code#}}"),
        node("apply", "click", locator={"selector": "#apply"}),
        node("ready", "wait", locator={"selector": "text=Pay now"}, state="appear", timeout=5),
        node("card", "fill", locator={"selector": "label=Card number"}, text="{{#input.card#}}"),
        node("holder", "fill", locator={"selector": 'role=textbox[name="Name on card"]'}, text="Ada Lovelace"),
        node("plan", "select", locator={"selector": "label=Plan"}, option="Pro"),
        node("save", "click", locator={"selector": "text=Save card"}),
        node("fcode", "fill", locator={"selector": 'iframe[title="Payment"] >> label=Code'}, text="F-1"),
        node("pay", "press", shortcut="enter"),  # in the frame's Code field: the frame's form is submitted
        node("paid", "wait", locator={"selector": "text=Paid, thank you"}, state="appear", timeout=10),
        node("gone", "wait", locator={"selector": "label=Card number"}, state="gone", timeout=5),
        variables=[secret("card", card_site), secret("code", code_site)])


def test_a_workflow_fills_and_submits_the_frames_form(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer,
                                                      pay: PaySite) -> None:
    before = len(pay.received)
    ran = run_op(qtbot, app, "workflow_run", {"workflow": pay_flow(shop), "inputs": {"card": CARD, "code": CODE}},
                 timeout=90_000)
    assert ran["ok"], ran.get("error")
    assert pay.received[before:] == [{"card": [CARD], "holder": ["Ada Lovelace"], "code": ["F-1"], "plan": ["Pro"],
                                      "save": ["yes"]}]
    assert [r.query for r in shop.hits("/apply")][-1:] == [{"code": [CODE]}]


def test_an_upload_node_chooses_a_file_in_the_frame(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer,
                                                    pay: PaySite, tmp_path: Any) -> None:
    receipt = tmp_path / "receipt.txt"
    receipt.write_bytes(b"paid in full\n")
    ran = run_op(qtbot, app, "workflow_run", {"workflow": workflow(
        "Receipt in the frame", node("go", "goto", url=shop.url("/receipt")),
        node("up", "upload", locator={"selector": "label=Receipt"}, paths=[str(receipt)]))}, timeout=60_000)
    assert ran["ok"], ran.get("error")
    chosen = pay.server.wait_for("/chosen")
    assert chosen[-1].query == {"name": ["receipt.txt"], "size": ["13"]}


def test_a_secret_goes_only_into_its_own_sites_frame(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer,
                                                     pay: PaySite) -> None:
    """The card number bound to the shop is refused in the payment frame, and the shop's code bound to the
    payment site is refused in the shop's own page: nothing typed, nothing sent."""
    before = len(pay.received)
    wrong_card = run_op(qtbot, app, "workflow_run", {"workflow": pay_flow(shop, card_site="127.0.0.1"),
                                                     "inputs": {"card": CARD, "code": CODE}}, timeout=60_000)
    assert not wrong_card["ok"]
    run = wrong_card["run"]
    assert run["node"] == "card" and run["error"] == (
        "node 'card' (fill): the secret 'card' may be typed only into pages of 127.0.0.1, and the field is in a "
        f"frame on {pay.site}: refused, nothing was typed")
    applied = len(shop.hits("/apply"))
    wrong_code = run_op(qtbot, app, "workflow_run", {"workflow": pay_flow(shop, code_site="127.0.0.2"),
                                                     "inputs": {"card": CARD, "code": CODE}}, timeout=60_000)
    assert not wrong_code["ok"]
    run = wrong_code["run"]
    assert run["node"] == "scode" and run["error"] == (
        "node 'scode' (fill): the secret 'code' may be typed only into pages of 127.0.0.2, and the page is on "
        f"http://127.0.0.1:{shop.port}: refused, nothing was typed")
    assert len(pay.received) == before and len(shop.hits("/apply")) == applied
    assert CARD not in str(wrong_card) + str(wrong_code) and CODE not in str(wrong_card) + str(wrong_code)


def test_the_domain_policy_is_the_frames_own(qtbot: QtBot, app: BrowserPilotApp, shop: LocalServer,
                                             pay: PaySite) -> None:
    """An environment that allows only the shop: the frame never loads, and a step in it says why. The same
    page opened before the payment site was blocked: nothing is done in the frame, and the error says so."""
    strict = run_op(qtbot, app, "env_create", {"name": "Shop only"})
    assert strict["ok"], strict
    env = strict["environment"]["id"]
    assert run_op(qtbot, app, "env_update", {"env": env, "allowedDomains": ["127.0.0.1"]})["ok"]
    tab = open_view(app, env, shop.url("/checkout"))
    wait_loaded(qtbot, tab)
    tab_id = tab.tab_id
    refused = run_op(qtbot, app, "page_type", {"tabId": tab_id, "locator": {"selector": "label=Card number"},
                                               "text": "4242", "timeoutMs": 500})
    assert not refused["ok"]
    assert refused["error"] == (f'no element matches "label=Card number"; the frame of {pay.site} was not loaded: '
                                f"blocked by the policy of {env}: 127.0.0.2 (not in allowedDomains)")
    # A recorded step (alternatives and a fingerprint: replay looks and heals) says it too.
    card = {"selector": "label=Card number", "alternatives": [{"role": "textbox", "name": "Card number"}],
            "fingerprint": {"v": 1, "kind": "text", "tag": "input", "type": "text", "role": "textbox",
                            "name": "Card number", "label": "Card number", "attrs": {"name": "card"},
                            "form": {"tag": "form", "id": "", "name": "", "action": "/pay", "label": "",
                                     "shape": ["button", "check", "select", "text", "text", "text"]},
                            "index": 0, "of": 3, "sort": "text/input/text", "sole": False, "near": "Card number"}}
    failed = run_op(qtbot, app, "workflow_run", {"env": env, "tabId": tab_id, "workflow": workflow(
        "Card only", node("card", "fill", locator=card, text="4242", timeout=1))}, timeout=60_000)
    assert not failed["ok"] and failed["run"]["node"] == "card"
    assert failed["run"]["error"].endswith(f"; the frame of {pay.site} was not loaded: blocked by the policy of "
                                           f"{env}: 127.0.0.2 (not in allowedDomains)"), failed["run"]["error"]
    app.service.close(tab_id)

    tab = open_checkout(qtbot, app, shop)
    assert run_op(qtbot, app, "env_update", {"env": "env-default", "blockedDomains": ["127.0.0.2"]})["ok"]
    try:
        refused = run_op(qtbot, app, "page_type", {"tabId": tab.tab_id, "locator": {"selector": "label=Card number"},
                                                   "text": "4242"})
        assert not refused["ok"] and refused["code"] == "blocked", refused
        assert refused["error"] == (f"<input name=card> is in a frame of {pay.site}, blocked by the policy of "
                                    f"env-default: 127.0.0.2 (blockedDomains: 127.0.0.2): nothing was done")
        assert frame_js(qtbot, tab, "document.querySelector('[name=card]').value") == ""
    finally:
        assert run_op(qtbot, app, "env_update", {"env": "env-default", "blockedDomains": []})["ok"]
        app.service.close(tab.tab_id)
