"""Cookie files (envs/cookie_files.py): the formats round-trip and are recognised by their content."""

from __future__ import annotations

import json

import pytest

from envs.cookie_files import CookieFileError, detect_format, from_cookie_editor, from_netscape, to_cookie_editor, \
    to_netscape

BROWSER_COOKIES = [
    {"name": "sid", "value": "a b=c", "domain": "shop.test", "path": "/", "expires": 1893456000.5, "httpOnly": True,
     "secure": True, "session": False, "sameSite": "Lax"},
    {"name": "pref", "value": "中文", "domain": ".shop.test", "path": "/app", "expires": -1, "httpOnly": False,
     "secure": False, "session": True},
]


def test_netscape_round_trip_keeps_what_the_format_holds() -> None:
    text = to_netscape(BROWSER_COOKIES)
    assert detect_format(text)[0] == "netscape"
    assert "#HttpOnly_shop.test\tFALSE\t/\tTRUE\t1893456000\tsid\ta b=c" in text
    assert ".shop.test\tTRUE\t/app\tFALSE\t0\tpref\t中文" in text
    back = from_netscape(text)
    assert [(c["name"], c["domain"], c["hostOnly"], c["secure"], c["httpOnly"], c["session"]) for c in back] == [
        ("sid", "shop.test", True, True, True, False), ("pref", ".shop.test", False, False, False, True)]
    assert back[0]["expires"] == 1893456000


def test_cookie_editor_round_trip_and_detection() -> None:
    entries = to_cookie_editor(BROWSER_COOKIES)
    assert entries[0]["sameSite"] == "lax" and entries[0]["hostOnly"] and entries[1]["session"]
    assert "expirationDate" not in entries[1]
    kind, value = detect_format(json.dumps(entries))
    assert kind == "cookie-editor" and from_cookie_editor(value)[1]["domain"] == ".shop.test"
    assert detect_format('{"cookies": []}')[0] == "json"
    with pytest.raises(CookieFileError, match="neither"):
        detect_format("hello")
    with pytest.raises(CookieFileError, match="entry 1 is not a cookie"):
        from_cookie_editor([{"value": "x"}])
    with pytest.raises(CookieFileError, match="7"):
        from_netscape("a\tb\tc\n")
