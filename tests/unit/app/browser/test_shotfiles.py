"""A trace's screenshot writer (app/browser/shotfiles.py): the files it writes are whole, small JPEGs with the
element outlined where the trace said, and a picture it could not write is reported, not pretended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter

from app.browser.framepipe import Launcher
from app.browser.shotfiles import Scaler, ShotFiles, outline_frame, scaled_down

PAGE_WIDTH, PAGE_HEIGHT = 1200, 760


def page_picture() -> QImage:
    image = QImage(PAGE_WIDTH, PAGE_HEIGHT, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.white)
    return image


def red(image: QImage, x: float, y: float) -> bool:
    colour = image.pixelColor(int(x), int(y))
    return colour.red() > 150 and colour.green() < 110 and colour.blue() < 110


def test_pictures_are_written_scaled_down_with_the_element_outlined(qapp: Any, tmp_path: Path) -> None:
    folder = tmp_path / "trace"
    shots = ShotFiles(folder, 800, Launcher())
    box = (300.0, 200.0, 120.0, 40.0)  # CSS px (zoom 1): the outline frames it in the 800 px picture
    scale = 800 / PAGE_WIDTH
    assert shots.send(page_picture(), None, folder / "0001.jpg")
    assert shots.send(page_picture(), outline_frame(box, scale), folder / "0002.jpg")
    shots.close()
    written = shots.done.result(timeout=30)
    assert shots.error is None
    assert written == {str(folder / "0001.jpg"), str(folder / "0002.jpg")}
    assert sorted(p.name for p in folder.iterdir()) == ["0001.jpg", "0002.jpg"]  # no partial files left
    plain, framed = QImage(str(folder / "0001.jpg")), QImage(str(folder / "0002.jpg"))
    assert (plain.width(), plain.height()) == (800, 507) and (framed.width(), framed.height()) == (800, 507)
    middle = (box[1] + box[3] / 2) * scale
    assert red(framed, (box[0] - 4) * scale, middle) and red(framed, (box[0] + box[2] + 3) * scale, middle)
    assert not red(framed, (box[0] + box[2] / 2) * scale, middle)  # the element itself is not painted over
    assert not any(red(plain, x, middle) for x in range(0, 800, 4))


@pytest.mark.parametrize("kind", [QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied,
                                  QImage.Format.Format_RGB888])
def test_a_pictures_colours_are_kept_whatever_qts_format(qapp: Any, tmp_path: Path, kind: QImage.Format) -> None:
    """Qt holds a page's pixels as B, G, R, X bytes (or another format): the file shows the page's own colours."""
    image = QImage(PAGE_WIDTH, PAGE_HEIGHT, kind)
    image.fill(QColor(200, 40, 30))
    painter = QPainter(image)
    painter.fillRect(0, PAGE_HEIGHT // 2, PAGE_WIDTH, PAGE_HEIGHT // 2, QColor(30, 60, 210))
    painter.end()
    shots = ShotFiles(tmp_path, 800, Launcher())
    assert shots.send(image, None, tmp_path / "0001.jpg")
    shots.close()
    assert shots.done.result(timeout=30) == {str(tmp_path / "0001.jpg")} and shots.error is None
    written = QImage(str(tmp_path / "0001.jpg"))
    for (x, y), expected in (((400, 100), (200, 40, 30)), ((400, 400), (30, 60, 210))):
        colour = written.pixelColor(x, y)
        assert all(abs(a - b) <= 12 for a, b in zip((colour.red(), colour.green(), colour.blue()), expected)), \
            (kind, (x, y), colour.getRgb())


def test_a_picture_that_cannot_be_written_is_reported_and_left_out(qapp: Any, tmp_path: Path) -> None:
    folder = tmp_path / "trace"
    shots = ShotFiles(folder, 800, Launcher())
    assert shots.send(page_picture(), None, folder / "0001.jpg")
    assert shots.send(page_picture(), None, tmp_path / "gone" / "0002.jpg")  # no such folder
    assert shots.send(page_picture(), None, folder / "0003.jpg")
    shots.close()
    written = shots.done.result(timeout=30)
    assert isinstance(shots.error, OSError)
    assert written == {str(folder / "0001.jpg")}  # nothing after the failure either: the disk may be full
    assert [p.name for p in folder.iterdir()] == ["0001.jpg"]


def test_a_writer_far_behind_refuses_a_picture_instead_of_queueing_without_end(qapp: Any, tmp_path: Path) -> None:
    class Idle(Launcher):
        def start(self, target: Any, name: str) -> None:  # the thread has not started yet
            self.target = target

    launcher = Idle()
    shots = ShotFiles(tmp_path / "trace", 800, launcher)
    assert shots.send(page_picture(), None, tmp_path / "trace" / "0001.jpg", limit=1)
    assert not shots.send(page_picture(), None, tmp_path / "trace" / "0002.jpg", limit=1)
    assert shots.send(page_picture(), None, tmp_path / "trace" / "0002.jpg")  # the run's end: no limit
    shots.close()
    launcher.target()
    assert shots.done.result(timeout=30) == {str(tmp_path / "trace" / "0001.jpg"), str(tmp_path / "trace" / "0002.jpg")}


def test_red_and_blue_are_put_back_in_order_byte_for_byte(qapp: Any) -> None:
    """Qt's B, G, R, X bytes become exactly R, G, B: the small picture's channels, taken apart and put back in
    order, are the writer's picture, pixel for pixel (a colour check alone allows a few levels off)."""
    from PIL import Image

    image = QImage(PAGE_WIDTH, PAGE_HEIGHT, QImage.Format.Format_RGB32)
    image.fill(QColor(250, 250, 245))
    painter = QPainter(image)
    for step in range(0, PAGE_HEIGHT, 17):
        painter.fillRect(step % 900, step, 300, 11, QColor((step * 3) % 256, (step * 7) % 256, (step * 11) % 256))
    painter.end()
    small = scaled_down(image, 800)
    as_mapped = Image.frombuffer("RGBX", (image.width(), image.height()), image.constBits(), "raw", "RGBX",
                                 image.bytesPerLine(), 1)
    blue, green, red, _unused = as_mapped.resize(small.size, Image.Resampling.BOX).split()
    assert small.mode == "RGB"
    assert small.tobytes() == Image.merge("RGB", (red, green, blue)).tobytes()


@pytest.mark.parametrize("size", [(1280, 800), (PAGE_WIDTH, PAGE_HEIGHT), (1280, 737), (1001, 613)])
def test_a_picture_that_changed_in_part_is_scaled_as_if_whole(qapp: Any, size: tuple[int, int]) -> None:
    """The writer scales again only the rows of the small picture that show what changed since the picture before:
    the result has exactly the pixels of the whole picture scaled, wherever the change is (top, bottom, one row,
    none, most of the page)."""
    width, height = size
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(250, 250, 245))
    painter = QPainter(image)
    for row in range(0, height, 23):  # text-like detail everywhere: a row off shows
        painter.fillRect((row * 7) % (width - 200), row, 180, 9, QColor(20 + row % 200, 40, 90))
    painter.end()
    scaler = Scaler(800)
    assert scaler.scaled(image).tobytes() == scaled_down(image, 800).tobytes()
    changes = [(300, 200, 120, 40), (0, 0, width, 1), (5, height - 1, 1, 1), None, (600, 333, 2, 1),
               (0, 50, width, height - 100), (10, height - 30, 200, 30)]
    for index, change in enumerate(changes):
        changed = image.copy()
        if change is not None:
            painter = QPainter(changed)
            painter.fillRect(*change, QColor(30 + 30 * index, 160, 40))
            painter.end()
        assert scaler.scaled(changed).tobytes() == scaled_down(changed, 800).tobytes(), (size, change)
        image = changed
