"""Domain patterns of the network policy: forms, normalisation, ports, schemes, and the store's validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from plumbing.datadir import DataDir
from envs.domains import DomainPolicy, PatternError, normalize_patterns, parse_pattern
from envs.store import EnvError, EnvStore


@pytest.mark.parametrize("raw, canonical", [
    ("Example.COM", "example.com"),
    ("example.com.", "example.com"),
    ("*.Example.com", "*.example.com"),
    ("https://example.com/", "https://example.com"),
    ("wss://example.com", "https://example.com"),
    ("example.com:8443", "example.com:8443"),
    ("127.0.0.1", "127.0.0.1"),
    ("[::1]:8080", "[::1]:8080"),
    ("bücher.de", "xn--bcher-kva.de"),
    ("*", "*"),
    ("https://*", "https://*"),
    ("file://*", "file://*"),
])
def test_patterns_are_normalised(raw: str, canonical: str) -> None:
    assert parse_pattern(raw).text == canonical


@pytest.mark.parametrize("raw, message", [
    ("", "empty"),
    ("example.com/path", "not a path"),
    ("https://example.com/a?b", "use 'https://example.com'"),
    ("ex*ample.com", "wildcard is only allowed as the first label"),
    ("*.127.0.0.1", "does not apply to an IP address"),
    ("example.com:99999", "not a port number"),
    ("user@example.com", "not a user"),
    ("two words", "no spaces"),
    ("exa_mple..com", "not a valid host name"),
    ("::1", "brackets"),
])
def test_bad_patterns_say_what_is_wrong(raw: str, message: str) -> None:
    with pytest.raises(PatternError, match=message.replace("?", r"\?").replace("*", r"\*")):
        parse_pattern(raw)


def test_matching_rules() -> None:
    policy = DomainPolicy(allowed=["example.com", "*.shop.test", "https://secure.test", "local.test:8080", "[::1]"],
                          blocked=["ads.shop.test"])

    def allowed(url: str) -> bool:
        return policy.check_url(url) is None

    assert allowed("https://example.com/x") and allowed("http://www.example.com/") and allowed("ws://example.com:9/")
    assert not allowed("https://api.example.com/")  # only the host and www.
    assert allowed("http://shop.test/") and allowed("https://a.b.shop.test/")
    assert not allowed("http://ads.shop.test/")  # the block list applies on top
    assert policy.check_url("http://ads.shop.test/").rule == "blockedDomains: ads.shop.test"
    assert allowed("https://secure.test/") and allowed("wss://secure.test/") and not allowed("http://secure.test/")
    assert allowed("http://local.test:8080/") and not allowed("http://local.test/")
    assert allowed("http://[::1]:3000/")
    assert policy.check_url("http://other.test/").rule == "not in allowedDomains"
    assert not allowed("file:///etc/passwd")  # no host: only * or file://* allow it
    assert DomainPolicy(allowed=["file://*"]).check_url("file:///tmp/x") is None
    assert DomainPolicy(allowed=["example.com:443"]).check_url("https://example.com/") is None  # default ports count
    assert DomainPolicy(blocked=["*"]).check_url("https://anything.test/") is not None
    assert not DomainPolicy().active and DomainPolicy().check_url("https://x.test/") is None


def test_lists_are_deduplicated_and_every_problem_named() -> None:
    assert normalize_patterns(["A.com", "a.com", "*.b.com"]) == ["a.com", "*.b.com"]
    with pytest.raises(PatternError) as caught:
        normalize_patterns(["ok.com", "bad/path", "x y"], "allowedDomains")
    assert str(caught.value).startswith("allowedDomains: ") and "bad/path" in str(caught.value) and "x y" in str(caught.value)


def test_the_store_validates_and_keeps_the_policy(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    store = EnvStore(data)
    env = store.create("Shop")
    updated = store.update(env.id, allowed_domains=["Shop.TEST", "*.cdn.test"], blocked_domains=["ads.cdn.test"])
    assert updated.allowed_domains == ["shop.test", "*.cdn.test"] and updated.blocked_domains == ["ads.cdn.test"]
    assert EnvStore(data).get(env.id).allowed_domains == ["shop.test", "*.cdn.test"]
    with pytest.raises(EnvError, match="blockedDomains: 'http://x/y'"):
        store.update(env.id, blocked_domains=["http://x/y"])
    with pytest.raises(EnvError, match="a list of patterns"):
        store.update(env.id, allowed_domains="shop.test")  # type: ignore[arg-type]
    assert store.update(env.id, name="Shop 2").allowed_domains == ["shop.test", "*.cdn.test"]  # kept
    assert store.update(env.id, allowed_domains=[]).allowed_domains == []
