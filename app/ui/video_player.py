"""A run's video, played: Play/Pause, a position slider, the time, and the run's nodes as chapters (choose one
to go to it; the one playing is marked).

Qt Multimedia's player decodes the file (WebM VP9, or MP4); its frames arrive through a `QVideoSink` and are
drawn as pictures, which works on any display (no OpenGL needed, as under Xvfb). This module is imported only
when a video is played.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QPixmap
from PySide6.QtMultimedia import QMediaPlayer, QVideoFrame, QVideoSink
from PySide6.QtWidgets import (QDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QSizePolicy,
                               QSlider, QSplitter, QVBoxLayout, QWidget)

from app.ui.theme import icon
from plumbing import loggers

log = logging.getLogger(loggers.UI)


def clock(ms: int) -> str:
    seconds = max(0, ms) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}.{max(0, ms) % 1000 // 100}"


class VideoPlayer(QDialog):
    """One video and its chapters: [(start second, title)]."""

    def __init__(self, path: str, chapters: list[tuple[float, str]], title: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("video-player")
        self.setWindowTitle(title)
        self.resize(1000, 640)
        self.chapters = chapters
        self.frames = 0  # frames shown so far
        self.picture = QLabel(self)
        self.picture.setObjectName("video-picture")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setMinimumSize(QSize(320, 200))
        self.picture.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.picture.setStyleSheet("background: black;")
        self.toggle = QPushButton(icon("play"), self.tr("Play"), self)
        self.toggle.setObjectName("video-toggle")
        self.toggle.clicked.connect(self._toggle)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("video-position")
        self.slider.sliderMoved.connect(lambda value: self.player.setPosition(value))
        self.time = QLabel("0:00.0 / 0:00.0", self)
        self.time.setObjectName("video-time")
        self.chapter_list = QListWidget(self)
        self.chapter_list.setObjectName("video-chapters")
        for start, text in chapters:
            item = QListWidgetItem(f"{clock(int(start * 1000))}  {text}")
            item.setData(Qt.ItemDataRole.UserRole, int(start * 1000))
            self.chapter_list.addItem(item)
        self.chapter_list.itemClicked.connect(lambda item: self.seek(int(item.data(Qt.ItemDataRole.UserRole))))
        self.problem = QLabel(self)
        self.problem.setObjectName("video-problem")
        self.problem.setWordWrap(True)
        self.problem.hide()

        controls = QHBoxLayout()
        controls.addWidget(self.toggle)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.time)
        left = QWidget(self)
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.picture, 1)
        column.addLayout(controls)
        column.addWidget(self.problem)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(self.chapter_list)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(split)

        self.sink = QVideoSink(self)
        self.sink.videoFrameChanged.connect(self._frame)
        self.player = QMediaPlayer(self)
        self.player.setVideoSink(self.sink)
        self.player.durationChanged.connect(lambda ms: (self.slider.setRange(0, ms), self._update_time()))
        self.player.positionChanged.connect(self._position)
        self.player.playbackStateChanged.connect(self._state)
        self.player.errorOccurred.connect(self._error)
        self.player.setSource(QUrl.fromLocalFile(path))

    def play(self) -> None:
        self.player.play()

    def seek(self, ms: int) -> None:
        self.player.setPosition(ms)
        if self.player.playbackState() != QMediaPlayer.PlaybackState.PlayingState:
            self.player.play()

    def _toggle(self) -> None:
        if self.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState:
            self.player.pause()
        else:
            self.player.play()

    def _state(self, state: QMediaPlayer.PlaybackState) -> None:
        playing = state == QMediaPlayer.PlaybackState.PlayingState
        self.toggle.setIcon(icon("pause" if playing else "play"))
        self.toggle.setText(self.tr("Pause") if playing else self.tr("Play"))

    def _frame(self, frame: QVideoFrame) -> None:
        image = frame.toImage()
        if image.isNull():
            return
        self.frames += 1
        self.picture.setPixmap(QPixmap.fromImage(image).scaled(self.picture.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                                               Qt.TransformationMode.SmoothTransformation))

    def _position(self, ms: int) -> None:
        if not self.slider.isSliderDown():
            self.slider.setValue(ms)
        self._update_time()
        current = max((row for row, (start, _text) in enumerate(self.chapters) if start * 1000 <= ms + 1), default=-1)
        for row in range(self.chapter_list.count()):
            item = self.chapter_list.item(row)
            font = item.font()
            font.setBold(row == current)
            item.setFont(font)

    def _update_time(self) -> None:
        self.time.setText(f"{clock(self.player.position())} / {clock(self.player.duration())}")

    def _error(self, _error: QMediaPlayer.Error, message: str) -> None:
        log.warning("the video cannot be played: %s", message)
        self.problem.setText(self.tr("The video cannot be played here: {reason}").format(reason=message))
        self.problem.show()

    def closeEvent(self, event: object) -> None:  # noqa: N802 (Qt's name)
        self.player.stop()
        super().closeEvent(event)  # type: ignore[arg-type]
