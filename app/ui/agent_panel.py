"""The Agent side panel of an environment window: say what you want done, watch it happen, keep it.

A task box, Start / Pause / Stop, the model (its provider, Anthropic or any OpenAI-compatible endpoint, and the
model picked from the list the endpoint offers; Settings…: endpoint and key, saved in `agent.json`, mode 0600, or
the provider's environment variables; app/ui/agent_model_ui.py), a Secrets list (the task names them `<secret:name>`; values are masked and never sent to the
model; each with the sites where it may be typed, its Domains, by default the start page's site, which the empty
cell shows; remembered in `agent.json` on request), Checks (locators that must be on the final page), a live view
of each step (the model's words as they stream, each tool call and its result, a thumbnail when a screenshot was
taken), tokens and cost so far, the three answers side by side with the count of refused uses of secrets, Save as
workflow (nothing is replayed to save it; the checks end the workflow) and Replay now (the person's choice, since a
replay repeats what the task did: it asks for the start inputs with the run form, the task's secrets filled in).
The run itself is `app.agent.runner.AgentRun`, calling the registry like everything else.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
from typing import TYPE_CHECKING, Any, Awaitable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (QCheckBox, QDockWidget, QHBoxLayout,
                               QHeaderView,
                               QLabel, QLineEdit, QMainWindow, QMenu, QPlainTextEdit, QPushButton,
                               QTableWidget, QTableWidgetItem, QTextBrowser, QVBoxLayout, QWidget)

from app.agent import ops as agent_ops
from app.ops.results import AgentModelsResult
from app.stores.agent_runs import AgentRecord, Step, ToolCall, Usage
from app.stores.agent_settings import StoredSecret
from plumbing import loggers
from plumbing.jsonstore import StoreError
from workflows.envelope import Envelope
from workflows.secret_binding import SecretError, start_page_domain
from app.ui.agent_model_ui import AgentSettingsDialog, ModelPicker, provider_label
from app.ui.follow import StoreSignals
from app.ui.run_inputs_dialog import RunInputsDialog, ask_replay_inputs
from app.ui.theme import current_scheme, icon

if TYPE_CHECKING:
    from app.agent.runner import AgentRun
from app.ops import OpContext, OperationRegistry

log = logging.getLogger(loggers.UI)


class AgentPanel(QWidget):
    def __init__(self, env_id: str, registry: OperationRegistry, ctx: OpContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agent-panel")
        self.env_id = env_id
        self.registry = registry
        self.ctx = ctx
        self.settings = ctx.agent_settings  # the app's stores: read at start, written off the Qt thread
        self.store = ctx.agent_runs
        self.run: AgentRun | None = None
        self._task: asyncio.Task[AgentRecord] | None = None
        self._busy: asyncio.Future[Any] | None = None  # saving or replaying
        self._streaming = ""

        self.task_box = QPlainTextEdit()
        self.task_box.setObjectName("agent-task")
        self.task_box.setPlaceholderText(self.tr("What should the agent do? e.g. Log in with <secret:password> and "
                                                 "download last month's invoice"))
        self.task_box.setMaximumHeight(80)
        self.url = QLineEdit()
        self.url.setPlaceholderText(self.tr("Start at (optional URL)"))
        self.start_button = QPushButton(icon("play"), self.tr("Start"))
        self.start_button.setObjectName("agent-start")
        self.pause_button = QPushButton(icon("pause"), self.tr("Pause"))
        self.pause_button.setObjectName("agent-pause")
        self.pause_button.setCheckable(True)
        self.stop_button = QPushButton(icon("square"), self.tr("Stop"))
        self.stop_button.setObjectName("agent-stop")
        self.settings_button = QPushButton(icon("settings"), self.tr("Settings…"))
        self.settings_button.setObjectName("agent-settings")
        self.start_button.clicked.connect(self.start)
        self.pause_button.toggled.connect(self._pause)
        self.stop_button.clicked.connect(self.stop)
        self.settings_button.clicked.connect(self._edit_settings)
        buttons = QHBoxLayout()
        for button in (self.start_button, self.pause_button, self.stop_button, self.settings_button):
            buttons.addWidget(button)
        self.model_label = QLabel()
        self.model_label.setObjectName("agent-model")
        self.model_picker = ModelPicker(self._list_models, self)
        self.model_picker.params = lambda: {"provider": self.settings.current.provider}
        self.model_picker.chosen.connect(self._choose_model)

        self.secrets = QTableWidget(0, 3)
        self.secrets.setObjectName("agent-secrets")
        self.secrets.setHorizontalHeaderLabels([self.tr("Secret"), self.tr("Value"), self.tr("Domains")])
        self.secrets.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.secrets.horizontalHeaderItem(2).setToolTip(self.tr(
            "Where the secret may be typed: shop.example.com, *.example.org, https://…, host:port, separated by "
            "commas; * for anywhere. Empty: the site of the start page."))
        self.secrets.verticalHeader().hide()
        self.secrets.setMaximumHeight(90)
        add_secret = QPushButton(icon("key"), self.tr("Add secret"))
        add_secret.setObjectName("agent-add-secret")
        add_secret.clicked.connect(lambda: self.add_secret("", ""))
        self.remember = QCheckBox(self.tr("Remember"))
        self.remember.setObjectName("agent-remember-secrets")
        self.remember.setToolTip(self.tr("Keep these secrets, with their domains, in agent.json (readable only by "
                                         "you) for the next tasks"))
        self.url.textChanged.connect(lambda _text: self._show_default_domains())
        self.checks = QLineEdit()
        self.checks.setObjectName("agent-checks")
        self.checks.setPlaceholderText(self.tr("Checks: locators that must be on the final page, separated by ;"))

        self.view = QTextBrowser()
        self.view.setObjectName("agent-steps")
        self.view.setOpenExternalLinks(False)
        self.usage = QLabel(self.tr("Tokens: {input} in, {cached} cached, {output} out · {cost}").format(
            input=0, cached=0, output=0, cost="$0.0000"))
        self.usage.setObjectName("agent-usage")
        self.answers = QLabel("")
        self.answers.setObjectName("agent-answers")
        self.answers.setWordWrap(True)
        self.answers.setTextFormat(Qt.TextFormat.RichText)
        self.save_name = QLineEdit()
        self.save_name.setPlaceholderText(self.tr("Workflow name"))
        self.save_button = QPushButton(icon("save"), self.tr("Save as workflow"))
        self.save_button.setObjectName("agent-save")
        self.save_button.clicked.connect(self.save_workflow)
        self.typed_as_inputs = QCheckBox(self.tr("Typed values as inputs"))
        self.typed_as_inputs.setObjectName("agent-typed-as-inputs")
        self.typed_as_inputs.setToolTip(self.tr("The values the agent typed become start inputs of the workflow "
                                                "(with what it typed as their defaults)"))
        self.replay_button = QPushButton(icon("play"), self.tr("Replay now"))
        self.replay_button.setObjectName("agent-replay")
        self.replay_button.setToolTip(self.tr("Run the saved workflow once, with no model. It does again what the "
                                              "task did (an order, a message, a payment): saving never replays."))
        self.replay_button.clicked.connect(self.replay_now)
        save_row = QHBoxLayout()
        save_row.addWidget(self.save_name)
        save_row.addWidget(self.typed_as_inputs)
        save_row.addWidget(self.save_button)
        save_row.addWidget(self.replay_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self._heading(self.tr("Task")))
        layout.addWidget(self.task_box)
        layout.addWidget(self.url)
        layout.addLayout(buttons)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_label)
        model_row.addWidget(self.model_picker, 1)
        layout.addLayout(model_row)
        layout.addWidget(self.model_picker.status)
        secrets_row = QHBoxLayout()
        secrets_row.addWidget(self._heading(self.tr("Secrets")))
        secrets_row.addStretch(1)
        secrets_row.addWidget(self.remember)
        secrets_row.addWidget(add_secret)
        layout.addLayout(secrets_row)
        layout.addWidget(self.secrets)
        layout.addWidget(self._heading(self.tr("Checks")))
        layout.addWidget(self.checks)
        layout.addWidget(self._heading(self.tr("Steps")))
        layout.addWidget(self.view, 1)
        layout.addWidget(self.usage)
        layout.addWidget(self.answers)
        layout.addLayout(save_row)
        for stored in self.settings.current.secrets:
            self.add_secret(stored.name, stored.value, ", ".join(stored.domains))
        self.remember.setChecked(bool(self.settings.current.secrets))
        self._refresh()
        if self.settings.current.provider == "openai" and self.settings.current.choice().problem() is None:
            self.model_picker.refresh()  # a local endpoint: what it serves now

    def _heading(self, text: str) -> QLabel:
        label = QLabel(text, self)
        label.setObjectName("agent-heading")
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        return label

    # -- inputs -------------------------------------------------------------------------------------------
    def add_secret(self, name: str, value: str, domains: str = "") -> None:
        row = self.secrets.rowCount()
        self.secrets.insertRow(row)
        self.secrets.setItem(row, 0, QTableWidgetItem(name))
        field = QLineEdit(value)
        field.setEchoMode(QLineEdit.EchoMode.Password)
        self.secrets.setCellWidget(row, 1, field)
        where = QLineEdit(domains)
        where.setObjectName("agent-secret-domains")
        self.secrets.setCellWidget(row, 2, where)
        self._show_default_domains()

    def default_domains_text(self) -> str:
        """What an empty Domains cell means now: the start page's site, or that one is needed."""
        site = start_page_domain(self.url.text().strip())
        if site is None:
            return self.tr("needed: give a start URL, or sites here")
        return self.tr("{site} (the start page's site)").format(site=site)

    def _show_default_domains(self) -> None:
        hint = self.default_domains_text()
        for row in range(self.secrets.rowCount()):
            where = self.secrets.cellWidget(row, 2)
            if isinstance(where, QLineEdit):
                where.setPlaceholderText(hint)

    def _rows(self) -> list[tuple[str, str, list[str]]]:
        """(name, value, domains) of each row with a name and a value."""
        rows: list[tuple[str, str, list[str]]] = []
        for row in range(self.secrets.rowCount()):
            item = self.secrets.item(row, 0)
            field = self.secrets.cellWidget(row, 1)
            where = self.secrets.cellWidget(row, 2)
            if item and item.text().strip() and isinstance(field, QLineEdit) and field.text():
                text = where.text() if isinstance(where, QLineEdit) else ""
                domains = [part for part in (p.strip() for p in text.replace(";", ",").split(",")) if part]
                rows.append((item.text().strip(), field.text(), domains))
        return rows

    def secret_values(self) -> dict[str, str]:
        return {name: value for name, value, _domains in self._rows()}

    def secret_domains(self) -> dict[str, list[str]]:
        """The sites typed for each secret (a secret whose cell is empty is not listed: the start page's)."""
        return {name: domains for name, _value, domains in self._rows() if domains}

    def _remember_secrets(self) -> None:
        """Keep the table in agent.json when Remember is on; forget what was kept when it is off."""
        kept = [StoredSecret(name=name, value=value, domains=domains) for name, value, domains in self._rows()]
        wanted = kept if self.remember.isChecked() else []
        if wanted != self.settings.current.secrets:
            try:
                self.settings.update(secrets=[secret.model_dump() for secret in wanted])
            except StoreError as exc:
                self.view.append(self._note(str(exc)))

    def _list_models(self, params: dict[str, Any]) -> Awaitable[Envelope[AgentModelsResult]]:
        return self.registry.run(self.ctx, agent_ops.agent_models, params)

    def _choose_model(self, name: str) -> None:
        """The model picked or typed in the panel becomes the saved model of the current provider."""
        current = self.settings.current
        if not name or name == current.choice().model:
            return
        try:
            if current.provider == "openai":
                self.settings.update(openai={**current.openai.model_dump(), "model": name})
            else:
                self.settings.update(model=name)
        except (StoreError, ValueError) as exc:
            self.view.append(self._note(str(exc)))
        self._refresh()

    def _edit_settings(self) -> None:
        dialog = AgentSettingsDialog(self.settings, self, self._list_models)
        dialog.exec()
        dialog.deleteLater()
        self._refresh()

    def _refresh(self) -> None:
        running = self._task is not None and not self._task.done()
        busy = self._busy is not None and not self._busy.done()  # saving or replaying
        choice = self.settings.current.choice()
        self.model_label.setText(self.tr("{provider} · key: {source}").format(
            provider=provider_label(choice.provider).split(" (")[0], source=choice.key_source))
        self.model_label.setToolTip(choice.base_url or "")
        if self.model_picker.name() != choice.model:
            self.model_picker.set_name(choice.model)
        self.start_button.setEnabled(not running and not busy)
        self.pause_button.setEnabled(running)
        self.stop_button.setEnabled(running)
        ended = self.run is not None and not running and not busy
        self.save_button.setEnabled(ended and self.run is not None and self.run.record.success)
        saved = (self.run.record.workflow or {}) if self.run is not None else {}
        self.replay_button.setEnabled(ended and bool(saved.get("saved")))

    # -- the run ------------------------------------------------------------------------------------------
    def start(self) -> None:
        text = self.task_box.toPlainText().strip()
        if not text:
            self.view.setHtml("<p>" + html.escape(self.tr("Type a task first.")) + "</p>")
            return
        checks = [part.strip() for part in self.checks.text().split(";") if part.strip()]
        from app.agent.runner import AgentRun, AgentTask  # the model SDK: imported when an agent first runs

        task = AgentTask(task=text, env=self.env_id, url=self.url.text().strip() or None,
                         secrets=self.secret_values(), secret_domains=self.secret_domains(), expect=checks)
        self.view.clear()
        self.answers.setText("")
        try:
            run = AgentRun(task, self.settings.current, self.registry, self.ctx, self.store, self.ctx.data.root,
                           self._on_event)
        except SecretError as exc:
            self.view.setHtml("<p>" + html.escape(str(exc)) + "</p>")
            return
        self._remember_secrets()
        self.run = run
        self._task = asyncio.ensure_future(self.run.run())
        self._task.add_done_callback(lambda _t: self._refresh())
        self._refresh()

    def _pause(self, paused: bool) -> None:
        if self.run is not None:
            (self.run.pause if paused else self.run.unpause)()
        self.pause_button.setText(self.tr("Resume") if paused else self.tr("Pause"))
        self.pause_button.setIcon(icon("play" if paused else "pause"))

    def stop(self) -> None:
        if self.run is not None:
            self.run.stop()

    def save_workflow(self) -> None:
        if self.run is None:
            return
        name = self.save_name.text().strip() or self.tr("Agent: {task}").format(task=self.run.record.task[:40])
        self._start(self.run.save_workflow(name, self.typed_as_inputs.isChecked()))

    def replay_now(self) -> RunInputsDialog | None:
        """Replay the saved workflow once: its start inputs are asked for first with the run form (the task's
        secrets filled in); returns that dialog while it is open."""
        run = self.run
        saved = (run.record.workflow or {}) if run is not None else {}
        if run is None or not saved.get("saved"):
            return None
        try:
            document = self.ctx.workflows.find(str(saved["id"])).document
        except LookupError as exc:  # deleted since it was saved
            self.view.append(self._note(str(exc)))
            return None

        def replay(inputs: dict[str, Any]) -> None:
            self.view.append(self._note(self.tr("Replaying the saved workflow, with no model…")))
            self._start(run.replay_workflow(inputs))

        return ask_replay_inputs(str(saved["name"]), document, run.task.env, self.ctx.envs, self, replay,
                                 "agent-replay-inputs", run.task.secrets)

    def _start(self, work: Any) -> None:
        """Save or replay, one at a time; the buttons wait for it."""
        self._busy = asyncio.ensure_future(work)
        self._busy.add_done_callback(lambda _f: self._refresh())
        self._refresh()

    # -- what the run tells ---------------------------------------------------------------------------------
    def _on_event(self, kind: str, value: Any) -> None:
        if kind == "step":
            assert isinstance(value, Step)
            self._streaming = ""
            self.view.append("<p><b>" + html.escape(self.tr("Step {n}").format(n=value.index)) + "</b></p>")
            self.view.append("")  # the model's words stream into a paragraph of their own
        elif kind == "text":
            self._streaming += str(value)
            self.view.insertPlainText(str(value))
        elif kind == "tool" and isinstance(value, ToolCall):
            self.view.append(self._call_html(value))
        elif kind == "usage" and isinstance(value, Usage):
            cost = self.tr("unknown") if value.cost_usd is None else f"${value.cost_usd:.4f}"
            self.usage.setText(self.tr("Tokens: {input} in, {cached} cached, {output} out · {cost}").format(
                input=value.input_tokens, cached=value.cache_read_input_tokens, output=value.output_tokens, cost=cost))
        elif kind == "paused":
            self.view.append(self._note(self.tr("Paused: you took over. Click Done on the page to let the agent go on.")
                                        if value else self.tr("Resumed.")))
        elif kind == "limitations":
            for note in value:
                self.view.append(self._note(self.tr("Without: {note}").format(note=note)))
        elif kind == "judging":
            self.view.append(self._note(self.tr("Asking the judge…")))
        elif kind == "finished" and isinstance(value, AgentRecord):
            self.show_answers(value)
        elif kind == "workflow":
            saved = value.get("saved")
            head = self.tr("Workflow {name}:").format(name=value.get("name"))
            outcome = self.tr("saved") if saved else str(value.get("error"))
            self.view.append(f"<p><b>{html.escape(head)}</b> {html.escape(outcome)}</p>")
            for note in value.get("notes") or []:
                self.view.append(self._note(note))
            if saved:
                self.view.append(self._note(self.tr("It was not replayed: Replay now runs it once, doing again "
                                                    "what the task did.")))
        elif kind == "replay":
            head = self.tr("Replay:")
            outcome = self.tr("passed") if value.get("ok") else str(value.get("error"))
            self.view.append(f"<p><b>{html.escape(head)}</b> {html.escape(outcome)}</p>")

    @staticmethod
    def _note(text: str) -> str:
        return f"<p><i>{html.escape(text)}</i></p>"

    def _call_html(self, call: ToolCall) -> str:
        args = html.escape(json.dumps(call.input, ensure_ascii=False)[:200])
        colours = current_scheme()  # the theme's colours, light or dark
        if call.skipped:
            skipped = self.tr("not run (the page changed)")
            state = f"<span style='color:{colours.muted}'>{html.escape(skipped)}</span>"
        elif call.refusal is not None:
            refused = self.tr("refused, nothing sent: {error}").format(error=str(call.error)[:300])
            state = f"<span style='color:{colours.danger}'><b>{html.escape(refused)}</b></span>"
        elif call.ok:
            ok = self.tr("ok")
            state = (f"<span style='color:{colours.success}'>{html.escape(ok)}</span>"
                     + (html.escape(self.tr(" (retried after a stale ref)")) if call.retried else ""))
        else:
            failed = self.tr("failed: {error}").format(error=str(call.error)[:200])
            state = f"<span style='color:{colours.danger}'>{html.escape(failed)}</span>"
        shot = (f"<br><img src='file://{html.escape(call.screenshot)}' width='160'>" if call.screenshot else "")
        return f"<p>→ <code>{html.escape(call.name)}</code> {args}<br>{state}{shot}</p>"

    def show_answers(self, record: AgentRecord) -> None:
        report = record.self_report
        outcome = self.tr("success") if report is not None and report.success else self.tr("failure")
        said = f"{html.escape(outcome)}: {html.escape(report.answer)}" if report else "—"
        judged = f"{record.judge.verdict}: {html.escape(record.judge.reason)}" if record.judge else "—"
        checks = ", ".join(f"{html.escape(c.locator)} {'✓' if c.ok else '✗'}" for c in record.checks) or "—"
        refused = ", ".join(html.escape(f"{r.secret} ({r.tool}" + (f", {r.site})" if r.site else ")"))
                            for r in record.refusals)
        label = {key: html.escape(text) for key, text in (  # outside the f-strings, where lupdate finds them
            ("ended", self.tr("Ended:")), ("says", self.tr("Agent says")), ("judge", self.tr("Judge")),
            ("checks", self.tr("Checks")), ("status", self.tr("Status:")), ("refused", self.tr("Secrets refused")))}
        error = f"<br><b>{label['ended']}</b> {html.escape(record.error)}" if record.error else ""
        self.answers.setText(f"<table><tr><td><b>{label['says']}</b></td><td>{said}</td></tr>"
                             f"<tr><td><b>{label['judge']}</b></td><td>{judged}</td></tr>"
                             f"<tr><td><b>{label['checks']}</b></td><td>{checks}</td></tr>"
                             f"<tr><td><b>{label['refused']}</b></td><td>{len(record.refusals)}"
                             f"{': ' + refused if refused else ''}</td></tr></table>"
                             f"<b>{label['status']}</b> {record.status}{error}")


class AgentDock(QDockWidget):
    """The Agent dock. Its panel is made the first time the dock shows: most windows (every one of a headless
    app, a batch's) never show it."""

    def __init__(self, window: QMainWindow, env_id: str, registry: OperationRegistry, ctx: OpContext,
                 changes: StoreSignals | None = None) -> None:
        super().__init__(QCoreApplication.translate("AgentPanel", "Agent"), window)
        self.setObjectName("agent-dock")
        self._make = lambda: AgentPanel(env_id, registry, ctx, self)
        self._changes = changes

    def panel(self) -> AgentPanel:
        widget = self.widget()
        if not isinstance(widget, AgentPanel):
            widget = self._make()
            self.setWidget(widget)
            if self._changes is not None:  # the model and key, changed in another window's Agent panel
                self._changes.follow(widget, ("agent_settings",), lambda _changed, panel=widget: panel._refresh())
        return widget

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        self.panel()
        super().showEvent(event)


def attach_agent_panel(window: QMainWindow, env_id: str, registry: OperationRegistry, ctx: OpContext,
                       changes: StoreSignals | None = None) -> QDockWidget:
    """The Agent dock on the right of an environment window (hidden until the person opens it)."""
    dock = AgentDock(window, env_id, registry, ctx, changes)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    action = dock.toggleViewAction()
    action.setShortcut("Ctrl+Shift+A")
    action.setIcon(icon("bot"))
    window.addAction(action)
    view_menu = window.findChild(QMenu, "view-menu")  # the env window's View menu, whatever its language
    if view_menu is not None:
        view_menu.addAction(action)
    dock.hide()
    return dock
