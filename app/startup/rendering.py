"""How the app draws its web pages when it has windows: on the GPU, or in software.

On a machine whose only OpenGL is a software rasterizer (Mesa's llvmpipe under Xvfb, most VMs and remote
desktops), "GPU" drawing is the CPU emulating a GPU: Chromium's GPU process and Qt Quick's OpenGL compositing
both run on it, and the Qt thread drowns. Measured with `bench/ui_stall.py --windows` under Xvfb, a 40-row
batch took 24 s with llvmpipe and 10 s in software, and the window's p99 lateness went from ~177 to ~83 ms. So,
unless told otherwise, such a machine gets the software paths: Chromium without its GPU process
(`--disable-gpu`) and Qt Quick's software renderer. The cost: WebGL is not available to pages then.

`BROWSERPILOT_RENDERING` chooses: `auto` (the default: software when the OpenGL renderer is a software
rasterizer or there is no OpenGL at all), `gpu` (always OpenGL) or `software` (always software). A headless app
always draws in software (`app.startup.runtime`).

`choose` must run after the QApplication exists (it asks OpenGL for its renderer) and before Chromium starts
or the first Qt Quick window is made (both read the choice once).
"""

from __future__ import annotations

import logging
import os

from plumbing import loggers

log = logging.getLogger(loggers.APP)

RENDERING_ENV = "BROWSERPILOT_RENDERING"
MODES = ("auto", "gpu", "software")
SOFTWARE_RASTERIZERS = ("llvmpipe", "softpipe", "swrast", "swiftshader", "software rasterizer")
GL_RENDERER = 0x1F01
QUICK_BACKEND_ENV = "QT_QUICK_BACKEND"


def is_software_renderer(renderer: str | None) -> bool:
    """An OpenGL renderer string that names a software rasterizer (None: there is no OpenGL)."""
    if renderer is None:
        return True
    name = renderer.lower()
    return any(rasterizer in name for rasterizer in SOFTWARE_RASTERIZERS)


def gl_renderer() -> str | None:
    """The OpenGL renderer of this display (`GL_RENDERER`), or None when no OpenGL context can be made."""
    from PySide6.QtGui import QOffscreenSurface, QOpenGLContext

    context = QOpenGLContext()
    if not context.create():
        return None
    surface = QOffscreenSurface()
    surface.setFormat(context.format())
    surface.create()
    try:
        if not context.makeCurrent(surface):
            return None
        renderer = context.functions().glGetString(GL_RENDERER)
        context.doneCurrent()
        return str(renderer) if renderer else None
    finally:
        surface.destroy()


def requested_mode() -> str:
    mode = os.environ.get(RENDERING_ENV, "auto").strip().lower() or "auto"
    if mode not in MODES:
        log.warning("%s=%r is not one of %s: choosing automatically", RENDERING_ENV, mode, "|".join(MODES))
        return "auto"
    return mode


def add_chromium_flag(flag: str) -> None:
    """Add one flag to the ones QtWebEngine hands Chromium (read when Chromium starts)."""
    flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "").split()
    if flag not in flags:
        os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = " ".join([*flags, flag])


def choose(headless: bool) -> str:
    """Decide and apply how pages are drawn; returns "software" or "gpu" (a headless app: "software", already
    set by `prepare_qt_environment`)."""
    if headless:
        return "software"
    mode = requested_mode()
    if mode == "gpu":
        return "gpu"
    renderer = None if mode == "software" else gl_renderer()
    if mode == "auto" and not is_software_renderer(renderer):
        log.info("rendering on the GPU (%s)", renderer)
        return "gpu"
    add_chromium_flag("--disable-gpu")
    # Read when the first Qt Quick window (a web view's) is made. The environment variable rather than
    # QQuickWindow.setGraphicsApi: the bundle leaves the PySide6.QtQuick bindings out (packaging/).
    os.environ[QUICK_BACKEND_ENV] = "software"
    log.info("rendering in software (%s)", f"{RENDERING_ENV}=software" if mode == "software" else
             f"the OpenGL renderer is {renderer}" if renderer else "no OpenGL")
    return "software"
