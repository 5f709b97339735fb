"""Turning what the agent did into a workflow (a BrowserPilot 0.3.0 document), to replay with no model.

Nothing is run to make it: the steps are judged by what happened while the agent acted, and the task's checks
end the workflow, so each replay confirms the outcome the task promised (and fails when it did not happen).

Kept: the calls that succeeded and acted (navigate, click, type/paste, select, key, scroll, swipe, upload,
download, wait, handoff); back/forward/reload become a goto of the URL they reached. Dropped: failed and
skipped calls (a call retried after a stale ref is kept as retried, with its second locator), reads that did
not change the page (snapshot, query, inspect, screenshot, source, tab_list, …), `done`, and scripts (a
script's effect is not known to be repeatable). A step on an element is kept when its locator found exactly
that one element when the agent acted: the locator `page_inspect` computed for it just before the call
(`ToolCall.locator`: a primary and ranked alternatives, each verified to find only that element), with the
agent's own selector as one more alternative (the action found exactly one element with it: actions are
strict) unless it names the element only by tag or position (`button`: after a change it finds whatever button
is left), and the element's fingerprint, which replay heals with. A ref with no such computed locator cannot be kept and is named in the notes. The task's checks
(`expect`) become `wait` nodes (state appear) after the last step. Typed `<secret:name>` becomes the start
variable `name` of type `secret`, used as `{{#input.name#}}`, with the run's binding as its `domains` (ours;
the original ignores it): a replay types it only where the agent could. On request, the other typed values
become start inputs too (`{{#input.value1#}}`, …) with the typed value as each input's default. Pure Python.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from app.stores.agent_runs import AgentRecord, ToolCall, check_locator
from app.agent.secrets import PLACEHOLDER
from workflows.nodes.locators import is_vague
from workflows.recording import plain_locator

FORMAT_VERSION = "0.3.0"
REPLAYED_AS_GOTO = {"page_back", "page_forward", "page_reload"}
WAIT_TIMEOUT_S = 10  # seconds a wait or a check waits for its element on replay (the wait node's default)


class Conversion(NamedTuple):
    document: dict[str, Any]
    notes: list[str]


def _locator(call: ToolCall, key: str = "locator") -> dict[str, Any] | None:
    """What found the call's element alone when the agent acted (see the module's docstring), or None."""
    given = call.input.get(key)
    if not isinstance(given, dict):
        return None
    own = {k: v for k, v in given.items() if k in ("selector", "xpath") and v} or None
    computed = plain_locator(call.locator) if key == "locator" and call.locator else {}
    if not computed:  # no locator was computed, or none found the element alone
        return own
    primary = {k: computed[k] for k in ("selector", "xpath") if k in computed}
    alternatives = computed.get("alternatives") or []
    if own is not None and own != primary and own not in alternatives and not is_vague(own.get("selector") or own.get("xpath")):
        computed["alternatives"] = [*alternatives, own]
    return computed


def _template(text: str, secrets: set[str]) -> str:
    def one(match: re.Match[str]) -> str:
        secrets.add(match.group(1))
        return f"{{{{#input.{match.group(1)}#}}}}"
    return PLACEHOLDER.sub(one, text)


def _as_inputs(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Typed values (fill texts and select options without a secret) made start inputs, in order: each node's
    value becomes `{{#input.valueN#}}`, and the typed value the input's default (shown in the run form)."""
    variables: list[dict[str, Any]] = []
    for data in nodes:
        key = "text" if data["type"] == "fill" else "option" if data["type"] == "select" else None
        if key is None or PLACEHOLDER.search(str(data.get(key, ""))) or "{{#input." in str(data.get(key, "")):
            continue
        name = f"value{len(variables) + 1}"
        variables.append({"variable": name, "label": f"{data['type']} {name}", "type": "string",
                          "required": False, "default": str(data[key])})
        data[key] = f"{{{{#input.{name}#}}}}"
    return variables


def _node(call: ToolCall, secrets: set[str], notes: list[str]) -> dict[str, Any] | None:
    args = call.input
    name = call.name
    if name == "page_navigate":
        return {"type": "goto", "url": _template(str(args["url"]), secrets)}
    if name == "tab_open" and args.get("url") not in (None, "", "about:blank"):
        return {"type": "goto", "url": _template(str(args["url"]), secrets)}
    if name in REPLAYED_AS_GOTO:
        return {"type": "goto", "url": call.url} if call.url else None
    if name == "page_key":
        return {"type": "press", "shortcut": str(args["shortcut"])}
    if name == "page_handoff":
        return {"type": "handoff", "message": str(args.get("message") or "")}
    if name in ("page_scroll", "page_swipe"):
        node: dict[str, Any] = {"type": "scroll" if name == "page_scroll" else "swipe"}
        if args.get("direction"):
            node["direction"] = args["direction"]
        for key in ("locator", "until"):
            if key in args:
                found = _locator(call, key)
                if found is None:
                    notes.append(f"{name}: its {key} was a ref without a stable locator; left out")
                else:
                    node[key] = found
        return node
    locator = _locator(call)
    if name == "page_click":
        if locator is None and "x" in args:
            return {"type": "click", "x": args["x"], "y": args["y"]}
        node = {"type": "click", "locator": locator}
        until = _locator(call, "until")
        if until:
            node["until"] = until
        return node if locator else _no_locator(call, notes)
    if name in ("page_type", "page_paste"):
        if locator is None:
            return _no_locator(call, notes)
        return {"type": "fill", "locator": locator, "entry": "type" if name == "page_type" else "paste",
                "text": _template(str(args["text"]), secrets)}
    if name == "page_select":
        return {"type": "select", "locator": locator, "option": _template(str(args["option"]), secrets)} \
            if locator else _no_locator(call, notes)
    if name == "page_upload":
        return {"type": "upload", "locator": locator, "paths": list(args["paths"])} if locator else \
            _no_locator(call, notes)
    if name == "page_download":
        if args.get("url"):
            return {"type": "download", "url": str(args["url"])}
        return {"type": "download", "locator": locator} if locator else _no_locator(call, notes)
    if name == "page_wait":
        return {"type": "wait", "locator": locator, "state": args.get("state", "appear"),
                "timeout": WAIT_TIMEOUT_S} if locator else _no_locator(call, notes)
    return None


def _no_locator(call: ToolCall, notes: list[str]) -> None:
    notes.append(f"{call.name} {call.input.get('locator')}: no locator found only that element when the agent "
                 f"acted; left out")
    return None


def _checks(record: AgentRecord, notes: list[str]) -> list[dict[str, Any]]:
    """The task's checks as the workflow's last nodes: each waits for its element to be on the page."""
    if not record.checks:
        notes.append("the task had no checks, so a replay cannot confirm its outcome: give checks (--expect, the "
                     "Agent panel's Checks) to end the workflow with them")
    return [{"type": "wait", "title": f"Check {check.locator}"[:80], "locator": check_locator(check.locator),
             "state": "appear", "timeout": WAIT_TIMEOUT_S} for check in record.checks]


def to_workflow(record: AgentRecord, name: str, description: str | None = None, *,
                typed_as_inputs: bool = False) -> Conversion:
    """The workflow of a record's successful steps and its checks (start -> steps in order -> checks -> end);
    with `typed_as_inputs`, the values the agent typed become start inputs (their typed values the defaults)."""
    notes: list[str] = []
    secrets: set[str] = set()
    nodes: list[dict[str, Any]] = []
    if record.start_url and record.start_url != "about:blank":
        nodes.append({"type": "goto", "url": record.start_url})
    for step in record.steps:
        for call in step.calls:
            if not call.ok or call.skipped or call.name == "done":
                continue
            data = _node(call, secrets, notes)
            if data is not None:
                nodes.append(data)
    typed = _as_inputs(nodes) if typed_as_inputs else []
    numbered = [(f"{data['type']}{index}", {"title": f"{data['type']} {index}", **data})
                for index, data in enumerate(nodes, 1)]
    numbered += [(f"check{index}", data) for index, data in enumerate(_checks(record, notes), 1)]
    bound = {secret.name: secret.domains for secret in record.secret_domains}
    start = {"id": "start", "data": {"type": "start", "title": "Start", "variables": [
        {"variable": secret, "label": secret, "type": "secret", "required": True,
         **({"domains": list(bound[secret])} if secret in bound else {})} for secret in sorted(secrets)]
        + typed}, "position": {"x": 0, "y": 0}}
    graph_nodes = [start]
    for index, (node_id, data) in enumerate(numbered, 1):
        graph_nodes.append({"id": node_id, "data": data, "position": {"x": 260 * index, "y": 0}})
    graph_nodes.append({"id": "end", "data": {"type": "end", "title": "End", "outputs": []},
                        "position": {"x": 260 * (len(numbered) + 1), "y": 0}})
    edges = [{"id": f"e{i}-{a['id']}-{b['id']}", "source": a["id"], "target": b["id"]}
             for i, (a, b) in enumerate(zip(graph_nodes, graph_nodes[1:]))]
    document = {"kind": "app", "version": FORMAT_VERSION,
                "app": {"name": name, "mode": "workflow",
                        "description": description or f"Made by the agent from: {record.task}"[:500]},
                "workflow": {"environment_variables": [], "conversation_variables": [],
                             "graph": {"nodes": graph_nodes, "edges": edges}}}
    return Conversion(document, notes)
