"""The real app on an X display, for the Trace view test under Xvfb (tests/e2e/test_trace_view_xvfb.py).

    python -m tests.support.trace_view_gui DATA_DIR PAGE_URL

Starts the app as a person does (its windows on $DISPLAY), runs a workflow on PAGE_URL with its trace and video
kept, shows the main window's Runs panel with that run's Trace tab, and then speaks JSON lines on stdout:

- `{"run": RECORD}` once, then `{"places": {...}}`: where the filmstrip's items and the Play button are on the
  screen (X root coordinates), for the test to click them with xdotool;
- `{"state": {...}}` whenever what the view shows changes: the chosen step, the pictures it shows, the video
  player's frames and position.
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

from app.runtime import prepare_qt_environment


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

    from app.shell import BrowserPilotApp
    from envs.datadir import DataDir

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
    window.panels.setCurrentWidget(window.runs_panel)
    window.raise_()
    window.activateWindow()
    panel = window.runs_panel
    panel.select_run(run["id"])
    detail = panel.detail
    detail.pages.setCurrentWidget(detail.trace_page)
    view = detail.trace_view
    while view.run is None or view.run.get("id") != run["id"] or view.filmstrip.count() != len(run["trace"]):
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)  # laid out and drawn

    def centre(widget: Any, rect: Any = None) -> list[int]:
        area = rect if rect is not None else widget.rect()
        point = widget.mapToGlobal(area.center()) if rect is None else widget.viewport().mapToGlobal(area.center())
        return [point.x(), point.y()]

    items = []
    for row in range(view.filmstrip.count()):
        view.filmstrip.scrollToItem(view.filmstrip.item(row))
        items.append(centre(view.filmstrip, view.filmstrip.visualItemRect(view.filmstrip.item(row))))
    view.filmstrip.scrollToItem(view.filmstrip.item(0))
    say(places={"items": items, "play": centre(view.play_button), "after": centre(view.after),
                "before": centre(view.before)})

    commands: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(commands.put_nowait, json.loads(line))

    threading.Thread(target=read, daemon=True).start()
    shown: dict[str, Any] = {}
    while True:
        player = view._player
        state = {"current": view.filmstrip.currentRow(), "before": view.before.path, "after": view.after.path,
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
    from app.qt_asyncio import start_qt

    _app, event_loop = start_qt(False)
    with event_loop:
        event_loop.run_until_complete(main(Path(sys.argv[1]), sys.argv[2]))
