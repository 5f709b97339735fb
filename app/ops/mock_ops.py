"""Request mocks: net_mock answers a tab's matching requests with a given response, net_mock_off ends it
(app/browser/netmock.py: CDP Fetch on the tab's port-less channel; the domain policy applies first)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from app.ops.page_session import TabParams, on_page
from app.ops.registry import Operation, Params, operation
from workflows.envelope import Envelope
from workflows.ports import TabPort
from workflows.results_devtools import MockStartResult, MockStopResult


class MockRuleParams(Params):
    url_contains: str = Field(min_length=1, description="Requests whose URL contains this text.")
    status: int = Field(default=200, ge=100, le=599)
    body: str = Field(default="{}", description="Response body (default {}).")
    headers: dict[str, str] = Field(default_factory=dict, description="Response headers; Content-Type "
                                                                      "defaults to JSON or text by the body.")


class MockParams(TabParams):
    rules: list[MockRuleParams] = Field(min_length=1, max_length=100, description="First match wins.")


@operation("net_mock", MockParams, MockStartResult, needs_browser=True, group="network")
async def net_mock(ctx: OpContext, params: MockParams) -> Envelope[MockStartResult]:
    """Answer the tab's requests (fetch/XHR, scripts, images, styles, frames, navigations; not workers) whose
    URL contains a rule's urlContains with its status (default 200), headers and body (default {}); others
    go out unchanged. Blocked domains stay blocked. Replaces earlier rules; net_mock_off ends it."""
    rules = [rule.model_dump() for rule in params.rules]

    async def start(tab: TabPort) -> MockStartResult:
        return (await tab.network.mock_start(rules))

    return await on_page(ctx, params, start)


@operation("net_mock_off", TabParams, MockStopResult, needs_browser=True, group="network")
async def net_mock_off(ctx: OpContext, params: TabParams) -> Envelope[MockStopResult]:
    """End the tab's net_mock: {answered, passed, refused} counts of requests."""

    async def stop(tab: TabPort) -> MockStopResult:
        return (await tab.network.mock_stop())

    return await on_page(ctx, params, stop)


OPERATIONS: tuple[Operation[Any, Any], ...] = (net_mock, net_mock_off)
