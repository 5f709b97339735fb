"""`browserpilot agent … --json` as a script uses it: the real app process, the stand-in Messages API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.app_process import app_env, run_cli
from tests.support.fake_anthropic import FakeAnthropic, Reply, tool
from tests.support.server import LocalServer, Response

pytestmark = pytest.mark.e2e


def test_agent_command_exit_codes_and_json(data_dir: Path, server: LocalServer) -> None:
    server.routes["/page"] = lambda r: Response("<title>Shop</title><h1 id=total>Total 42</h1>")
    done = Reply([tool("page_snapshot")]), Reply([tool("done", success=True, answer="42")])
    with FakeAnthropic(list(done), forbidden=["pa55word"]) as fake:
        env = app_env(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
        ran = run_cli(data_dir, "agent", "Read the total; log in with <secret:pw> if asked", "--url",
                      server.url("/page"), "--secret", "pw=pa55word", "--expect", "#total", "--headless", "--json",
                      timeout=120, env=env)
        assert fake.problems == []
    assert ran.returncode == 0, ran.stderr
    record = json.loads(ran.stdout)
    assert record["status"] == "succeeded" and record["selfReport"]["answer"] == "42"
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
