"""A run is "ok" only when its effects landed: the last submit of a fresh `browserpilot run` process, or of an
agent's task, reaches the server before the process ends (issue: "the last submit is lost when a run ends").

Each case is a workflow whose last page node starts something the server must receive (a form post by a click,
by Enter, by `form.submit()` in a script, a `fetch` fired by a click). The shop answers slowly and, like a server
that rolls back an order whose client went away, counts an order only when its client is still there for the
answer: a process that quits right after the action loses it; the test asserts the orders the shop counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.app_process import app_env, run_cli
from tests.support.fake_anthropic import FakeAnthropic, Reply, tool
from tests.support.order_shop import LAST_NODES, OrderShop, order_workflow

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def shop() -> Any:
    with OrderShop() as server:
        yield server


@pytest.mark.parametrize("case", list(LAST_NODES))
def test_the_last_action_of_a_run_reaches_the_server_before_the_process_ends(
        case: str, shop: OrderShop, tmp_path: Path) -> None:
    path, last = LAST_NODES[case]
    before = len(shop.orders_to(path))
    file = tmp_path / "order.json"
    file.write_text(json.dumps(order_workflow("Order", shop.url("/form"), [last])))
    ran = run_cli(tmp_path / "data", "run", str(file), "--headless", "--json", timeout=120)
    assert ran.returncode == 0, ran.stderr
    record = json.loads(ran.stdout)
    assert record["ok"] is True and record["status"] == "ok"
    posts = shop.orders_to(path)[before:]
    assert [request.method for request in posts] == ["POST"], f"{case}: the shop counted {len(posts)} order(s)"
    assert b"Ada" in posts[0].body
    assert record.get("pendingAtEnd", []) == []


def test_an_agent_task_that_ends_with_a_click_delivers_it(shop: OrderShop, tmp_path: Path) -> None:
    before = len(shop.orders_to("/api/order"))
    script = [Reply([tool("page_type", locator={"selector": "#name"}, text="Grace")]),
              Reply([tool("page_click", locator={"selector": "#api"})]),
              Reply([tool("done", success=True, answer="ordered")])]
    with FakeAnthropic(script) as fake:
        env = app_env(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
        ran = run_cli(tmp_path / "data", "agent", "Order for Grace", "--url", shop.url("/form"), "--headless",
                      "--json", timeout=120, env=env)
        assert fake.problems == []
    assert ran.returncode == 0, ran.stderr
    posts = shop.orders_to("/api/order")[before:]
    assert len(posts) == 1 and b"Grace" in posts[0].body
