"""What every tool shares, said once: the locator convention, the tools' common rules, and the server's
instructions. Plain strings (no registry, no pydantic): the stdio bridge sends them before it starts anything, the
app's MCP server once per session, and the built-in agent's system prompt carries the locator convention."""

from __future__ import annotations

LOCATOR_CONVENTION = (
    "An element (locator, until, outline…) is a locator object: {\"selector\": …} takes CSS or text=…, "
    "role=button[name=\"…\"], label=…, placeholder=…, testid=…; {\"xpath\": \"/…\"}; or "
    "{\"ref\": \"e12\"} from the latest page_snapshot (snapshot again after the page changes). They reach into "
    "open shadow roots and iframes, another site's too (refs there look like f1e3). An action needs exactly "
    "one match and waits (timeoutMs: in ms, "
    "10000 unless the tool says otherwise, at most 600000) until it is visible, enabled, stable and not covered; "
    "otherwise the error says what matched or what covers it."
)
TOOL_CONVENTIONS = (
    "Page tools act on tabId, else on the active tab of env (default env-default, whose window opens when "
    "needed). " + LOCATOR_CONVENTION + " For a captcha or a login only the person can do, call "
    "page_handoff with a message: your next acting call on that tab waits until its target appears, then takes "
    "the tab back. takenOver in a result means the person pressed Take over since your last call: look at the "
    "page again. A result's text starts with a line like `ok · tab tab-1 · agent · URL` (or `error (code)` and "
    "the reason), then its data; a failure's errorShot (the tab then) comes as an image. Parameter names are "
    "camelCase; an unknown one is refused with the list of valid ones."
)
SERVER_INSTRUCTIONS = (
    "BrowserPilot is a persistent browser shared by you and a person. Environments (env_*) are separate "
    "logins (cookies and storage survive restarts); each has a window of tabs (tab_*). The loop: tab_open or "
    "page_navigate; page_snapshot for an outline with refs; act with page_click, page_type, page_select, "
    "page_key; read with page_snapshot, page_query, page_source; page_wait for what a page does later. "
    + TOOL_CONVENTIONS + " Once a sequence works, save it with workflow_write and later call workflow_run once "
    "instead of repeating the steps. Two agents may work at once on different tabs; a tab a running workflow "
    "holds answers busy. Few tools are listed at first: tools_enable {groups} lists more (network, files, "
    "devtools, recording, schedules…), or connect with ?tools=full. The original BrowserPilot's call forms are "
    "accepted too (flat selector/xpath, untilSelector, shotWidth/shotHeight, via, objects as JSON text)."
)
