"""The real app on an X display, for the Trace view test under Xvfb (tests/e2e/test_trace_view_xvfb.py).

    python -m tests.support.trace_view_gui DATA_DIR PAGE_URL

Starts the app as a person does (its windows on $DISPLAY), runs a workflow on PAGE_URL with its trace and video
kept, leaves the main window on its first panel, and then speaks JSON lines on stdout:

- `{"run": RECORD}` once;
- `{"state": {...}}` whenever what the window shows changes: `navigation`, where the Runs tab is and, once the
  Runs panel is shown, the run's row and the Trace tab (X root coordinates, for the test to click with xdotool);
  the panel, the run selected and the detail page shown; the chosen step, the pictures it shows, the video
  player's frames and position;
- `{"places": {...}}` once the run's Trace tab shows its filmstrip: where its items and the Play button are.
On stdin it takes `{"grab": PATH}` (a screenshot of the whole X screen, answered with `{"grabbed": PATH}`) and
`{"quit": true}`. Nothing here clicks: the test does, through the X server.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

from app.startup.runtime import prepare_qt_environment


def say(**data: Any) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def document(url: str) -> dict[str, Any]:
    def node(node_id: str, kind: str, **data: Any) -> dict[str, Any]:
        return {"id": node_id, "data": {"type": kind, **data}}

    nodes = [node("start", "start"), node("open", "goto", title="Open", url=url),
             node("red", "click", title="Paint red", locator={"selector": "#red"}),
             node("green", "click", title="Paint green", locator={"selector": "#green"}),
             node("blue", "click", title="Paint blue", locator={"selector": "#blue"}),
             node("end", "end")]
    return {"kind": "app", "version": "0.3.0", "app": {"name": "Colours", "mode": "workflow"},
            "workflow": {"graph": {"nodes": nodes,
                                   "edges": [{"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]}}}


async def main(folder: Path, url: str) -> None:
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir

    shell = BrowserPilotApp(DataDir(folder), headless=False)
    shell.settings.update(welcome_shown=True)
    shell.start([])
    window = shell.main_window
    assert window is not None
    window.setGeometry(20, 20, 1320, 860)
    result = await shell.registry.call(shell.ctx, "workflow_run", {"workflow": document(url), "trace": "always",
                                                                   "video": "always"})
    run = result["run"]
    say(run=run)
    window.panels.setCurrentIndex(0)  # as the app opens: the person goes to the Runs panel, the run, its Trace
    window.raise_()
    window.activateWindow()
    panel = window.runs_panel
    detail = panel.detail
    view = detail.trace_view

    def centre(widget: Any, rect: Any = None) -> list[int]:
        area = rect if rect is not None else widget.rect()
        point = widget.mapToGlobal(area.center()) if rect is None else widget.viewport().mapToGlobal(area.center())
        return [point.x(), point.y()]

    def tab_centre(tabs: Any, page: Any) -> list[int]:
        bar = tabs.tabBar()
        point = bar.mapToGlobal(bar.tabRect(tabs.indexOf(page)).center())
        return [point.x(), point.y()]

    def navigation() -> dict[str, Any]:
        """Where the person clicks to reach the trace: the Runs tab, the run's row, the Trace tab."""
        places: dict[str, Any] = {"runsTab": tab_centre(window.panels, panel)}
        row = panel.model.row_of(run["id"])
        if window.panels.currentWidget() is panel and row >= 0:
            panel.table.scrollTo(panel.model.index(row, 0))
            places["runRow"] = centre(panel.table, panel.table.visualRect(panel.model.index(row, 1)))
            places["traceTab"] = tab_centre(detail.pages, detail.trace_page)
        return places

    def on_trace() -> bool:
        return (window.panels.currentWidget() is panel and detail.pages.currentWidget() is detail.trace_page
                and view.run is not None and view.run.id == run["id"]
                and view.filmstrip.count() == len(run["trace"]))

    def film_places() -> dict[str, Any]:
        items = []
        for row in range(view.filmstrip.count()):
            view.filmstrip.scrollToItem(view.filmstrip.item(row))
            items.append(centre(view.filmstrip, view.filmstrip.visualItemRect(view.filmstrip.item(row))))
        view.filmstrip.scrollToItem(view.filmstrip.item(0))
        return {"items": items, "play": centre(view.play_button), "after": centre(view.after),
                "before": centre(view.before)}

    commands: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(commands.put_nowait, json.loads(line))

    threading.Thread(target=read, daemon=True).start()
    shown: dict[str, Any] = {}
    said_places = False
    while True:
        if not said_places and on_trace():
            said_places = True
            QApplication.sendPostedEvents()  # laid out and drawn before anyone is told where things are
            window.repaint()
            say(places=film_places())
        player = view._player
        state = {"navigation": navigation(), "panel": window.panels.currentIndex(),
                 "page": detail.pages.currentIndex(), "selectedRun": getattr(panel.selected_run(), "id", None),
                 "onTrace": on_trace(),
                 "current": view.filmstrip.currentRow(), "before": view.before.path, "after": view.after.path,
                 "afterShown": view.after.pixmap() is not None and not view.after.pixmap().isNull(),
                 "player": None if player is None else {"frames": player.frames, "position": player.player.position(),
                                                        "title": player.windowTitle(),
                                                        "visible": player.isVisible()}}
        if state != shown:
            shown = state
            say(state=state)
        try:
            command = commands.get_nowait()
        except asyncio.QueueEmpty:
            await asyncio.sleep(0.1)
            continue
        if command.get("quit"):
            break
        if command.get("grab"):
            window.repaint()  # what the widgets hold now is on the screen
            await asyncio.sleep(0.2)
            QGuiApplication.primaryScreen().grabWindow(0).save(command["grab"])
            say(grabbed=command["grab"])
    shell.shutdown()


if __name__ == "__main__":
    prepare_qt_environment(headless=False)
    from app.startup.qt_asyncio import start_qt
    from app.ui.theme import apply_theme

    _app, event_loop = start_qt(False, apply_theme)
    with event_loop:
        event_loop.run_until_complete(main(Path(sys.argv[1]), sys.argv[2]))
