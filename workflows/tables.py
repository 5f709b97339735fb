"""A run's tables, as a person opens them in a spreadsheet: the tables its `export` nodes wrote (CSV, XLSX,
JSON, JSON Lines) and its outputs that are lists (of objects, of lists or of plain values, inline or kept in
the run folder as `{"$file": …}`). Pure logic over files: callers read them off the Qt thread.

- `run_tables(record)` finds them in a run record (the `run_read` view): `RunTable(name, source, headers,
  rows, path)`; `source` is `file` or `output`.
- `format_text_table(headers, rows)` lays one out in aligned columns for a terminal (`runs show ID --table`),
  wide characters (Chinese) counted as two columns.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from plumbing import loggers
from workflows.template import js_string

log = logging.getLogger(loggers.WORKFLOWS)

TABLE_FILES = (".csv", ".xlsx", ".json", ".jsonl")
MAX_ROWS = 100_000  # a table shown or printed is cut here (`truncated`)
MAX_FILE_BYTES = 64 * 1024 * 1024


@dataclass
class RunTable:
    name: str
    source: str  # "file" (an exported table) or "output" (a list output of the run)
    headers: list[str]
    rows: list[list[Any]]
    path: str | None = None
    truncated: bool = False
    problems: list[str] = field(default_factory=list)

    def view(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "source": self.source, "headers": self.headers, "rows": self.rows,
                                "rowCount": len(self.rows), "truncated": self.truncated}
        if self.path:
            data["path"] = self.path
        return data


def table_of_value(value: Any) -> tuple[list[str], list[list[Any]]] | None:
    """A value as a table: a list of objects (columns: their keys, in order of appearance), a list of lists
    (columns 1, 2, …), a list of plain values (one column), or `{headers, rows}`; None for anything else."""
    if isinstance(value, Mapping) and isinstance(value.get("rows"), list):
        headers = value.get("headers")
        rows = value["rows"]
        if isinstance(headers, list):
            return [js_string(h) for h in headers], [_row(r, headers) for r in rows]
        value = rows
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(item, Mapping) for item in value):
        keys: dict[str, None] = {}
        for item in value:
            keys.update(dict.fromkeys(str(k) for k in item))
        headers = list(keys)
        return headers, [[item.get(h) for h in headers] for item in value]
    if all(isinstance(item, list) for item in value):
        width = max(len(item) for item in value)
        return [str(i + 1) for i in range(width)], [list(item) + [None] * (width - len(item)) for item in value]
    if all(not isinstance(item, (list, Mapping)) for item in value):
        return ["value"], [[item] for item in value]
    return None


def _row(row: Any, headers: Sequence[Any]) -> list[Any]:
    if isinstance(row, Mapping):
        return [row.get(h) for h in headers]
    return list(row) if isinstance(row, list) else [row]


def read_table_file(path: Path) -> tuple[list[str], list[list[Any]]] | None:
    """An exported table file read back (None when it holds no table). Blocks on the disk."""
    suffix = path.suffix.lower()
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path.name} is larger than {MAX_FILE_BYTES // 1024 // 1024} MB")
    if suffix == ".csv":
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
        rows = list(csv.reader(io.StringIO(text, newline="")))
        return (rows[0], rows[1:]) if rows else None
    if suffix == ".xlsx":
        from openpyxl import load_workbook

        book = load_workbook(path, read_only=True, data_only=True)
        try:
            values = [list(row) for row in book.worksheets[0].iter_rows(values_only=True)]
        finally:
            book.close()
        return ([js_string(h) if h is not None else "" for h in values[0]], values[1:]) if values else None
    if suffix == ".json":
        return table_of_value(json.loads(path.read_text("utf-8")))
    if suffix == ".jsonl":
        lines = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
        return table_of_value(lines)
    return None


def _resolved(value: Any) -> Any:
    if isinstance(value, Mapping) and "$file" in value:
        return json.loads(Path(str(value["$file"])).read_text("utf-8"))
    return value


def run_tables(record: Mapping[str, Any]) -> list[RunTable]:
    """The tables of a run record (the `run_read` view): exported table files, then list outputs. A file
    that cannot be read is listed with its problem and no rows. Blocks on the disk."""
    tables: list[RunTable] = []
    for path_text in record.get("files") or []:
        path = Path(str(path_text))
        if path.suffix.lower() not in TABLE_FILES:
            continue
        try:
            found = read_table_file(path)
        except Exception as exc:  # a missing or damaged file (openpyxl and zipfile raise their own errors)
            tables.append(RunTable(path.name, "file", [], [], str(path), problems=[f"cannot read it: {exc}"]))
            continue
        if found is not None:
            tables.append(_cut(RunTable(path.name, "file", *found, path=str(path))))
    for key, value in (record.get("outputs") or {}).items():
        try:
            found = table_of_value(_resolved(value))
        except (OSError, ValueError) as exc:
            log.info("output %s of run %s cannot be read: %s", key, record.get("id"), exc)
            continue
        if found is not None:
            tables.append(_cut(RunTable(str(key), "output", *found)))
    return tables


def _cut(table: RunTable) -> RunTable:
    if len(table.rows) > MAX_ROWS:
        table.rows = table.rows[:MAX_ROWS]
        table.truncated = True
    return table


def find_table(tables: Sequence[RunTable], wanted: str | None) -> RunTable:
    """The table named `wanted` (its name, or its number from 1); the first without a name."""
    if not tables:
        raise LookupError("the run has no tables (no exported table files and no list outputs)")
    if not wanted:
        return tables[0]
    for table in tables:
        if table.name == wanted or Path(table.name).stem == wanted:
            return table
    if wanted.isdigit() and 1 <= int(wanted) <= len(tables):
        return tables[int(wanted) - 1]
    raise LookupError(f"the run has no table {wanted!r}; its tables: "
                      + ", ".join(f"{i + 1}. {t.name}" for i, t in enumerate(tables)))


def cell_text(value: Any) -> str:
    return "" if value is None else js_string(value) if not isinstance(value, str) else value


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def format_text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], max_column: int = 40) -> str:
    """Aligned columns with a rule under the headers; long cells are cut with `…`, line breaks shown as ⏎."""
    def clip(value: Any) -> str:
        text = cell_text(value).replace("\r\n", "⏎").replace("\n", "⏎").replace("\t", " ")
        if _width(text) <= max_column:
            return text
        out = ""
        for ch in text:
            if _width(out + ch) > max_column - 1:
                break
            out += ch
        return out + "…"

    grid = [[clip(h) for h in headers]] + [[clip(v) for v in row] for row in rows]
    count = max(len(row) for row in grid)
    widths = [max((_width(row[i]) for row in grid if i < len(row)), default=0) for i in range(count)]
    lines = []
    for index, row in enumerate(grid):
        cells = [cell + " " * (widths[i] - _width(cell)) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
