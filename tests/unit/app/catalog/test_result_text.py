"""What a model reads of a tool result (app/catalog/result_text.py): a header line, then the payload as plain
text — never JSON inside a string."""

from __future__ import annotations

from app.catalog.result_text import render

SNAPSHOT = 'url: http://shop.test/\ntitle: Shop "Blue"\n- heading "Blue widget" level=1\n- form:\n  - textbox "Name" [ref=e1]'


def test_a_snapshot_is_its_own_lines_under_a_header() -> None:
    text = render({"ok": True, "control": "agent", "tabId": "tab-1", "url": "http://shop.test/",
                   "title": 'Shop "Blue"', "snapshot": SNAPSHOT, "refs": 1, "folded": 0, "truncated": False})
    assert text.splitlines()[0] == "ok · tab tab-1 · agent · http://shop.test/"
    assert text.endswith("snapshot:\n" + SNAPSHOT)  # quotes stay quotes, newlines new lines
    assert '\\"' not in text and "\\n" not in text
    assert "refs: 1" in text and "truncated: false" in text
    assert text.count('title: Shop "Blue"') == 1  # the snapshot says it already


def test_a_failure_says_its_code_and_reason_then_its_data() -> None:
    text = render({"ok": False, "control": "agent", "tabId": "tab-1", "url": "http://a.test/", "code": "no_match",
                   "error": 'no element matches "#nope"', "errorShot": "/data/captures/x.png",
                   "notes": ["locator won over the flat selector"]})
    assert text.splitlines() == ["error (no_match) · tab tab-1 · agent · http://a.test/",
                                 'no element matches "#nope"', "note: locator won over the flat selector",
                                 "errorShot: /data/captures/x.png"]
    assert render({"ok": False, "control": None, "error": "boom", "code": "failed"}) == "error\nboom"


def test_lists_of_objects_are_tables_and_the_originals_duplicates_are_left_out() -> None:
    tabs = [{"id": "tab-1", "env": "env-default", "envId": "env-default", "url": "http://a.test/", "title": "A",
             "active": True, "groupId": None},
            {"id": "tab-2", "env": "env-x", "envId": "env-x", "url": "http://b.test/", "title": "B | C",
             "active": False, "groupId": None}]
    text = render({"ok": True, "control": None, "tabs": tabs})
    assert text.splitlines() == ["ok", "tabs (2):", "  id | env | url | title | active",
                                 "  tab-1 | env-default | http://a.test/ | A | true",
                                 "  tab-2 | env-x | http://b.test/ | B | C | false"]
    envs = [{"id": "env-default", "name": "Default"}]
    assert render({"ok": True, "control": None, "environments": envs, "envs": envs}).count("env-default") == 1
    query = {"ok": True, "control": None, "count": 0, "elements": [], "total": 0, "matches": []}
    assert render(query) == "ok\ncount: 0\nelements: (none)"


def test_nested_objects_words_and_spreadsheet_tables() -> None:
    text = render({"ok": True, "control": None, "run": {"id": "run-1", "status": "ok", "outputs": {"total": 3},
                                                         "files": ["a.csv", "b.csv"]},
                   "tables": [{"name": "orders", "headers": ["sku", "qty"], "rows": [["A-1", 2], ["B-2", 5]]}]})
    lines = text.splitlines()
    assert lines[:7] == ["ok", "run:", "  id: run-1", "  status: ok", "  outputs:", "    total: 3",
                         "  files: a.csv, b.csv"]
    assert lines[7:] == ["tables (1):", "  name | headers | rows",
                         "  orders | [sku, qty] | [[A-1, 2], [B-2, 5]]"]
    sheet = render({"ok": True, "control": None, "table": {"headers": ["sku", "qty"], "rows": [["A-1", 2]],
                                                           "rowCount": 1}})
    assert sheet.splitlines() == ["ok", "table:", "  sku | qty", "  A-1 | 2", "  rowCount: 1"]


def test_a_script_value_is_text_not_json() -> None:
    text = render({"ok": True, "control": "agent", "tabId": "tab-1", "value": {"name": 'say "hi"', "n": 2.0},
                   "sourceKind": "expression"})
    assert text.splitlines()[1:] == ["value:", '  name: say "hi"', "  n: 2", "sourceKind: expression"]
