"""`browserpilot agent … --json` as a script uses it: the real app process, the stand-in Messages API; saving its
task as a workflow, and replaying that, counted by the orders a shop received."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.agent_shop import CHECK, Shop, order_script
from tests.support.app_process import app_env, run_cli
from tests.support.fake_anthropic import FakeAnthropic, Reply, tool
from tests.support.fake_openai import FakeOpenAI
from tests.support.server import LocalServer, Response

pytestmark = pytest.mark.e2e

CARD = "4111 1111 1111 1111"


def test_agent_command_exit_codes_and_json(data_dir: Path, server: LocalServer) -> None:
    server.routes["/page"] = lambda r: Response("<title>Shop</title><h1 id=total>Total 42</h1>")
    done = Reply([tool("page_snapshot")]), Reply([tool("done", success=True, answer="42")])
    with FakeAnthropic(list(done), forbidden=["pa55word"]) as fake:
        env = app_env(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
        ran = run_cli(data_dir, "agent", "Read the total; log in with <secret:pw> if asked", "--url",
                      server.url("/page"), "--secret", "pw=pa55word", "--secret-domains",
                      f"pw=127.0.0.1:{server.port},*.example.org", "--expect", "#total", "--headless", "--json",
                      timeout=120, env=env)
        assert fake.problems == []
    assert ran.returncode == 0, ran.stderr
    record = json.loads(ran.stdout)
    assert record["status"] == "succeeded" and record["selfReport"]["answer"] == "42"
    assert record["secretDomains"] == [{"name": "pw", "domains": [f"127.0.0.1:{server.port}", "*.example.org"],
                                        "fromStartPage": False, "anywhere": False}]
    assert record["checks"][0]["ok"] and record["judge"]["verdict"] == "pass"
    assert "pa55word" not in ran.stdout + ran.stderr

    failing = Reply([tool("done", success=True, answer="done")]),
    with FakeAnthropic(list(failing)) as fake:
        env = app_env(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
        ran = run_cli(data_dir, "agent", "Find the basket", "--url", server.url("/page"), "--expect", "#basket",
                      "--headless", "--json", timeout=120, env=env)
    assert ran.returncode == 1
    assert json.loads(ran.stdout)["checks"] == [{"locator": "#basket", "ok": False, "detail": "0 match(es), none visible"}]

    bad = run_cli(data_dir, "agent", "x", "--secret", "novalue", "--headless")
    assert bad.returncode == 2 and "NAME=VALUE" in bad.stderr
    # A secret needs a site to be typed on: its domains, or the start page's.
    nowhere = run_cli(data_dir, "agent", "x", "--secret", "pw=1", "--headless")
    assert nowhere.returncode == 2 and "no start page" in nowhere.stderr and "pw=*" in nowhere.stderr
    bad_pattern = run_cli(data_dir, "agent", "x", "--secret", "pw=1", "--secret-domains", "pw=shop.com/login",
                          "--headless")
    assert bad_pattern.returncode == 2 and "names a host, not a path" in bad_pattern.stderr


def test_saving_the_task_as_a_workflow_repeats_nothing_and_the_replay_confirms_the_order(
        data_dir: Path, server: LocalServer, tmp_path: Path) -> None:
    shop = Shop(server)
    with FakeAnthropic(order_script("Ada", "<secret:card>"), forbidden=[CARD]) as fake:
        env = app_env(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
        ran = run_cli(data_dir, "agent", "Order a blue widget for Ada, paying with <secret:card>", "--url", shop.url,
                      "--secret", f"card={CARD}", "--expect", CHECK, "--save-workflow", "Order a widget",
                      "--headless", "--json", timeout=120, env=env)
        assert fake.problems == []
    assert ran.returncode == 0, ran.stderr
    record = json.loads(ran.stdout)
    # The task placed one order, and saving it (the process has ended since) placed none.
    assert shop.orders == [{"name": ["Ada"], "card": [CARD]}]
    assert record["workflow"]["saved"] and "replay" not in record["workflow"] and "replayRun" not in record["workflow"]
    exported = tmp_path / "order.json"
    assert run_cli(data_dir, "workflow", "export", "Order a widget", "-o", str(exported)).returncode == 0
    nodes = json.loads(exported.read_text("utf-8"))["workflow"]["graph"]["nodes"]
    assert [n["data"]["type"] for n in nodes] == ["start", "goto", "fill", "fill", "click", "wait", "end"]
    check = nodes[-2]
    assert check["id"] == "check1" and check["data"]["locator"] == {"selector": CHECK}
    assert check["data"]["state"] == "appear" and check["data"]["timeout"] == 10
    assert len(shop.orders) == 1

    # A replay, as the person asks for it: exactly one more order, and the check passes.
    replayed = run_cli(data_dir, "run", "Order a widget", "--input", "card=5555", "--headless", "--json", timeout=120)
    assert replayed.returncode == 0, replayed.stderr
    run = json.loads(replayed.stdout)
    assert shop.orders[1:] == [{"name": ["Ada"], "card": ["5555"]}]
    assert [(t["node"], t["ok"]) for t in run["trace"]][-2:] == [("check1", True), ("end", True)]

    # The shop takes its confirmation page away: the order still posts, and the replay fails at the check.
    shop.remove_confirmation()
    failed = run_cli(data_dir, "run", "Order a widget", "--input", "card=5555", "--headless", "--json", timeout=120)
    assert failed.returncode == 1
    run = json.loads(failed.stdout)
    assert run["status"] == "failed" and run["stoppedAt"] == "check1" and CHECK in run["error"]
    assert len(shop.orders) == 3


def test_replay_after_save_replays_once_when_asked(data_dir: Path, server: LocalServer) -> None:
    shop = Shop(server)
    with FakeAnthropic(order_script("Bea", "<secret:card>"), forbidden=[CARD]) as fake:
        env = app_env(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
        ran = run_cli(data_dir, "agent", "Order a blue widget for Bea, paying with <secret:card>", "--url", shop.url,
                      "--secret", f"card={CARD}", "--expect", CHECK, "--save-workflow", "Order for Bea",
                      "--replay-after-save", "--headless", "--json", timeout=120, env=env)
        assert fake.problems == []
    assert ran.returncode == 0, ran.stderr
    record = json.loads(ran.stdout)
    assert shop.orders == [{"name": ["Bea"], "card": [CARD]}] * 2  # the task's, then the replay's
    assert record["workflow"]["saved"] and record["workflow"]["replay"]["ok"]
    assert CARD not in ran.stdout + ran.stderr

    alone = run_cli(data_dir, "agent", "x", "--replay-after-save", "--headless")
    assert alone.returncode == 2 and "--save-workflow" in alone.stderr


def test_a_local_openai_compatible_model_places_the_order(data_dir: Path, server: LocalServer) -> None:
    """`--provider openai --base-url URL --model NAME`, the key from OPENAI_API_KEY: one order, the card never sent
    to the model, and the endpoint's models listed."""
    shop = Shop(server)
    with FakeOpenAI(order_script("Cy", "<secret:card>"), forbidden=[CARD], models=["local-model", "other"]) as fake:
        env = app_env(OPENAI_API_KEY="local-key")
        listed = run_cli(data_dir, "agent", "--list-models", "--provider", "openai", "--base-url", fake.url,
                         timeout=120, env=env)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.split() == ["local-model", "other"]
        ran = run_cli(data_dir, "agent", "Order a blue widget for Cy, paying with <secret:card>", "--url", shop.url,
                      "--secret", f"card={CARD}", "--expect", CHECK, "--provider", "openai", "--base-url", fake.url,
                      "--model", "local-model", "--headless", timeout=120, env=env)
        assert fake.problems == []
        assert set(fake.keys) == {"Bearer local-key"}
    assert ran.returncode == 0, ran.stderr
    assert shop.orders == [{"name": ["Cy"], "card": [CARD]}]
    assert "openai:local-model" in ran.stdout and "note: prompt caching:" in ran.stdout
    assert CARD not in ran.stdout + ran.stderr
