"""Reading a window on an X display as a person does: a screenshot (`import`, ImageMagick) read by `tesseract`.

`Screen.read(window)` grabs the window (enlarged, which tesseract reads better), and returns its words with their
boxes in screen coordinates and the image itself; `Words.find("Banana")` is the first word with that text, and
`row_color(image, word)` the colour most of a table row's background has beside that word (how a selected row
is told from the others). Both tools come from Debian (./dev.sh installs them: imagemagick, tesseract-ocr).
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QImage

TOOLS = ("import", "convert", "tesseract", "xdotool")
SCALE = 2  # the screenshot is enlarged this much before it is read


@dataclass(frozen=True)
class Word:
    text: str
    left: int  # screen coordinates
    top: int
    width: int
    height: int
    image_box: tuple[int, int, int, int]  # left, top, width, height in the enlarged image

    @property
    def center(self) -> tuple[int, int]:
        return self.left + self.width // 2, self.top + self.height // 2


class Words(list[Word]):
    def find(self, text: str, *, ignore_case: bool = False) -> Word | None:
        wanted = text.casefold() if ignore_case else text
        return next((word for word in self
                     if (word.text.strip(".,:;|").casefold() if ignore_case else word.text.strip(".,:;|")) == wanted),
                    None)

    def has(self, text: str) -> bool:
        return self.find(text) is not None


@dataclass
class Screen:
    display: str
    folder: Path
    shots: int = 0

    def env(self) -> dict[str, str]:
        import os

        return {**os.environ, "DISPLAY": self.display}

    def geometry(self, window: int) -> tuple[int, int, int, int]:
        """The window's left, top, width and height on the screen."""
        out = subprocess.run(["xdotool", "getwindowgeometry", "--shell", str(window)], env=self.env(),
                             capture_output=True, text=True, check=True, timeout=20).stdout
        values = dict(line.split("=", 1) for line in out.split())
        return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])

    def read(self, window: int, part: tuple[int, int, int, int] | None = None) -> tuple[Words, QImage]:
        """The words of the window (or of `part` of it: left, top, width, height inside the window; a negative
        height leaves that much out at the bottom), in screen coordinates, and the enlarged image."""
        left, top, width, height = self.geometry(window)
        if part is not None:
            left, top, width, height = (left + part[0], top + part[1], min(part[2], width - part[0]),
                                        part[3] if part[3] > 0 else height - part[1] + part[3])
        self.shots += 1
        shot = self.folder / f"screen-{self.shots:03d}.png"
        subprocess.run(["import", "-window", "root", "-crop", f"{width}x{height}+{left}+{top}", "+repage",
                        "-resize", f"{SCALE * 100}%", str(shot)], env=self.env(), check=True, timeout=30,
                       capture_output=True)
        # Read in black and white: dark text on a selected row's tinted background (and its focus frame) is then
        # read as on any other row.
        ink = shot.with_suffix(".ink.png")
        subprocess.run(["convert", str(shot), "-colorspace", "Gray", "-threshold", "60%", str(ink)], check=True,
                       timeout=30, capture_output=True)
        tsv = subprocess.run(["tesseract", str(ink), "-", "--psm", "11", "tsv"], capture_output=True, text=True,
                             check=True, timeout=60).stdout
        words = Words()
        for line in tsv.splitlines()[1:]:
            parts = line.split("\t")
            if len(parts) < 12 or not parts[11].strip():
                continue
            x, y, w, h = (int(value) for value in parts[6:10])
            words.append(Word(parts[11].strip(), left + x // SCALE, top + y // SCALE, w // SCALE, h // SCALE,
                              (x, y, w, h)))
        return words, QImage(str(shot))


def row_color(image: QImage, word: Word, span: int = 120) -> int:
    """The most common colour (RGB) of the row's background: a band through the word's middle, from the end of the
    word `span` enlarged pixels on (past the word's own pixels); -1 for a word at the image's right edge."""
    x, y, w, h = word.image_box
    counts: Counter[int] = Counter()
    for dy in (h // 4, h // 2, 3 * h // 4):
        for px in range(x + w + 6, min(image.width(), x + w + 6 + span)):
            if 0 <= y + dy < image.height():
                counts[image.pixel(px, y + dy) & 0xFFFFFF] += 1
    return counts.most_common(1)[0][0] if counts else -1
