"""The dialogs asked before a run from the Workflows panel.

`RunInputsDialog`: a form generated from the workflow's start variables, plus the environment to run in. Each
variable gets the editor of its type: a line edit (text-input, string), a plain text edit (paragraph), a spin
box (number), a combo box (select), a group of radio buttons (radio), a check box (checkbox), a time edit
(time) and a masked line edit (secret). Run stays disabled until every required field has a value; optional
numbers and times have a "set" box, so leaving them out is possible.

`ask_replay_inputs`: Replay now (the recorder's and the agent's): that form for a workflow just made, in the
environment where its steps were made, then the replay.

`BatchDialog`: a CSV (or JSON) file of rows, one run each, checked against the start variables as soon as it is
chosen; the environment(s) to spread the runs over; how many tabs at once (1 to the batch setting).
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from PySide6.QtCore import QCoreApplication, Qt, QTime
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from app.ops.registry import OpError
from app.ops.run_ops import read_rows  # the operation's own reader, so the dialog agrees with it
from plumbing import loggers
from envs.store import EnvError, EnvStore
from workflows.document import DocumentError, validate_document
from workflows.nodes import StartVariable

log = logging.getLogger(loggers.UI)

EnvChoice = tuple[str, str]  # (environment id, name)
PROBLEM_STYLE = "color: #b3261e"
NUMBER_LIMIT = 1e12


def variable_label(variable: StartVariable) -> str:
    return variable.label or variable.variable


def name_list(names: Sequence[str]) -> str:
    """Names as the UI's language lists them: "a, b" in English, "a、b" in Chinese."""
    return QCoreApplication.translate("RunInputsDialog", ", ", "between the names of a list").join(names)


class NumberSpin(QDoubleSpinBox):
    """A spin box for any number: up to six decimals, shown without trailing zeros."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDecimals(6)
        self.setRange(-NUMBER_LIMIT, NUMBER_LIMIT)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)

    def textFromValue(self, value: float) -> str:
        text = super().textFromValue(value)
        point = self.locale().decimalPoint()
        if point in text:
            text = text.rstrip("0").rstrip(point)
        return text


class InputField:
    """One start variable's editor: `widget` goes into the form, `value()` into workflow_run (None: none given)."""

    def __init__(self, variable: StartVariable, parent: QWidget, on_change: Callable[[], None]) -> None:
        self.variable = variable
        self.kind = variable.kind
        self._value: Callable[[], Any] = lambda: None
        self.widget = self._build(parent, on_change)
        self.widget.setObjectName(f"input-{variable.variable}")
        if not self.widget.toolTip():
            self.widget.setToolTip(QCoreApplication.translate("RunInputsDialog", "Input {name} ({kind})").format(
                name=variable.variable, kind=self.kind))

    @property
    def name(self) -> str:
        return self.variable.variable

    def value(self) -> Any:
        return self._value()

    def missing(self) -> bool:
        """A required field without a value."""
        value = self.value()
        return self.variable.required and (value is None or (isinstance(value, str) and not value.strip()))

    # -- editors -----------------------------------------------------------------------------------------
    def _build(self, parent: QWidget, on_change: Callable[[], None]) -> QWidget:
        kind = self.kind
        options = self.variable.option_texts
        if kind == "paragraph":
            editor = QPlainTextEdit(parent)
            editor.setFixedHeight(80)
            editor.textChanged.connect(on_change)
            self.editor: QWidget = editor
            self._value = lambda: editor.toPlainText() or None
            return editor
        if kind == "number":
            spin = NumberSpin(parent)
            spin.valueChanged.connect(lambda _value: on_change())
            self.editor = spin
            number = lambda: int(spin.value()) if float(spin.value()).is_integer() else spin.value()  # noqa: E731
            return self._optional(spin, number, parent, on_change)
        if kind == "time":
            edit = QTimeEdit(QTime(9, 0), parent)
            edit.setDisplayFormat("HH:mm")
            edit.timeChanged.connect(lambda _time: on_change())
            self.editor = edit
            return self._optional(edit, lambda: edit.time().toString("HH:mm"), parent, on_change)
        if kind == "checkbox":
            box = QCheckBox(parent)
            box.toggled.connect(lambda _on: on_change())
            self.editor = box
            self._value = box.isChecked
            return box
        if kind == "select" and options:
            combo = QComboBox(parent)
            if not self.variable.required:
                combo.addItem("", None)
            for option in options:
                combo.addItem(option, option)
            combo.setPlaceholderText(QCoreApplication.translate("RunInputsDialog", "Choose…"))
            combo.setCurrentIndex(-1 if self.variable.required else 0)
            combo.currentIndexChanged.connect(lambda _index: on_change())
            self.editor = combo
            self._value = lambda: combo.currentData() if combo.currentIndex() >= 0 else None
            return combo
        if kind == "radio" and options:
            group_widget = QWidget(parent)
            layout = QHBoxLayout(group_widget) if len(options) <= 4 else QVBoxLayout(group_widget)
            layout.setContentsMargins(0, 0, 0, 0)
            group = QButtonGroup(group_widget)
            group.setExclusive(True)
            for index, option in enumerate(options):
                button = QRadioButton(option.replace("&", "&&"), group_widget)
                button.setObjectName(f"input-{self.variable.variable}-{index}")
                group.addButton(button, index)
                layout.addWidget(button)
            if isinstance(layout, QHBoxLayout):
                layout.addStretch(1)
            group.idToggled.connect(lambda _id, _on: on_change())
            self.group = group
            self.editor = group_widget
            self._value = lambda: options[group.checkedId()] if group.checkedId() >= 0 else None
            return group_widget
        line = QLineEdit(parent)
        if kind == "secret":
            line.setEchoMode(QLineEdit.EchoMode.Password)
            line.setPlaceholderText(QCoreApplication.translate("RunInputsDialog", "hidden"))
            line.setToolTip(QCoreApplication.translate(
                "RunInputsDialog", "Secret: masked here, and stored as <secret:{name}> in the run record").format(
                name=self.variable.variable))
        elif self.variable.default not in (None, ""):
            line.setText(str(self.variable.default))  # e.g. the value typed while recording
        line.textChanged.connect(lambda _text: on_change())
        self.editor = line
        self._value = lambda: line.text() or None
        return line

    def _optional(self, editor: QWidget, read: Callable[[], Any], parent: QWidget,
                  on_change: Callable[[], None]) -> QWidget:
        """Required: the editor alone. Optional: a "set" box before it; unchecked means no value."""
        if self.variable.required:
            self._value = read
            return editor
        row = QWidget(parent)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        use = QCheckBox(QCoreApplication.translate("RunInputsDialog", "Set"), row)
        use.setObjectName(f"input-{self.variable.variable}-set")
        use.setToolTip(QCoreApplication.translate("RunInputsDialog",
                                                  "Leave unchecked to run without this optional input"))
        editor.setParent(row)
        editor.setEnabled(False)
        use.toggled.connect(editor.setEnabled)
        use.toggled.connect(lambda _on: on_change())
        layout.addWidget(use)
        layout.addWidget(editor, 1)
        self.use = use
        self._value = lambda: read() if use.isChecked() else None
        return row

    def set_value(self, value: Any) -> None:
        """Fill the field as a person would (used by tests and to repeat a run)."""
        editor = self.editor
        if hasattr(self, "use"):
            self.use.setChecked(value is not None)
        if isinstance(editor, QPlainTextEdit):
            editor.setPlainText(str(value))
        elif isinstance(editor, QDoubleSpinBox):
            editor.setValue(float(value))
        elif isinstance(editor, QTimeEdit):
            editor.setTime(QTime.fromString(str(value), "HH:mm"))
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QComboBox):
            editor.setCurrentIndex(editor.findData(str(value)))
        elif hasattr(self, "group"):
            options = self.variable.option_texts
            button = self.group.button(options.index(str(value)))
            button.setChecked(True)
        elif isinstance(editor, QLineEdit):
            editor.setText(str(value))


def _env_combo(parent: QWidget, environments: Sequence[EnvChoice], chosen: str | None) -> QComboBox:
    combo = QComboBox(parent)
    for env_id, name in environments:
        combo.addItem(name, env_id)
        combo.setItemData(combo.count() - 1, env_id, Qt.ItemDataRole.ToolTipRole)
    index = combo.findData(chosen) if chosen else -1
    combo.setCurrentIndex(max(index, 0))
    return combo


def fill_in_last_inputs(fields: Mapping[str, InputField], inputs: Mapping[str, Any]) -> None:
    """A form starts from a last run's inputs: every field but the secrets (never kept; left empty) and values
    the form no longer offers."""
    for name, value in inputs.items():
        field = fields.get(name)
        if field is None or field.kind == "secret" or value is None \
                or (isinstance(value, str) and value.startswith("<secret:")):
            continue
        try:
            field.set_value(value)
        except (ValueError, TypeError) as exc:  # an option since removed, a value of another type
            log.info("last input %s not filled in: %s", name, exc)


class RunInputsDialog(QDialog):
    """The inputs of one run, one field per start variable, and the environment to run it in."""

    def __init__(self, workflow_name: str, variables: Sequence[StartVariable], environments: Sequence[EnvChoice],
                 env_id: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("run-inputs")
        self.setWindowTitle(self.tr("Run “{name}”").format(name=workflow_name))
        self.fields: dict[str, InputField] = {}
        form = QFormLayout()
        for variable in variables:
            field = InputField(variable, self, self._validate)
            self.fields[variable.variable] = field
            label_text = self.tr("{label} *:") if variable.required else self.tr("{label}:")
            label = QLabel(label_text.format(label=variable_label(variable)), self)
            label.setToolTip(variable.variable)
            label.setBuddy(field.editor)
            form.addRow(label, field.widget)
        self.env = _env_combo(self, environments, env_id)
        self.env.setObjectName("run-env")
        form.addRow(self.tr("&Environment:"), self.env)
        layout = QVBoxLayout(self)
        if not variables:
            layout.addWidget(QLabel(self.tr("This workflow asks for no inputs."), self))
        layout.addLayout(form)
        self.problem = QLabel(self)
        self.problem.setObjectName("run-inputs-problem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(PROBLEM_STYLE)
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("&Run"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.resize(max(440, self.sizeHint().width()), self.sizeHint().height())
        self._validate()

    def set_environments(self, environments: Sequence[EnvChoice]) -> None:
        """The environments as they are now (one made or deleted elsewhere meanwhile), the choice kept."""
        from app.ui.follow import refill

        refill(self.env, [(name, env_id) for env_id, name in environments])
        self._validate()

    def _validate(self) -> None:
        missing = [variable_label(field.variable) for field in self.fields.values() if field.missing()]
        problems = [self.tr("Required: {names}.").format(names=name_list(missing))] if missing else []
        if self.env.count() == 0:
            problems.append(self.tr("There is no environment to run in."))
        self.problem.setText("\n".join(problems))
        self.problem.setVisible(bool(problems))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problems)

    def remember(self, inputs: Mapping[str, Any]) -> None:
        """Start from a last run's inputs (`fill_in_last_inputs`)."""
        fill_in_last_inputs(self.fields, inputs)
        self._validate()

    def accept(self) -> None:
        if self.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled():
            super().accept()

    def inputs(self) -> dict[str, Any]:
        """The workflow_run inputs: every field that has a value."""
        return {name: value for name, field in self.fields.items() if (value := field.value()) is not None}

    def env_id(self) -> str:
        return str(self.env.currentData())


def ask_replay_inputs(name: str, document: dict[str, Any], env_id: str, envs: EnvStore, parent: QWidget,
                      run: Callable[[dict[str, Any]], None], object_name: str,
                      values: Mapping[str, Any] | None = None) -> RunInputsDialog | None:
    """Replay now: the start inputs asked for with the run form (secrets masked, the defaults filled in, then
    `values` the person gave already), in `env_id` only (a replay runs where its steps were made), then
    `run(inputs)`. With no start variables it runs at once. Returns the dialog while it is open."""
    try:
        variables = validate_document(document).start_variables()
    except DocumentError as exc:  # a workflow we just made always validates; say so plainly if it ever does not
        log.warning("replay of %r: the document is not valid: %s", name, exc)
        return None
    if not variables:
        run({})
        return None
    try:
        env_name = envs.get(env_id).name
    except EnvError:
        env_name = env_id
    dialog = RunInputsDialog(name, variables, [(env_id, env_name)], env_id=env_id, parent=parent)
    dialog.setObjectName(object_name)
    dialog.env.setEnabled(False)
    for variable, value in (values or {}).items():
        if variable in dialog.fields:
            dialog.fields[variable].set_value(value)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.accepted.connect(lambda: run(dialog.inputs()))
    dialog.open()
    return dialog


def read_row_file(path: str) -> list[dict[str, Any]]:
    """The rows of a batch file, as workflow_batch reads them (CSV with a header row, or a JSON list)."""
    rows = read_rows(path)
    return [{str(key): value for key, value in row.items() if key not in (None, "")} for row in rows]


class BatchDialog(QDialog):
    """A file of rows (one run each), the environment(s) and how many tabs at once."""

    def __init__(self, workflow_name: str, variables: Sequence[StartVariable], environments: Sequence[EnvChoice],
                 max_concurrency: int, env_id: str | None = None, parent: QWidget | None = None,
                 broker: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("run-batch")
        self.setWindowTitle(self.tr("Batch Run “{name}”").format(name=workflow_name))
        self.variables = list(variables)
        self.rows: list[dict[str, Any]] = []
        self._rows_problem = self.tr("Choose a CSV file with one row per run (the header row names the inputs).")
        self.file = QLineEdit(self)
        self.file.setObjectName("batch-file")
        self.file.setPlaceholderText("rows.csv")
        self.file.editingFinished.connect(lambda: self.load_rows(self.file.text()))
        browse = QPushButton(self.tr("&Browse…"), self)
        browse.setObjectName("batch-browse")
        browse.clicked.connect(self._browse)
        file_row = QHBoxLayout()
        file_row.addWidget(self.file, 1)
        file_row.addWidget(browse)
        self.summary = QLabel(self)
        self.summary.setObjectName("batch-summary")
        self.summary.setWordWrap(True)
        self.envs = QListWidget(self)
        self.envs.setObjectName("batch-envs")
        self.envs.setMaximumHeight(110)
        for env in environments:
            item = QListWidgetItem(env[1], self.envs)
            item.setData(Qt.ItemDataRole.UserRole, env[0])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if env[0] == (env_id or environments[0][0])
                               else Qt.CheckState.Unchecked)
        self.envs.itemChanged.connect(lambda _item: self._validate())
        self.concurrency = QSpinBox(self)
        self.concurrency.setObjectName("batch-concurrency")
        self.concurrency.setRange(1, max(1, max_concurrency))
        self.concurrency.setValue(max(1, max_concurrency))
        self.concurrency.setToolTip(self.tr("At most %n tab(s) at once (the batch setting)", "", max_concurrency))
        form = QFormLayout()
        form.addRow(self.tr("Rows &file:"), file_row)
        form.labelForField(file_row).setBuddy(self.file)  # a row of widgets gets no buddy by itself: Alt+F
        form.addRow("", self.summary)
        form.addRow(self.tr("&Environments:"), self.envs)
        form.addRow(self.tr("&Tabs at once:"), self.concurrency)
        self._add_workers_row(form, broker)
        hint = QLabel(self.tr("Each row is one run; a failed row does not stop the others. With several "
                              "environments (accounts), the runs are spread over them in turn."), self)
        hint.setWordWrap(True)
        self.problem = QLabel(self)
        self.problem.setObjectName("batch-problem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(PROBLEM_STYLE)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("&Start Batch"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(520, self.sizeHint().height())
        self._validate()

    def _browse(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, self.tr("Rows for the Batch"), str(Path.home()),
                                                    self.tr("Rows (*.csv *.json);;All files (*)"))
        if path:
            self.load_rows(path)

    def load_rows(self, path: str) -> None:
        """Read the rows file (small, local, at most 10 MB) and check its columns against the inputs."""
        self.file.setText(path)
        self.rows = []
        if not path.strip():
            self._rows_problem = self.tr("Choose a CSV file with one row per run.")
            self._validate()
            return
        try:
            rows = read_row_file(path)
        except (OSError, ValueError, csv.Error, DocumentError, OpError) as exc:
            self._rows_problem = self.tr("Cannot read the rows: {error}").format(error=exc)
        else:
            self._rows_problem = self._check_columns(rows)
            if not self._rows_problem:
                self.rows = rows
        self._validate()

    def _check_columns(self, rows: list[dict[str, Any]]) -> str:
        if not rows:
            return self.tr("The file has no rows.")
        columns = sorted({key for row in rows for key in row})
        names = [variable.variable for variable in self.variables]
        unknown = [column for column in columns if column not in names]
        if unknown and names:
            return self.tr("Column(s) {columns} are not inputs of this workflow (its inputs: {inputs}).").format(
                columns=name_list(unknown), inputs=name_list(names))
        missing = [v.variable for v in self.variables if v.required and v.variable not in columns]
        if missing:
            return self.tr("Missing column(s) for required inputs: {names}.").format(names=name_list(missing))
        self.summary.setText(self.tr("%n row(s); columns: {columns}", "", len(rows)).format(
            columns=name_list(columns) or "—"))
        return ""

    def _add_workers_row(self, form: QFormLayout, broker: str) -> None:
        """Run on workers (`browserpilot worker` machines) through a Redis broker instead of this app's tabs."""
        self.on_workers = QCheckBox(self.tr("Run on &workers through the broker:"), self)
        self.on_workers.setObjectName("batch-on-workers")
        self.broker = QLineEdit(broker, self)
        self.broker.setObjectName("batch-broker")
        self.broker.setPlaceholderText("redis://host:6379/0")
        self.broker.setToolTip(self.tr("The Redis broker of the workers, e.g. redis://host:6379/0 (rediss:// for TLS)"))
        self.broker.setMinimumWidth(self.broker.fontMetrics().horizontalAdvance("redis://host:6379/0") + 40)
        self.broker.setEnabled(False)
        self.on_workers.toggled.connect(lambda on: (self.broker.setEnabled(on), self.envs.setEnabled(not on),
                                                    self.concurrency.setEnabled(not on), self._validate()))
        self.broker.textChanged.connect(lambda _text: self._validate())
        row = QHBoxLayout()
        row.addWidget(self.on_workers)
        row.addWidget(self.broker, 1)
        form.addRow("", row)

    def workers_broker(self) -> str | None:
        """The broker URL when the rows go to workers, else None."""
        return self.broker.text().strip() if self.on_workers.isChecked() else None

    def env_ids(self) -> list[str]:
        return [str(self.envs.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.envs.count())
                if self.envs.item(i).checkState() == Qt.CheckState.Checked]

    def set_environments(self, environments: Sequence[EnvChoice]) -> None:
        """The environments as they are now (one made or deleted elsewhere meanwhile), the ticks kept."""
        ticked = set(self.env_ids())
        shown = [(str(self.envs.item(i).data(Qt.ItemDataRole.UserRole)), self.envs.item(i).text())
                 for i in range(self.envs.count())]
        if shown == [(env_id, name) for env_id, name in environments]:
            return
        self.envs.blockSignals(True)
        self.envs.clear()
        for env_id, name in environments:
            item = QListWidgetItem(name, self.envs)
            item.setData(Qt.ItemDataRole.UserRole, env_id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if env_id in ticked else Qt.CheckState.Unchecked)
        self.envs.blockSignals(False)
        self._validate()

    def _validate(self) -> None:
        problems = []
        if self._rows_problem:
            self.summary.setText("")
            problems.append(self._rows_problem)
        broker = self.workers_broker() if hasattr(self, "on_workers") else None
        if broker is None and not self.env_ids():
            problems.append(self.tr("Choose at least one environment."))
        if broker is not None and not broker.startswith(("redis://", "rediss://")):
            problems.append(self.tr("The broker is a redis:// or rediss:// URL (the workers' --broker)."))
        self.problem.setText("\n".join(problems))
        self.problem.setVisible(bool(problems))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problems)

    def remember(self, inputs: Mapping[str, Any]) -> None:
        """Start from a last run's inputs (`fill_in_last_inputs`)."""
        fill_in_last_inputs(self.fields, inputs)
        self._validate()

    def accept(self) -> None:
        if self.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled():
            super().accept()


__all__ = ["BatchDialog", "InputField", "NumberSpin", "RunInputsDialog", "read_row_file"]
