"""Domain patterns of an environment's network policy, and the decision for one URL (no Qt here).

Pattern forms (case-insensitive; stored in their canonical form):

| pattern | matches |
|---|---|
| `example.com` | the host `example.com` and `www.example.com` |
| `*.example.com` | `example.com` and every subdomain (`a.example.com`, `a.b.example.com`) |
| `https://example.com` | as `example.com`, only over `https` (and `wss`); `https://*.example.com` and `https://*` too |
| `*` | everything |

Ports: a pattern without a port matches every port of the host; `example.com:8443` (or `127.0.0.1:8000`)
matches only that port (the scheme's default port counts: `example.com:443` matches `https://example.com/`).
IP addresses are hosts like any other (`127.0.0.1`, `[::1]`); `*.` does not apply to them. Internationalised
names are stored in their ASCII (punycode) form. Paths, queries and user names are not part of a pattern.

The decision: a URL is blocked when a `blockedDomains` pattern matches it, or when `allowedDomains` is not
empty and none of its patterns matches. URLs without a host (`file:`) are only matched by `*` and by
`file://*`. `about:`, `data:` and `blob:` URLs have no host of their own: the browser layer decides them by
their initiator (the page that asked for them).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Iterable

MAX_PATTERNS = 1000
MAX_PATTERN_LENGTH = 300
DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443, "ftp": 21}
# A pattern for http also covers WebSockets opened from such pages, and https covers wss.
_SCHEME_FAMILY = {"ws": "http", "wss": "https"}
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")
_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_CACHE_LIMIT = 4096


class PatternError(ValueError):
    """A domain pattern that cannot be used; the message names the pattern and what is wrong with it."""


@dataclass(frozen=True)
class DomainPattern:
    text: str  # canonical form, as stored
    scheme: str | None  # None: any scheme
    host: str  # "" with any_host
    any_host: bool = False
    subdomains: bool = False  # *.example.com
    port: int | None = None  # None: any port

    def matches(self, scheme: str, host: str, port: int | None) -> bool:
        if self.scheme is not None and _SCHEME_FAMILY.get(scheme, scheme) != self.scheme:
            return False
        if self.port is not None and port != self.port:
            return False
        if self.any_host:
            return True
        if self.subdomains:
            return host == self.host or host.endswith("." + self.host)
        return host == self.host or host == "www." + self.host


def _ascii_host(host: str, pattern: str) -> str:
    host = host.rstrip(".")
    if not host:
        raise PatternError(f"{pattern!r}: there is no host name")
    try:
        return str(ipaddress.IPv4Address(host))
    except ValueError:
        pass
    if any(ord(ch) > 127 for ch in host):
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise PatternError(f"{pattern!r}: {host!r} is not a valid international domain name") from None
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise PatternError(f"{pattern!r}: {host!r} is not a valid host name (letters, digits, '-' and '.'; "
                           f"a wildcard only as '*.' at the start)")
    return host


def parse_pattern(raw: str) -> DomainPattern:
    """Parse and normalise one pattern; raises `PatternError` with a message a person can act on."""
    if not isinstance(raw, str):
        raise PatternError(f"a domain pattern is text, not {type(raw).__name__}")
    text = raw.strip().lower()
    if not text:
        raise PatternError("a domain pattern is empty")
    if len(text) > MAX_PATTERN_LENGTH:
        raise PatternError(f"{raw[:40]!r}…: a domain pattern has at most {MAX_PATTERN_LENGTH} characters")
    if any(ch.isspace() for ch in text):
        raise PatternError(f"{raw!r}: a domain pattern has no spaces (one pattern per entry)")
    if text == "*":
        return DomainPattern("*", None, "", any_host=True)
    scheme: str | None = None
    rest = text
    if "://" in text:
        scheme, rest = text.split("://", 1)
        if not _SCHEME.match(scheme):
            raise PatternError(f"{raw!r}: {scheme!r} is not a URL scheme")
        scheme = _SCHEME_FAMILY.get(scheme, scheme)
    if rest.endswith("/"):
        rest = rest[:-1]
    if any(ch in rest for ch in "/?#"):
        host_part = rest.split("/")[0].split("?")[0].split("#")[0]
        suggestion = f"{scheme}://{host_part}" if scheme else host_part
        raise PatternError(f"{raw!r}: a pattern names a host, not a path or query (use {suggestion!r})")
    if "@" in rest:
        raise PatternError(f"{raw!r}: a pattern names a host, not a user")
    port: int | None = None
    host = rest
    if rest.startswith("["):  # [IPv6]:port
        end = rest.find("]")
        if end < 0:
            raise PatternError(f"{raw!r}: an IPv6 address is written in brackets, like [::1]")
        host, after = rest[1:end], rest[end + 1:]
        if after:
            if not after.startswith(":"):
                raise PatternError(f"{raw!r}: unexpected {after!r} after the address")
            port = _port(after[1:], raw)
        try:
            host = str(ipaddress.IPv6Address(host))
        except ValueError:
            raise PatternError(f"{raw!r}: {host!r} is not an IPv6 address") from None
        canonical_host = f"[{host}]"
        return _make(scheme, host, canonical_host, port, subdomains=False, any_host=False)
    if rest.count(":") == 1:
        host, port_text = rest.split(":")
        port = _port(port_text, raw)
    elif rest.count(":") > 1:
        raise PatternError(f"{raw!r}: write an IPv6 address in brackets, like [::1]")
    if host == "*":
        if scheme is None and port is None:
            return DomainPattern("*", None, "", any_host=True)
        return _make(scheme, "", "*", port, subdomains=False, any_host=True)
    subdomains = host.startswith("*.")
    if subdomains:
        host = host[2:]
    if "*" in host:
        raise PatternError(f"{raw!r}: a wildcard is only allowed as the first label, like *.example.com, or alone")
    host = _ascii_host(host, raw)
    if subdomains and _is_ip(host):
        raise PatternError(f"{raw!r}: '*.' does not apply to an IP address; write {host!r}")
    canonical_host = ("*." if subdomains else "") + host
    return _make(scheme, host, canonical_host, port, subdomains=subdomains, any_host=False)


def _port(text: str, raw: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise PatternError(f"{raw!r}: {text!r} is not a port number (1-65535)")
    return int(text)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _make(scheme: str | None, host: str, canonical_host: str, port: int | None, *, subdomains: bool,
          any_host: bool) -> DomainPattern:
    text = (f"{scheme}://" if scheme else "") + canonical_host + (f":{port}" if port is not None else "")
    return DomainPattern(text, scheme, host, any_host=any_host, subdomains=subdomains, port=port)


def normalize_patterns(patterns: Iterable[str], field: str = "domains") -> list[str]:
    """Validate patterns and return their canonical forms, duplicates dropped, order kept.

    Raises `PatternError` naming every pattern that is wrong (at most five) and the field they belong to."""
    result: list[str] = []
    problems: list[str] = []
    for raw in patterns:
        try:
            text = parse_pattern(raw).text
        except PatternError as exc:
            problems.append(str(exc))
            continue
        if text not in result:
            result.append(text)
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise PatternError(f"{field}: " + "; ".join(problems[:5]) + more)
    if len(result) > MAX_PATTERNS:
        raise PatternError(f"{field}: {len(result)} patterns; at most {MAX_PATTERNS} are allowed")
    return result


@dataclass(frozen=True)
class Verdict:
    """Why a URL is blocked: the list and pattern that decided it."""

    host: str
    rule: str  # "blockedDomains: *.tracker.example" or "not in allowedDomains"

    def describe(self, env_id: str) -> str:
        return f"blocked by the policy of {env_id}: {self.host or '(no host)'} ({self.rule})"


class DomainPolicy:
    """Compiled allowed/blocked patterns with a decision cache per (scheme, host, port).

    `check` returns None when the URL may load, else the `Verdict`. Build a new policy to change patterns;
    a policy never changes, so its cache never goes stale.
    """

    def __init__(self, allowed: Iterable[str] = (), blocked: Iterable[str] = ()) -> None:
        self.allowed = tuple(parse_pattern(p) for p in allowed)
        self.blocked = tuple(parse_pattern(p) for p in blocked)
        self._cache: dict[tuple[str, str, int | None], Verdict | None] = {}

    @property
    def active(self) -> bool:
        return bool(self.allowed or self.blocked)

    def check(self, scheme: str, host: str, port: int | None = None) -> Verdict | None:
        """Decide for a lower-case scheme and an ASCII, lower-case host (no brackets for IPv6). `port` is the
        URL's port (None: the scheme's default)."""
        if port is None:
            port = DEFAULT_PORTS.get(scheme)
        key = (scheme, host, port)
        try:
            return self._cache[key]
        except KeyError:
            pass
        verdict = self._decide(scheme, host, port)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = verdict
        return verdict

    def _decide(self, scheme: str, host: str, port: int | None) -> Verdict | None:
        for pattern in self.blocked:
            if pattern.matches(scheme, host, port):
                return Verdict(host, f"blockedDomains: {pattern.text}")
        if self.allowed and not any(pattern.matches(scheme, host, port) for pattern in self.allowed):
            return Verdict(host, "not in allowedDomains")
        return None

    def check_url(self, url: str) -> Verdict | None:
        """Decide for a URL string (for callers without Qt; the interceptor uses `check`)."""
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        try:
            port = parts.port
        except ValueError:
            port = None
        host = (parts.hostname or "").rstrip(".")
        if any(ord(ch) > 127 for ch in host):
            try:
                host = host.encode("idna").decode("ascii")
            except UnicodeError:
                pass
        return self.check(scheme, host, port)
