"""An environment's browser identity: user agent, languages, time zone and geolocation (pure logic, no Qt).

- `clean_*` check what a person or an agent gives and return it in canonical form, or raise `IdentityError`
  with one line that says what is wrong.
- `accept_language(languages)` is the `Accept-Language` header a browser sends for a language list (first
  preferred: `de-DE,de;q=0.9,en;q=0.8`).
- `client_hints(user_agent)` derives the user-agent client hints (`Sec-CH-UA*`, `navigator.userAgentData`)
  that match a user agent string: brands and versions of Chrome / Edge / Opera, the platform and whether it
  is mobile. A user agent of a browser that sends no client hints (Firefox, Safari) gives `None`: the
  browser then sends none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

MAX_USER_AGENT = 512
MAX_LANGUAGES = 10
_LANGUAGE = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
_CHROMIUM = re.compile(r"\b(Chrome|CriOS|Chromium)/(\d+)(\.[\d.]+)?")
GREASE_BRAND = ("Not.A/Brand", "24", "24.0.0.0")


class IdentityError(ValueError):
    """An identity value that cannot be used; the message is one line for a person."""


def clean_user_agent(value: str) -> str:
    text = " ".join((value or "").split())
    if len(text) > MAX_USER_AGENT:
        raise IdentityError(f"the user agent is {len(text)} characters long; at most {MAX_USER_AGENT} are allowed")
    if any(ord(ch) < 32 or ord(ch) > 126 for ch in text):
        raise IdentityError("the user agent must be printable ASCII (it is sent as an HTTP header)")
    return text


def clean_languages(values: Sequence[str]) -> list[str]:
    """Language tags (BCP 47: `en`, `de-DE`, `zh-Hans-CN`), first preferred, each once; [] means default."""
    if isinstance(values, str):
        raise IdentityError("languages is a list of language tags, first preferred (for example [\"de-DE\", \"en\"])")
    cleaned: list[str] = []
    for raw in values:
        tag = str(raw).strip().replace("_", "-")
        if not tag:
            continue
        if not _LANGUAGE.match(tag):
            raise IdentityError(f"{raw!r} is not a language tag (for example en, de-DE, zh-CN)")
        parts = tag.split("-")
        tag = "-".join([parts[0].lower()] + [p.upper() if len(p) == 2 else p.title() if len(p) == 4 else p
                                              for p in parts[1:]])
        if tag.casefold() not in (t.casefold() for t in cleaned):
            cleaned.append(tag)
    if len(cleaned) > MAX_LANGUAGES:
        raise IdentityError(f"{len(cleaned)} languages given; at most {MAX_LANGUAGES} are allowed")
    return cleaned


def clean_timezone(value: str) -> str:
    """An IANA time zone name (`Europe/Berlin`, `Asia/Shanghai`, `UTC`); '' means the machine's."""
    name = (value or "").strip()
    if not name:
        return ""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        near = sorted(z for z in available_timezones() if z.casefold() == name.casefold())
        hint = f"; did you mean {near[0]}?" if near else " (an IANA name such as Europe/Berlin or Asia/Shanghai)"
        raise IdentityError(f"{name!r} is not a known time zone{hint}") from None
    return name


def known_timezones() -> list[str]:
    """Every IANA time zone name this machine knows, sorted (for a chooser)."""
    return sorted(available_timezones())


def clean_geolocation(value: Mapping[str, Any] | None) -> dict[str, float] | None:
    """`{latitude, longitude, accuracy}` (degrees, degrees, metres; accuracy defaults to 50); None clears."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise IdentityError("geolocation is an object {latitude, longitude, accuracy}")
    unknown = sorted(set(value) - {"latitude", "longitude", "accuracy"})
    if unknown:
        raise IdentityError(f"geolocation has unknown fields {unknown}; it takes latitude, longitude, accuracy")
    result: dict[str, float] = {}
    for key, low, high, default in (("latitude", -90.0, 90.0, None), ("longitude", -180.0, 180.0, None),
                                    ("accuracy", 0.0, 1_000_000.0, 50.0)):
        raw = value.get(key, default)
        if raw is None:
            raise IdentityError(f"geolocation needs {key}")
        try:
            number = float(raw)
        except (TypeError, ValueError):
            raise IdentityError(f"geolocation {key} must be a number, not {raw!r}") from None
        if not low <= number <= high or number != number:
            raise IdentityError(f"geolocation {key} must be between {low:g} and {high:g}, not {raw!r}")
        result[key] = number
    return result


def accept_language(languages: Sequence[str]) -> str:
    """The Accept-Language header for languages, first preferred, with falling q-values as browsers send it
    (`de-DE,en;q=0.9`); '' for none. (QtWebEngine makes `navigator.languages` from it without the q-values,
    so the page sees exactly the list.)"""
    return ",".join(tag if index == 0 else f"{tag};q={max(0.1, 1.0 - 0.1 * index):.1f}"
                    for index, tag in enumerate(languages))


@dataclass(frozen=True)
class ClientHints:
    """What a Chromium browser with a user agent says about itself in `Sec-CH-UA*` headers."""

    brands: dict[str, str]  # brand -> full version, in the order they are sent
    full_version: str
    platform: str
    platform_version: str
    mobile: bool
    architecture: str
    bitness: str


def client_hints(user_agent: str) -> ClientHints | None:
    """The client hints that match a user agent string; None when it is not a Chromium browser's."""
    match = _CHROMIUM.search(user_agent)
    if match is None or "Firefox/" in user_agent:
        return None
    major = match.group(2)
    full = major + (match.group(3) or ".0.0.0")
    brands: dict[str, str] = {}
    edge = re.search(r"\bEdg(?:A|iOS)?/([\d.]+)", user_agent)
    opera = re.search(r"\bOPR/([\d.]+)", user_agent)
    if edge:
        brands["Microsoft Edge"] = edge.group(1)
    elif opera:
        brands["Opera"] = opera.group(1)
    elif match.group(1) != "Chromium":
        brands["Google Chrome"] = full
    brands["Chromium"] = full
    brands[GREASE_BRAND[0]] = GREASE_BRAND[2]
    mobile = "Mobile" in user_agent
    platform, version, arch, bitness = "Unknown", "", "", ""
    if "Windows NT" in user_agent:
        platform, version = "Windows", "15.0.0" if "Windows NT 10.0" in user_agent else "0.1.0"
        arch, bitness = ("x86", "64") if ("Win64" in user_agent or "WOW64" in user_agent) else ("x86", "32")
    elif "Android" in user_agent:
        found = re.search(r"Android (\d+(?:\.\d+)*)", user_agent)
        platform, version = "Android", (found.group(1) if found else "")
    elif "CrOS" in user_agent:
        platform, arch, bitness = "Chrome OS", "x86", "64"
    elif "Macintosh" in user_agent or "Mac OS X" in user_agent:
        found = re.search(r"Mac OS X (\d+)[_.](\d+)(?:[_.](\d+))?", user_agent)
        platform, arch, bitness = "macOS", "arm", "64"
        version = ".".join(found.group(i) or "0" for i in (1, 2, 3)) if found else ""
    elif "Linux" in user_agent or "X11" in user_agent:
        platform, arch, bitness = "Linux", "x86", "64"
    return ClientHints(brands, full, platform, version, mobile, arch, bitness)
