"""A run's tables (workflows/tables.py): values and files that are tables, damaged files, terminal layout."""

from __future__ import annotations

import json
from pathlib import Path

from workflows.export import write_table
from workflows.tables import format_text_table, run_tables, table_of_value


def test_values_that_are_tables() -> None:
    assert table_of_value([{"a": 1}, {"b": 2, "a": 3}]) == (["a", "b"], [[1, None], [3, 2]])
    assert table_of_value([[1, 2], [3]]) == (["1", "2"], [[1, 2], [3, None]])
    assert table_of_value(["x", 2]) == (["value"], [["x"], [2]])
    assert table_of_value({"headers": ["h"], "rows": [{"h": 1}, [2]]}) == (["h"], [[1], [2]])
    for not_a_table in ([], "text", {"a": 1}, [1, {"a": 1}], None):
        assert table_of_value(not_a_table) is None


def test_run_tables_reads_files_outputs_and_reports_damage(tmp_path: Path) -> None:
    csv_path = write_table(tmp_path, "t", ["名", "n"], [["一", 1], ["a,b", 2]], "csv")
    xlsx_path = write_table(tmp_path, "t", ["名", "n"], [["一", 1]], "xlsx")
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"not a zip")
    big = tmp_path / "outputs.json"
    big.write_text(json.dumps([{"k": i} for i in range(3)]))
    record = {"id": "run-1", "files": [str(csv_path), str(xlsx_path), str(broken), str(tmp_path / "shot.png")],
              "outputs": {"rows": {"$file": str(big), "bytes": 10}, "count": 3, "names": ["a", "b"]}}
    tables = run_tables(record)
    assert [(t.name, t.source, len(t.rows)) for t in tables] == [
        ("t.csv", "file", 2), ("t.xlsx", "file", 1), ("broken.xlsx", "file", 0), ("rows", "output", 3),
        ("names", "output", 2)]
    assert tables[0].rows[1] == ["a,b", "2"] and tables[1].rows[0] == ["一", 1]
    assert tables[2].problems and "cannot read it" in tables[2].problems[0]


def test_text_tables_align_wide_characters() -> None:
    text = format_text_table(["名称", "n"], [["苹果", 1], ["a\nb", None], ["x" * 50, 2]], max_column=10)
    assert text.splitlines() == ["名称        n", "----------  -", "苹果        1", "a⏎b", "xxxxxxxxx…  2"]
