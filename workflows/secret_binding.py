"""Where a secret may be used: every secret of an agent run or a workflow run is bound to the sites where it
may be typed, written with the domain policy's patterns (envs/domains.py: `shop.example.com`,
`*.example.org`, a scheme, a host with a port; `*` is anywhere, only when chosen explicitly).

The rule, the same for the agent and for the workflow engine, is enforced by the operations: the registry
(app/ops/registry.py) and the typing part of a tab (app/browser/parts/input.py) hold a `SecretBinding` for
the run that calls them.

- `<secret:name>` is filled in only in the text of `page_type`, `page_paste` and `page_select` (an
  operation's `secret_field`), at the moment the keys go to the field, and only when the document holding the
  field is on one of the secret's domains (`fill`): a frame's own address decides, not the page's around it
  (a card number bound to the payment provider is typed into the provider's frame on a shop's page, and
  nowhere in the shop's own page; a shop's code is never typed into another site's frame on the shop's page).
  A frame of another site cannot read the page around it, nor that page the frame.
- Anywhere else in an operation's parameters (a URL, a script's source or arguments, CDP parameters, a
  request, a download, a locator, a message) the operation is refused before anything is sent
  (`refuse_outside`).
- With `guard_pages` (the agent's binding: a model can be steered by what a page says), a tab a secret was
  typed into runs no script and no DevTools command for the rest of the run: those could read the value back
  from the page and send it anywhere.

A refusal is a `SecretRefused` (code `secret_refused`) that names the secret, the rule and the site, never
the value. Pure Python.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from envs.domains import DomainPolicy, PatternError, normalize_patterns
from workflows.errors import PageError

PLACEHOLDER = re.compile(r"<secret:([A-Za-z0-9_.-]+)>")
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
ANYWHERE = "*"
REFUSED = "secret_refused"
# Operations that run code in a page or speak DevTools to it: with `guard_pages`, refused on a tab a secret
# was typed into.
READS_BACK = ("page_script", "page_cdp", "page_cdp_batch")


class SecretError(ValueError):
    """A bad secret definition: a name, an empty value, domains that are no patterns, no site to bind to."""


class SecretRefused(PageError):
    """A secret would have gone where it may not: nothing was sent."""

    code = REFUSED

    def __init__(self, message: str, secret: str, site: str | None) -> None:
        super().__init__(message)
        self.secret = secret
        self.site = site


def placeholder(name: str) -> str:
    return f"<secret:{name}>"


def site_of(url: str | None) -> str | None:
    """`scheme://host[:port]` of a URL (what a refusal names: never a path or query, which may hold anything);
    None for a URL without a host."""
    if not url:
        return None
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def parse_domains(pair: str) -> tuple[str, list[str]]:
    """`NAME=PATTERN,PATTERN` (as given to `--secret-domains`) -> (name, patterns)."""
    name, sep, patterns = pair.partition("=")
    name = name.strip()
    if not sep or not NAME.match(name):
        raise SecretError(f"secret domains are NAME=PATTERN,PATTERN…; not {pair!r}")
    return name, [part for part in (p.strip() for p in patterns.split(",")) if part]


class SecretRule:
    """Where one secret may be typed: its canonical domain patterns, and whether they were given or are the
    start page's site (no domains given)."""

    def __init__(self, name: str, domains: Iterable[str], from_start_page: bool = False) -> None:
        if not NAME.match(name):
            raise SecretError(f"bad secret name {name!r}: use letters, digits, _ . -")
        try:
            self.domains = tuple(normalize_patterns(domains, f"the domains of the secret {name!r}"))
        except PatternError as exc:
            raise SecretError(str(exc)) from None
        if not self.domains:
            raise SecretError(f"the secret {name!r} has no domains (give patterns, or * for anywhere)")
        self.name = name
        self.from_start_page = from_start_page
        self._policy = DomainPolicy(allowed=self.domains)

    @property
    def anywhere(self) -> bool:
        return ANYWHERE in self.domains

    def allows(self, url: str) -> bool:
        return self._policy.check_url(url) is None

    def describe(self) -> str:
        """The rule in words: "anywhere (chosen explicitly)", "127.0.0.1 (the start page's site)", "a, b"."""
        if self.anywhere:
            return "anywhere (chosen explicitly)"
        shown = ", ".join(self.domains)
        return f"{shown} (the start page's site)" if self.from_start_page else shown

    def view(self) -> dict[str, Any]:
        return {"name": self.name, "domains": list(self.domains), "fromStartPage": self.from_start_page}


NO_HOST_SCHEMES = ("about", "data", "blob", "javascript", "file")


def start_page_domain(url: str | None) -> str | None:
    """The pattern of the start page's site: its host (any port, any scheme); None without a host. An address
    without a scheme (`shop.example.com/form`) is read as the address bar reads it."""
    if not url or ("://" not in url and url.partition(":")[0].lower() in NO_HOST_SCHEMES):
        return None
    host = urlsplit(url if "://" in url else f"http://{url}").hostname
    return host or None


def rules_for(names: Iterable[str], domains: Mapping[str, Sequence[str]], start_url: str | None) -> list[SecretRule]:
    """The rules of a task's secrets: the domains given for a secret, else the start page's site. A secret with
    neither, and domains for a name that is no secret, are errors naming them."""
    names = list(names)
    unknown = sorted(set(domains) - set(names))
    if unknown:
        raise SecretError(f"domains are given for {', '.join(map(repr, unknown))}, which is not a secret of "
                          f"this task (secrets: {', '.join(sorted(names)) or 'none'})")
    rules = []
    for name in names:
        given = [pattern for pattern in domains.get(name) or [] if pattern.strip()]
        if given:
            rules.append(SecretRule(name, given))
            continue
        site = start_page_domain(start_url)
        if site is None:
            raise SecretError(f"the secret {name!r} has no domains and the task has no start page to bind it to: "
                              f"give its domains (for example {name}=shop.example.com, or {name}=* for anywhere)")
        rules.append(SecretRule(name, [site], from_start_page=True))
    return rules


def _names(value: Any) -> set[str]:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return {match.group(1) for match in PLACEHOLDER.finditer(text)}


class SecretBinding:
    """The secrets of one run, each with its rule; filled in only by `fill`."""

    def __init__(self, rules: Iterable[SecretRule], values: Mapping[str, str], *, guard_pages: bool = False) -> None:
        self.rules = {rule.name: rule for rule in rules}
        missing = sorted(name for name in self.rules if not values.get(name))
        if missing:
            raise SecretError(f"no value for the secret(s) {', '.join(missing)}")
        self._values = {name: str(values[name]) for name in self.rules}
        self.guard_pages = guard_pages
        self.typed_in: dict[str, set[str]] = {}  # tab id -> the secrets typed into it (guard_pages)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def __contains__(self, name: object) -> bool:
        return name in self.rules

    def names_in(self, value: Any) -> list[str]:
        """The bound secrets a value (text, or any JSON value) names as `<secret:name>`."""
        return sorted(_names(value) & set(self.rules))

    def refuse_outside(self, tool: str, params: Mapping[str, Any], secret_field: str | None,
                       tab_id: str | None, site: str | None) -> SecretRefused | None:
        """The refusal for a call that names a bound secret anywhere but its `secret_field`, or (with
        `guard_pages`) runs code on a tab a secret was typed into; None when the call may go on."""
        for key, value in params.items():
            if key == secret_field:
                continue
            names = self.names_in(value)
            if names:
                rule = self.rules[names[0]]
                return SecretRefused(
                    f"{tool} was refused before anything was sent: the secret {names[0]!r} is only ever typed into "
                    f"a field of a page of {rule.describe()}, never put in {key!r}", names[0], site)
        if self.guard_pages and tool in READS_BACK:
            typed = sorted(self.typed_in.get(tab_id or "", set()) if tab_id else set().union(*self.typed_in.values()))
            if typed:
                return SecretRefused(
                    f"{tool} was refused before anything was sent: the secret {typed[0]!r} was typed into this tab, "
                    f"and a script or DevTools command could read it back from the page; scripts and DevTools "
                    f"are off on this tab for the rest of the run", typed[0], site)
        return None

    def check(self, text: str, frames: Sequence[str]) -> list[str]:
        """The bound secrets `text` names, when each may be typed into a field in the last of `frames` (the
        page's URL first, then each frame down to the field's): the field's own document decides; raises
        `SecretRefused` otherwise."""
        names = self.names_in(text)
        if names and not frames:
            raise SecretRefused(f"the secret {names[0]!r} was not typed: the address of the field's page is not "
                                f"known", names[0], None)
        for name in names:
            rule = self.rules[name]
            url = frames[-1]
            if rule.allows(url):
                continue
            where = site_of(url) or (url.split(":", 1)[0] + ": address" if url else "an unknown address")
            place = "the page is" if len(frames) == 1 else "the field is in a frame"
            raise SecretRefused(f"the secret {name!r} may be typed only into pages of {rule.describe()}, and "
                                f"{place} on {where}: refused, nothing was typed", name, site_of(url))
        return names

    def fill(self, text: str, frames: Sequence[str], tab_id: str) -> str:
        """`text` with its bound `<secret:name>` filled in, after `check`, for a field of the tab: the one
        place a value is ever put in. With `guard_pages`, the tab runs no code from now on."""
        names = self.check(text, frames)
        if not names:
            return text
        if self.guard_pages:
            self.typed_in.setdefault(tab_id, set()).update(names)
        return PLACEHOLDER.sub(lambda m: self._values[m.group(1)] if m.group(1) in self.rules else m.group(0), text)

    def values(self) -> dict[str, str]:
        """name -> value, for redaction only."""
        return dict(self._values)
