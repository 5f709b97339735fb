"""Turning what a person types in the address bar into a URL: an address, or a search."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import quote_plus

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_KNOWN_SCHEMES = ("http:", "https:", "file:", "about:", "data:", "view-source:", "ftp:")
_HOST_PORT = re.compile(r"^(?P<host>[^/:?#\s]+)(?::(?P<port>\d{1,5}))?(?P<rest>[/?#].*)?$")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def as_address(text: str) -> str | None:
    """What the address bar makes of `text` when it is an address: `example.com` -> https://example.com,
    `localhost:8000` and `127.0.0.1:8765/products` -> http://…, a URL with a scheme as it is; None when it is
    not an address (the address bar searches for it)."""
    text = text.strip()
    if not text:
        return "about:blank"
    lowered = text.lower()
    if lowered.startswith(_KNOWN_SCHEMES) and " " not in text:
        return text
    if " " not in text:
        match = _HOST_PORT.match(text)
        if match:
            host = match.group("host").lower()
            if host == "localhost" or _is_ip(host):
                return f"http://{text}"
            labels = host.split(".")
            if len(labels) >= 2 and all(labels) and labels[-1].isalpha() and len(labels[-1]) >= 2:
                return f"https://{text}"
        if _SCHEME.match(text) and "." in text and "://" in text:
            return text
    return None


def address_to_url(text: str, search_url: str) -> str:
    """`example.com` -> https://example.com, `localhost:8000` -> http://localhost:8000, anything that is
    not an address -> the search URL with `{query}` filled in."""
    address = as_address(text)
    return address if address is not None else search_url.replace("{query}", quote_plus(text.strip()))
