"""How fast the node-graph editor opens and moves, for a 5-node and a 500-node workflow.

In one app process (offscreen, a temporary data folder), for each size: the workflow is saved with
`workflow_write`, then the `editor_open` operation (what `browserpilot edit NAME` sends) is called through the
registry, and the time is taken from that call to the end of the first paint of the canvas (the window shown,
the level fitted and drawn), as the median of several opens; also to the moment every item of the level is
made (a big level is drawn from the model first, its items follow in slices). Then frames: pan steps at zoom 1,
zoom steps around 1, pan steps at zoom 0.3 (nodes drawn as boxes), a zoom sweep from 0.1 to 1.2 and pan steps
with the whole level fitted, each step followed by a whole frame painted at once (`repaint()` of the canvas and
of the minimap). Then edits through the controller at zoom 1, each timed until the canvas is settled and
painted: add (which first pins the laid-out positions), undo, redo, move, select (the side panel builds the
node's form), delete by the Delete key's path; and, fitted, select all / delete all / undo on every node
(until drawn, and until every item is made).

Every figure is given twice: wall time, and the Qt thread's CPU time (`time.thread_time`), because on a shared
machine the wall time carries the other processes' load.

The 500-node workflow is a chain with an if-else every 10 nodes (branches rejoin) and no positions, so it is
laid out on open, like a file made by hand or by an agent.

Run: `.venv/bin/python bench/editor_open.py [--opens N] [--json]`.
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

from app.startup.runtime import prepare_qt_environment  # noqa: E402

prepare_qt_environment(headless=True)
import PySide6.QtWebEngineWidgets  # noqa: E402,F401
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.startup.qt_asyncio import asyncio_inside_qt, qt_application  # noqa: E402


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


class Clock:
    """Wall time and this (the Qt) thread's CPU time since it was made, in ms. On a shared machine the wall
    time carries the other processes' load; the CPU time is the work the editor itself did."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.thread_time()

    def read(self) -> tuple[float, float]:
        return (time.perf_counter() - self.wall) * 1000, (time.thread_time() - self.cpu) * 1000


class PaintWatch(QObject):
    """Notes when the first paint of the widget it watches has ended."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock
        self.painted: tuple[float, float] | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.painted is None:
            QApplication.instance().postEvent(self, QEvent(QEvent.Type.User))  # after this paint ends
        return False

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.User and self.painted is None:
            self.painted = self.clock.read()
            return True
        return super().event(event)


def pump(app: QApplication, until: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        app.processEvents()
        if time.monotonic() > deadline:
            raise TimeoutError("the editor did not draw in time")


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    """Median and worst of (wall, cpu) samples."""
    walls, cpus = [s[0] for s in samples], [s[1] for s in samples]
    return {"medianMs": round(statistics.median(walls), 2), "worstMs": round(max(walls), 2),
            "cpuMedianMs": round(statistics.median(cpus), 2), "cpuWorstMs": round(max(cpus), 2)}


def frames(app: QApplication, view: Any, step: Any, count: int = 60) -> dict[str, float]:
    """`count` steps, each followed by a whole frame painted at once (the canvas and the minimap over it)."""
    samples = []
    for i in range(count):
        clock = Clock()
        step(i)
        view.viewport().repaint()
        view.minimap.repaint()
        samples.append(clock.read())
    return summary(samples)


def open_once(app: QApplication, shell: Any, name: str) -> tuple[tuple[float, float], tuple[float, float], Any]:
    """`editor_open` through the registry → the end of the canvas's first paint, and → every item made."""
    clock = Clock()
    watch = PaintWatch(clock)
    original_open = shell.editors.open

    def open_and_watch(key: str) -> Any:
        window = original_open(key)
        window.view.viewport().installEventFilter(watch)
        return window

    shell.editors.open = open_and_watch
    try:
        task = asyncio.ensure_future(shell.registry.call(shell.ctx, "editor_open", {"name": name}))
        pump(app, lambda: task.done() and watch.painted is not None)
    finally:
        shell.editors.open = original_open
    assert task.result()["ok"], task.result()
    window = shell.editors.find(name)
    pump(app, lambda: not window.scene.building)
    assert watch.painted is not None
    return watch.painted, clock.read(), window


def close(app: QApplication, window: Any) -> None:
    window.stack.setClean()
    window.close()
    app.processEvents()


def settle(app: QApplication, window: Any) -> None:
    """Wait until the validation list has checked the document (its worker would share the CPU)."""
    pump(app, lambda: not window.problems.checking)


def timed_edit(app: QApplication, window: Any, edit: Any) -> tuple[float, float]:
    """An edit and everything it sets off on the canvas (deferred re-placing included), painted."""
    return timed_bulk(app, window, edit)[0]


def timed_bulk(app: QApplication, window: Any, edit: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """An edit until the canvas, painted, shows its result (a big level may be its sketch), and until every
    item is made."""
    settle(app, window)
    clock = Clock()
    edit()
    pump(app, lambda: window.scene.drawn)
    window.view.viewport().repaint()
    drawn = clock.read()
    pump(app, lambda: window.scene.settled)
    done = clock.read()
    return (round(drawn[0], 2), round(drawn[1], 2)), (round(done[0], 2), round(done[1], 2))


def measure(app: QApplication, shell: Any, size: int, opens: int) -> dict[str, Any]:
    document = chain(size)
    writing = asyncio.ensure_future(shell.registry.call(shell.ctx, "workflow_write", {"workflow": document}))
    pump(app, writing.done)
    assert writing.result()["ok"], writing.result()
    app.processEvents()
    name = document["app"]["name"]
    opened, ready = [], []
    for _ in range(opens):
        first_paint, all_items, window = open_once(app, shell, name)
        opened.append(first_paint)
        ready.append(all_items)
        settle(app, window)
        close(app, window)
    _first, _ready, window = open_once(app, shell, name)
    settle(app, window)
    nodes = len(window.scene.nodes)
    view = window.view
    scroll = view.horizontalScrollBar()
    view.set_zoom(1.0)
    pan = frames(app, view, lambda i: scroll.setValue(scroll.value() + (25 if i % 20 < 10 else -25)))
    zoom = frames(app, view, lambda i: view.set_zoom(view.zoom * (1.1 if i % 20 < 10 else 1 / 1.1)))
    view.set_zoom(0.3)  # below the detail zoom: boxes
    pan_out = frames(app, view, lambda i: scroll.setValue(scroll.value() + (25 if i % 20 < 10 else -25)))
    zoom_sweep = frames(app, view, lambda i: view.set_zoom(0.1 * (1.25 ** (i % 12))), 48)  # 0.1 … 1.2: crosses it
    view.fit()
    fit = frames(app, view, lambda i: scroll.setValue(scroll.value() + (5 if i % 2 else -5)), 20)
    controller, scene = window.controller, window.scene
    last = next(n for n in reversed(window.model.nodes(())) if n["data"]["type"] == "click")["id"]
    view.set_zoom(1.0)  # edits where one edits: zoomed in on them (the fitted frame is measured above)
    view.centerOn(scene.nodes[last])
    edits = {
        "add": timed_edit(app, window, lambda: controller.add_node((), "press", (0, 400))),  # pins the layout too
        "undo add": timed_edit(app, window, window.stack.undo),
        "redo add": timed_edit(app, window, window.stack.redo),
        "add again": timed_edit(app, window, lambda: controller.add_node((), "press", (300, 400))),
        "move": timed_edit(app, window, lambda: controller.move({last: (120.0, 640.0)})),
        "undo move": timed_edit(app, window, window.stack.undo),
        "select (its form is built)": timed_edit(app, window, lambda: scene.select_nodes([last])),
        "delete (Delete key)": timed_edit(app, window, window.delete_selected),
        "undo delete": timed_edit(app, window, window.stack.undo),
    }
    view.fit()
    bulk = {
        "select all": timed_bulk(app, window, window.select_all),
        "delete all": timed_bulk(app, window, window.delete_selected),
        "undo delete all": timed_bulk(app, window, window.stack.undo),
    }
    close(app, window)
    return {"nodes": nodes, "open": summary(opened), "itemsReady": summary(ready),
            "frames": {"pan at zoom 1": pan, "zoom around 1": zoom, "pan at zoom 0.3": pan_out,
                       "zoom 0.1-1.2": zoom_sweep, "pan fitted": fit},
            "edits": edits, "bulk": bulk}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--opens", type=int, default=7, help="opens per size (the median is shown)")
    args = parser.parse_args()
    app = qt_application(headless=True)

    from app.wiring.shell import BrowserPilotApp
    from plumbing.datadir import DataDir

    # This benchmark processes Qt's events itself (`pump`): asyncio runs inside that, as in the tests.
    with asyncio_inside_qt(app), tempfile.TemporaryDirectory() as folder:
        os.environ.pop("BROWSERPILOT_HOME", None)
        shell = BrowserPilotApp(DataDir(Path(folder)), headless=True)
        shell.start([])
        measure(app, shell, 5, 1)  # warm-up: fonts, first window
        results = [measure(app, shell, size, args.opens) for size in (5, 500)]
        shell.shutdown()
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; each figure: wall ms (Qt thread CPU ms)")
        for r in results:
            print(f"{r['nodes']:>4} nodes: open → first paint {r['open']['medianMs']} ({r['open']['cpuMedianMs']}) median "
                  f"of {args.opens}; every item made {r['itemsReady']['medianMs']} ({r['itemsReady']['cpuMedianMs']})")
            for label, f in r["frames"].items():
                print(f"      frame, {label}: {f['medianMs']} ({f['cpuMedianMs']}) median, {f['worstMs']} "
                      f"({f['cpuWorstMs']}) worst")
            print("      edits: " + ", ".join(f"{k} {w} ({c})" for k, (w, c) in r["edits"].items()))
            print("      every node at once (drawn / every item made): " + ", ".join(
                f"{k} {w} ({c}) / {w2} ({c2})" for k, ((w, c), (w2, c2)) in r["bulk"].items()))
        small, big = results
        worst = max(f["cpuWorstMs"] for f in big["frames"].values())
        print(f"500 vs 5 nodes: open x{big['open']['medianMs'] / small['open']['medianMs']:.2f} wall, "
              f"x{big['open']['cpuMedianMs'] / small['open']['cpuMedianMs']:.2f} CPU; worst 500-node frame {worst} ms "
              f"CPU; worst edit {max(c for _w, c in big['edits'].values())} ms CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
