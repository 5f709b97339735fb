"""Locators of page nodes: the original `{selector?, xpath?}` plus an optional ordered `alternatives` list
(`{role, name}`, `{testid}`, `{label}`, `{text}`, `{placeholder}`, `{selector}`, `{xpath}`) that the recorder
writes and replay tries in turn; `NodeLocator.candidates()` turns one into `workflows.ports.Locator`s.
Pure Python: no Qt here.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from pydantic import model_validator

from workflows.nodes.values import DocumentModel, Text, problem
from workflows.ports import Locator

_ROLE_NAME = re.compile(r"[A-Za-z][A-Za-z-]*")
_REGEX_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")
_ALTERNATIVE_KINDS = ("testid", "label", "text", "placeholder", "selector", "xpath")
_STEP = r"[A-Za-z][A-Za-z0-9-]*(?::nth-(?:of-type|child)\(\d+\))?"
_VAGUE_CSS = re.compile(rf"\s*{_STEP}(?:\s*[>\s]\s*{_STEP})*\s*")
_VAGUE_XPATH = re.compile(r"(?:/+(?:[A-Za-z*][A-Za-z0-9-]*|\*\[local-name\(\)=\"[^\"]+\"\])(?:\[\d+\])?)+")
_POSITION = re.compile(r":nth-(?:of-type|child)\(|^/.*\[\d+\]")


def is_vague(value: str | None) -> bool:
    """Whether a CSS selector or XPath names its element only by tags and positions (`button`, `input`,
    `form > div:nth-of-type(2) > input`, `/html/body/div[2]/button`): after a change to the page it finds
    whatever element is left there. Such alternatives are not written any more and are ignored in old files
    (resources/js/locator_gen.js has the same rule)."""
    text = (value or "").strip()
    return bool(text) and bool(_POSITION.search(text) or _VAGUE_CSS.fullmatch(text) or _VAGUE_XPATH.fullmatch(text))


def _quote(value: str) -> str:
    """A double-quoted string for the selector engines (backslash escapes the next character)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _engine_text(value: str, exact: bool) -> str:
    """The body of `text=`/`label=`/`placeholder=`: exact → quoted (exact match); otherwise unquoted (a
    case-insensitive substring), or the same as a regular expression when the text cannot stand unquoted."""
    if exact:
        return _quote(value)
    stripped = value.strip()
    if stripped and ">>" not in stripped and stripped[0] not in "\"'/":
        return stripped
    escaped = _REGEX_SPECIAL.sub(lambda m: "\\" + m.group(0), stripped).replace(">", "\\x3e")
    return "/" + escaped + "/i"  # `>` escaped: the engines split chains on `>>` outside quotes


def _is_xpath(value: str) -> bool:
    return value.startswith(("/", "("))


class LocatorAlternative(DocumentModel):
    """One more way to find the element, tried in order after the locator's own selector/xpath.

    Exactly one kind: `{role, name?}` (ARIA role and accessible name; `{name}` alone when the role is
    unknown, e.g. from a Chrome recording), `{testid}`, `{label}`, `{text}`, `{placeholder}`, `{selector}`
    (CSS or an engine selector) or `{xpath}`. `exact: true` matches name/text/label/placeholder exactly
    instead of as a case-insensitive substring.
    """

    role: str | None = None
    name: Text | None = None
    exact: bool | None = None
    testid: Text | None = None
    label: Text | None = None
    text: Text | None = None
    placeholder: Text | None = None
    selector: str | None = None
    xpath: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "LocatorAlternative":
        kinds = (["role/name"] if self.role is not None or self.name is not None else []) + \
            [kind for kind in _ALTERNATIVE_KINDS if getattr(self, kind) is not None]
        if len(kinds) != 1:
            found = f" (found {', '.join(kinds)})" if kinds else ""
            raise problem("needs exactly one of role/name, testid, label, text, placeholder, selector or "
                          f"xpath{found}")
        if kinds[0] == "role/name":
            if self.role is not None and not _ROLE_NAME.fullmatch(self.role.strip()):
                raise problem('role must be an ARIA role such as "button"')
            if self.role is None and not (self.name or "").strip():
                raise problem("name must not be empty")
            return self
        value = getattr(self, kinds[0])
        if not value.strip():
            raise problem(f"{kinds[0]} must not be empty")
        if kinds[0] == "xpath" and not _is_xpath(value.strip()):
            raise problem("xpath must start with /")
        return self

    @property
    def kind(self) -> str:
        if self.role is not None or self.name is not None:
            return "role" if self.role is not None else "name"
        return next(kind for kind in _ALTERNATIVE_KINDS if getattr(self, kind) is not None)

    def selectors(self) -> list[Locator]:
        """The port locators for this alternative: one, or two (`label=` then `text=`) for a name without a
        role."""
        exact = bool(self.exact)
        if self.role is not None:
            role = self.role.strip().lower()
            if not (self.name or "").strip():
                return [Locator(selector=f"role={role}")]
            name = _quote(self.name.strip()) + ("s" if exact else "")  # type: ignore[union-attr]
            return [Locator(selector=f"role={role}[name={name}]")]
        if self.name is not None:
            body = _engine_text(self.name, exact)
            return [Locator(selector=f"label={body}"), Locator(selector=f"text={body}")]
        if self.testid is not None:
            return [Locator(selector=f"testid={_quote(self.testid.strip())}")]
        for engine in ("label", "text", "placeholder"):
            value = getattr(self, engine)
            if value is not None:
                return [Locator(selector=f"{engine}={_engine_text(value, exact)}")]
        if self.selector is not None:
            return [_selector_locator(self.selector)]
        return [Locator(xpath=(self.xpath or "").strip())]


def _selector_locator(selector: str) -> Locator:
    """The original app treats a selector starting with `/` as an XPath (a `>>` chain stays a selector: the
    engine reads its XPath parts itself)."""
    selector = selector.strip()
    return Locator(xpath=selector) if _is_xpath(selector) and ">>" not in selector else Locator(selector=selector)


class LocatorCandidate(NamedTuple):
    """A port locator and where it came from in the node's locator: `selector`, `xpath` or
    `alternatives[i]` (for the run trace: which alternative matched)."""

    source: str
    locator: Locator


class NodeLocator(DocumentModel):
    """`locator` of a page node: `{selector?, xpath?}` as in the original (empty strings count as absent),
    plus ordered `alternatives` and `prefer` (ours: the index of the alternative replay tries first, before
    the selector/xpath the original app runs). A bare string is read as `{selector}` (or `{xpath}` when it
    starts with `/`).
    """

    selector: str | None = None
    xpath: str | None = None
    alternatives: list[LocatorAlternative] | None = None
    prefer: int | None = None
    fingerprint: dict[str, Any] | None = None  # ours: what the element looked like (resources/js/heal.js)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"xpath": value} if _is_xpath(value.strip()) else {"selector": value}
        return value

    @model_validator(mode="after")
    def _has_target(self) -> "NodeLocator":
        if not ((self.selector or "").strip() or (self.xpath or "").strip() or self.alternatives):
            raise problem("needs selector or xpath")
        if (self.xpath or "").strip() and not _is_xpath(self.xpath.strip()):  # type: ignore[union-attr]
            raise problem("xpath must start with /")
        if self.prefer is not None and not 0 <= self.prefer < len(self.alternatives or []):
            raise problem(f"prefer must be the index of one of the {len(self.alternatives or [])} alternatives")
        return self

    def labeled_candidates(self) -> list[LocatorCandidate]:
        """Every way to find the element, in the order replay tries them (duplicates removed): the
        preferred alternative (`prefer`), the selector, the xpath, then the other alternatives in order."""
        out: list[LocatorCandidate] = []
        seen: set[tuple[str | None, str | None]] = set()

        def add(source: str, locator: Locator) -> None:
            key = (locator.selector, locator.xpath)
            if key not in seen:
                seen.add(key)
                out.append(LocatorCandidate(source, locator))

        def alternative(index: int) -> None:
            for locator in self.alternatives[index].selectors():  # type: ignore[index]
                if not is_vague(locator.selector or locator.xpath):
                    add(f"alternatives[{index}]", locator)

        if self.prefer is not None and self.alternatives:
            alternative(self.prefer)
        # A vague primary is still the original's locator, tried when there is nothing else to find the element
        # by; with a fingerprint, healing does better.
        healable = bool(self.fingerprint and self.fingerprint.get("kind"))
        if (self.selector or "").strip() and not (healable and is_vague(self.selector)):
            add("selector", _selector_locator(self.selector))  # type: ignore[arg-type]
        if (self.xpath or "").strip() and not (healable and is_vague(self.xpath)):
            add("xpath", Locator(xpath=self.xpath.strip()))  # type: ignore[union-attr]
        for index in range(len(self.alternatives or [])):
            alternative(index)
        return out

    def candidates(self) -> list[Locator]:
        """The `workflows.ports.Locator`s to try, in order."""
        return [candidate.locator for candidate in self.labeled_candidates()]

    def label(self) -> str:
        """A short description for messages: the first candidate."""
        first = self.labeled_candidates()
        if first:
            return first[0].locator.label()
        return (self.selector or self.xpath or "").strip() or "(no locator)"



def optional_locator(value: Any) -> Any:
    """An optional locator field: an object without selector, xpath or alternatives counts as absent (the
    original ignores it)."""
    if isinstance(value, dict) and not any(
            (isinstance(value.get(key), str) and value[key].strip()) or (key == "alternatives" and value.get(key))
            for key in ("selector", "xpath", "alternatives")):
        return None
    if isinstance(value, str) and not value.strip():
        return None
    return value
