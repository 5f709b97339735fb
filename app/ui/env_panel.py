"""The Environments panel of the main window: a table of environments and the actions on them.

The table follows the environment store (app/ui/follow.py: whoever changed it, the GUI, MCP, the CLI or a page
load recording a visit), keeping the selection; every change goes through an operation. The
settings dialog (`EnvSettingsDialog`) edits the name, the remark, the network policy (allowed and blocked
domains, one pattern per line, checked as you type) and the identity (user agent, languages, time zone,
geolocation; envs/identity.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QComboBox,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.ops import env_ops
from app.ui.empty_state import EmptyState
from app.ui.follow import Changed
from app.ui.op_runner import OpRunner
from app.ui.table_model import RowsTableModel, button_row, record_table
from envs.domains import PatternError, normalize_patterns
from envs.identity import IdentityError, clean_geolocation, clean_languages, clean_timezone, clean_user_agent, \
    known_timezones
from envs.model import MAX_NAME_LENGTH, Environment
from envs.store import EnvStore

ModelIndex = QModelIndex | QPersistentModelIndex
COLUMNS = (QT_TRANSLATE_NOOP("EnvTableModel", "Name"), QT_TRANSLATE_NOOP("EnvTableModel", "Remark"),
           QT_TRANSLATE_NOOP("EnvTableModel", "Recent sites"), QT_TRANSLATE_NOOP("EnvTableModel", "Created"),
           QT_TRANSLATE_NOOP("EnvTableModel", "ID"))


def local_time(value: datetime) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


def first_line(text: str) -> str:
    """A multi-line text in one cell: its first line, and "…" when more follows (the tooltip has it all)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0] + (" …" if len(lines) > 1 else "") if lines else ""


class EnvTableModel(RowsTableModel[Any]):
    columns = COLUMNS
    context = "EnvTableModel"

    def __init__(self, store: EnvStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._rows: list[Environment] = store.list()
        self._shown: dict[str, tuple[str, str, str, str, str]] = {}

    def follow(self, changed: set[str | None]) -> None:
        """Environments changed (their ids, from the change feed): only their rows are read again and redrawn
        (a batch records a visit per page load); an environment made or deleted is inserted or removed, the
        other rows (and the view's selection and scroll position) staying."""
        shown = [env_id for env_id in changed if env_id and self.row_of(env_id) >= 0 and self.store.exists(env_id)]
        if len(shown) < len(changed):  # made, deleted (or the whole store)
            self.replace_rows(self.store.list(), key=lambda env: env.id)
            return
        for env_id in shown:
            row = self.row_of(env_id)
            self._rows[row] = self.store.get(env_id)
            self._shown.pop(env_id, None)
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.columns) - 1))

    def changed_row(self, row: int) -> None:
        self._shown.pop(self._rows[row].id, None)

    def _texts(self, env: Environment) -> tuple[str, str, str, str, str]:
        """The row's five cells, made once per change of the environment (a repaint asks for each often)."""
        shown = self._shown.get(env.id)
        if shown is None:
            shown = (env.name + (self.tr("  (default)") if env.is_default else ""),
                     first_line(env.remark),
                     ", ".join(site.domain for site in env.sites[:5]), local_time(env.created_at), env.id)
            self._shown[env.id] = shown
        return shown

    def env_at(self, row: int) -> Environment | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, env_id: str) -> int:
        return next((i for i, env in enumerate(self._rows) if env.id == env_id), -1)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        env = self.env_at(index.row())
        if env is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._texts(env)[column] if 0 <= column < len(self.columns) else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 1:
                return env.remark or None
            if column == 2 and env.sites:
                return "\n".join(f"{site.domain}  ·  {local_time(site.last_opened)}" for site in env.sites[:20])
        if role == Qt.ItemDataRole.UserRole:
            return env.id
        return None


class NewEnvironmentDialog(QDialog):
    """Name and remark for a new environment; OK stays disabled until the name is usable."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("New Environment"))
        self.name = QLineEdit(self)
        self.name.setObjectName("env-name")
        self.name.setMaxLength(MAX_NAME_LENGTH)
        self.name.setPlaceholderText(self.tr("for example: Work account"))
        self.remark = QPlainTextEdit(self)
        self.remark.setObjectName("env-remark")
        self.remark.setPlaceholderText(self.tr("Optional note: which account, what it is for…"))
        self.remark.setFixedHeight(80)
        form = QFormLayout()
        form.addRow(self.tr("&Name:"), self.name)
        form.addRow(self.tr("&Remark:"), self.remark)
        hint = QLabel(self.tr("Each environment keeps its own logins, cookies and storage."), self)
        hint.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(self.buttons)
        self.name.textChanged.connect(self._update_ok)
        self._update_ok()

    def _update_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.name.text().strip()))


DOMAINS_HELP = QT_TRANSLATE_NOOP(
    "EnvSettingsDialog",
    "One pattern per line: <b>example.com</b> (that host and www.), <b>*.example.com</b> (the domain and every "
    "subdomain), <b>https://example.com</b> (only over https), <b>host:8080</b> (only that port), <b>*</b> "
    "(everything). With allowed domains, every other host is blocked &mdash; for pages, frames, scripts, images, "
    "fetch, WebSockets and downloads alike; blocked domains apply on top. Changes apply at once to open tabs.")


def _lines(editor: QPlainTextEdit) -> list[str]:
    return [line.strip() for line in editor.toPlainText().splitlines() if line.strip()]


class EnvSettingsDialog(QDialog):
    """Name, remark and network policy of one environment."""

    def __init__(self, env: Environment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.env = env
        self.setWindowTitle(self.tr("Environment Settings — {name}").format(name=env.name))
        self.setObjectName("env-settings")
        self.name = QLineEdit(env.name, self)
        self.name.setObjectName("env-name")
        self.name.setMaxLength(MAX_NAME_LENGTH)
        self.remark = QPlainTextEdit(env.remark, self)
        self.remark.setObjectName("env-remark")
        self.remark.setFixedHeight(70)
        self.allowed = QPlainTextEdit("\n".join(env.allowed_domains), self)
        self.allowed.setObjectName("env-allowed-domains")
        self.allowed.setPlaceholderText(self.tr("Empty: every host is allowed"))
        self.blocked = QPlainTextEdit("\n".join(env.blocked_domains), self)
        self.blocked.setObjectName("env-blocked-domains")
        self.blocked.setPlaceholderText(self.tr("for example: *.doubleclick.net"))
        for editor in (self.allowed, self.blocked):
            editor.setFixedHeight(110)
            editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        form = QFormLayout()
        form.addRow(self.tr("&Name:"), self.name)
        form.addRow(self.tr("&Remark:"), self.remark)
        form.addRow(self.tr("&Allowed domains:"), self.allowed)
        form.addRow(self.tr("&Blocked domains:"), self.blocked)
        hint = QLabel(QCoreApplication.translate("EnvSettingsDialog", DOMAINS_HELP), self)
        hint.setWordWrap(True)
        hint.setTextFormat(Qt.TextFormat.RichText)
        browser_identity = self._identity_group(env)
        self.problem = QLabel(self)
        self.problem.setObjectName("env-settings-problem")
        self.problem.setWordWrap(True)
        self.problem.setProperty("role", "error")
        identity = QLabel(self.tr("ID: {id}").format(id=env.id), self)
        identity.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(browser_identity)
        layout.addWidget(self.problem)
        layout.addWidget(identity)
        layout.addWidget(self.buttons)
        self.resize(560, self.sizeHint().height())
        for signal in (self.name.textChanged, self.allowed.textChanged, self.blocked.textChanged,
                       self.user_agent.textChanged, self.languages.textChanged, self.timezone.currentTextChanged,
                       self.latitude.textChanged, self.longitude.textChanged, self.accuracy.textChanged):
            signal.connect(self._validate)
        self._validate()

    def _identity_group(self, env: Environment) -> QGroupBox:
        """User agent, languages, time zone and geolocation: empty fields keep the browser's own."""
        group = QGroupBox(self.tr("Identity (empty: the browser’s own)"), self)
        self.user_agent = QLineEdit(env.user_agent, group)
        self.user_agent.setObjectName("env-user-agent")
        self.user_agent.setPlaceholderText(self.tr("for example: Mozilla/5.0 (Windows NT 10.0; Win64; x64) …"))
        self.languages = QLineEdit(", ".join(env.languages), group)
        self.languages.setObjectName("env-languages")
        self.languages.setPlaceholderText(self.tr("for example: zh-CN, en (first preferred)"))
        self.timezone = QComboBox(group)
        self.timezone.setObjectName("env-timezone")
        self.timezone.setEditable(True)
        self.timezone.addItems(["", *known_timezones()])
        self.timezone.setCurrentText(env.timezone)
        self.timezone.lineEdit().setPlaceholderText(self.tr("for example: Asia/Shanghai"))
        where = env.geolocation
        self.latitude = QLineEdit(f"{where.latitude:g}" if where else "", group)
        self.longitude = QLineEdit(f"{where.longitude:g}" if where else "", group)
        self.accuracy = QLineEdit(f"{where.accuracy:g}" if where else "", group)
        self.latitude.setPlaceholderText(self.tr("latitude"))
        self.longitude.setPlaceholderText(self.tr("longitude"))
        self.accuracy.setPlaceholderText(self.tr("accuracy (m), default 50"))
        position = QHBoxLayout()
        for editor in (self.latitude, self.longitude, self.accuracy):
            position.addWidget(editor)
        form = QFormLayout(group)
        form.addRow(self.tr("&User agent:"), self.user_agent)
        form.addRow(self.tr("&Languages:"), self.languages)
        form.addRow(self.tr("&Time zone:"), self.timezone)
        where_label = QLabel(self.tr("&Geolocation:"), group)
        where_label.setBuddy(self.latitude)  # a row of three fields: its shortcut goes to the first
        form.addRow(where_label, position)
        note = QLabel(self.tr("Applies to every tab, worker and request of this environment only. Open pages see "
                              "a new time zone or position after a reload."), group)
        note.setWordWrap(True)
        form.addRow(note)
        return group

    def _identity(self) -> dict[str, Any]:
        """The identity as the fields give it, checked (raises IdentityError)."""
        texts = {"latitude": self.latitude.text().strip(), "longitude": self.longitude.text().strip(),
                 "accuracy": self.accuracy.text().strip()}
        if not any(texts.values()):
            geolocation = None
        else:
            try:
                geolocation = clean_geolocation({key: value for key, value in texts.items() if value})
            except IdentityError as exc:
                raise IdentityError(self.tr("Geolocation: {problem}").format(problem=exc)) from None
        return {"userAgent": clean_user_agent(self.user_agent.text()),
                "languages": clean_languages(self.languages.text().replace(";", ",").split(",")),
                "timezone": clean_timezone(self.timezone.currentText()), "geolocation": geolocation}

    def _validate(self) -> None:
        problems = []
        if not self.name.text().strip():
            problems.append(self.tr("The name is empty."))
        for label, editor in (("Allowed domains", self.allowed), ("Blocked domains", self.blocked)):
            try:
                normalize_patterns(_lines(editor), label)
            except PatternError as exc:
                problems.append(str(exc))
        try:
            self._identity()
        except IdentityError as exc:
            problems.append(str(exc))
        self.problem.setText("\n".join(problems))
        self.problem.setVisible(bool(problems))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problems)

    def changes(self) -> dict[str, Any]:
        """The env_update parameters for what changed (besides `env`)."""
        changes: dict[str, Any] = {}
        if self.name.text().strip() != self.env.name:
            changes["name"] = self.name.text()
        if self.remark.toPlainText().strip() != self.env.remark:
            changes["remark"] = self.remark.toPlainText()
        allowed = normalize_patterns(_lines(self.allowed), "allowedDomains")
        blocked = normalize_patterns(_lines(self.blocked), "blockedDomains")
        if allowed != self.env.allowed_domains:
            changes["allowedDomains"] = allowed
        if blocked != self.env.blocked_domains:
            changes["blockedDomains"] = blocked
        identity = self._identity()
        current = self.env.geolocation.model_dump() if self.env.geolocation is not None else None
        for key, value, now in (("userAgent", identity["userAgent"], self.env.user_agent),
                                ("languages", identity["languages"], self.env.languages),
                                ("timezone", identity["timezone"], self.env.timezone),
                                ("geolocation", identity["geolocation"], current)):
            if value != now:
                changes[key] = value if value is not None else {}
        return changes


class EnvironmentsPanel(QWidget):
    open_requested = Signal(str)  # env id

    def __init__(self, store: EnvStore, ops: OpRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.ops = ops
        self.model = EnvTableModel(store, self)
        self.table = record_table(self, self.model, "environments")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.ResizeToContents)
        self.table.doubleClicked.connect(lambda index: self.open_selected())
        self.table.selectRow(0)

        row, self.buttons = button_row(self, "env", (
            ("new", self.tr("&New…"), self.create_environment, "plus"),
            ("open", self.tr("&Open"), self.open_selected, "app-window"),
            ("rename", self.tr("Re&name…"), self.rename_selected, "pencil"),
            ("remark", self.tr("Edit &Remark…"), self.edit_remark_selected, "square-pen"),
            ("settings", self.tr("&Settings…"), self.edit_settings_selected, "sliders-horizontal"),
            ("delete", self.tr("&Delete…"), self.delete_selected, "trash-2"),
        ))
        # Only the default environment so far: say what environments are for, and make one.
        self.empty = EmptyState(
            "env", "layers", self.tr("Only the default environment so far"),
            self.tr("Create an environment for each account or role: each keeps its own logins, cookies and "
                    "storage, side by side."),
            [("new", "plus", self.tr("Create an Environment…"), self.create_environment)], self, compact=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self.model.modelReset.connect(self._update_buttons)
        self.model.modelReset.connect(self._update_empty)
        self.model.rowsInserted.connect(self._update_empty)
        self.model.rowsRemoved.connect(self._update_empty)
        self.model.rowsRemoved.connect(self._update_buttons)
        self._select_after: str | None = None  # an environment made here: selected once the list shows it
        self._update_buttons()
        self._update_empty()
        ops.changes.follow(self, ("envs",), self._on_stores_changed)

    def _on_stores_changed(self, changed: Changed) -> None:
        """Environments changed, whoever changed them (here, over MCP, from the CLI, a visit): the list follows."""
        self.model.follow(changed.of("envs"))
        if self._select_after is not None and self.model.row_of(self._select_after) >= 0:
            self.select_env(self._select_after)
            self._select_after = None

    def _update_empty(self) -> None:
        self.empty.setVisible(all(env.is_default for env in self.store.list()))

    def selected_env(self) -> Environment | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.env_at(rows[0].row()) if rows else None

    def select_env(self, env_id: str) -> None:
        row = self.model.row_of(env_id)
        if row < 0 and self.store.exists(env_id):  # made a moment ago: the list has not followed yet
            self.model.follow({env_id})
            row = self.model.row_of(env_id)
        if row >= 0:
            self.table.selectRow(row)

    def _update_buttons(self) -> None:
        env = self.selected_env()
        for key in ("open", "rename", "remark", "settings"):
            self.buttons[key].setEnabled(env is not None)
        self.buttons["delete"].setEnabled(env is not None and not env.is_default)
        self.buttons["delete"].setToolTip(self.tr("The default environment cannot be deleted") if env and env.is_default else "")

    # -- actions ---------------------------------------------------------------------------------------
    def create_environment(self) -> None:
        dialog = NewEnvironmentDialog(self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.ops.run(env_ops.env_create, {"name": dialog.name.text(), "remark": dialog.remark.toPlainText()}, self,
                     on_ok=lambda answer: self._select_made(answer.result.environment.id),
                     title=self.tr("New Environment"))

    def _select_made(self, env_id: str) -> None:
        if self.model.row_of(env_id) >= 0:
            self.select_env(env_id)
        else:
            self._select_after = env_id  # the list shows it in a moment

    def open_selected(self) -> None:
        env = self.selected_env()
        if env is not None:
            self.open_requested.emit(env.id)

    def rename_selected(self) -> None:
        env = self.selected_env()
        if env is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename Environment"), self.tr("New name:"),
                                        QLineEdit.EchoMode.Normal, env.name)
        if ok and name != env.name:
            self.ops.run(env_ops.env_update, {"env": env.id, "name": name}, self, title=self.tr("Rename Environment"))

    def edit_remark_selected(self) -> None:
        env = self.selected_env()
        if env is None:
            return
        remark, ok = QInputDialog.getMultiLineText(self, self.tr("Edit Remark"),
                                                  self.tr("Remark for {name}:").format(name=env.name), env.remark)
        if ok and remark != env.remark:
            self.ops.run(env_ops.env_update, {"env": env.id, "remark": remark}, self, title=self.tr("Edit Remark"))

    def edit_settings_selected(self) -> None:
        """Name, remark, allowed and blocked domains of the selected environment, in one dialog."""
        env = self.selected_env()
        if env is None:
            return
        dialog = EnvSettingsDialog(env, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        changes = dialog.changes()
        if changes:
            self.ops.run(env_ops.env_update, {"env": env.id, **changes}, self, title=self.tr("Environment Settings"))

    def delete_selected(self) -> None:
        env = self.selected_env()
        if env is None or env.is_default:
            return
        answer = QMessageBox.question(
            self,
            self.tr("Delete Environment"),
            self.tr("Delete the environment “{name}”?\n\nIts window is closed and its cookies, logins and stored "
                    "site data are removed. This cannot be undone.").format(name=env.name),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.ops.run(env_ops.env_delete, {"env": env.id}, self, title=self.tr("Delete Environment"))
