"""Recording as a person does it on a real desktop: the app's windows on Xvfb, the person's mouse and
keyboard through X (xdotool), the recording read back with record_status and replayed with workflow_run, the
server judging what each replay did.

- An agent reading the page while the person records (page_query polled across a page load the person
  started) never pauses the recording: every step of the person's is there, and the replay sends what they did.
- Wheel scrolling that only brought the next target into view is not a step; scrolling that loads more (an
  infinite list) is kept, and replays.
- A link with no unique text (an admin index, a tracker's sidebar) is recorded by what it is, its text and the
  path it leads to, not by its position: the primary matches it on the unchanged page.
- Custom select widgets (tests/fixtures/widgets, from npm: select2 3 and 4, Choices.js, Tom Select,
  react-select), chosen with the mouse (the wheel over the list, a click) or by typing and Enter: one `select`
  step "Select 'Workshop' in combobox 'Category'", replayed through the widget with the native <select>
  underneath as the check, on the page as recorded and after a redesign; the server receives the choice.
- A list the page builds when it opens and removes as an item is taken (on mousedown, as Gradio's dropdown does;
  no ARIA says it is a list box): the browser gives the click to a container that stayed; the recording has a
  click on the item the pointer went down on (found by its text), never a point in the container, and replays it.
- Web components (tests/support/component_site.py: open shadow roots, the same `id` in every component, a
  checkbox with no label, a labelled checkbox the person checks by its label, a rich-text area): every action is
  one step found through the shadow roots (role and label, or the host by its own name then the element), and
  the replay sends what the person did, on the page as recorded and after a redesign of its wrappers and hosts.
- An action on an element nothing can find again is kept in the recording, marked; record_stop refuses to save
  a workflow without it until the person deletes the step.
"""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any, Iterator

import pytest

from tests.support.component_site import component_page
from tests.support.desktop import Desktop, desktop, missing_tools, wait_until  # noqa: F401 (a fixture)
from tests.support.redesign_pages import ADMIN_INDEX
from tests.support.server import LocalServer, Request, Response
from tests.support.widget_site import LIBRARIES, WidgetSite
from tests.support.x_person import XApp, XPerson, x_app

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(bool(missing_tools()), reason=f"no desktop tools: {', '.join(missing_tools())} "
                                                                "(./dev.sh setup installs them)")]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as local:
        yield local


@pytest.fixture(scope="module")
def app(desktop: Desktop, tmp_path_factory: pytest.TempPathFactory) -> Iterator[XApp]:
    yield from x_app(desktop, tmp_path_factory.mktemp("xapp"))


def shows(app: XApp, person: XPerson, locator: dict[str, str]) -> None:
    """Wait until the page shows the element (as a person looks before acting)."""
    wait_until(lambda: app.ok("page_query", tabId=person.tab, locator=locator)["count"], 10, f"{locator} to show")


def stop_and_replay(app: XApp, person: XPerson, name: str) -> dict[str, Any]:
    app.ok("record_stop", tabId=person.tab, name=name)
    return app.call("workflow_run", name=name, tabId=person.tab)


# -- 6: reading never pauses a recording ---------------------------------------------------------------------
class Held:
    """A page whose answer waits until the test lets it go (the person's page load is in flight meanwhile)."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.release = threading.Event()

    def __call__(self, request: Request) -> Response:
        self.release.wait(30)
        return Response(self.body)


READ_START = """<!doctype html><title>Start</title><body style="margin:0;font:18px sans-serif">
<p style="margin:40px"><a href="/read-form">Open the form</a></p></body>"""
READ_FORM = """<!doctype html><title>Form</title><body style="margin:0;font:18px sans-serif">
<form action="/read-sent" style="margin:40px"><label for=t>Title</label> <input id=t name=title>
<button>Send</button></form></body>"""


def test_an_agent_reading_the_page_never_pauses_the_recording(app: XApp, server: LocalServer) -> None:
    held = Held(READ_FORM)
    server.route("/read-start", READ_START)
    server.route("/read-form", held)
    server.route("/read-sent", "<!doctype html><title>Sent</title><p>sent</p>")
    person = app.open(server.url("/read-start"))
    app.ok("record_start", tabId=person.tab)
    reading = threading.Event()
    paused_seen: list[str] = []
    reads = [0]

    def agent() -> None:  # an MCP client reading the page while the person works, as fast as it can
        while reading.is_set():
            app.call("page_query", tabId=person.tab, locator={"selector": "input, a"})
            reads[0] += 1
            paused = app.ok("record_status", tabId=person.tab).get("paused")
            if paused:
                paused_seen.append(paused)

    reading.set()
    thread = threading.Thread(target=agent)
    thread.start()
    try:
        person.click("a")  # a page load the agent reads across
        wait_until(lambda: reads[0] >= 5, 30, "the agent's reads")
        held.release.set()
        person.steps_when(lambda steps: len(steps) >= 2)
        shows(app, person, {"selector": "#t"})
        person.click("#t")
        person.type("Quarterly report")
        person.click("button")
        steps = person.steps_when(lambda steps: len(steps) >= 4 and steps[-1]["type"] == "click")
    finally:
        reading.clear()
        thread.join()
    assert not paused_seen, paused_seen
    assert [s["words"] for s in steps[1:]] == ["Click link 'Open the form'", "Type 'Quarterly report' into textbox "
                                               "'Title'", "Click button 'Send'"]
    assert server.hits("/read-sent")[-1].query == {"title": ["Quarterly report"]}
    result = stop_and_replay(app, person, "Read while recording")
    assert result["ok"], result
    assert len(server.hits("/read-sent")) == 2 and server.hits("/read-sent")[-1].query == {"title": ["Quarterly report"]}


def test_after_an_agent_acts_across_a_page_load_the_persons_steps_are_recorded(app: XApp, server: LocalServer
                                                                               ) -> None:
    server.route("/act-start", READ_START.replace("/read-form", "/act-form"))
    server.route("/act-form", READ_FORM.replace("/read-sent", "/act-sent"))
    server.route("/act-sent", "<!doctype html><title>Sent</title><p>sent</p>")
    person = app.open(server.url("/act-start"))
    app.ok("record_start", tabId=person.tab)
    app.ok("page_click", tabId=person.tab, locator={"selector": "a"})  # the agent opens the form: a new page
    wait_until(lambda: "paused" not in app.ok("record_status", tabId=person.tab), 5, "the recording to resume")
    shows(app, person, {"selector": "#t"})
    person.click("#t")
    person.type("Minutes")
    person.click("button")
    steps = person.steps_when(lambda steps: steps[-1]["type"] == "click")
    assert [s["words"] for s in steps[1:]] == ["Type 'Minutes' into textbox 'Title'", "Click button 'Send'"]
    assert server.hits("/act-sent")[-1].query == {"title": ["Minutes"]}
    app.ok("record_stop", tabId=person.tab, name="After the agent", save=False)


# -- 1: a link is recorded by what it is -------------------------------------------------------------------------
def test_a_link_without_unique_text_is_recorded_by_its_address_and_replays_without_healing(
        app: XApp, server: LocalServer) -> None:
    server.route("/admin/", f"<!doctype html><title>Site administration</title>{ADMIN_INDEX.replace('RECENT', '')}")
    server.route("/admin/events/event/", "<!doctype html><title>Select event to change</title><p>events</p>")
    person = app.open(server.url("/admin/"))
    app.ok("record_start", tabId=person.tab)
    person.click("tr.model-event th a")  # "Events", the model (the app's caption says "Events" too)
    steps = person.steps_when(lambda steps: steps[-1]["type"] == "click")
    locator = steps[-1]["data"]["locator"]
    assert steps[-1]["words"] == "Click link 'Events'"
    assert locator.get("selector") == 'a[href="/admin/events/event/"]', locator
    name = "Open the events"
    app.ok("record_stop", tabId=person.tab, name=name)
    app.ok("page_navigate", tabId=person.tab, url=server.url("/admin/"))  # the unchanged page: the primary finds it
    assert app.ok("page_query", tabId=person.tab, locator={"selector": locator["selector"]})["count"] == 1
    result = app.call("workflow_run", name=name, tabId=person.tab)
    assert result["ok"], result.get("error")
    assert not [entry for entry in result["run"]["trace"] if entry.get("healed")]
    assert len(server.hits("/admin/events/event/")) == 2


# -- 4: scrolling --------------------------------------------------------------------------------------------
def long_page(filler: int) -> str:
    return f"""<!doctype html><title>Long</title><body style="margin:0;font:18px sans-serif">
<h1 style="margin:20px">Terms</h1>{''.join(f'<p style="margin:20px;height:60px">Clause {i}</p>' for i in range(filler))}
<form action="/long-sent" style="margin:20px"><label for=d>Description</label> <input id=d name=description>
<button>Accept</button></form></body>"""


def test_scrolling_that_only_brings_the_next_target_into_view_is_not_a_step(app: XApp, server: LocalServer) -> None:
    layout = {"filler": 30}
    server.route("/long", lambda request: Response(long_page(layout["filler"])))
    server.route("/long-sent", "<!doctype html><title>Accepted</title><p>ok</p>")
    person = app.open(server.url("/long"))
    app.ok("record_start", tabId=person.tab)
    for _ in range(40):  # the wheel, until the field shows (as a person scrolls: look, scroll again)
        if person.rect({"selector": "#d"})["y"] < 500:
            break
        person.wheel(4)
    person.click("#d")
    person.type("as agreed")
    person.click("button")
    steps = person.steps_when(lambda steps: steps[-1]["type"] == "click")
    assert [s["type"] for s in steps] == ["goto", "fill", "click"], [s["words"] for s in steps]
    assert server.hits("/long-sent")[-1].query == {"description": ["as agreed"]}
    layout["filler"] = 400  # a redesign with far more above the form
    result = stop_and_replay(app, person, "Accept the terms")
    assert result["ok"], result.get("error")
    assert len(server.hits("/long-sent")) == 2 and server.hits("/long-sent")[-1].query == {"description": ["as agreed"]}


INFINITE = """<!doctype html><title>Feed</title><body style="margin:0;font:18px sans-serif"><h1 style="margin:20px">Feed</h1>
<ul id=feed style="margin:20px"></ul><p id=more style="margin:20px">Loading…</p>
<script>
let next = 1, loading = false;
async function more() {
  if (loading || next > 60) return;
  loading = true;
  const items = await (await fetch('/feed-page?from=' + next)).json();
  for (const text of items) {
    const li = document.createElement('li');
    li.style.height = '50px';
    li.innerHTML = `<button onclick="fetch('/feed-open?item=${encodeURIComponent(text)}')">${text}</button>`;
    document.getElementById('feed').append(li);
  }
  next += items.length;
  loading = false;
  if (document.documentElement.scrollHeight < innerHeight + 300) more();
}
addEventListener('scroll', () => { if (innerHeight + scrollY > document.documentElement.scrollHeight - 300) more(); });
more();
</script></body>"""


def test_scrolling_that_loads_more_of_a_list_is_kept_and_replays(app: XApp, server: LocalServer) -> None:
    server.route("/feed", INFINITE)
    server.route("/feed-page", lambda request: Response(json.dumps(
        [f"Post {i}" for i in range(int(request.query["from"][0]), int(request.query["from"][0]) + 10)]),
        headers=[("Content-Type", "application/json")]))
    server.route("/feed-open", "ok")
    person = app.open(server.url("/feed"))
    app.ok("record_start", tabId=person.tab)
    target = {"xpath": "//button[normalize-space(.)='Post 27']"}
    for _ in range(60):  # the list grows as the person scrolls
        found = app.ok("page_query", tabId=person.tab, locator=target)
        if found["count"] and 0 < found["elements"][0]["rect"]["y"] < 500:
            break
        person.wheel(3)
    person.click(target)
    steps = person.steps_when(lambda steps: steps[-1]["type"] == "click")
    assert [s["type"] for s in steps] == ["goto", "scroll", "click"], [s["words"] for s in steps]
    assert steps[1]["words"] == "Scroll down until button 'Post 27' shows"
    assert server.hits("/feed-open")[-1].query == {"item": ["Post 27"]}
    result = stop_and_replay(app, person, "Open post 27")
    assert result["ok"], result.get("error")
    assert len(server.hits("/feed-open")) == 2 and server.hits("/feed-open")[-1].query == {"item": ["Post 27"]}


# -- a click whose target the page removed before the click ended --------------------------------------------------
GONE_FORM = """<!doctype html><title>Plan</title><body style="margin:0;font:18px sans-serif">
<form action="/gone-sent" style="margin:40px"><label for=t>Title</label> <input id=t name=title>
<input type=hidden name=kind id=kind value=standard>
<div class=picker style="margin:20px 0;height:220px"><span id=shown>Standard</span>
<button type=button id=open>Change plan</button></div><button>Save</button></form>
<script>
const picker = document.querySelector('.picker');
document.getElementById('open').addEventListener('click', () => {
  const list = document.createElement('ul');
  list.style.cssText = 'margin:4px 0;padding:0;list-style:none;width:200px;border:1px solid #888';
  for (const name of ['Standard', 'Plus', 'Premium', 'Business']) {
    const item = document.createElement('li');
    item.textContent = name;
    item.style.cssText = 'padding:8px';
    list.appendChild(item);
  }
  list.addEventListener('mousedown', (event) => {   // taken on mousedown, and the list goes at once
    event.preventDefault();
    const item = event.target.closest('li');
    document.getElementById('kind').value = item.textContent.toLowerCase();
    document.getElementById('shown').textContent = item.textContent;
    list.remove();
  });
  picker.appendChild(list);
});
</script></body>"""


def test_a_click_on_an_item_the_page_removes_on_mousedown_is_recorded_as_that_item(app: XApp, server: LocalServer
                                                                                      ) -> None:
    server.route("/gone-form", GONE_FORM)
    server.route("/gone-sent", "<!doctype html><title>Sent</title><p>sent</p>")
    person = app.open(server.url("/gone-form"))
    app.ok("record_start", tabId=person.tab)
    person.click("#t")
    person.type("Renewal")
    person.click("#open")
    shows(app, person, {"selector": "text=Premium"})
    person.click("text=Premium")
    wait_until(lambda: person.js("return document.getElementById('kind').value") == "premium", 10, "the choice")
    person.click("text=Save")
    wait_until(lambda: server.hits("/gone-sent"), 10, "the form at the server")
    assert server.hits("/gone-sent")[-1].query == {"title": ["Renewal"], "kind": ["premium"]}
    steps = person.steps_when(lambda steps: steps[-1]["type"] == "click" and steps[-1]["words"].endswith("'Save'"))
    assert [s["words"] for s in steps[1:]] == ["Type 'Renewal' into textbox 'Title'", "Click button 'Change plan'",
                                               "Click <li>Premium</li>", "Click button 'Save'"], steps
    assert "offset" not in steps[3]["data"], steps[3]  # the item itself, not a point in what stayed around it
    result = stop_and_replay(app, person, "Plan from a list that goes on mousedown")
    assert result["ok"], result
    assert len(server.hits("/gone-sent")) == 2
    assert server.hits("/gone-sent")[-1].query == {"title": ["Renewal"], "kind": ["premium"]}


# -- 5: custom select widgets ------------------------------------------------------------------------------------
# What a person clicks to open each widget (the test's eyes), and how they pick: typing and Enter, or scrolling
# the list with the wheel and clicking the option.
OPENERS = {"select2-4": ".select2-selection", "select2-3": ".select2-choice", "choices": ".choices__inner",
           "tom-select": ".ts-control", "react-select": "#id_category-box"}
PICKS = {"select2-4": "keys", "select2-3": "mouse", "choices": "keys", "tom-select": "mouse", "react-select": "keys"}


@pytest.fixture(scope="module")
def widgets(server: LocalServer) -> WidgetSite:
    return WidgetSite(server)


def pick_with_the_mouse(app: XApp, person: XPerson, text: str) -> None:
    """Scroll the open list with the wheel until the option shows in it, then click it."""
    option = {"xpath": f"//*[@role='option' and normalize-space(.)='{text}'][not(ancestor::*[@aria-selected='true'])]"}
    listbox = {"xpath": f"//*[@role='listbox'][.//*[@role='option' and normalize-space(.)='{text}']]"}
    shows(app, person, option)  # the list opened
    for _ in range(30):
        shown, inside = person.rect(listbox, -1), person.rect(option, -1)
        if shown["y"] <= inside["y"] and inside["y"] + inside["height"] <= shown["y"] + shown["height"]:
            break
        person.wheel(2, over=listbox)
    person.click(option, index=-1)


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_choice_in_a_custom_select_widget_is_one_select_step_that_replays_through_the_widget(
        app: XApp, widgets: WidgetSite, library: str) -> None:
    person = app.open(widgets.start_url(library))
    app.ok("record_start", tabId=person.tab)
    person.click("a")  # to the form: the choice is made in the recording's second document
    shows(app, person, {"selector": OPENERS[library]})  # the widget replaced the native control
    person.click("#id_title")
    person.type("Pottery")
    person.click(OPENERS[library])
    if PICKS[library] == "keys":
        person.type("Works")  # the list filters down to the option, as a person looks before pressing Enter
        shows(app, person, {"xpath": "//*[@role='option'][normalize-space(.)='Workshop']"})
        person.key("Return")
    else:
        pick_with_the_mouse(app, person, "Workshop")
    sent = len(widgets.sent)
    person.click("input[type=submit]")
    wait_until(lambda: len(widgets.sent) > sent, 10, "the form at the server")
    assert widgets.sent[-1] == {"title": ["Pottery"], "category": ["workshop"], "_save": ["Save"]}
    steps = person.steps_when(lambda steps: steps[-1]["type"] == "click" and steps[-1]["words"].endswith("'Save'"))
    assert [s["words"] for s in steps[1:]] == ["Click link 'Add event'", "Type 'Pottery' into textbox 'Title'",
                                               "Select 'Workshop' in combobox 'Category'", "Click button 'Save'"]
    choice = steps[3]["data"]
    assert choice["option"] == "Workshop" and ("native" in choice) == (library != "react-select"), choice
    name = f"Add a workshop ({library})"
    stopped = app.ok("record_stop", tabId=person.tab, name=name)
    assert stopped["saved"]
    for theme in ("", "new") if library != "react-select" else ("",):
        before = len(widgets.sent)
        document = stopped["workflow"]
        nodes = document["workflow"]["graph"]["nodes"]
        nodes[1]["data"]["url"] = widgets.start_url(library, theme)
        result = app.call("workflow_run", workflow=document, tabId=person.tab)
        assert result["ok"], (theme, result.get("error"))
        wait_until(lambda: len(widgets.sent) > before, 10, "the replayed form at the server")
        assert widgets.sent[before:] == [{"title": ["Pottery"], "category": ["workshop"], "_save": ["Save"]}], theme


# -- web components, and a label's click as one step --------------------------------------
def test_web_components_are_recorded_through_their_shadow_roots_and_replay_after_a_redesign(
        app: XApp, server: LocalServer) -> None:
    design = {"now": "recorded"}
    server.route("/cmp", lambda request: Response(component_page(design["now"])))
    server.route("/cmp-sent", "ok", content_type="text/plain")
    person = app.open(server.url("/cmp"))
    shows(app, person, {"selector": 'role=textbox[name="Title"]'})
    app.ok("record_start", tabId=person.tab)
    person.click({"selector": 'role=textbox[name="Title"]'})
    person.type("Bench summit")
    person.click({"selector": 'role=combobox[name="Category"]'})
    person.type("Workshop")
    person.key("Return")
    person.click({"selector": 'ev-check >> input'})           # a checkbox whose text is no label
    person.click({"selector": 'ev-toggle >> label'}, fx=0.8)  # the label: the browser checks its box
    person.click({"selector": 'ev-editor >> [contenteditable]'})
    person.type("Bring a laptop")
    person.click({"selector": 'role=button[name="Save event"]'})
    wanted = {"title": "Bench summit", "category": "Workshop", "public": True, "notify": True,
              "notes": "Bring a laptop"}
    assert json.loads(server.wait_for("/cmp-sent", 1)[-1].body) == wanted  # what the person did, at the server
    steps = person.steps_when(lambda steps: steps[-1]["words"] == "Click button 'Save event'")
    assert not [s for s in steps if s.get("missing")], steps
    assert [s["type"] for s in steps[1:]] == ["fill", "select", "click", "click", "fill", "click"], \
        [s["words"] for s in steps]
    assert steps[1]["words"] == "Type 'Bench summit' into textbox 'Title'"
    assert steps[2]["data"]["option"] == "Workshop"
    assert steps[4]["words"] == "Click checkbox 'Notify me'"  # once: the forwarded click is not a step
    assert steps[5]["data"]["text"] == "Bring a laptop"
    stopped = app.ok("record_stop", tabId=person.tab, name="Web components")
    assert stopped["saved"]
    for count, now in ((2, "recorded"), (3, "redesign")):
        design["now"] = now
        result = app.call("workflow_run", name="Web components", tabId=person.tab)
        assert result["ok"], (now, result.get("error"))
        assert json.loads(server.wait_for("/cmp-sent", count)[-1].body) == wanted, now
    assert len(server.hits("/cmp-sent")) == 3


PADS = """<!doctype html><title>Pads</title><body style="margin:30px;font:16px sans-serif">
<x-pad></x-pad><x-pad></x-pad><script>
customElements.define('x-pad', class extends HTMLElement { connectedCallback() {
  this.attachShadow({mode: 'open'}).innerHTML = '<div contenteditable style="min-height:50px;border:1px solid">' +
    '</div>'; } });</script></body>"""


def test_an_action_nothing_can_find_again_is_kept_marked_and_the_save_refuses_until_it_is_deleted(
        app: XApp, server: LocalServer) -> None:
    server.route("/pads", PADS)
    person = app.open(server.url("/pads"))
    pad = {"selector": "x-pad >> div"}
    shows(app, person, pad)
    app.ok("record_start", tabId=person.tab)
    person.click(pad, index=1)  # two identical anonymous components: nothing tells the second from the first
    person.type("Hello")
    steps = person.steps_when(lambda steps: any(s.get("missing") and s["type"] == "fill" for s in steps))
    missing = [s for s in steps if s.get("missing")]
    assert missing[-1]["data"]["text"] == "Hello" and missing[-1]["words"].startswith("Not recorded: typing on")
    refused = app.call("record_stop", tabId=person.tab, name="Pads")
    assert not refused["ok"] and "could not be recorded" in refused["error"], refused
    assert not [w for w in app.ok("workflow_list")["workflows"] if w["name"] == "Pads"]
    assert app.ok("record_status", tabId=person.tab)["recording"]  # the recording goes on
    for step in missing:
        app.ok("record_edit", tabId=person.tab, action="delete", step=step["id"])
    assert app.ok("record_stop", tabId=person.tab, name="Pads")["saved"]


def test_the_sessions_end_while_a_window_records_ends_the_app_without_waiting_for_a_person(
        app: XApp, server: LocalServer) -> None:
    """SIGTERM (logging out) while a tab records: the window would ask "save the recording?"; nobody is there to
    answer, so the app ends in order (its stores saved) and its log names the recording it dropped. Last in the
    module: it ends the module's app."""
    server.route("/pads", PADS)
    person = app.open(server.url("/pads"))
    app.ok("record_start", tabId=person.tab)
    app.process.terminate()
    try:
        status = app.process.wait(20)
    except subprocess.TimeoutExpired:
        raise AssertionError("the app did not end within 20 s of SIGTERM while recording") from None
    assert status == 0
    log = (app.data / "logs" / "browserpilot.log").read_text().split("signal 15: quitting")[-1]
    assert "its recording is dropped" in log and "stores saved" in log, log[-2000:]
