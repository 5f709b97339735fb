"""Qt's own messages go to the `browserpilot.qt` logger instead of straight to stderr."""

from __future__ import annotations

import logging

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

from plumbing import loggers

log = logging.getLogger(loggers.QT)

_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}

# Messages that say nothing about our app: a machine without a GPU or OpenGL (Qt falls back to software
# rendering), or the offscreen platform, which cannot raise windows or grab the keyboard.
KNOWN_HARMLESS = (
    "QVulkanInstance: Failed to initialize Vulkan",
    "GBM is not supported",
    "QRhiGles2: Failed to create",
    "Failed to create RHI for backend",
    "GPUInfo not initialized",
    "This plugin does not support",
    "Sandboxing disabled by user.",
)


def _handler(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    level = _LEVELS.get(kind, logging.WARNING)
    if level >= logging.WARNING and message.startswith(KNOWN_HARMLESS):
        level = logging.DEBUG
    log.log(level, "%s", message)


def install_qt_message_handler() -> None:
    qInstallMessageHandler(_handler)
