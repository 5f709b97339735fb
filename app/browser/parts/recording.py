"""A tab's recording part: a person's actions in the tab recorded as a workflow (app/browser/recorder.py holds the
recorder; workflows/recording.py the recording itself). One recording per tab at a time; it goes with the
tab."""

from __future__ import annotations

from app.browser.parts.core import TabCore
from app.browser.recorder import RecorderError, TabRecorder
from workflows.ports import PageError
from workflows.recording import Recording
from workflows.results import RecordStatusResult


class TabRecording:
    def __init__(self, core: TabCore) -> None:
        self._core = core

    @property
    def recorder(self) -> TabRecorder | None:
        return TabRecorder.of(self._core.view)

    @property
    def active(self) -> bool:
        return self.recorder is not None

    def start(self) -> RecordStatusResult:
        try:
            recorder = TabRecorder(self._core.view)
        except RecorderError as exc:
            raise PageError(str(exc), code="already_recording") from None
        return _status(recorder)

    def status(self) -> RecordStatusResult:
        recorder = self.recorder
        if recorder is None:
            return RecordStatusResult(recording=False, steps=[])
        return _status(recorder)

    def _running(self) -> TabRecorder:
        recorder = self.recorder
        if recorder is None:
            raise PageError(f"tab {self._core.tab_id} is not being recorded; start with record_start",
                            code="not_recording")
        return recorder

    def recording(self) -> Recording:
        return self._running().recording

    def edited(self) -> None:
        self._running().changed.emit()

    def stop(self) -> Recording:
        recorder = self._running()
        recorder.stop()
        return recorder.recording


def _status(recorder: TabRecorder) -> RecordStatusResult:
    """What record_status answers: the steps so far, in words and as nodes, and the recording's state (what
    could not be recorded is the recording's `notes`, which the operation says as the answer's notes)."""
    recording = recorder.recording
    status = RecordStatusResult(recording=True, steps=[step.as_dict() for step in recording.steps],
                                events=recorder.events)
    if recorder.paused:
        status.paused = recorder.paused
    if recording.picking:
        status.picking = recording.picking
    return status
