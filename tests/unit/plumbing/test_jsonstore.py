"""The shared JSON store: validated, versioned, atomic, and never silently overwriting a bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from plumbing.atomic import atomic_write_text
from plumbing.jsonstore import JsonStore, StoreError


class Doc(BaseModel):
    schema_version: int = 2
    items: list[str] = []


def store(path: Path) -> JsonStore[Doc]:
    return JsonStore(path, Doc, Doc)


def test_missing_file_gives_an_empty_document(tmp_path: Path) -> None:
    loaded = store(tmp_path / "doc.json").load()
    assert loaded.document == Doc() and loaded.problem is None


def test_save_then_load_round_trips_and_leaves_no_temp_files(tmp_path: Path) -> None:
    s = store(tmp_path / "doc.json")
    s.save(Doc(items=["a", "ü", "日本"]))
    assert s.load().document.items == ["a", "ü", "日本"]
    assert [p.name for p in tmp_path.iterdir()] == ["doc.json"]
    assert json.loads((tmp_path / "doc.json").read_text("utf-8"))["schema_version"] == 2


@pytest.mark.parametrize("content, reason", [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"items": []}', "no schema_version"),
    (b'{"schema_version": 2, "items": 5}', "invalid at items"),
    (b'{"schema_version": 9, "items": []}', "newer than this app"),
    (b"\xff\xfe\x00garbage", "not valid JSON"),
])
def test_unusable_file_is_moved_aside_with_a_message(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(content)
    loaded = store(path).load()
    assert loaded.document == Doc()
    assert loaded.problem is not None and reason in loaded.problem and "doc.json" in loaded.problem
    assert loaded.moved_to is not None and loaded.moved_to.name.startswith("doc.json.corrupt-")
    assert loaded.moved_to.read_bytes() == content  # nothing lost
    assert not path.exists()


def test_a_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"schema_version": 1, "items": ["x"]}).encode())
    assert store(path).load().document.items == ["x"]


def test_write_into_an_unusable_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot write"):
        atomic_write_text(blocker / "doc.json", "{}")


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = store(tmp_path / "doc.json")
    s.save(Doc(items=["old"]))

    def full_disk(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("plumbing.atomic.os.replace", full_disk)
    with pytest.raises(StoreError, match="No space left"):
        s.save(Doc(items=["new"]))
    monkeypatch.undo()
    assert s.load().document.items == ["old"]
    assert [p.name for p in tmp_path.iterdir()] == ["doc.json"]
