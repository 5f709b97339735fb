"""Run records, the 200-run cap with folder eviction, templates, comparisons and export formats."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from pypdf import PdfReader

from plumbing.datadir import DataDir
from workflows.engine import compare
from workflows.export import write_export
from workflows.redaction import redact
from workflows.runs import MAX_RUNS, RunRecord, RunStore
from workflows.template import Variables, VariableError


def test_the_201st_run_evicts_the_oldest_and_its_folder(tmp_path: Path) -> None:
    store = RunStore(DataDir(tmp_path))
    ids = []
    for i in range(MAX_RUNS + 1):
        record = RunRecord(id=f"run-{i:04d}", workflow_name="w", env="env-default", status="ok")
        store.folder(record.id).mkdir(parents=True)
        (store.folder(record.id) / "shot.png").write_bytes(b"x")
        store.save(record)
        ids.append(record.id)
    assert len(store.list(limit=500)) == MAX_RUNS
    assert not store.folder(ids[0]).exists() and store.folder(ids[1]).exists()
    reloaded = RunStore(DataDir(tmp_path))
    assert [r.id for r in reloaded.list(limit=2)] == [ids[-1], ids[-2]]
    with pytest.raises(LookupError, match="run-0000"):
        reloaded.get("run-0000")


def test_large_outputs_live_in_the_run_folder(tmp_path: Path) -> None:
    store = RunStore(DataDir(tmp_path))
    big = ["row"] * 10_000
    saved = store.save(RunRecord(id="run-big", workflow_name="w", env="e", outputs={"small": 1, "rows": big}))
    assert saved.outputs["small"] == 1
    pointer = saved.outputs["rows"]
    assert json.loads(Path(pointer["$file"]).read_text("utf-8")) == big
    assert (tmp_path / "runs.json").stat().st_size < 20_000


def test_the_index_stays_small_and_the_trace_lives_in_the_run_folder(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    from workflows.runs import TraceEntry

    store = RunStore(DataDir(tmp_path))
    trace = [TraceEntry(node=f"n{i}", type="click", start=datetime.now(timezone.utc), ms=1.0, ok=True)
             for i in range(40)]
    for i in range(MAX_RUNS):
        store.save(RunRecord(id=f"run-{i:04d}", workflow_name="w", env="e", status="ok", trace=trace))
    assert (tmp_path / "runs.json").stat().st_size < 200_000
    assert len(RunStore(DataDir(tmp_path)).get("run-0007").trace) == 40


def test_a_run_cut_short_is_reported_as_failed_on_load(tmp_path: Path) -> None:
    store = RunStore(DataDir(tmp_path))
    store.save(RunRecord(id="run-x", workflow_name="w", env="e", status="running"))
    record = RunStore(DataDir(tmp_path)).get("run-x")
    assert record.status == "failed" and "stopped while this run was in progress" in (record.error or "")


def test_redaction_reaches_every_string() -> None:
    value = {"a": "token=hunter2!", "b": ["hunter2!", {"c": "x hunter2! y"}], "n": 3}
    assert redact(value, {"pw": "hunter2!"}) == {"a": "token=<secret:pw>", "b": ["<secret:pw>", {"c": "x <secret:pw> y"}],
                                                "n": 3}


def test_templates_and_missing_variables() -> None:
    variables = Variables({"input": {"name": "Zoë", "n": 3}, "node1": {"rows": [{"a": 1}]}})
    assert variables.render("Hi {{#input.name#}}!") == "Hi Zoë!"
    assert variables.render("{{#input.n#}}") == "3"  # always text, as the original renders
    assert variables.render("{{#node1.rows.0.a#}} row") == "1 row"
    with pytest.raises(VariableError, match=r"input.missing does not exist \(no 'missing' in input\)"):
        variables.render("{{#input.missing#}}")
    with pytest.raises(VariableError, match="nowhere.x does not exist"):
        variables.resolve(["nowhere", "x"])
    variables.set("loop", {"index": 2, "item": "b"})
    assert variables.render("{{#loop.index#}}:{{#loop.item#}}:{{#input.name#}}") == "2:b:Zoë"
    # The original's template rules: only word, CJK, . and - characters in a path; anything else is literal.
    assert variables.render("{{# input.name #}} {{#input.n!#}}") == "{{# input.name #}} {{#input.n!#}}"
    variables.set("表", {"名字": [1.5, None, {"k": True}], "n": 1e21, "m": 2.0})
    assert variables.render("{{#表.名字#}}|{{#表.名字.length#}}|{{#表.n#}}|{{#表.m#}}|{{#表.名字.1#}}") == \
        '[1.5,null,{"k":true}]|3|1e+21|2|'
    with pytest.raises(VariableError, match="needs at least two parts"):
        variables.resolve(["input"])
    with pytest.raises(VariableError, match="input.name.length does not exist"):
        variables.resolve(["input", "name", "length"])  # a string's length is not readable, as in the original


@pytest.mark.parametrize("operator, value, expected, result", [
    ("contains", "hello world", "world", True), ("not contains", "hello", "x", True),
    ("is", "a", "a", True), ("is not", "a", "a", False), ("empty", "", None, True), ("not empty", [], None, True),
    ("empty", "  ", None, True), ("contains", {"a": 1}, '"a":1', True), ("is", 1.0, "1", True),
    ("starts with", "abc", "ab", True), ("ends with", "abc", "bc", True),
    (">", "10", "9", True), ("≤", 3, "3", True), ("<", "x", "3", False), ("contains", ["a", "b"], '"b"', True),
])
def test_compare(operator: str, value: object, expected: object, result: bool) -> None:
    assert compare(operator, value, expected) is result


def export_node(fmt: str, **extra: object) -> SimpleNamespace:
    fields = dict(data_selector=None, filename="../../out/Report: Q1", headers=["Name", "Note"], headers_selector=None,
                  rows_selector=["t", "rows"], format=fmt)
    fields.update(extra)
    return SimpleNamespace(**fields)


ROWS = [["Zoë", 'says "hi", ok'], ["日本", "line1\nline2"], ["x", "a|b"]]


def test_csv_export_has_bom_crlf_and_valid_quoting(tmp_path: Path) -> None:
    path = write_export(export_node("csv"), Variables({"t": {"rows": ROWS}}), tmp_path)
    # The original's name rule: each of \\ / : * ? " < > | becomes _ (the file stays in the run folder).
    assert path.parent == tmp_path and path.name == ".._.._out_Report_ Q1.csv"
    raw = path.read_bytes()
    assert raw == ("\ufeffName,Note\r\nZoë,\"says \"\"hi\"\", ok\"\r\n日本,\"line1\nline2\"\r\nx,a|b").encode("utf-8")
    assert list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""))) == [["Name", "Note"], *ROWS]
    again = write_export(export_node("csv"), Variables({"t": {"rows": ROWS[:1]}}), tmp_path)
    assert again == path and again.read_bytes().count(b"\r\n") == 1  # the same name in one run replaces it


def test_json_jsonl_md_and_pdf_exports(tmp_path: Path) -> None:
    variables = Variables({"t": {"rows": [{"Name": n, "Note": v} for n, v in ROWS]}})
    as_json = json.loads(write_export(export_node("json"), variables, tmp_path).read_text("utf-8"))
    assert as_json[1] == {"Name": "日本", "Note": "line1\nline2"}
    lines = write_export(export_node("jsonl"), variables, tmp_path).read_text("utf-8").splitlines()
    assert [json.loads(line)["Name"] for line in lines] == ["Zoë", "日本", "x"]
    md = write_export(export_node("md"), variables, tmp_path).read_text("utf-8")
    assert "| Name | Note |" in md and "a\\|b" in md and "line1<br>line2" in md
    pdf = write_export(export_node("pdf"), variables, tmp_path)
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Name" in text and 'says "hi", ok' in text


def test_export_from_a_data_selector(tmp_path: Path) -> None:
    node = export_node("csv", data_selector=["d", "table"], rows_selector=None, headers=None)
    path = write_export(node, Variables({"d": {"table": {"filename": "people", "headers": ["A", "B"],
                                                                   "rows": [[1, [1, 2]], [2.0, None]]}}}), tmp_path)
    assert path.name == "people.csv"
    assert path.read_bytes() == '\ufeffA,B\r\n1,"1,2"\r\n2,'.encode("utf-8")
