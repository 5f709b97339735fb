"""Value types shared by every part of a workflow document: the model base that keeps unknown fields, and
the field types (numbers that may arrive as strings, text fields, value selectors).

Every model keeps unknown fields (`extra="allow"`) and remembers which fields the file set, so a document
dumps back to what it was read from: import → export → import is lossless and files we write still load in
the original app, which ignores keys it does not know. Pure Python: no Qt here.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator
from pydantic_core import PydanticCustomError

FAILS = " (a run fails if it reaches this node)"
"""The end of a warning about a node that loads but cannot run."""


def problem(message: str) -> PydanticCustomError:
    """A validation error whose message reads after the field name: `locator` + `needs selector or xpath`."""
    return PydanticCustomError("bp", message)


class DocumentModel(BaseModel):
    """Base of every document model: unknown keys are kept; `always_dumped` fields are written even when
    they hold their default, so every file we write has the same shape."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)  # built when first used
    always_dumped: ClassVar[tuple[str, ...]] = ()

    def model_post_init(self, context: Any, /) -> None:
        self.__pydantic_fields_set__.update(self.always_dumped)



# -- value types ---------------------------------------------------------------------------------------------
def _number(value: Any) -> int | float:
    if isinstance(value, bool):
        raise problem("must be a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise problem("must be a finite number")
        return value
    if isinstance(value, str):
        number = number_from_text(value)
        if number is not None:
            return number
    raise problem("must be a number")


def number_from_text(value: str) -> int | float | None:
    """The number a text holds (`" 20 "` → 20, `"2.5"` → 2.5), or None; at most 40 characters, finite."""
    text = value.strip()
    if not text or len(text) > 40:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _seconds(value: Any) -> int | float:
    number = _number(value)
    if number < 0:
        raise problem("must not be negative")
    return number


def _count(minimum: int) -> Any:
    def check(value: Any) -> int:
        number = _number(value)
        if number != int(number):
            raise problem("must be a whole number")
        if number < minimum:
            raise problem(f"must be at least {minimum}")
        return int(number)
    return check


def _text(value: Any) -> Any:
    """Text fields accept numbers too (`"text": 42` types "42"); anything else fails as not a string."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return value
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
    return str(value)


def _non_blank(value: str) -> str:
    if not value.strip():
        raise problem("must not be empty")
    return value


def _path_item(value: Any) -> str | int:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise problem("must be a name or an index")


Number = Annotated[int | float, PlainValidator(_number)]
Seconds = Annotated[int | float, PlainValidator(_seconds)]
PositiveInt = Annotated[int, PlainValidator(_count(1))]
NonNegativeInt = Annotated[int, PlainValidator(_count(0))]
Text = Annotated[str, BeforeValidator(_text)]
"""A text field (templated unless noted); numbers are accepted and kept as their text."""
NonEmptyText = Annotated[str, BeforeValidator(_text), AfterValidator(_non_blank)]
PathItem = Annotated[str | int, PlainValidator(_path_item)]
ValuePath = Annotated[list[PathItem], Field(min_length=1)]
"""A value selector: `[namespace-or-node-id, key, ...]`, e.g. `["input", "email"]`, `["loop", "item"]`."""


def _number_or_text(value: Any) -> int | float | str:
    """A number, or a text (a template such as `{{#pos.x#}}`, rendered and read as a number at run time)."""
    if isinstance(value, str):
        try:
            return _number(value)
        except PydanticCustomError:
            return value
    return _number(value)


NumberOrText = Annotated[int | float | str, PlainValidator(_number_or_text)]
"""A number field that the original also accepts as a template (click `x`/`y`, shot sizes)."""
