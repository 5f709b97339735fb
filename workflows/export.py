"""The `export` node: a table written into the run folder as CSV (UTF-8 with BOM, CRLF, like the original),
JSON, JSON Lines, Markdown or PDF (a real table laid out with reportlab).

The table comes from `data_selector` (`{filename, headers, rows}`) or from `filename` + `headers` (or
`headers_selector`) + `rows_selector`. Rows may be lists (in header order) or objects (looked up by header).
File names are reduced to a safe base name and kept inside the run folder.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from envs.filenames import safe_name_with_extension, unique_safe_path
from envs.jsonstore import atomic_write_text
from workflows.template import Variables, VariableError, as_text

EXTENSIONS = {"csv": ".csv", "json": ".json", "jsonl": ".jsonl", "md": ".md", "pdf": ".pdf"}


def table_from(data: Any, variables: Variables) -> tuple[str, list[str], list[list[Any]]]:
    if data.data_selector is not None:
        source = variables.resolve(data.data_selector)
        if not isinstance(source, dict):
            raise VariableError("data_selector must name an object {filename, headers, rows}")
        filename = as_text(source.get("filename") or data.filename or "export")
        headers = source.get("headers")
        rows = source.get("rows")
    else:
        filename = as_text(variables.render(data.filename))
        headers = variables.resolve(data.headers_selector) if data.headers_selector is not None else \
            [as_text(variables.render(h)) for h in (data.headers or [])]
        rows = variables.resolve(data.rows_selector)
    if not isinstance(rows, list):
        raise VariableError(f"the rows to export must be a list, not {type(rows).__name__}")
    if headers is None:
        first = next((row for row in rows if isinstance(row, dict)), None)
        headers = list(first) if first else []
    if not isinstance(headers, list):
        raise VariableError("the headers to export must be a list")
    headers = [as_text(h) for h in headers]
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
    filename, headers, rows = table_from(data, variables)
    fmt = data.format
    folder.mkdir(parents=True, exist_ok=True)
    path = unique_safe_path(folder, safe_name_with_extension(filename, EXTENSIONS[fmt]))
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(headers)
        writer.writerows([[as_text(cell) for cell in row] for row in rows])
        path.write_bytes(b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8"))
    elif fmt == "json":
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
    else:
        write_pdf(path, filename, headers, rows)
    return path


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
