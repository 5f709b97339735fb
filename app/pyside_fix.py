"""A work-around for a PySide6 6.12 bug on Python 3.11, applied once at start-up.

Every call of a PySide6 6.12 method that returns nothing (setTimestamp, accept, setCommitString, and also
QWebEnginePage.runJavaScript and the timers qasync starts) drops one reference to `None`. From Python 3.12
`None` is immortal (PEP 683) and this is harmless; on 3.11 the process dies ("none_dealloc: deallocating
None") after some tens of thousands of such calls -- typing a long text makes four per character. Where the
bug is present we do by hand what 3.12 does: give `None` so many references that it never reaches zero.
"""

from __future__ import annotations

import ctypes
import logging
import sys

log = logging.getLogger("browserpilot.app")
_applied = False


def protect_none() -> bool:
    """Apply the work-around (once) if this interpreter and PySide6 need it; return whether it is applied."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    from PySide6.QtCore import QEvent

    probe = QEvent(QEvent.Type.None_)
    before = sys.getrefcount(None)
    for _ in range(4):
        probe.setAccepted(True)
    if sys.getrefcount(None) >= before:
        return False
    ctypes.c_ssize_t.from_address(id(None)).value += 1 << 40  # ob_refcnt is the first field of PyObject
    _applied = True
    log.debug("PySide6 drops references to None on this Python: None made immortal")
    return True
