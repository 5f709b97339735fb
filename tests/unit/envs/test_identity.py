"""The identity values' rules (envs/identity.py): canonical forms, clear refusals, and client hints that
match a user agent."""

from __future__ import annotations

import pytest

from envs.identity import (
    IdentityError,
    accept_language,
    clean_geolocation,
    clean_languages,
    clean_timezone,
    clean_user_agent,
    client_hints,
)


def test_languages_are_canonical_tags_in_order_each_once() -> None:
    assert clean_languages([" zh_cn", "EN", "zh-CN", "", "sr-latn-RS"]) == ["zh-CN", "en", "sr-Latn-RS"]
    assert accept_language(["de-DE", "de", "en"]) == "de-DE,de;q=0.9,en;q=0.8"
    assert accept_language([]) == ""
    with pytest.raises(IdentityError, match="not a language tag"):
        clean_languages(["en US"])
    with pytest.raises(IdentityError, match="a list"):
        clean_languages("en")  # type: ignore[arg-type]


def test_time_zones_are_iana_names() -> None:
    assert clean_timezone(" Asia/Shanghai ") == "Asia/Shanghai" and clean_timezone("") == ""
    with pytest.raises(IdentityError, match="did you mean Europe/Berlin"):
        clean_timezone("europe/berlin")
    with pytest.raises(IdentityError, match="not a known time zone"):
        clean_timezone("Mars/Olympus")


def test_geolocation_is_checked_and_accuracy_defaults() -> None:
    assert clean_geolocation({"latitude": "31.2", "longitude": 121.5}) == {"latitude": 31.2, "longitude": 121.5,
                                                                            "accuracy": 50.0}
    for bad, message in (({"latitude": 95, "longitude": 0}, "latitude must be between -90 and 90"),
                         ({"latitude": 0}, "needs longitude"), ({"latitude": "n", "longitude": 0}, "must be a number"),
                         ({"latitude": 0, "longitude": 0, "alt": 3}, "unknown fields")):
        with pytest.raises(IdentityError, match=message):
            clean_geolocation(bad)


def test_user_agents_are_one_printable_line() -> None:
    assert clean_user_agent(" Mozilla/5.0\n (X11) ") == "Mozilla/5.0 (X11)"
    with pytest.raises(IdentityError, match="printable ASCII"):
        clean_user_agent("Mozilla/5.0 浏览器")


def test_client_hints_follow_the_user_agent() -> None:
    chrome = client_hints("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                          "Chrome/126.0.6478.127 Safari/537.36")
    assert chrome is not None and list(chrome.brands) == ["Google Chrome", "Chromium", "Not.A/Brand"]
    assert chrome.brands["Google Chrome"] == "126.0.6478.127" and chrome.platform == "Windows" and not chrome.mobile
    edge = client_hints("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
                        "Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.67")
    assert edge is not None and "Microsoft Edge" in edge.brands and edge.platform == "macOS"
    phone = client_hints("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                         "Chrome/126.0.0.0 Mobile Safari/537.36")
    assert phone is not None and phone.mobile and phone.platform == "Android" and phone.platform_version == "14"
    assert client_hints("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0") is None
    assert client_hints("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
                        "Gecko) Version/17.5 Mobile/15E148 Safari/604.1") is None
