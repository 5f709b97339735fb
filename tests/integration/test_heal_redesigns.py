"""Issue 32 with the real browser: what real applications do across their own redesigns, on pages shaped like
theirs (an admin index of apps and models, a tracker's sidebar inside a search form, a change form with its save
buttons at the top and the bottom).

- A link with no unique text is written by what it is: its text and the path it leads to. The primary matches
  it on the unchanged page, and the step replays there without healing (item 1).
- Elements that would do exactly the same thing (links to the same address; a form's save buttons of the same
  name and value) are not a tie: replay acts on the first of them (item 2).
- "Another form" forbids acting inside a different form with its own submit target; an element that only lost
  the form it was wrapped in is still found (item 3); one in a form posting elsewhere is still refused.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.browser.tab import BrowserTab
from app.shell import BrowserPilotApp
from tests.support.qt import open_view, run_op, running_app
from tests.support.redesign_pages import ADMIN_INDEX
from tests.support.server import LocalServer, Request, Response


@pytest.fixture(scope="module")
def app(qapp: QApplication, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("data")) as shell:
        yield shell


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    with LocalServer() as local:
        yield local


@pytest.fixture(scope="module")
def tab(app: BrowserPilotApp) -> BrowserTab:
    return open_view(app, "env-default", "about:blank")


class Pages:
    """`/page` serves whichever version the test set; every other path is an application page that says so."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self.html = ""
        server.route("/page", lambda request: Response(f"<!doctype html><title>App</title>{self.html}"))
        for path in ("/admin/events/", "/admin/events/event/", "/admin/events/event/add/", "/admin/auth/",
                     "/admin/auth/user/", "/admin/auth/user/add/", "/tracker/issue", "/tracker/user"):
            server.route(path, f"<!doctype html><title>{path}</title><p>{path}</p>")
        server.route("/admin/events/event/1/change/", self.saved)
        self.posts: list[dict[str, list[str]]] = []

    def saved(self, request: Request) -> Response:
        from urllib.parse import parse_qs
        if request.method == "POST":
            self.posts.append(parse_qs(request.body.decode()))
        return Response("<!doctype html><title>Saved</title><p>saved</p>")


@pytest.fixture(scope="module")
def pages(server: LocalServer) -> Pages:
    return Pages(server)


def locator_of(qtbot: QtBot, app: BrowserPilotApp, tab: BrowserTab, pages: Pages, html: str, selector: str
               ) -> dict[str, Any]:
    """The locator our generator writes for the element (the recorder and the editor's Pick use the same)."""
    pages.html = html
    assert run_op(qtbot, app, "page_navigate", {"tabId": tab.tab_id, "url": pages.server.url("/page")})["ok"]
    found = run_op(qtbot, app, "page_inspect", {"tabId": tab.tab_id, "locator": {"selector": selector}})
    assert found["ok"], found
    return {k: v for k, v in found["locator"].items() if k != "unique"}


def replay_click(qtbot: QtBot, app: BrowserPilotApp, tab: BrowserTab, pages: Pages, html: str,
                 locator: dict[str, Any]) -> dict[str, Any]:
    """Open the page as it is now and click the recorded element; the run's result."""
    pages.html = html
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "open", "data": {"type": "goto", "url": pages.server.url("/page")}},
             {"id": "act", "data": {"type": "click", "locator": locator, "timeout": 2}},
             {"id": "end", "data": {"type": "end"}}]
    document = {"kind": "app", "version": "0.3.0", "app": {"name": "Redesign", "mode": "workflow"},
                "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {
                    "nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]}}}
    return run_op(qtbot, app, "workflow_run", {"workflow": document, "tabId": tab.tab_id}, timeout=60_000)


def landed(qtbot: QtBot, tab: BrowserTab, path: str) -> bool:
    qtbot.waitUntil(lambda: tab.url().path() == path and not tab.loading, timeout=10_000)
    return True


# The same index after an upgrade: a sidebar with the same app list (the same links again), new wrappers and
# classes, another app listed first.
ADMIN_UPGRADED = """<div id="container" class="main shifted"><nav id="nav-sidebar" class="sticky">
 <div class="app-events module current-app"><table><caption><a href="/admin/events/" class="section">Events</a>
 </caption><tbody><tr class="model-event"><th scope="row"><a href="/admin/events/event/">Events</a></th></tr></tbody>
 </table></div></nav>
<main id="content-start" class="content"><div id="content" class="colMS"><h1>Site administration</h1>
<div id="content-main"><div class="app-blog module"><table><caption><a href="/admin/blog/" class="section">Blog</a>
 </caption><tbody><tr class="model-post"><th scope="row"><a href="/admin/blog/post/">Posts</a></th></tr></tbody>
 </table></div>
 <div class="app-events module"><table><caption><a href="/admin/events/" class="section">Events</a></caption>
 <tbody><tr class="model-event"><th scope="row"><a href="/admin/events/event/">Events</a></th>
 <td><a href="/admin/events/event/add/" class="addlink">Add</a></td></tr></tbody></table></div>
</div></div></main></div>"""


def test_a_link_without_unique_text_is_recorded_by_its_text_and_path_and_replays_unchanged(
        qtbot: QtBot, app: BrowserPilotApp, tab: BrowserTab, pages: Pages) -> None:
    locator = locator_of(qtbot, app, tab, pages, ADMIN_INDEX.replace("RECENT", ""), "tr.model-event th a")
    primary = locator.get("selector") or locator.get("xpath")
    assert "nth-" not in primary and "/admin/events/event/" in primary, locator
    # The unchanged page, a moment later (the recent actions list has grown): the primary alone finds it.
    later = ADMIN_INDEX.replace("RECENT", "<ul class=actionlist><li><a href='/admin/events/event/1/change/'>"
                                          "Events: Pottery</a></li></ul>")
    result = replay_click(qtbot, app, tab, pages, later, {k: v for k, v in locator.items()
                                                          if k in ("selector", "xpath")})
    assert result["ok"], result.get("error")
    assert landed(qtbot, tab, "/admin/events/event/")
    # After the upgrade the same link is there twice (sidebar and index): the same address, not a tie.
    result = replay_click(qtbot, app, tab, pages, ADMIN_UPGRADED, locator)
    assert result["ok"], result.get("error")
    assert landed(qtbot, tab, "/admin/events/event/")


# A tracker's sidebar lives inside its search form; after a theme change it does not.
TRACKER_OLD = """<table><tr><td class="sidebar"><form method="POST" action="/tracker/search">
<input type=hidden name="@action" value="search"><p class="classblock"><b>Issues</b><br>
<span><a href="/tracker/issue?@template=item">Create New</a></span><br>
<a href="/tracker/issue?@filter=assignedto">Show Unassigned</a><br>
<input name="@search_text" size=10> <input type=submit value="Search"></p>
<p class="classblock"><b>Users</b><br><span><a href="/tracker/user?@template=item">Create New</a></span></p>
</form></td><td class="content"><h1>Issues</h1></td></tr></table>"""
TRACKER_NEW = """<header class="navbar"><nav><ul class="nav">
<li><a class="btn" href="/tracker/issue?@template=item">Create New</a></li>
<li><a href="/tracker/issue?@filter=assignedto">Show Unassigned</a></li></ul>
<form class="search" method="GET" action="/tracker/issue"><input name="@search_text"><button>Search</button></form>
<ul class="nav"><li><a href="/tracker/user?@template=item">Create New</a></li></ul></nav></header>
<main><h1>Issues</h1></main>"""
# A look-alike link inside a form posting elsewhere (a newsletter box): never the tracker's link.
TRACKER_OTHER_FORM = """<aside><form method="POST" action="/newsletter/subscribe">
<a href="/newsletter/new">Create New</a> <input name=email> <button>Subscribe</button></form></aside>"""


def test_losing_a_wrapping_form_is_not_another_form_but_a_form_posting_elsewhere_is(
        qtbot: QtBot, app: BrowserPilotApp, tab: BrowserTab, pages: Pages) -> None:
    locator = locator_of(qtbot, app, tab, pages, TRACKER_OLD, "td.sidebar p:first-of-type span a")
    assert (locator.get("fingerprint") or {}).get("form"), locator  # recorded inside the search form
    # The sidebar's form is gone after the theme change, and the link's primary no longer matches.
    changed = TRACKER_NEW.replace("/tracker/issue?@template=item", "/tracker/issue?@template=item&")
    result = replay_click(qtbot, app, tab, pages, changed, locator)
    assert result["ok"], result.get("error")
    assert tab.url().path() == "/tracker/issue" or landed(qtbot, tab, "/tracker/issue")
    assert "template=item" in tab.url().query()
    # Only a look-alike inside a form with its own submit target: refused, nothing clicked.
    result = replay_click(qtbot, app, tab, pages, TRACKER_OTHER_FORM, locator)
    assert not result["ok"], result
    assert tab.url().path() == "/page"


# A change form with its save buttons at the top and the bottom (same form, same name and value).
CHANGE_FORM = """<form method="post" action="/admin/events/event/1/change/" id="event_form">
SUBMIT_TOP<fieldset><label for=id_title>Title</label> <input id=id_title name=title value="Pottery"></fieldset>
<div class="submit-row"><input type="submit" value="Save" class="default" name="_save">
<input type="submit" value="Save and continue editing" name="_continue"></div></form>"""
TOP_ROW = """<div class="submit-row"><input type="submit" value="Save" class="default" name="_save">
<input type="submit" value="Save and continue editing" name="_continue"></div>"""


def test_buttons_that_do_the_same_are_not_a_tie(qtbot: QtBot, app: BrowserPilotApp, tab: BrowserTab,
                                                pages: Pages) -> None:
    locator = locator_of(qtbot, app, tab, pages, CHANGE_FORM.replace("SUBMIT_TOP", ""), "input[name=_save]")
    # The theme adds the save row at the top too, and restyles: the recorded locators match two buttons.
    restyled = CHANGE_FORM.replace("SUBMIT_TOP", TOP_ROW).replace('class="default"', 'class="btn btn-primary"')
    result = replay_click(qtbot, app, tab, pages, restyled, locator)
    assert result["ok"], result.get("error")
    qtbot.waitUntil(lambda: len(pages.posts) == 1, timeout=10_000)
    assert pages.posts[-1] == {"title": ["Pottery"], "_save": ["Save"]}
