"""The `export` node's files: a table written into the run folder as CSV (byte for byte as the original
writes it), JSON, JSON Lines, Markdown, PDF (a real table laid out with reportlab) or XLSX (openpyxl: numbers
stay numbers, text stays text, never a formula; `format: "xlsx"`, ours).

The table comes from `data_selector` (`{filename, headers, rows}`) or from `filename` + `headers` (or
`headers_selector`) + `rows_selector`. Rows may be lists (in header order) or, as our extension, objects
(looked up by header).

CSV, as the original: the file name is `filename` with each of `\\ / : * ? " < > |` replaced by `_` and
`.csv` appended when missing; cells are JavaScript's `String(value)` (`[1,2]` → `1,2`, null → empty), quoted
when they hold `"`, `,`, CR or LF; a UTF-8 BOM, CRLF between rows and no line break after the last row. A
second export of the same name in one run replaces the first, as in the original.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from plumbing.atomic import atomic_write_bytes, atomic_write_text
from plumbing.filenames import safe_name_with_extension, unique_safe_path
from workflows.template import Variables, VariableError, as_text, js_string

ORIGINAL_UNSAFE = re.compile(r'[\\/:*?"<>|]')

EXTENSIONS = {"csv": ".csv", "json": ".json", "jsonl": ".jsonl", "md": ".md", "pdf": ".pdf", "xlsx": ".xlsx"}
_XLSX_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # control characters a worksheet cannot hold
_SHEET_UNSAFE = re.compile(r"[\\/*?:\[\]]")


def table_from(data: Any, variables: Variables) -> tuple[str, list[str], list[list[Any]]]:
    if data.data_selector is not None:
        source = variables.resolve(data.data_selector)
        if not isinstance(source, dict):
            raise VariableError("data_selector must name an object {filename, headers, rows}")
        if not isinstance(source.get("filename"), str):
            raise VariableError("the object at data_selector has no filename (text)")
        filename = source["filename"]
        headers = source.get("headers")
        rows = source.get("rows")
    else:
        filename = as_text(variables.render(data.filename))
        headers = list(data.headers) if data.headers is not None else \
            variables.resolve(data.headers_selector) if data.headers_selector is not None else None
        rows = variables.resolve(data.rows_selector)
    if not isinstance(rows, list):
        raise VariableError(f"the rows to export must be a list, not {type(rows).__name__}")
    if headers is None:
        first = next((row for row in rows if isinstance(row, dict)), None)
        headers = list(first) if first else []
    if not isinstance(headers, list):
        raise VariableError("the headers to export must be a list")
    headers = [js_string(h) for h in headers]
    table = []
    for row in rows:
        if isinstance(row, dict):
            table.append([row.get(h, "") for h in headers])
        elif isinstance(row, list):
            table.append(list(row))
        else:
            table.append([row])
    return filename, headers, table


def write_export(data: Any, variables: Variables, folder: Path) -> Path:
    """The export node's file, from its data and the run's variables (the node itself writes on a worker
    thread: `table_from` where the variables live, `write_table` off the Qt thread)."""
    return write_table(folder, *table_from(data, variables), data.format)


def write_table(folder: Path, filename: str, headers: list[str], rows: list[list[Any]], fmt: str) -> Path:
    """Write a table into `folder` in the format `fmt` (csv, json, jsonl, md, pdf, xlsx); its path. Blocks on the
    disk."""
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        path = folder / csv_file_name(filename)
        lines = [",".join(csv_cell(cell) for cell in row) for row in [headers, *rows]]
        atomic_write_bytes(path, ("\ufeff" + "\r\n".join(lines)).encode("utf-8"))
        return path
    path = unique_safe_path(folder, safe_name_with_extension(filename, EXTENSIONS[fmt]))
    if fmt == "json":
        records = [dict(zip(headers, row)) for row in rows]
        atomic_write_text(path, json.dumps(records, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "jsonl":
        atomic_write_text(path, "".join(json.dumps(dict(zip(headers, row)), ensure_ascii=False) + "\n"
                                        for row in rows))
    elif fmt == "md":
        def cell(value: Any) -> str:
            return as_text(value).replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")

        lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
        atomic_write_text(path, "\n".join(lines) + "\n")
    elif fmt == "xlsx":
        write_xlsx(path, filename, headers, rows)
    else:
        write_pdf(path, filename, headers, rows)
    return path


def xlsx_cell(value: Any) -> Any:
    """A cell's value in a worksheet: numbers and booleans as they are, everything else as its text."""
    if value is None:
        return None
    if isinstance(value, (bool, int, float)) and value == value and value not in (float("inf"), float("-inf")):
        return value
    return _XLSX_ILLEGAL.sub("", js_string(value))


def write_xlsx(path: Path, title: str, headers: list[str], rows: list[list[Any]]) -> None:
    """One worksheet: the headers (bold, frozen, filterable) and the rows. Text that starts with `=` stays
    text: a cell never becomes a formula."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook(write_only=False)
    sheet = book.active
    sheet.title = (_SHEET_UNSAFE.sub("_", Path(title).stem or "export")[:31]).strip("'") or "export"
    for row in [headers, *rows]:
        sheet.append([xlsx_cell(value) for value in row])
    for row_cells in sheet.iter_rows():
        for cell in row_cells:
            if cell.data_type == "f":
                cell.data_type = "s"  # `=…` from a page is text, never a formula
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    if headers:
        sheet.auto_filter.ref = sheet.dimensions
    buffer = io.BytesIO()
    book.save(buffer)
    atomic_write_bytes(path, buffer.getvalue())


def csv_file_name(filename: str) -> str:
    """The original's CSV file name: unsafe characters replaced by `_`, `.csv` appended when missing."""
    safe = ORIGINAL_UNSAFE.sub("_", filename)
    if safe in ("", ".", ".."):
        safe = safe.replace(".", "_") or "export"
    return safe if safe.endswith(".csv") else safe + ".csv"


def csv_cell(value: Any) -> str:
    text = "" if value is None else js_string(value)
    return '"' + text.replace('"', '""') + '"' if re.search(r'[",\r\n]', text) else text


def write_pdf(path: Path, title: str, headers: list[str], rows: list[list[Any]]) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    cell_style = styles["BodyText"]
    cell_style.fontSize = 8
    cell_style.leading = 10
    page = landscape(A4) if len(headers) > 5 else A4
    doc = SimpleDocTemplate(str(path), pagesize=page, title=title, leftMargin=36, rightMargin=36,
                            topMargin=36, bottomMargin=36)

    header_style = cell_style.clone("header", textColor=colors.white, fontName="Helvetica-Bold")

    def para(value: Any, style: Any = cell_style) -> Paragraph:
        text = as_text(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return Paragraph(text, style)

    data = [[para(h, header_style) for h in headers]] + [[para(v) for v in row] for row in rows]
    width = page[0] - 72
    table = Table(data, repeatRows=1, colWidths=[width / max(1, len(headers))] * max(1, len(headers)))
    table.setStyle(TableStyle([
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#1e40af")),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#94a3b8")),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f1f5f9")]),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]))
    doc.build([Paragraph(title.replace("&", "&amp;").replace("<", "&lt;"), styles["Heading2"]), Spacer(1, 8), table])
