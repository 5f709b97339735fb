"""Errors of the stores, in a module of their own so that callers can name them without loading pydantic."""

from __future__ import annotations


class StoreError(Exception):
    """A store could not be read or written; the message names the file and the reason."""
