"""Structured fields of node types: the nested fields a person edits as a list of records (one row of small
editors per record, with Add and Remove) instead of raw JSON, declared by the node classes
(`NodeData.structured_fields`: field name -> `Spec`); app/ui/editor/structured.py builds the editors from them.

A `Spec` names the parts of one record (`Sub`: the key, what kind of editor, its choices and default), how a new
record starts, what one record is called, and the shape the field is saved in: a list of records, one record
or nothing (`one`), or an object keyed by each record's name (`by-name`, the name travelling under `NAME_KEY`
while the field is a list). `to_items` and `from_items` turn a saved value into records and back. Pure Python.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

NAME_KEY = "\0output"
"""The key under which a `by-name` record's name travels while its `{name: record}` object is a list."""

SubKind = Literal["text", "bool", "choice", "selector", "value", "options", "locator", "conditions"]
Shape = Literal["list", "one", "by-name"]


@dataclass(frozen=True)
class Sub:
    """One editable key of a record: `kind` says which editor (`choices` for a choice); `default` is what a
    missing key means (for a checkbox); an `optional` key left empty is removed from the record."""

    key: str
    kind: SubKind = "text"
    choices: tuple[str, ...] = ()
    default: Any = None
    optional: bool = True


@dataclass(frozen=True)
class Spec:
    """The records of one structured field: their parts, a new record, what one is called (`noun`: condition,
    case, variable, output, item), at most how many, and the field's saved shape."""

    subs: tuple[Sub, ...]
    new_item: Callable[[], dict[str, Any]] = field(default=dict)
    noun: str = "item"
    max_items: int | None = None
    shape: Shape = "list"


def to_items(spec: Spec, value: Any) -> list[dict[str, Any]]:
    """The saved value of a structured field as the list of records its editor shows (copies)."""
    if spec.shape == "one":
        return [copy.deepcopy(value)] if isinstance(value, dict) else []
    if spec.shape == "by-name":
        mapping = value if isinstance(value, dict) else {}
        return [{NAME_KEY: key, **(copy.deepcopy(record) if isinstance(record, dict) else {})}
                for key, record in mapping.items()]
    return [copy.deepcopy(item) if isinstance(item, dict) else {} for item in value] if isinstance(value, list) else []


def from_items(spec: Spec, items: list[dict[str, Any]]) -> Any:
    """The records back in the field's saved shape (the inverse of `to_items`); None for no record of `one`."""
    if spec.shape == "one":
        return copy.deepcopy(items[0]) if items else None
    if spec.shape == "by-name":
        return {str(item[NAME_KEY]): {k: v for k, v in item.items() if k != NAME_KEY} for item in items}
    return copy.deepcopy(items)
