"""The schedule form (New Schedule…, Edit…, "Schedule…" on a workflow): what runs, where, when, and what
happens to a missed time.

The timing is chosen as a person says it (every N minutes, every day at, on weekdays at, once at, or a cron
expression) and checked as it is typed with the same code the operations use (workflows/schedule_timing.py):
the line under it says "every weekday at 09:00 — next Thursday 09:00", or why the timing cannot be scheduled,
and OK stays off until it can. `params()` gives the fields of `schedule_create` / `schedule_update`.

`open_schedule_dialog` is the one way to it, whoever asks (the Schedules panel's New and Edit, "Schedule…" in
the Workflows panel and in the workflow editor): it reads the saved workflows and the environments, shows the
dialog over the asking window, and creates or updates the schedule through the operations.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QDateTime, QLocale, Qt, QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QTimeEdit,
    QWidget,
)

from app.ops import env_ops, schedule_ops, workflow_ops
from app.ops.results import ScheduleSaveResult, ScheduleView, WorkflowListResult
from app.ui.op_runner import OpRunner
from workflows.envelope import Envelope
from app.ui.theme import icon
from workflows.schedule_timing import Timing, TimingError, Words, describe, describe_next, timing_from_options

KINDS = ("every", "daily", "weekdays", "once", "cron")


def translated_words(owner: QWidget) -> Words:
    """The templates of the timing words, in the UI's language."""
    locale = QLocale()
    return Words(
        every_second=owner.tr("every second"), every_seconds=owner.tr("every {n} seconds"),
        every_minute=owner.tr("every minute"), every_minutes=owner.tr("every {n} minutes"),
        every_hour=owner.tr("every hour"), every_hours=owner.tr("every {n} hours"),
        every_day=owner.tr("every day"), every_days=owner.tr("every {n} days"),
        daily=owner.tr("every day at {time}"), weekdays=owner.tr("every weekday at {time}"),
        once=owner.tr("once, {when}"), cron=owner.tr("cron {expr}"), today=owner.tr("today {time}"),
        tomorrow=owner.tr("tomorrow {time}"), this_week=owner.tr("{day} {time}"), later=owner.tr("{date} {time}"),
        day_names=tuple(locale.dayName(day) for day in range(1, 8)),
        date_format=lambda day: locale.toString(day, QLocale.FormatType.ShortFormat))


def timing_words(owner: QWidget, timing: Timing, upcoming: datetime | None) -> str:
    """"every weekday at 09:00 — next Thursday 09:00" in the UI's language."""
    words = translated_words(owner)
    when = describe(timing, words)
    if upcoming is None:
        return owner.tr("{when} — no next time").format(when=when)
    return owner.tr("{when} — next {next}").format(when=when, next=describe_next(upcoming, words))


class ScheduleDialog(QDialog):
    def __init__(self, workflows: list[tuple[str, str]], envs: list[tuple[str, str]], parent: QWidget | None = None,
                 *, schedule: ScheduleView | None = None, workflow_id: str | None = None,
                 broker: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("schedule-dialog")
        self.setWindowTitle(self.tr("Edit Schedule") if schedule else self.tr("New Schedule"))
        self.setMinimumWidth(520)
        self.schedule = schedule
        self.name = QLineEdit(self)
        self.name.setObjectName("schedule-name")
        self.workflow = QComboBox(self)
        self.workflow.setObjectName("schedule-workflow")
        for name, workflow in workflows:  # (name, id)
            self.workflow.addItem(name, workflow)
        self.env = QComboBox(self)
        self.env.setObjectName("schedule-env")
        for name, env_id in envs:  # (name, id)
            self.env.addItem(name, env_id)
        self.kind = QComboBox(self)
        self.kind.setObjectName("schedule-kind")
        for key, text in zip(KINDS, (self.tr("Every N minutes"), self.tr("Every day at"), self.tr("On weekdays at"),
                                     self.tr("Once, at"), self.tr("Cron expression"))):
            self.kind.addItem(text, key)
        self.minutes = QSpinBox(self)
        self.minutes.setObjectName("schedule-minutes")
        self.minutes.setRange(1, 24 * 60)
        self.minutes.setValue(60)
        self.minutes.setSuffix(self.tr(" min"))
        self.clock = QTimeEdit(QTime(9, 0), self)
        self.clock.setObjectName("schedule-time")
        self.clock.setDisplayFormat("HH:mm")
        self.at = QDateTimeEdit(QDateTime.currentDateTime().addSecs(3600), self)
        self.at.setObjectName("schedule-at")
        self.at.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.at.setCalendarPopup(True)
        self.cron = QLineEdit(self)
        self.cron.setObjectName("schedule-cron")
        self.cron.setPlaceholderText("0 9 * * 1-5")
        self.timing_stack = QStackedWidget(self)
        for widget in (self.minutes, self.clock, self.clock_placeholder(), self.at, self.cron):
            self.timing_stack.addWidget(widget)
        self.preview = QLabel(self)
        self.preview.setObjectName("schedule-preview")
        self.preview.setWordWrap(True)
        self.inputs = QPlainTextEdit(self)
        self.inputs.setObjectName("schedule-inputs")
        self.inputs.setPlaceholderText(self.tr("One input a line: name=value"))
        self.inputs.setMaximumHeight(80)
        self.rows = QLineEdit(self)
        self.rows.setObjectName("schedule-rows")
        self.rows.setPlaceholderText(self.tr("None: one run with the inputs above"))
        browse = QPushButton(icon("folder-open"), self.tr("Browse…"), self)
        browse.clicked.connect(self._browse)
        rows_row = QHBoxLayout()
        rows_row.addWidget(self.rows, 1)
        rows_row.addWidget(browse)
        self.on_workers = QCheckBox(self.tr("Run the rows on workers through:"), self)
        self.on_workers.setObjectName("schedule-on-workers")
        self.broker = QLineEdit(broker, self)
        self.broker.setObjectName("schedule-broker")
        self.broker.setPlaceholderText("redis://host:6379/0")
        workers_row = QHBoxLayout()
        workers_row.addWidget(self.on_workers)
        workers_row.addWidget(self.broker, 1)
        self.missed = QComboBox(self)
        self.missed.setObjectName("schedule-missed")
        self.missed.addItem(self.tr("Run once when BrowserPilot is back"), "run")
        self.missed.addItem(self.tr("Skip it"), "skip")
        self.grace = QSpinBox(self)
        self.grace.setObjectName("schedule-grace")
        self.grace.setRange(0, 168)
        self.grace.setValue(12)
        self.grace.setSuffix(self.tr(" h"))
        missed_row = QHBoxLayout()
        missed_row.addWidget(self.missed, 1)
        missed_row.addWidget(QLabel(self.tr("if at most"), self))
        missed_row.addWidget(self.grace)
        missed_row.addWidget(QLabel(self.tr("old"), self))
        self.enabled = QCheckBox(self.tr("On"), self)
        self.enabled.setObjectName("schedule-enabled")
        self.enabled.setChecked(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.tr("Workflow:"), self.workflow)
        form.addRow(self.tr("Name:"), self.name)
        form.addRow(self.tr("Environment:"), self.env)
        when_row = QHBoxLayout()
        when_row.addWidget(self.kind)
        when_row.addWidget(self.timing_stack, 1)
        form.addRow(self.tr("When:"), when_row)
        form.addRow("", self.preview)
        form.addRow(self.tr("Inputs:"), self.inputs)
        form.addRow(self.tr("Rows file:"), rows_row)
        form.addRow("", workers_row)
        form.addRow(self.tr("A missed time:"), missed_row)
        form.addRow("", self.enabled)
        form.addRow(self.buttons)
        if schedule is not None:
            self._fill(schedule)
        elif workflow_id is not None:
            self.workflow.setCurrentIndex(max(0, self.workflow.findData(workflow_id)))
        for signal in (self.kind.currentIndexChanged, self.minutes.valueChanged, self.clock.timeChanged,
                       self.at.dateTimeChanged, self.cron.textChanged):
            signal.connect(lambda *_args: self._check())
        self.on_workers.toggled.connect(lambda *_args: self._check())
        self.rows.textChanged.connect(lambda *_args: self._check())
        self._check()

    def clock_placeholder(self) -> QWidget:
        """The weekdays page shows the same time field as the daily one (moved there when chosen)."""
        return QWidget(self)

    def _fill(self, schedule: ScheduleView) -> None:
        self.workflow.setCurrentIndex(max(0, self.workflow.findData(schedule.workflow_id)))
        self.name.setText(schedule.name)
        self.env.setCurrentIndex(max(0, self.env.findData(schedule.env)))
        timing = Timing.model_validate(schedule.timing)
        self.kind.setCurrentIndex(KINDS.index(timing.kind))
        if timing.every_seconds:
            self.minutes.setValue(max(1, round(timing.every_seconds / 60)))
        if timing.time:
            hour, minute = timing.time.split(":")
            self.clock.setTime(QTime(int(hour), int(minute)))
        if timing.at:
            self.at.setDateTime(QDateTime.fromString(timing.at, "yyyy-MM-ddTHH:mm:ss"))
        self.cron.setText(timing.cron or "")
        self.inputs.setPlainText("\n".join(f"{key}={value}" for key, value in schedule.inputs.items()))
        self.rows.setText(schedule.rows_file or "")
        self.on_workers.setChecked(bool(schedule.broker))
        if schedule.broker:
            self.broker.setText(schedule.broker)
        self.missed.setCurrentIndex(max(0, self.missed.findData(schedule.missed)))
        self.grace.setValue(round(schedule.grace_minutes / 60))
        self.enabled.setChecked(schedule.enabled)

    def _browse(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, self.tr("Rows File"), self.rows.text(),
                                                    self.tr("Rows (*.csv *.json)"))
        if path:
            self.rows.setText(path)

    # -- the timing ----------------------------------------------------------------------------------------
    def timing_fields(self) -> dict[str, Any]:
        kind = self.kind.currentData()
        if kind == "every":
            return {"every": f"{self.minutes.value()}m"}
        if kind in ("daily", "weekdays"):
            return {"daily": self.clock.time().toString("HH:mm"), "weekdays": kind == "weekdays"}
        if kind == "once":
            return {"at": self.at.dateTime().toString("yyyy-MM-ddTHH:mm")}
        return {"cron": self.cron.text().strip()}

    def timing(self) -> Timing:
        """The timing the form gives (TimingError with the reason when it cannot be scheduled)."""
        timing = timing_from_options(**self.timing_fields())
        moment = datetime.now(timezone.utc)
        if timing.kind == "once" and timing.next_time(moment, moment) is None:
            raise TimingError(self.tr("that time has passed"))
        return timing

    def _check(self) -> None:
        kind = self.kind.currentData()
        self.timing_stack.setCurrentIndex(KINDS.index(kind))
        if kind == "weekdays":  # one time field serves both daily forms
            self.timing_stack.setCurrentWidget(self.clock)
        self.on_workers.setEnabled(bool(self.rows.text().strip()))
        self.broker.setEnabled(self.on_workers.isEnabled() and self.on_workers.isChecked())
        ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            timing = self.timing()
        except (TimingError, ValueError) as exc:
            self.preview.setText(self.tr("Cannot be scheduled: {reason}").format(reason=str(exc)))
            self.preview.setProperty("role", "error")
            ok_button.setEnabled(False)
            return
        moment = datetime.now(timezone.utc)
        self.preview.setText(timing_words(self, timing, timing.next_time(moment, moment)))
        self.preview.setProperty("role", "hint")
        ok_button.setEnabled(self.workflow.count() > 0)

    def params(self) -> dict[str, Any]:
        """The fields of schedule_create / schedule_update."""
        inputs: dict[str, str] = {}
        for line in self.inputs.toPlainText().splitlines():
            if "=" in line:
                key, _, value = line.partition("=")
                if key.strip():
                    inputs[key.strip()] = value
        rows = self.rows.text().strip()
        fields: dict[str, Any] = {
            **self.timing_fields(), "workflow": self.workflow.currentData(), "env": self.env.currentData(),
            "inputs": inputs, "rowsFile": rows, "missed": self.missed.currentData(),
            "graceMinutes": self.grace.value() * 60, "enabled": self.enabled.isChecked(),
            "broker": self.broker.text().strip() if rows and self.on_workers.isChecked() else ""}
        if self.name.text().strip():
            fields["name"] = self.name.text().strip()
        if self.schedule is None:
            if not rows:
                del fields["rowsFile"]
            if not fields["broker"]:
                del fields["broker"]
        return fields


def follow_choices(ops: OpRunner, dialog: ScheduleDialog) -> None:
    """The dialog's workflows and environments follow the stores while it is open (the choices stay)."""
    from app.ui.follow import refill

    def listed(answer: Envelope[WorkflowListResult]) -> None:
        refill(dialog.workflow, workflow_choices(answer.result))

    def changed(_changed: Any) -> None:
        ops.run(workflow_ops.workflow_list, {}, dialog, on_ok=listed)
        refill(dialog.env, [(env.name, env.id) for env in ops.ctx.envs.list()])

    ops.changes.follow(dialog, ("workflows", "envs"), changed)


def open_schedule_dialog(ops: OpRunner, parent: QWidget, *, workflow_id: str | None = None,
                         schedule: ScheduleView | None = None,
                         on_saved: Callable[[ScheduleView], None] | None = None) -> None:
    """New Schedule (for `workflow_id`, chosen in the form) or Edit (`schedule`, a `schedule_list` view): the
    dialog over `parent`, then `schedule_create` / `schedule_update`; `on_saved` gets the schedule saved."""

    def saved(answer: Envelope[ScheduleSaveResult]) -> None:
        if on_saved is not None:
            on_saved(answer.result.schedule)

    def show(workflows: list[tuple[str, str]], envs: list[tuple[str, str]]) -> None:
        if not workflows:
            QMessageBox.information(parent, QCoreApplication.translate("SchedulesPanel", "New Schedule"),
                                    QCoreApplication.translate(
                                        "SchedulesPanel", "Save a workflow first: a schedule runs a saved workflow."))
            return
        settings = ops.ctx.settings
        dialog = ScheduleDialog(workflows, envs, parent, schedule=schedule, workflow_id=workflow_id,
                                broker=settings.current.workers_broker if settings is not None else "")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        follow_choices(ops, dialog)

        def accepted() -> None:
            params = dialog.params()
            if schedule is None:
                ops.run(schedule_ops.schedule_create, params, parent, on_ok=saved)
            else:
                ops.run(schedule_ops.schedule_update, {**params, "schedule": schedule.id}, parent, on_ok=saved)

        dialog.accepted.connect(accepted)
        dialog.open()

    def got_workflows(listed: Envelope[WorkflowListResult]) -> None:
        ops.run(env_ops.env_list, {}, parent, on_ok=lambda envs: show(
            workflow_choices(listed.result), [(env.name, env.id) for env in envs.result.environments]))

    ops.run(workflow_ops.workflow_list, {}, parent, on_ok=got_workflows)


def workflow_choices(listed: WorkflowListResult) -> list[tuple[str, str]]:
    """The saved workflows as (name, id) choices."""
    return [(wf.name, wf.id) for wf in listed.workflows]
