"""Conditions of `if-else` cases and `until` loops, and how they compare values.

`{comparison_operator, variable_selector, value?}` compares the **text forms** of the variable and the
(templated) value, as the original does: `contains` (substring), `is`, `empty` / `not empty` (after trimming).
We also know `not contains`, `starts with`, `ends with`, `is not` and the numeric `= ≠ > < ≥ ≤`. The
`locator` operator instead waits up to `timeoutMs` (default 3000) for its `locator` to be present in the
page. An unknown operator loads (with a warning) and fails when a run evaluates it. Pure Python: no Qt here.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from workflows.nodes.locators import NodeLocator, optional_locator
from workflows.nodes.structured import Spec, Sub
from workflows.nodes.values import DocumentModel, PathItem, Seconds, Text
from workflows.template import js_text

CANONICAL_OPERATORS: dict[str, str] = {
    "start with": "starts with", "end with": "ends with", "null": "empty", "not null": "not empty",
    "==": "=", "!=": "≠", ">=": "≥", "<=": "≤",
}
"""Accepted spellings → the canonical operator `Condition.operator()` returns."""
TEXT_OPERATORS = frozenset({"contains", "not contains", "starts with", "ends with", "is", "is not", "empty",
                            "not empty"})
NUMERIC_OPERATORS = frozenset({"=", "≠", ">", "<", "≥", "≤"})
KNOWN_OPERATORS = TEXT_OPERATORS | NUMERIC_OPERATORS | {"locator"}
LOCATOR_CONDITION_TIMEOUT_MS = 3000
OFFERED_OPERATORS = tuple(sorted(TEXT_OPERATORS) + sorted(KNOWN_OPERATORS - TEXT_OPERATORS))
"""The operators the editor offers, text ones first."""
CONDITION_FIELDS = Spec((Sub("comparison_operator", "choice", OFFERED_OPERATORS, optional=False),
                         Sub("variable_selector", "selector"), Sub("value", "value"), Sub("locator", "locator")),
                        lambda: {"comparison_operator": "contains", "variable_selector": [], "value": ""}, "condition")
"""A condition as the editor's structured fields edit it (a case's `conditions`, a loop's `until`)."""


class UnknownOperator(ValueError):
    """A condition's operator is not one we can evaluate."""


class Condition(DocumentModel):
    comparison_operator: Text = ""
    variable_selector: list[PathItem] | None = None
    value: Any = None
    locator: Annotated[NodeLocator | None, BeforeValidator(optional_locator)] = None
    timeoutMs: Seconds | None = None

    def operator(self) -> str:
        """The canonical operator (see `CANONICAL_OPERATORS`)."""
        text = self.comparison_operator.strip()
        return CANONICAL_OPERATORS.get(text, text)

    def target_locator(self) -> NodeLocator | None:
        """For the `locator` operator: `locator`, or the selector/XPath string given in `value`."""
        if self.locator is not None:
            return self.locator
        if isinstance(self.value, str) and self.value.strip():
            return NodeLocator.model_validate(self.value.strip())
        return None

    def wait_ms(self) -> float:
        return float(self.timeoutMs) if self.timeoutMs is not None else LOCATOR_CONDITION_TIMEOUT_MS

    def lint(self) -> list[str]:
        operator = self.operator()
        if operator not in KNOWN_OPERATORS:
            return [f"comparison_operator {operator!r} is not known: a run fails when it evaluates it"]
        if operator == "locator":
            return [] if self.target_locator() is not None else ["the locator operator needs a locator"]
        if self.variable_selector is None:
            return [f'needs variable_selector for the operator "{operator}"']
        return []


class Case(DocumentModel):
    """One if-else branch: when all its conditions hold (checked in order, stopping at the first that does
    not), the run leaves by the edge whose `sourceHandle` is `case_id`. A case without conditions is skipped."""

    case_id: Text = ""
    conditions: list[Condition] = Field(default_factory=list)

    def lint(self) -> list[str]:
        problems = []
        if not self.case_id.strip():
            problems.append("has no case_id: it is skipped at run time")
        if not self.conditions:
            problems.append("has no conditions: it is skipped at run time")
        if str(self.model_extra.get("logical_operator", "and") if self.model_extra else "and").lower() == "or":
            problems.append('logical_operator "or" is ignored: conditions of a case must all hold (as in the '
                            "original app)")
        return problems


def compare(operator: str, value: Any, expected: Any) -> bool:
    """Compare a variable's value with the expected text by the operator's rule."""
    text = js_text(value)
    wanted = js_text(expected)
    if operator == "contains":
        return wanted in text
    if operator == "not contains":
        return wanted not in text
    if operator == "starts with":
        return text.startswith(wanted)
    if operator == "ends with":
        return text.endswith(wanted)
    if operator == "is":
        return text == wanted
    if operator == "is not":
        return text != wanted
    if operator == "empty":
        return text.strip() == ""
    if operator == "not empty":
        return text.strip() != ""
    if operator in NUMERIC_OPERATORS:
        try:
            left, right = float(text), float(wanted)
        except ValueError:
            return False
        return {"=": left == right, "≠": left != right, ">": left > right, "<": left < right,
                "≥": left >= right, "≤": left <= right}[operator]
    raise UnknownOperator(f"the comparison operator {operator!r} is not known (known: "
                          f"{', '.join(sorted(KNOWN_OPERATORS))})")
