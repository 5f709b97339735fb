"""Choosing the built-in agent's model: the provider, its endpoint and key, and the model from the list the endpoint
offers (`agent_models`: its /v1/models), in the Agent settings dialog and in the Agent panel.

`ModelPicker` is an editable list of models with a Refresh button: the list is asked for through the operation (off
the Qt thread, as every model request is), and a name can always be typed (an endpoint that lists nothing still
serves a model it knows). `AgentSettingsDialog` keeps each provider's own model, key and base URL: switching the
provider shows the other's, so that a key is never sent to the other provider's endpoint.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPushButton, QSpinBox, QWidget)

from app.ops.results import AgentModelsResult
from app.stores.agent_settings import PROVIDERS, AgentSettingsStore, Provider
from app.ui.theme import icon
from plumbing import loggers
from plumbing.jsonstore import StoreError
from workflows.envelope import Envelope

log = logging.getLogger(loggers.UI)

ListModels = Callable[[dict[str, Any]], Awaitable[Envelope[AgentModelsResult]]]  # agent_models, typed


def provider_label(provider: str) -> str:
    if provider == "openai":
        return QCoreApplication.translate("AgentModel", "OpenAI-compatible (Ollama, llama.cpp, vLLM, LM Studio, "
                                                        "OpenRouter…)")
    return QCoreApplication.translate("AgentModel", "Anthropic")


class ModelPicker(QWidget):
    """An editable model list and its Refresh button; `refresh(params)` asks the endpoint for its models."""

    chosen = Signal(str)  # a model was picked or typed (editing finished)

    def __init__(self, list_models: ListModels | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._list_models = list_models
        self.box = QComboBox(self)
        self.box.setObjectName("agent-model-name")
        self.box.setEditable(True)
        self.box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.box.setMinimumContentsLength(18)
        self.refresh_button = QPushButton(icon("refresh-cw"), "", self)
        self.refresh_button.setObjectName("agent-model-refresh")
        self.refresh_button.setToolTip(self.tr("Read the models the endpoint offers (its /v1/models)"))
        self.refresh_button.setEnabled(list_models is not None)
        self.status = QLabel(self)
        self.status.setObjectName("agent-model-status")
        self.status.setWordWrap(True)
        self.status.hide()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.box, 1)
        row.addWidget(self.refresh_button)
        self.task: asyncio.Future[Any] | None = None
        self.params: Callable[[], dict[str, Any]] = lambda: {}
        self.refresh_button.clicked.connect(lambda: self.refresh())
        self.box.activated.connect(lambda _index: self.chosen.emit(self.name()))
        line = self.box.lineEdit()
        if line is not None:
            line.editingFinished.connect(lambda: self.chosen.emit(self.name()))

    def name(self) -> str:
        return self.box.currentText().strip()

    def set_name(self, name: str) -> None:
        self.box.setEditText(name)

    def refresh(self) -> asyncio.Future[Any] | None:
        """Ask the endpoint (with `self.params()`) for its models; the list fills when it answers."""
        if self._list_models is None:
            return None
        self.refresh_button.setEnabled(False)
        self.status.setText(self.tr("Asking the endpoint for its models…"))
        self.status.show()
        self.task = asyncio.ensure_future(self._list_models(self.params()))
        self.task.add_done_callback(self._listed)
        return self.task

    def _listed(self, task: asyncio.Future[Any]) -> None:
        if not shiboken6.isValid(self):
            return
        self.refresh_button.setEnabled(True)
        if task.cancelled() or task.exception() is not None:
            error = str(task.exception() if not task.cancelled() else "cancelled")
        else:
            answer: Envelope[AgentModelsResult] = task.result()
            error = None if answer.data is not None else str(answer.error)
        if error is not None:
            self.status.setText(self.tr("No list: {error}").format(error=error[:300]))
            return
        models = list(answer.result.models)
        typed = self.name()
        self.box.blockSignals(True)
        self.box.clear()
        self.box.addItems(models)
        self.box.setEditText(typed or (models[0] if models else ""))
        self.box.blockSignals(False)
        self.status.setText(self.tr("%n model(s) offered", "", len(models)))
        if not typed and models:
            self.chosen.emit(self.name())


class AgentSettingsDialog(QDialog):
    """The provider, its endpoint, key and model, and the step budget; saved in agent.json (mode 0600)."""

    def __init__(self, store: AgentSettingsStore, parent: QWidget | None = None,
                 list_models: ListModels | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agent-settings-dialog")
        self.setWindowTitle(self.tr("Agent settings"))
        self.store = store
        current = store.current
        # Each provider's own fields, as edited so far: switching the provider swaps them in and out.
        self._fields: dict[str, dict[str, Any]] = {
            "anthropic": {"model": current.model, "key": current.api_key or "", "url": current.base_url or ""},
            "openai": {"model": current.openai.model, "key": current.openai.api_key or "",
                       "url": current.openai.base_url or ""}}
        form = QFormLayout(self)
        self.provider = QComboBox(self)
        self.provider.setObjectName("agent-provider")
        for name in PROVIDERS:
            self.provider.addItem(provider_label(name), name)
        self.base_url = QLineEdit(self)
        self.base_url.setObjectName("agent-base-url")
        self.key = QLineEdit(self)
        self.key.setObjectName("agent-api-key")
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.picker = ModelPicker(list_models, self)
        self.picker.params = self._list_params
        self.images = QCheckBox(self.tr("The model reads images (screenshots are sent to it)"), self)
        self.images.setObjectName("agent-model-images")
        self.images.setChecked(current.openai.images)
        self.max_steps = QSpinBox(self)
        self.max_steps.setRange(1, 500)
        self.max_steps.setValue(current.max_steps)
        form.addRow(self.tr("Provider"), self.provider)
        form.addRow(self.tr("Base URL"), self.base_url)
        form.addRow(self.tr("API key"), self.key)
        form.addRow(self.tr("Model"), self.picker)
        form.addRow("", self.picker.status)
        form.addRow("", self.images)
        form.addRow(self.tr("Step budget"), self.max_steps)
        self.hint = QLabel(self)
        self.hint.setWordWrap(True)
        form.addRow(self.hint)
        form.addRow(QLabel(self.tr("Saved in {path} (readable only by you).").format(path=store.path)))
        self.problem = QLabel(self)
        self.problem.setObjectName("agent-settings-problem")
        self.problem.hide()
        form.addRow(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._shown: Provider = current.provider
        self.provider.setCurrentIndex(PROVIDERS.index(current.provider))
        self._show(current.provider)
        self.provider.currentIndexChanged.connect(lambda _i: self._switch(self.provider.currentData()))
        self.base_url.setFocus()  # not the provider's list: a wheel over it would change the provider unasked

    def chosen_provider(self) -> Provider:
        return self.provider.currentData()

    def _keep(self) -> None:
        self._fields[self._shown] = {"model": self.picker.name(), "key": self.key.text().strip(),
                                     "url": self.base_url.text().strip()}

    def _switch(self, provider: Provider) -> None:
        self._keep()
        self._show(provider)

    def _show(self, provider: Provider) -> None:
        self._shown = provider
        fields = self._fields[provider]
        self.base_url.setText(fields["url"])
        self.key.setText(fields["key"])
        self.picker.box.clear()
        self.picker.set_name(fields["model"])
        self.picker.status.hide()
        openai = provider == "openai"
        choice = self.store.current.choice(provider)
        self.images.setVisible(openai)
        variable = "OPENAI" if openai else "ANTHROPIC"
        key_set = choice.key_source == f"{variable}_API_KEY"
        self.key.setPlaceholderText(self.tr("empty: {variable}_API_KEY ({state})").format(
            variable=variable, state=self.tr("set") if key_set else self.tr("not set")))
        self.base_url.setPlaceholderText(self.tr("empty: OPENAI_BASE_URL or OpenAI's, e.g. http://127.0.0.1:11434/v1")
                                         if openai else self.tr("empty: ANTHROPIC_BASE_URL or Anthropic"))
        self.hint.setText(self.tr("Any endpoint that speaks OpenAI's Chat Completions with tool calling: Ollama "
                                  "(http://127.0.0.1:11434/v1), llama.cpp's server, vLLM, LM Studio, OpenRouter. A "
                                  "local server needs no key. Prompt caching is Anthropic's only.") if openai else "")
        self.hint.setVisible(openai)

    def _list_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"provider": self.chosen_provider()}
        if self.base_url.text().strip():
            params["baseUrl"] = self.base_url.text().strip()
        if self.key.text().strip():
            params["apiKey"] = self.key.text().strip()
        return params

    def _save(self) -> None:
        self._keep()
        anthropic, openai = self._fields["anthropic"], self._fields["openai"]
        try:
            self.store.update(provider=self.chosen_provider(),
                              model=anthropic["model"] or self.store.current.model,
                              api_key=anthropic["key"] or None, base_url=anthropic["url"] or None,
                              openai={"model": openai["model"], "api_key": openai["key"] or None,
                                      "base_url": openai["url"] or None, "images": self.images.isChecked()},
                              max_steps=self.max_steps.value())
        except (StoreError, OSError, ValueError) as exc:
            self.problem.setText(self.tr("Not saved: {reason}").format(reason=str(exc)))
            self.problem.show()
            return
        self.accept()
