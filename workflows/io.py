"""Reading and writing workflow files.

- `parse_document(text)`: JSON text or bytes → a validated `WorkflowDocument`; a UTF-8 BOM is stripped;
  malformed JSON is a `DocumentError` with line and column.
- `dump_document(doc)`: the same shape back as JSON text (known fields in a fixed order, then unknown fields
  as they came; `ensure_ascii=False`, two-space indent, trailing newline). The document carries no local id
  (stores keep theirs beside it), so an export is exactly this text.
- `load_file(path)` / `save_file(path, doc)`: with clear errors for a missing, unreadable or too big file
  (over 10 MB); saving is atomic (`plumbing.atomic.atomic_write_text`).
- `parse_any(text)` / `load_any(path)`: a workflow file or a Chrome DevTools Recorder recording, whichever
  it is; returns the document and the importer's notes (always empty for a workflow file).

Round trip: `parse_document(dump_document(parse_document(x))) == parse_document(x)` for every valid `x`, and
unknown fields survive. Pure Python: no Qt here.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from plumbing import loggers
from plumbing.atomic import atomic_write_text
from workflows.document import DocumentError, WorkflowDocument, validate_document
from workflows.chrome_recorder import import_recording, looks_like_recording

log = logging.getLogger(loggers.WORKFLOWS)

MAX_FILE_BYTES = 10 * 1024 * 1024
BOM = "\ufeff"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def parse_json(text: str | bytes) -> Any:
    """JSON text (or UTF-8 bytes, BOM or not) → the value; DocumentError saying where it is malformed."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DocumentError([f"the file is not UTF-8 text (invalid byte at offset {exc.start})"]) from None
    if not isinstance(text, str):
        raise DocumentError([f"expected JSON text, got {type(text).__name__}"])
    text = text.removeprefix(BOM)
    if not text.strip():
        raise DocumentError(["the file is empty"])
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise DocumentError([f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"]) from None
    except RecursionError:
        raise DocumentError(["not valid JSON: nested too deeply"]) from None
    except ValueError as exc:  # NaN/Infinity, integers too long to convert
        raise DocumentError([f"not valid JSON: {exc}"]) from None


def parse_document(text: str | bytes) -> WorkflowDocument:
    """Parse and validate a workflow file's content."""
    return validate_document(parse_json(text))


def dump_document(doc: WorkflowDocument) -> str:
    """The document as the JSON text of a 0.3.0 file."""
    try:
        return json.dumps(doc.to_data(), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    except (ValueError, TypeError) as exc:
        raise DocumentError([f"the document cannot be written as JSON: {exc}"]) from None


def read_file(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes, or DocumentError (missing, a folder, unreadable, over 10 MB)."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if file.is_dir():
            raise DocumentError([f"{file} is a folder, not a workflow file"])
        if size > MAX_FILE_BYTES:
            raise DocumentError([_too_big(file, size)])
        with file.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise DocumentError([f"{file} does not exist"]) from None
    except PermissionError:
        raise DocumentError([f"cannot read {file}: permission denied"]) from None
    except OSError as exc:
        raise DocumentError([f"cannot read {file}: {exc.strerror or exc}"]) from None
    if len(data) > MAX_FILE_BYTES:
        raise DocumentError([_too_big(file, len(data))])
    return data


def _too_big(file: Path, size: int) -> str:
    return f"{file} is too big ({size / 1024 / 1024:.1f} MB; a workflow file may be at most " \
           f"{MAX_FILE_BYTES // 1024 // 1024} MB)"


def load_file(path: str | os.PathLike[str]) -> WorkflowDocument:
    """Read and validate a workflow file; problems are reported with the file's name."""
    data = read_file(path)
    try:
        return parse_document(data)
    except DocumentError as exc:
        raise DocumentError(exc.problems, source=str(path)) from None


def save_file(path: str | os.PathLike[str], doc: WorkflowDocument) -> Path:
    """Write the document atomically (validated first); `plumbing.jsonstore.StoreError` if it cannot be written."""
    text = dump_document(validate_document(doc.to_data()))
    target = Path(path)
    atomic_write_text(target, text)
    log.info("workflow %r written to %s", doc.name, target)
    return target


def parse_any(text: str | bytes) -> tuple[WorkflowDocument, list[str]]:
    """A workflow file or a Chrome Recorder recording → (document, notes from the recorder import)."""
    raw = parse_json(text)
    if looks_like_recording(raw):
        document, notes = import_recording(raw)
        return document, notes
    return validate_document(raw), []


def load_any(path: str | os.PathLike[str]) -> tuple[WorkflowDocument, list[str]]:
    """`parse_any` on a file's content; problems name the file."""
    data = read_file(path)
    try:
        return parse_any(data)
    except DocumentError as exc:
        raise DocumentError(exc.problems, source=str(path)) from None
