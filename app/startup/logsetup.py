"""Logging: one logger per subsystem under `browserpilot.*`, a rotating file in the data folder, stderr.

The names are declared once, in plumbing/loggers.py. `--debug` makes stderr verbose.
"""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from plumbing import loggers

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def setup_logging(log_dir: Path | None, debug: bool = False, quiet: bool = False) -> logging.Logger:
    root = logging.getLogger(loggers.ROOT)
    root.setLevel(logging.DEBUG)
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    root.propagate = False
    stderr = logging.StreamHandler()
    stderr.setLevel(logging.DEBUG if debug else (logging.ERROR if quiet else logging.WARNING))
    stderr.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr)
    if log_dir is not None:
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            file_handler = logging.handlers.RotatingFileHandler(
                log_dir / "browserpilot.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
            )
        except OSError as exc:
            root.warning("cannot write the log file in %s: %s", log_dir, exc)
        else:
            file_handler.setLevel(logging.DEBUG if debug else logging.INFO)
            file_handler.setFormatter(logging.Formatter(FORMAT))
            root.addHandler(file_handler)
    return root
