"""Render the app icon into the freedesktop hicolor sizes with Qt's SVG renderer (no extra system tool needed).

    python packaging/make_icons.py packaging/browserpilot.svg OUT_DIR

writes OUT_DIR/<N>x<N>/apps/browserpilot.png for N in 16 22 24 32 48 64 128 256 512, and
OUT_DIR/scalable/apps/browserpilot.svg (a copy). The PNGs are generated at package and install time, not kept
in the tree: the SVG is the one source.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICON_NAME = "browserpilot"


def render(svg: Path, out: Path) -> list[Path]:
    """Every hicolor size of `svg` under `out`; the files written."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg} is not a valid SVG")
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = out / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(target), "PNG"):
            raise OSError(f"could not write {target}")
        written.append(target)
    scalable = out / "scalable" / "apps" / f"{ICON_NAME}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(svg, scalable)
    del app
    return [*written, scalable]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: make_icons.py SVG OUT_DIR", file=sys.stderr)
        return 2
    try:
        render(Path(argv[0]), Path(argv[1]))
    except (OSError, ValueError) as exc:
        print(f"make_icons: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
