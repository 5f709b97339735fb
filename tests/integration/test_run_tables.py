"""Tables people open in a spreadsheet: a run that collects 500 rows from a real page writes them as .xlsx
(the `export` node, openpyxl) and returns them as a list output; the Runs panel shows both as tables one can
sort and filter, saves what it shows as CSV or XLSX and opens it with the desktop's application; the xlsx
read back by openpyxl has the same cells, Chinese text and numbers intact; CSV stays byte for byte."""

from __future__ import annotations

import csv
import html
import io
from pathlib import Path
from typing import Any

from openpyxl import load_workbook
from PySide6.QtCore import Qt, QUrl
from pytestqt.qtbot import QtBot

from app.wiring.shell import BrowserPilotApp
from tests.support.documents import chain, node, ok
from tests.support.qt import run_op
from tests.support.server import LocalServer

ROWS = 500
HEADERS = ["名称", "价格", "库存", "备注"]


def expected_rows() -> list[list[Any]]:
    return [[f"商品 {i}", i * 5 // 4 if i % 4 == 0 else i * 1.25, i, "=SUM(A1)" if i == 7 else f"第 {i} 行, \"引号\""]
            for i in range(1, ROWS + 1)]


def shop_page() -> str:
    cells = "".join(f"<tr><td>{name}</td><td>{price}</td><td>{stock}</td><td>{html.escape(note)}</td></tr>"
                    for name, price, stock, note in expected_rows())
    return f"<!doctype html><meta charset=utf-8><title>商品</title><table id=t>{cells}</table>"


def collecting_document(server: LocalServer, fmt: str = "xlsx") -> dict[str, Any]:
    read = ("return {rows: [...document.querySelectorAll('#t tr')].map((tr) => { const c = tr.children; "
            "return {'名称': c[0].textContent, '价格': Number(c[1].textContent), '库存': Number(c[2].textContent), "
            "'备注': c[3].textContent}; })}")
    return chain(f"Collect {fmt}",
                 node("start", "start"),
                 node("open", "goto", url=server.url("/shop")),
                 node("read", "script", source=read, outputs={"rows": {"type": "array"}}),
                 node("save", "export", filename="商品清单", headers=HEADERS, rows_selector=["read", "rows"],
                      format=fmt),
                 node("end", "end", outputs=[{"variable": "items", "value_selector": ["read", "rows"]},
                                             {"variable": "file", "value_selector": ["save", "path"]}]))


def sheet_rows(path: Path) -> list[list[Any]]:
    book = load_workbook(path)
    try:
        return [list(row) for row in book.active.iter_rows(values_only=True)]
    finally:
        book.close()


def test_a_run_of_500_rows_shows_in_the_panel_and_its_xlsx_keeps_the_cells(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer, tmp_path: Path) -> None:
    server.route("/shop", shop_page())
    run = ok(run_op(qtbot, shell, "workflow_run", {"workflow": collecting_document(server)}, timeout=60_000))["run"]
    assert run["status"] == "ok", run.get("error")
    exported = Path(run["outputs"]["file"])
    assert exported.name == "商品清单.xlsx" and str(exported) in run["files"]
    # The workbook as a spreadsheet opens it: the same cells, text as text (a leading = too), numbers as numbers.
    assert sheet_rows(exported) == [HEADERS, *expected_rows()]
    assert load_workbook(exported).active["D8"].data_type == "s"  # "=SUM(A1)" stays text, never a formula

    window = shell.main_window
    assert window is not None
    runs = window.runs_panel
    window.panels.setCurrentWidget(runs)
    qtbot.waitUntil(lambda: runs.model.row_of(run["id"]) >= 0, timeout=10_000)
    runs.select_run(run["id"])
    view = runs.detail.tables
    qtbot.waitUntil(lambda: len(view.tables) == 2, timeout=15_000)
    assert [(t.name, t.source, t.row_count) for t in view.tables] == [
        ("商品清单.xlsx", "file", ROWS), ("items", "output", ROWS)]
    assert runs.detail.pages.tabText(runs.detail.pages.indexOf(view)) == "Tables (2)"

    # The exported table: 500 rows, its headers, sortable by price (numbers as numbers), filterable.
    assert view.proxy.rowCount() == ROWS and view.count.text() == "500 rows"
    assert [view.model.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == HEADERS
    view.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    assert view.proxy.index(0, 0).data() == "商品 500" and view.proxy.index(0, 1).data() == "625"
    view.filter.setText("商品 49")
    assert view.count.text() == "11 of 500 rows"  # 49 and 490-499
    assert {row[0] for row in view.shown_rows()} == {"商品 49", *(f"商品 {i}" for i in range(490, 500))}

    # Save as XLSX what is shown (filtered, sorted), off the Qt thread.
    target = tmp_path / "saved"
    view.save_dialog = lambda fmt, suggested: str(target)
    future = view.save_as("xlsx")
    assert future is not None
    qtbot.waitUntil(future.done, timeout=10_000)
    saved = tmp_path / "saved.xlsx"
    assert future.result() == saved
    qtbot.waitUntil(lambda: "Saved" in view.note.text(), timeout=5_000)  # said once the save has come back
    rows = sheet_rows(saved)
    assert rows[0] == HEADERS and rows[1] == ["商品 499", 623.75, 499, "第 499 行, \"引号\""] and len(rows) == 12

    # The run's record written again (a late write; the panel follows the store and reads its tables again):
    # the table stays as the person left it, its order, its filter and what the note said.
    shown: list[str | None] = []
    show_tables = runs.detail.show_tables
    runs.detail.show_tables = lambda run_id, tables: (shown.append(run_id), show_tables(run_id, tables))
    shell.ctx.runs.save(shell.ctx.runs.get(run["id"]))
    qtbot.waitUntil(lambda: shown == [run["id"]], timeout=10_000)
    assert view.count.text() == "11 of 500 rows" and view.proxy.index(0, 0).data() == "商品 499"
    assert "Saved" in view.note.text()

    # The list output, saved as CSV: every row, the original's CSV (BOM, CRLF).
    view.filter.clear()
    view.choice.setCurrentIndex(1)
    assert view.proxy.rowCount() == ROWS and view.model.headers == HEADERS
    view.save_dialog = lambda fmt, suggested: str(tmp_path / "items.csv")
    future = view.save_as("csv")
    assert future is not None
    qtbot.waitUntil(future.done, timeout=10_000)
    raw = (tmp_path / "items.csv").read_bytes()
    assert raw.startswith("\ufeff名称,价格,库存,备注\r\n".encode("utf-8"))
    parsed = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert len(parsed) == ROWS + 1 and parsed[8] == ["商品 8", "10", "8", "第 8 行, \"引号\""]

    # Open: the exported file itself; a list output as a CSV written for the desktop's application.
    opened: list[str] = []
    view.opener = lambda url: opened.append(QUrl(url).toLocalFile()) or True
    view.choice.setCurrentIndex(0)
    assert view.open_table() is None and opened == [str(exported)]
    view.choice.setCurrentIndex(1)
    future = view.open_table()
    assert future is not None
    qtbot.waitUntil(lambda: len(opened) == 2, timeout=10_000)
    assert opened[1].endswith("items.csv") and Path(opened[1]).read_bytes() == raw


def test_csv_stays_byte_for_byte_and_run_tables_names_its_tables(
        qtbot: QtBot, shell: BrowserPilotApp, server: LocalServer) -> None:
    server.route("/shop", shop_page())
    run = ok(run_op(qtbot, shell, "workflow_run", {"workflow": collecting_document(server, "csv")},
                    timeout=60_000))["run"]
    assert run["status"] == "ok", run.get("error")
    path = Path(run["outputs"]["file"])
    def quoted(value: Any) -> str:  # the original's rule: quoted when it holds a quote, a comma or a line break
        text = str(value)
        return '"' + text.replace('"', '""') + '"' if any(ch in text for ch in ',"\r\n') else text

    expected = "\ufeff" + "\r\n".join(",".join(quoted(cell) for cell in row) for row in [HEADERS, *expected_rows()])
    assert path.name == "商品清单.csv" and path.read_bytes() == expected.encode("utf-8")

    tables = ok(run_op(qtbot, shell, "run_tables", {"runId": run["id"]}))["tables"]
    assert [(t["name"], t["rowCount"]) for t in tables] == [("商品清单.csv", ROWS), ("items", ROWS)]
    assert tables[0]["rows"][0] == ["商品 1", "1.25", "1", "第 1 行, \"引号\""]  # CSV cells are text
    assert tables[1]["rows"][0] == ["商品 1", 1.25, 1, "第 1 行, \"引号\""]
    one = ok(run_op(qtbot, shell, "run_tables", {"runId": run["id"], "table": "items"}))["tables"]
    assert [t["name"] for t in one] == ["items"]
    missing = run_op(qtbot, shell, "run_tables", {"runId": run["id"], "table": "nope"})
    assert not missing["ok"] and "1. 商品清单.csv, 2. items" in missing["error"]


