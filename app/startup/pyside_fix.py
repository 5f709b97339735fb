"""Work-arounds for PySide6 6.12, applied once at start-up (`app.startup.runtime.prepare_qt_environment`).

- `protect_none`: every call of a PySide6 6.12 method that returns nothing (setTimestamp, accept,
  setCommitString, and also QWebEnginePage.runJavaScript and the timers qasync starts) drops one reference to
  `None`. From Python 3.12 `None` is immortal (PEP 683) and this is harmless; on 3.11 the process dies
  ("none_dealloc: deallocating None") after some tens of thousands of such calls -- typing a long text makes
  four per character. Where the bug is present we do by hand what 3.12 does: give `None` so many references
  that it never reaches zero.
- `protect_bools`: the same for `True`, which every `Signal.emit()` returns and drops one reference to: each
  signal a Python thread emits, and so each `call_soon_threadsafe` of qasync's loop (a worker thread handing
  back its result, `asyncio.wrap_future`, every MCP call reaching the main loop), takes one away. On 3.11 the
  process died ("bool_dealloc", or a segmentation fault once the freed object's memory was reused) after a
  few thousand; `True` and `False` get the same treatment as `None`.
- `skip_feature_scan`: once PySide6 is loaded, its `__feature__` import hook reads the whole source of every
  module imported afterwards (`inspect.getsource`, to look for the word "PySide6") and `linecache` keeps it:
  ~8 MB of source lines for the app's lifetime, and 110-140 ms of reading while the app's modules load (~550
  of them, measured). The answer only matters to a module that turns on a feature (`from __feature__ import
  snake_case`), which nothing here does, so every module is marked "ignore" without reading it.
"""

from __future__ import annotations

import ctypes
import logging
import sys

from plumbing import loggers

log = logging.getLogger(loggers.APP)
_applied = False
_bools_applied = False
FEATURE_MODULE = "shibokensupport.feature"  # PySide6's __feature__ machinery


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


def protect_bools() -> bool:
    """Apply the work-around for `True` and `False` (once) if needed; return whether it is applied."""
    global _bools_applied
    if _bools_applied:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        fired = Signal()

    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(4):
        probe.fired.emit()
    if sys.getrefcount(True) >= before:
        return False
    for value in (True, False):
        ctypes.c_ssize_t.from_address(id(value)).value += 1 << 40
    _bools_applied = True
    log.debug("PySide6's Signal.emit drops references to True on this Python: True and False made immortal")
    return True


def skip_feature_scan() -> bool:
    """Stop PySide6's import hook from reading each new module's source; return whether it was switched off
    (False: this PySide6 has no such scan, or it works differently; nothing is changed then)."""
    import PySide6  # noqa: F401  (loads the feature machinery)

    feature = sys.modules.get(FEATURE_MODULE)
    scan = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(scan) or not callable(getattr(feature, "feature_imported", None)):
        log.debug("PySide6 has no __feature__ source scan to switch off")
        return False
    feature._mod_uses_pyside = _never_uses_features  # applying it twice changes nothing
    return True


def _never_uses_features(module: object) -> bool:
    """`_mod_uses_pyside` without reading the module: "does not take part in feature switching"."""
    return False
