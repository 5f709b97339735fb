"""How fast the node-graph editor opens and moves, for a 5-node and a 500-node workflow.

In one app process (offscreen, a temporary data folder), for each size: the workflow is saved with
`workflow_write`, then the `editor_open` operation (what `browserpilot edit NAME` sends) is called through the
registry, and the time is taken from that call to the end of the first paint of the canvas (the window is
shown, the level laid out, every node and edge drawn). Then 60 pan steps and 60 zoom steps, each painted
synchronously (`viewport().repaint()`), give the frame times (median and worst). Finally one edit (add a
node after another, through the controller) and its undo are timed.

The 500-node workflow is a chain with an if-else every 10 nodes (branches rejoin) and no positions, so it is
laid out on open, like a file made by hand or by an agent.

Run: `.venv/bin/python bench/editor_open.py [--json]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.runtime import prepare_qt_environment  # noqa: E402

prepare_qt_environment(headless=True)
import PySide6.QtWebEngineWidgets  # noqa: E402,F401
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def chain(count: int) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = [{"id": "start", "data": {"type": "start"}}]
    edges: list[dict[str, Any]] = []
    previous = "start"
    index = 1
    while len(nodes) < count - 1:
        if index % 10 == 0 and len(nodes) < count - 4:
            branch, a, b = f"if{index}", f"a{index}", f"b{index}"
            nodes += [{"id": branch, "data": {"type": "if-else", "cases": [{"case_id": "yes", "conditions": [
                {"comparison_operator": "contains", "variable_selector": ["sys", "url"], "value": "x"}]}]}},
                      {"id": a, "data": {"type": "press", "shortcut": "enter"}},
                      {"id": b, "data": {"type": "press", "shortcut": "tab"}}]
            edges += [{"source": previous, "target": branch}, {"source": branch, "target": a, "sourceHandle": "yes"},
                      {"source": branch, "target": b, "sourceHandle": "false"}]
            join = f"j{index}"
            nodes.append({"id": join, "data": {"type": "wait", "locator": {"selector": "#x"}, "state": "appear"}})
            edges += [{"source": a, "target": join}, {"source": b, "target": join}]
            previous = join
        else:
            node_id = f"n{index}"
            nodes.append({"id": node_id, "data": {"type": "click", "locator": {"selector": f"#b{index}"}}})
            edges.append({"source": previous, "target": node_id})
            previous = node_id
        index += 1
    nodes.append({"id": "end", "data": {"type": "end", "outputs": []}})
    edges.append({"source": previous, "target": "end"})
    return {"kind": "app", "version": "0.3.0", "app": {"name": f"Chain of {count}"},
            "workflow": {"graph": {"nodes": nodes, "edges": edges}}}


class PaintWatch(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.painted_at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.painted_at is None:
            QApplication.instance().postEvent(self, QEvent(QEvent.Type.User))  # after this paint ends
        return False

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.User and self.painted_at is None:
            self.painted_at = time.perf_counter()
            return True
        return super().event(event)


def pump(app: QApplication, until: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        app.processEvents()
        if time.monotonic() > deadline:
            raise TimeoutError("the editor did not draw in time")


def frames(app: QApplication, view: Any, step: Any, count: int = 60) -> dict[str, float]:
    times = []
    for i in range(count):
        begin = time.perf_counter()
        step(i)
        view.viewport().repaint()
        times.append((time.perf_counter() - begin) * 1000)
    return {"medianMs": round(statistics.median(times), 2), "worstMs": round(max(times), 2)}


def measure(app: QApplication, shell: Any, size: int) -> dict[str, Any]:
    document = chain(size)
    writing = asyncio.ensure_future(shell.registry.call(shell.ctx, "workflow_write", {"workflow": document}))
    pump(app, writing.done)
    assert writing.result()["ok"], writing.result()
    app.processEvents()
    watch = PaintWatch()
    original_open = shell.editors.open

    def open_and_watch(key: str) -> Any:
        window = original_open(key)
        window.view.viewport().installEventFilter(watch)
        return window

    shell.editors.open = open_and_watch
    begin = time.perf_counter()
    task = asyncio.ensure_future(shell.registry.call(shell.ctx, "editor_open", {"name": document["app"]["name"]}))
    pump(app, lambda: task.done() and watch.painted_at is not None)
    opened_ms = (watch.painted_at - begin) * 1000
    shell.editors.open = original_open
    window = shell.editors.find(document["app"]["name"])
    view = window.view
    view.set_zoom(1.0)
    pan = frames(app, view, lambda i: view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + (25 if i % 20 < 10 else -25)))
    zoom = frames(app, view, lambda i: view.set_zoom(view.zoom * (1.1 if i % 20 < 10 else 1 / 1.1)))
    view.fit()
    fit = frames(app, view, lambda i: view.horizontalScrollBar().setValue(view.horizontalScrollBar().value() + (5 if i % 2 else -5)), 20)
    begin = time.perf_counter()
    window.controller.add_node((), "press", (0, 400))
    app.processEvents()
    edit_ms = (time.perf_counter() - begin) * 1000
    begin = time.perf_counter()
    window.stack.undo()
    app.processEvents()
    undo_ms = (time.perf_counter() - begin) * 1000
    nodes = len(window.scene.nodes)
    window.stack.setClean()
    window.close()
    app.processEvents()
    return {"nodes": nodes, "openMs": round(opened_ms, 1), "pan": pan, "zoom": zoom, "panFitted": fit,
            "editMs": round(edit_ms, 2), "undoMs": round(undo_ms, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(["bench"])
    import qasync

    from app.shell import BrowserPilotApp
    from envs.datadir import DataDir

    loop = qasync.QEventLoop(app, already_running=True)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    with tempfile.TemporaryDirectory() as folder:
        os.environ.pop("BROWSERPILOT_HOME", None)
        shell = BrowserPilotApp(DataDir(Path(folder)), headless=True)
        shell.start([])
        results = [measure(app, shell, size) for size in (5, 500)]
        shell.shutdown()
    asyncio.events._set_running_loop(None)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            print(f"{r['nodes']:>4} nodes: open {r['openMs']} ms; pan frame {r['pan']['medianMs']} ms median "
                  f"({r['pan']['worstMs']} worst); zoom frame {r['zoom']['medianMs']} ms ({r['zoom']['worstMs']}); "
                  f"fitted pan {r['panFitted']['medianMs']} ms ({r['panFitted']['worstMs']}); "
                  f"edit {r['editMs']} ms, undo {r['undoMs']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
