"""`PageError`: what a page operation raises when it fails, with a `code` callers branch on (the message is for
people and models). Here, apart from the browser port (workflows/ports.py), so that pure modules can raise one
(workflows/secret_binding.py) without importing the port."""

from __future__ import annotations

__all__ = ["PageError"]


class PageError(Exception):
    """A page operation failed; the message is one line a person or a model can act on, and `code` says what
    kind of failure it is, for callers that decide what to do next (they never read the message).

    Subclasses set their own `code`; a raise may give a more precise one (`PageError(msg, code="blocked")`).
    """

    code: str = "page_error"

    def __init__(self, message: str = "", code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
