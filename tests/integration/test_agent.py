"""The built-in agent against a local stand-in of the Messages API (the real `anthropic` client, pointed at it
with ANTHROPIC_BASE_URL), on real pages: the server's side is checked, and what the model was sent."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.stores.agent_runs import AgentRunStore
from app.wiring.shell import BrowserPilotApp
from app.ui.env_window import EnvWindow
from tests.support.agent_shop import CHECK, Shop, order_script
from tests.support.fake_anthropic import (FakeAnthropic, Reply, last_results, model_env, ref_of,
                                          result_text, text, tool)
from tests.support.qt import run_op, running_app, views
from tests.support.server import LocalServer, Request, Response

SECRET = "hunter2&Ü s3cret"
CARD = "4111 1111 1111 1111"
FORM = """<title>Sign in</title><h1>Sign in</h1>
<form method="post" action="/submit"><label>User <input name="user"></label>
<label>Code <input name="code"></label><button type="submit">Sign in</button></form>"""


@pytest.fixture(scope="module")
def app(qapp: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserPilotApp]:
    with running_app(qapp, tmp_path_factory.mktemp("agent-data"), windows=True) as shell:
        yield shell


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with LocalServer() as local:
        received: list[dict[str, list[str]]] = []
        local.routes["/form"] = lambda r: Response(FORM)

        def submit(request: Request) -> Response:
            received.append(parse_qs(request.body.decode("utf-8")))
            return Response(f"<title>Welcome</title><h1 id=welcome>Welcome {received[-1]['user'][0]}</h1>")

        local.routes["/submit"] = submit
        local.routes["/static"] = lambda r: Response("<title>Static</title><button id=b>Nothing</button>"
                                                     "<div id=box><button>Go</button></div>")
        local.received = received  # type: ignore[attr-defined]
        yield local


def agent(qtbot: QtBot, app: BrowserPilotApp, params: dict[str, Any], timeout: int = 60_000) -> dict[str, Any]:
    return run_op(qtbot, app, "agent_run", params, timeout=timeout)


def test_fills_a_form_with_a_secret_and_keeps_it_as_a_workflow(qtbot: QtBot, app: BrowserPilotApp,
                                                             site: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    def act(request: dict[str, Any]) -> Reply:
        snapshot = result_text(last_results(request)[0])
        return Reply([text("I will sign in."),
                      tool("page_type", locator={"ref": ref_of(snapshot, "textbox", "User")}, text="ada"),
                      tool("page_type", locator={"ref": ref_of(snapshot, "textbox", "Code")}, text="<secret:code>"),
                      tool("page_click", locator={"ref": ref_of(snapshot, "button", "Sign in")}),
                      tool("page_snapshot")])  # after the navigating click: not run

    def check(request: dict[str, Any]) -> Reply:
        results = last_results(request)
        assert len(results) == 4 and results[3]["is_error"] and "Not run" in result_text(results[3])
        return Reply([tool("page_snapshot")])

    script = [Reply([text("Let me look."), tool("page_snapshot")]), act, check,
              Reply([tool("done", success=True, answer="Signed in as ada", outputs={"user": "ada"})])]
    with FakeAnthropic(script, forbidden=[SECRET]) as fake:
        model_env(monkeypatch, fake)
        result = agent(qtbot, app, {"task": "Sign in as ada with the code <secret:code>", "url": site.url("/form"),
                                    "secrets": {"code": SECRET}, "expect": ["#welcome"],
                                    "saveWorkflow": "Sign in (agent)"})
        assert fake.problems == []
        agent_requests = fake.agent_requests
        judge_requests = [r for r in fake.requests if not r.get("tools")]
    assert result["ok"], result.get("error")
    record = result["record"]
    # The server got the real value; nothing the model got held it (checked by the stand-in as it arrived).
    assert site.received[0] == {"user": ["ada"], "code": [SECRET]}
    assert all(r.get("stream") for r in agent_requests) and judge_requests and not judge_requests[0].get("stream")
    for request in agent_requests:
        marks = json.dumps(request).count('"cache_control"')
        assert 3 <= marks <= 4
        assert request["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    # The same tools as MCP, plus done.
    names = [t["name"] for t in agent_requests[0]["tools"]]
    assert "page_click" in names and names[-1] == "done" and "agent_run" not in names
    # Three answers, apart.
    assert record["selfReport"] == {"success": True, "answer": "Signed in as ada", "outputs": {"user": "ada"}}
    assert record["judge"]["verdict"] == "pass"
    assert record["checks"] == [{"locator": "#welcome", "ok": True, "detail": "1 match(es), visible"}]
    assert record["usage"]["cacheReadInputTokens"] > record["usage"]["inputTokens"] > 0
    typed = record["steps"][1]["calls"][1]
    assert typed["input"]["text"] == "<secret:code>" and typed["secrets"] == ["code"]
    assert typed["locator"]["alternatives"]
    assert record["steps"][1]["calls"][3]["skipped"]
    # Records: its own store and folder, no secret value anywhere.
    folder = Path(app.data.root) / "agent_runs" / record["id"]
    assert SECRET not in (folder / "record.json").read_text("utf-8")
    assert AgentRunStore(app.data).get(record["id"]).status == "succeeded"
    # Saved as a workflow, ending with the check, and not replayed: the server got one sign-in.
    assert record["workflow"]["saved"], record["workflow"]
    saved = run_op(qtbot, app, "workflow_read", {"name": "Sign in (agent)"})
    nodes = saved["workflow"]["workflow"]["graph"]["nodes"]
    assert [n["data"]["type"] for n in nodes] == ["start", "goto", "fill", "fill", "click", "wait", "end"]
    assert nodes[0]["data"]["variables"][0]["type"] == "secret"
    assert nodes[3]["data"]["text"] == "{{#input.code#}}"
    assert nodes[4]["data"]["locator"]["alternatives"]
    assert nodes[5]["data"]["locator"] == {"selector": "#welcome"} and nodes[5]["data"]["state"] == "appear"
    assert len(site.received) == 1


def test_the_agent_starts_with_the_core_tools_and_turns_a_group_on(qtbot: QtBot, app: BrowserPilotApp,
                                                                    site: LocalServer,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The model is sent the core profile's page tools (the agent works in one tab), asks for the input group
    and the rest of core with tools_enable, and its next request carries page_paste and workflow_run, and it
    uses page_paste; the tools keep their cache breakpoint."""
    def paste(request: dict[str, Any]) -> Reply:
        answer = result_text(last_results(request)[0])
        assert answer.startswith("ok\n") and "page_paste" in answer, answer
        return Reply([tool("page_paste", locator={"selector": "label=User"}, text="pasted by the agent")])

    def read(request: dict[str, Any]) -> Reply:
        assert not last_results(request)[0]["is_error"], result_text(last_results(request)[0])
        return Reply([tool("page_query", locator={"selector": "label=User"})])

    def done(request: dict[str, Any]) -> Reply:
        assert "pasted by the agent" in result_text(last_results(request)[0])
        return Reply([tool("done", success=True, answer="pasted")])

    script = [Reply([tool("tools_enable", groups=["input", "core"])]), paste, read, done]
    with FakeAnthropic(script) as fake:
        model_env(monkeypatch, fake)
        result = agent(qtbot, app, {"task": "Paste a name into User", "url": site.url("/form")})
        assert fake.problems == []
        requests = fake.agent_requests
    assert result["ok"] and result["record"]["status"] == "succeeded", result
    first = [t["name"] for t in requests[0]["tools"]]
    later = [t["name"] for t in requests[1]["tools"]]
    assert "tools_enable" in first and "page_paste" not in first and len(first) <= 41  # core, and done
    assert {"page_snapshot", "page_click", "page_handoff"} <= set(first) and "page_lock" not in first
    assert not {"workflow_run", "tab_open", "env_list"} & set(first)  # core's tools outside the agent's tab
    assert set(later) - set(first) == {
        "page_paste", "page_swipe", "page_drag", "page_forward", "page_reload", "page_settle",  # input, less control
        "env_list", "env_create", "tab_open", "tab_list", "tab_close", "workflow_list", "workflow_write",
        "workflow_run", "run_list", "run_read"}  # the rest of core
    assert first[-1] == later[-1] == "done"
    assert all(request["tools"][-1]["cache_control"] == {"type": "ephemeral"} for request in requests)
    # The conventions the short descriptions leave out are in the system prompt.
    assert '{"ref": "e12"}' in requests[0]["system"][0]["text"]


def test_saved_workflow_replays_with_no_model_configured(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    before = len(site.received)
    ran = run_op(qtbot, app, "workflow_run", {"name": "Sign in (agent)", "inputs": {"code": "other-code"}})
    assert ran["ok"], ran.get("error")
    qtbot.waitUntil(lambda: len(site.received) > before, timeout=15_000)  # the submit the last click started
    assert site.received[before] == {"user": ["ada"], "code": ["other-code"]}


def test_stop_reasons_each_handled(qtbot: QtBot, app: BrowserPilotApp, monkeypatch: pytest.MonkeyPatch) -> None:
    def after_nudge(request: dict[str, Any]) -> Reply:
        assert "without calling done" in json.dumps(request["messages"][-1])
        return Reply([text("Thinking")], "pause_turn")

    def after_pause(request: dict[str, Any]) -> Reply:
        assert request["messages"][-1]["role"] == "assistant"  # sent back as it was
        return Reply([tool("page_snapshot")], "max_tokens")

    def after_cut(request: dict[str, Any]) -> Reply:
        assert "max_tokens" in json.dumps(request["messages"][-1])
        return Reply([tool("done", success=False, answer="Nothing to do")])

    script = [Reply([text("All done, I think.")], "end_turn"), after_nudge, after_pause, after_cut]
    with FakeAnthropic(script) as fake:
        model_env(monkeypatch, fake)
        result = agent(qtbot, app, {"task": "Look at a blank page"})
        assert fake.problems == []
    assert not result["ok"] and result["record"]["selfReport"]["success"] is False
    assert result["record"]["status"] == "failed"

    with FakeAnthropic([Reply([text("I can't help with that.")], "refusal")]) as fake:
        model_env(monkeypatch, fake)
        refused = agent(qtbot, app, {"task": "Something"})
    assert not refused["ok"] and "refused" in refused["error"] and "selfReport" not in refused["record"]


def test_the_agents_last_step_settles_and_a_save_cut_off_fails_the_task(qtbot: QtBot, app: BrowserPilotApp,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's last click sends its save a moment later (a debounce), and the server never answers: the task
    waits for it (at most the settle time), lists it, and does not succeed, whatever the model reported."""
    release = threading.Event()
    with LocalServer() as local:
        local.route("/page", "<title>Notes</title><button id=save onclick=\"setTimeout(() => fetch('/api/save', "
                             "{method: 'POST', body: 'x'}), 250)\">Save</button>")
        local.route("/api/save", lambda r: (release.wait(30), Response("late"))[1])
        app.settings.update(settle_seconds=1.0)
        script = [Reply([tool("page_click", locator={"selector": "#save"})]),
                  Reply([tool("done", success=True, answer="saved")])]
        try:
            with FakeAnthropic(script) as fake:
                model_env(monkeypatch, fake)
                result = agent(qtbot, app, {"task": "Save the note", "url": local.url("/page")})
        finally:
            app.settings.update(settle_seconds=10.0)
            release.set()
    record = result["record"]
    assert not result["ok"] and record["status"] == "failed", record.get("error")
    assert record["selfReport"]["success"] is True  # the model thought so
    assert "did not finish within 1 s" in record["error"] and f"POST {local.url('/api/save')}" in record["error"]
    assert [(item["kind"], item["method"], item["url"], item["lastAction"]) for item in record["pendingAtEnd"]] == [
        ("fetch", "POST", local.url("/api/save"), True)]


def test_repeated_action_warning_and_failure_budget(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    warned: list[str] = []

    def click(request: dict[str, Any]) -> Reply:
        results = last_results(request)
        if results:
            warned.append(result_text(results[-1]))
        return Reply([tool("page_click", locator={"selector": "#b"})])

    def missing(request: dict[str, Any]) -> Reply:
        return Reply([tool("page_click", locator={"selector": "#missing"}, timeoutMs=200)])

    script = [click, click, click, *[missing] * 5]
    with FakeAnthropic(script) as fake:
        model_env(monkeypatch, fake)
        result = agent(qtbot, app, {"task": "Click", "url": site.url("/static")})
        assert fake.problems == []
    assert "Warning: you made the same page_click call 3 times" in warned[-1] if len(warned) == 3 else warned
    assert not result["ok"] and "5 tool calls failed in a row" in result["error"]


def test_stale_ref_is_resnapshotted_and_retried(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    refs: dict[str, str] = {}

    def replace(request: dict[str, Any]) -> Reply:
        refs["go"] = ref_of(result_text(last_results(request)[0]), "button", "Go")
        return Reply([tool("tools_enable", groups=["devtools"]),
                      tool("page_script", source="document.querySelector('#box').innerHTML = '<button>Go</button>'")])

    def click_old(request: dict[str, Any]) -> Reply:
        return Reply([tool("page_click", locator={"ref": refs["go"]})])

    def finish(request: dict[str, Any]) -> Reply:
        block = last_results(request)[0]
        refs["result"] = result_text(block)
        return Reply([tool("done", success=True, answer="clicked")])

    with FakeAnthropic([Reply([tool("page_snapshot")]), replace, click_old, finish]) as fake:
        model_env(monkeypatch, fake)
        result = agent(qtbot, app, {"task": "Click Go", "url": site.url("/static")})
    assert result["ok"], result.get("error")
    call = result["record"]["steps"][2]["calls"][0]
    assert call["retried"] and call["ok"] and call["input"]["locator"]["ref"] != refs["go"]
    assert f"ref {refs['go']} was stale" in refs["result"]


def test_take_over_pauses_the_agent_until_done(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def after_take_over(request: dict[str, Any]) -> Reply:
        seen.append(json.dumps(request["messages"][-1]))
        return Reply([tool("page_click", locator={"selector": "#b"})])

    taken = threading.Event()

    def first(request: dict[str, Any]) -> Reply:
        assert taken.wait(30)  # answered only once the person has pressed Take over
        return Reply([tool("page_snapshot")])

    with FakeAnthropic([first, after_take_over,
                        Reply([tool("done", success=True, answer="ok")])]) as fake:
        model_env(monkeypatch, fake)
        task = asyncio.ensure_future(app.registry.call(app.ctx, "agent_run", {"task": "Click", "url": site.url("/static")}))
        qtbot.waitUntil(lambda: len(fake.agent_requests) >= 1, timeout=30_000)
        tab = next(t for t in views(app) if t.url().toString().endswith("/static") and
                   EnvWindow.control_of(t).state == "agent")
        control = EnvWindow.control_of(tab)
        control.take_over()  # the person, before the agent's next action
        taken.set()
        qtbot.waitUntil(lambda: control.state == "handoff", timeout=30_000)
        # The call running when the person took over reports it; the agent then waits, asking the model nothing.
        assert len(fake.agent_requests) == 1 and not task.done()
        control.done()
        qtbot.waitUntil(task.done, timeout=30_000)
    result = task.result()
    assert result["ok"] and result["record"]["takenOver"]
    assert "The person took over the tab" in seen[0]


def test_the_agent_panel_runs_a_task_and_shows_the_three_answers(qtbot: QtBot, app: BrowserPilotApp, site: LocalServer,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QDockWidget

    from app.ui.agent_panel import AgentPanel

    window = app.show_environment("env-default")
    assert window.findChild(AgentPanel, "agent-panel") is None  # made when the person first opens the dock
    dock = window.findChild(QDockWidget, "agent-dock")
    assert dock is not None
    dock.show()
    panel = window.findChild(AgentPanel, "agent-panel")
    assert panel is not None and panel.isVisible()
    script = [Reply([text("Looking at the page."), tool("page_snapshot")]),
              Reply([tool("done", success=True, answer="It says Static")])]
    with FakeAnthropic(script, forbidden=["s3cr3t-value"]) as fake:
        model_env(monkeypatch, fake)
        panel.task_box.setPlainText("Read the page with <secret:pin>")
        panel.url.setText(site.url("/static"))
        panel.add_secret("pin", "s3cr3t-value")
        panel.checks.setText("#b")
        panel.start_button.click()
        qtbot.waitUntil(lambda: "Status:" in panel.answers.text(), timeout=30_000)
        # The answers show as the run finishes; Save enables once its task has ended, a moment later.
        qtbot.waitUntil(panel.save_button.isEnabled, timeout=30_000)
        assert fake.problems == []
    shown = panel.answers.text()
    assert "It says Static" in shown and "pass" in shown and "#b ✓" in shown
    assert "Looking at the page." in panel.view.toPlainText() and "page_snapshot" in panel.view.toPlainText()
    assert "cached" in panel.usage.text()


def test_the_agent_panel_saves_without_replaying_and_replay_now_asks_with_the_run_form(
        qtbot: QtBot, app: BrowserPilotApp, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QDialogButtonBox, QDockWidget

    from app.ui.agent_panel import AgentPanel
    from app.ui.run_inputs_dialog import RunInputsDialog

    window = app.show_environment("env-default")
    dock = window.findChild(QDockWidget, "agent-dock")
    assert dock is not None
    dock.show()
    panel = window.findChild(AgentPanel, "agent-panel")
    assert panel is not None
    left = Qt.MouseButton.LeftButton
    with LocalServer() as server:
        shop = Shop(server)
        with FakeAnthropic(order_script("Ada", "<secret:card>"), forbidden=[CARD]) as fake:
            model_env(monkeypatch, fake)
            panel.task_box.setPlainText("Order a blue widget for Ada, paying with <secret:card>")
            panel.url.setText(shop.url)
            panel.add_secret("card", CARD)
            panel.checks.setText(CHECK)
            qtbot.mouseClick(panel.start_button, left)
            qtbot.waitUntil(panel.save_button.isEnabled, timeout=60_000)
            assert fake.problems == []
        assert shop.orders == [{"name": ["Ada"], "card": [CARD]}]
        assert not panel.replay_button.isEnabled()  # nothing saved yet

        panel.save_name.setText("Widget (panel)")
        panel.typed_as_inputs.setChecked(True)
        qtbot.mouseClick(panel.save_button, left)
        qtbot.waitUntil(panel.replay_button.isEnabled, timeout=30_000)
        assert "Workflow Widget (panel): saved" in panel.view.toPlainText()
        assert len(shop.orders) == 1  # saving replayed nothing

        qtbot.mouseClick(panel.replay_button, left)
        dialog = panel.findChild(RunInputsDialog, "agent-replay-inputs")
        assert dialog is not None and dialog.isVisible() and not dialog.env.isEnabled()
        assert dialog.fields["card"].value() == CARD  # the task's secret, filled in
        assert dialog.fields["value1"].value() == "Ada"  # what the agent typed is the default
        name = dialog.fields["value1"].editor
        name.setFocus()
        qtbot.keyClick(name, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(name, "Zoe")
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), left)
        qtbot.waitUntil(lambda: "Replay:" in panel.view.toPlainText(), timeout=60_000)
        assert "Replay: passed" in panel.view.toPlainText(), panel.view.toPlainText()
        assert shop.orders[1:] == [{"name": ["Zoe"], "card": [CARD]}]  # exactly one more, with the input typed
        assert panel.run is not None and panel.run.record.workflow is not None
        assert panel.run.record.workflow["replay"]["ok"]
