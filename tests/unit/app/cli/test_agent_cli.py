"""`browserpilot agent`'s secret options as the agent_run parameters, and what the printed record says of where
each secret may be typed and of the uses that were refused."""

from __future__ import annotations

import pytest

from app.cli.agent import agent_params, print_record
from app.agent.secrets import SecretError
from app.cli.main import build_parser


def parse(*argv: str) -> dict[str, object]:
    return agent_params(build_parser().parse_args(["agent", *argv]))


def test_secret_domains_become_the_agent_run_parameters() -> None:
    params = parse("Pay with <secret:card>", "--url", "https://shop.example.com/pay", "--secret", "card=4111",
                   "--secret", "pin=1234", "--secret-domains", "card=shop.example.com, *.pay.example.net",
                   "--secret-domains", "card=https://bank.example")
    assert params["secrets"] == {"card": "4111", "pin": "1234"}
    assert params["secretDomains"] == {"card": ["shop.example.com", "*.pay.example.net", "https://bank.example"]}
    assert "secretDomains" not in parse("x", "--url", "https://a.example", "--secret", "pin=1")


@pytest.mark.parametrize("argv, message", [
    (("--secret", "pin=1"), "no start page"),
    (("--secret", "pin=1", "--url", "about:blank"), "no start page"),
    (("--secret", "pin=1", "--secret-domains", "pin"), "NAME=PATTERN"),
    (("--secret", "pin=1", "--secret-domains", "pin=a.com:99999"), "not a port number"),
    (("--secret", "pin=1", "--secret-domains", "card=a.com", "--url", "https://a.com"),
     "'card', which is not a secret"),
])
def test_bad_secret_domains_are_usage_errors(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(SecretError, match=message):
        parse("x", *argv)


def test_the_printed_record_says_where_secrets_go_and_what_was_refused(capsys: pytest.CaptureFixture[str]) -> None:
    print_record({"id": "agent-1", "status": "failed", "model": "m", "steps": [], "error": "stopped",
                  "secretDomains": [{"name": "code", "domains": ["127.0.0.1"], "fromStartPage": True},
                                    {"name": "pin", "domains": ["*"], "anywhere": True}],
                  "refusals": [{"secret": "code", "tool": "page_navigate", "site": "http://127.0.0.2:80", "step": 2}]})
    out = capsys.readouterr().out
    assert "secret code: typed only on 127.0.0.1 (the start page's site)" in out
    assert "secret pin: typed anywhere (chosen explicitly)" in out
    assert "refused uses of secrets: 1" in out and "step 2: code by page_navigate (http://127.0.0.2:80)" in out


def test_the_provider_options_become_the_agent_run_parameters() -> None:
    params = parse("Read the page", "--provider", "openai", "--base-url", "http://127.0.0.1:11434/v1", "--model",
                   "qwen3:8b")
    assert (params["provider"], params["baseUrl"], params["model"]) == ("openai", "http://127.0.0.1:11434/v1",
                                                                        "qwen3:8b")
    assert "provider" not in parse("x") and "baseUrl" not in parse("x")
    with pytest.raises(SystemExit):
        parse("x", "--provider", "gemini")
