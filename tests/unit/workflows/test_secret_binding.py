"""Secrets bound to their sites (workflows/secret_binding.py): the default binding, the pattern syntax of the
domain policy, where a placeholder may appear, and what filling one in checks."""

from __future__ import annotations

import pytest

from workflows.secret_binding import (SecretBinding, SecretError, SecretRefused, SecretRule, parse_domains, rules_for,
                                      site_of)

SECRET = "hunter2&Ü"


def binding(*rules: SecretRule, guard_pages: bool = False) -> SecretBinding:
    return SecretBinding(rules, {rule.name: SECRET for rule in rules}, guard_pages=guard_pages)


def test_a_secret_without_domains_is_bound_to_the_start_pages_site_and_anywhere_is_explicit() -> None:
    code, pin = rules_for(["code", "pin"], {"pin": ["*"]}, "http://127.0.0.1:8123/form?x=1")
    assert (code.domains, code.from_start_page, code.anywhere) == (("127.0.0.1",), True, False)
    assert code.describe() == "127.0.0.1 (the start page's site)"
    assert code.allows("http://127.0.0.1:9999/other") and code.allows("https://127.0.0.1/")
    assert not code.allows("http://127.0.0.2:8123/form")
    assert pin.anywhere and pin.describe() == "anywhere (chosen explicitly)" and pin.allows("http://127.0.0.2/")


def test_domains_use_the_domain_policys_patterns() -> None:
    rule = SecretRule("card", ["Shop.Example.com", "*.example.org", "https://pay.example.net", "127.0.0.1:8443"])
    assert rule.domains == ("shop.example.com", "*.example.org", "https://pay.example.net", "127.0.0.1:8443")
    assert rule.allows("https://www.shop.example.com/cart") and rule.allows("http://a.b.example.org/")
    assert rule.allows("https://pay.example.net/") and not rule.allows("http://pay.example.net/")
    assert rule.allows("http://127.0.0.1:8443/") and not rule.allows("http://127.0.0.1:8444/")
    assert not rule.allows("https://example.com/") and not rule.allows("about:blank")
    assert parse_domains("card=shop.example.com, *.example.org") == ("card", ["shop.example.com", "*.example.org"])


@pytest.mark.parametrize("names, domains, url, message", [
    (["code"], {}, None, "no start page"),
    (["code"], {}, "about:blank", "no start page"),
    (["code"], {"code": ["shop/path"]}, None, "names a host, not a path"),
    (["code"], {"pin": ["a.com"]}, "http://a.com", "'pin', which is not a secret"),
])
def test_a_secret_with_no_site_or_a_bad_pattern_is_an_error(names: list[str], domains: dict[str, list[str]],
                                                            url: str | None, message: str) -> None:
    with pytest.raises(SecretError, match=message):
        rules_for(names, domains, url)


def test_a_placeholder_anywhere_but_the_typed_text_is_refused_naming_the_secret_never_the_value() -> None:
    bound = binding(SecretRule("code", ["127.0.0.1"]))
    assert bound.refuse_outside("page_type", {"text": "<secret:code>", "locator": {"selector": "#code"}}, "text",
                                "tab-1", None) is None
    refused = bound.refuse_outside("page_navigate", {"url": "http://127.0.0.2/?x=<secret:code>"}, None, "tab-1",
                                   "http://127.0.0.2")
    assert isinstance(refused, SecretRefused) and refused.code == "secret_refused"
    assert (refused.secret, refused.site) == ("code", "http://127.0.0.2")
    assert "'code'" in str(refused) and "'url'" in str(refused) and SECRET not in str(refused)
    locator = bound.refuse_outside("page_type", {"text": "x", "locator": {"selector": "#<secret:code>"}}, "text",
                                   "tab-1", None)
    assert locator is not None and "'locator'" in str(locator)
    # A name the run has no secret for is text like any other.
    assert bound.refuse_outside("page_navigate", {"url": "http://a/<secret:other>"}, None, "tab-1", None) is None


def test_filling_in_checks_the_document_holding_the_field() -> None:
    bound = binding(SecretRule("code", ["127.0.0.1"]))
    assert bound.fill("pin <secret:code>!", ["http://127.0.0.1:1/form"], "tab-1") == f"pin {SECRET}!"
    assert bound.fill("no secret", [], "tab-1") == "no secret"
    with pytest.raises(SecretRefused, match="the field is in a frame on http://127.0.0.2:2") as frame:
        bound.fill("<secret:code>", ["http://127.0.0.1:1/form", "http://127.0.0.2:2/frame?q=1"], "tab-1")
    assert frame.value.site == "http://127.0.0.2:2"
    with pytest.raises(SecretRefused, match="the page is on http://127.0.0.2"):
        bound.fill("<secret:code>", ["http://127.0.0.2/form"], "tab-1")
    # The frame's own address decides: a 127.0.0.1 frame on another site's page may take it (that page cannot
    # read the frame).
    assert bound.fill("<secret:code>", ["http://127.0.0.2/form", "http://127.0.0.1/frame"], "tab-1") == SECRET
    with pytest.raises(SecretRefused, match="not known"):
        bound.fill("<secret:code>", [], "tab-1")


def test_with_guard_pages_a_tab_a_secret_was_typed_into_runs_no_code() -> None:
    bound = binding(SecretRule("code", ["127.0.0.1"]), guard_pages=True)
    script = {"source": "document.title"}
    assert bound.refuse_outside("page_script", script, None, "tab-1", None) is None
    bound.fill("<secret:code>", ["http://127.0.0.1/"], "tab-1")
    refused = bound.refuse_outside("page_script", script, None, "tab-1", "http://127.0.0.1")
    assert refused is not None and refused.secret == "code" and "read it back" in str(refused)
    assert bound.refuse_outside("page_script", script, None, "tab-2", None) is None
    assert bound.refuse_outside("page_snapshot", {}, None, "tab-1", None) is None


def test_site_of_names_no_path_query_or_user() -> None:
    assert site_of("https://user:pw@shop.example.com:8443/a?b=c#d") == "https://shop.example.com:8443"
    assert site_of("about:blank") is None and site_of(None) is None


def test_a_start_inputs_domains_are_checked_when_the_document_loads() -> None:
    from workflows.nodes import StartVariable

    assert StartVariable(variable="code", type="secret", domains=["127.0.0.1", "*.example.org"]).lint() == []
    assert any("names a host, not a path" in problem
               for problem in StartVariable(variable="code", type="secret", domains=["a.com/x"]).lint())
    assert any("has no domains" in problem for problem in StartVariable(variable="code", type="secret",
                                                                       domains=[]).lint())
    assert StartVariable(variable="name", type="string", domains=["a.com"]).lint() == [
        "domains bind only a secret input; ignored here"]
