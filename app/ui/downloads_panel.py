"""The Downloads list of an environment window: every download of the environment's profile, newest first.

It follows the profile's `DownloadManager` (app/browser/downloads.py, which decides names and folders and
tracks each download): `download_started` adds a row, the request's progress and the manager's
`download_finished` update it. A row shows the file name, a progress bar, the size (received of total while
it runs) and the state, with Open, Show in folder (both through `open_url`, `QDesktopServices.openUrl` unless
a caller swaps it) and Cancel while it runs. A streamed video the app saves itself (app/browser/mediastream.py)
comes the same way, with a transfer object that answers like a download request; its row also says which
fragment, which of its streams, or that it is merging them.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QLocale, QObject, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWebEngineCore import QWebEngineDownloadRequest
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.browser.downloads import DownloadManager, DownloadRecord
from app.ui.theme import icon
from plumbing import loggers

log = logging.getLogger(loggers.UI)

ICON_SIZE = QSize(16, 16)
MAX_ROWS = 200  # the oldest finished downloads leave the list beyond this (their files stay)


def file_icon_name(name: str) -> str:
    """A Lucide icon for a file name's kind."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix in {"png", "jpg", "jpeg", "gif", "webp", "svg", "bmp"}:
        return "image"
    if suffix in {"csv", "xlsx", "xls", "tsv"}:
        return "table"
    if suffix in {"zip", "gz", "tgz", "xz", "7z", "rar", "tar"}:
        return "archive"
    if suffix in {"txt", "md", "json", "pdf", "html", "xml", "log", "doc", "docx"}:
        return "file-text"
    return "file"


class DownloadRow(QFrame):
    """One download: icon, name, progress, size and state, and what can be done with it."""

    def __init__(self, record: DownloadRecord, request: QWebEngineDownloadRequest | QObject,
                 panel: DownloadsPanel) -> None:
        super().__init__(panel)
        self.setObjectName("downloadRow")
        self.record = record
        self._request: Any = request  # a QWebEngineDownloadRequest, or a stream's transfer that answers like one
        self._panel = panel
        symbol = QLabel(self)
        symbol.setPixmap(icon(file_icon_name(record.path.name)).pixmap(QSize(24, 24)))
        symbol.setFixedSize(28, 28)
        self.name = QLabel(record.path.name, self)
        self.name.setObjectName("downloadName")
        self.name.setTextFormat(Qt.TextFormat.PlainText)
        self.name.setToolTip(str(record.path))
        self.name.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("downloadProgress")
        self.progress.setRange(0, 100)
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(6)
        self.meta = QLabel(self)
        self.meta.setObjectName("downloadMeta")
        self.meta.setTextFormat(Qt.TextFormat.PlainText)
        self.open_button = self._button("file-input", self.tr("Open"), self.open_file)
        self.open_button.setObjectName("downloadOpen")
        self.folder_button = self._button("folder-open", self.tr("Show in folder"), self.show_in_folder)
        self.folder_button.setObjectName("downloadShowInFolder")
        self.cancel_button = self._button("x", self.tr("Cancel"), self.cancel)
        self.cancel_button.setObjectName("downloadCancel")

        layout = QGridLayout(self)
        layout.setContentsMargins(10, 8, 8, 8)
        layout.setHorizontalSpacing(10)
        layout.setVerticalSpacing(3)
        layout.addWidget(symbol, 0, 0, 3, 1, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.name, 0, 1)
        layout.addWidget(self.progress, 1, 1)
        layout.addWidget(self.meta, 2, 1)
        buttons = QHBoxLayout()
        buttons.setSpacing(2)
        for button in (self.open_button, self.folder_button, self.cancel_button):
            buttons.addWidget(button)
        layout.addLayout(buttons, 0, 2, 3, 1, Qt.AlignmentFlag.AlignVCenter)
        layout.setColumnStretch(1, 1)
        # Bound methods only: Qt drops these connections when the row goes (the window closed, Clear
        # finished), while the request (the profile's) lives on; a lambda would outlive the row.
        request.receivedBytesChanged.connect(self.refresh)
        request.totalBytesChanged.connect(self.refresh)
        request.stateChanged.connect(self._on_state)
        request.destroyed.connect(self._forget_request)
        self.refresh()

    def _button(self, icon_name: str, tip: str, handler: Callable[[], object]) -> QToolButton:
        button = QToolButton(self)
        button.setIcon(icon(icon_name))
        button.setIconSize(ICON_SIZE)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setAutoRaise(True)
        button.clicked.connect(lambda _checked=False: handler())
        return button

    def _on_state(self, _state: QWebEngineDownloadRequest.DownloadState) -> None:
        self.refresh()

    def _forget_request(self, *_args: object) -> None:
        self._request = None

    def _live_request(self) -> Any:
        request = self._request
        return request if request is not None and shiboken6.isValid(request) else None

    @property
    def received(self) -> int:
        request = self._live_request()
        return request.receivedBytes() if request is not None and self.record.state == "in progress" \
            else self.record.bytes

    @property
    def total(self) -> int:
        request = self._live_request()
        return request.totalBytes() if request is not None and self.record.state == "in progress" \
            else self.record.total

    def state_text(self) -> str:
        return {"in progress": self.tr("Downloading"), "completed": self.tr("Done"),
                "cancelled": self.tr("Cancelled"), "interrupted": self.tr("Failed")}.get(self.record.state,
                                                                                     self.record.state)

    def stream_text(self) -> str:
        """A streamed video's step: merging, or the fragment (and stream) being fetched; "" for a file."""
        record = self.record
        if record.phase == "merging":
            return self.tr("Merging audio and video")
        text = ""
        if record.fragments:
            text = self.tr("Fragment {index} of {count}").format(index=record.fragment, count=record.fragments)
        if record.parts > 1:
            stream = self.tr("Stream {index} of {count}").format(index=record.part, count=record.parts)
            text = f"{stream}, {text}" if text else stream
        return text

    def refresh(self) -> None:
        """Show the download as it is now."""
        locale = QLocale()
        received, total, state = self.received, self.total, self.record.state
        if self.name.text() != self.record.path.name:  # a stream's file gets its name (extension) at the end
            self.name.setText(self.record.path.name)
            self.name.setToolTip(str(self.record.path))
        if state == "in progress":
            if total > 0:
                self.progress.setRange(0, 100)
                self.progress.setValue(min(100, received * 100 // total))
                size = self.tr("{received} of {total}").format(received=locale.formattedDataSize(received),
                                                              total=locale.formattedDataSize(total))
            else:
                self.progress.setRange(0, 0)  # size unknown: a busy bar
                size = locale.formattedDataSize(received)
            self.meta.setText(" · ".join(part for part in (size, self.stream_text(), self.state_text()) if part))
        elif state == "completed":
            self.progress.setRange(0, 100)
            self.progress.setValue(100)
            self.meta.setText(f"{locale.formattedDataSize(self.record.bytes)} · {self.state_text()}")
        else:
            self.progress.setRange(0, 100)
            self.progress.setValue(0)
            self.meta.setText(self.state_text())
            self.meta.setToolTip(self.record.error or "")
        self.progress.setVisible(state in ("in progress", "completed"))
        self.open_button.setEnabled(state == "completed")
        self.cancel_button.setVisible(state == "in progress")
        self._panel.changed.emit()

    def file_url(self) -> QUrl:
        return QUrl.fromLocalFile(str(self.record.path))

    def folder_url(self) -> QUrl:
        """What Show in folder opens: the folder the file was saved in."""
        return QUrl.fromLocalFile(str(self.record.path.parent))

    def open_file(self) -> None:
        if self.record.state == "completed":
            self._panel.open_url(self.file_url())

    def show_in_folder(self) -> None:
        self._panel.open_url(self.folder_url())

    def cancel(self) -> None:
        request = self._live_request()
        if request is not None and self.record.state == "in progress":
            request.cancel()


class DownloadsPanel(QWidget):
    """This environment's downloads, newest first, with an empty state that says where they go."""

    changed = Signal()  # a download was added or moved on (for the toolbar's badge)

    def __init__(self, manager: DownloadManager | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("downloadsPanel")
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self.rows: list[DownloadRow] = []
        self.empty = QLabel(self.tr("No downloads yet.\nFiles this environment downloads appear here."), self)
        self.empty.setObjectName("emptyState")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.clear_button = QPushButton(icon("trash-2"), self.tr("Clear finished"), self)
        self.clear_button.setObjectName("downloadsClear")
        self.clear_button.clicked.connect(self.clear_finished)
        self.folder_button = QPushButton(icon("folder-open"), self.tr("Open folder"), self)
        self.folder_button.setObjectName("downloadsFolder")
        self.folder_button.clicked.connect(self.open_download_folder)
        self._default_folder = manager.default_folder if manager is not None else None
        self.folder_button.setEnabled(self._default_folder is not None)

        self._list = QWidget(self)
        self._list_layout = QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(0, 0, 0, 0)
        self._list_layout.setSpacing(0)
        self._list_layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self._list)
        footer = QHBoxLayout()
        footer.setContentsMargins(8, 6, 8, 8)
        footer.addWidget(self.folder_button)
        footer.addStretch(1)
        footer.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.empty, 1)
        layout.addWidget(scroll, 1)
        layout.addLayout(footer)
        self._scroll = scroll
        if manager is not None:
            manager.download_started.connect(self.add)
            manager.download_finished.connect(self._on_finished)
        self._update_empty()

    def add(self, record: DownloadRecord, request: QWebEngineDownloadRequest | QObject) -> DownloadRow:
        """A row for a download that has just started, at the top."""
        row = DownloadRow(record, request, self)
        self.rows.insert(0, row)
        self._list_layout.insertWidget(0, row)
        for old in [old for old in self.rows[MAX_ROWS:] if old.record.state != "in progress"]:
            self.rows.remove(old)
            old.deleteLater()
        self._update_empty()
        self.changed.emit()
        return row

    def row_for(self, name: str) -> DownloadRow | None:
        """The newest row of the file called `name`."""
        return next((row for row in self.rows if row.record.path.name == name), None)

    def active_count(self) -> int:
        return sum(1 for row in self.rows if row.record.state == "in progress")

    def clear_finished(self) -> None:
        for row in [row for row in self.rows if row.record.state != "in progress"]:
            self.rows.remove(row)
            row.deleteLater()
        self._update_empty()
        self.changed.emit()

    def open_download_folder(self) -> None:
        if self._default_folder is not None:
            self._default_folder.mkdir(parents=True, exist_ok=True)
            self.open_url(QUrl.fromLocalFile(str(self._default_folder)))

    def _on_finished(self, record: DownloadRecord) -> None:
        for row in self.rows:
            if row.record is record:
                row.refresh()

    def _update_empty(self) -> None:
        self.empty.setVisible(not self.rows)
        self._scroll.setVisible(bool(self.rows))
        self.clear_button.setEnabled(any(row.record.state != "in progress" for row in self.rows))
