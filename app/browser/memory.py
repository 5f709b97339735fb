"""Keeping a long-lived tab's renderer bounded: the documents a tab left behind are collected.

What was measured (bench/soak.py): a tab that navigates again and again (a workflow run after run,
an agent going from page to page) leaves every document it left in its renderer's heaps. V8 does not collect
them while the renderer stays busy: after 100 runs of a small form workflow the tab's renderer held 203
documents and 135 MB of JavaScript heap, and grew by about 2.3 MB a run without end (Chromium does the same in
one Playwright page). They are garbage: one full collection (CDP `HeapProfiler.collectGarbage`) brought the
renderer back to one document, 1 MB of heap and its size after the first run. Neither our injected scripts
nor the back-forward cache keep them.

So each page counts the documents its main frame loaded since its renderer was last collected, and looks at
the renderer's private memory (`/proc/PID/statm`: resident minus shared pages, a read of a few microseconds)
when one finishes loading. When `DOCUMENTS_PER_COLLECTION` documents were left, or the renderer grew by
`GROWTH_PER_COLLECTION` bytes since the last collection, the renderer is collected through the tab's DevTools
channel (app/browser/cdp.py; attached for it and detached right after unless something else had it attached
already). A collection pauses the page's scripts for some tens of milliseconds and changes nothing else: no
reload, so the login, the history, what the person sees and a run in progress all stay. One collection at a
time in the app (each attach starts a DevTools front-end renderer of about 60 MB for a moment).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWebEngineCore import QWebEnginePage

from app.browser.cdp import CdpHub
from app.browser.js import PageError
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

DOCUMENTS_PER_COLLECTION = 40  # documents a page may leave in its renderer before it is collected
GROWTH_PER_COLLECTION = 96 * 1024 * 1024  # bytes a renderer may grow by since its last collection
COLLECT_TIMEOUT = 20.0
HOLDER = "memory"
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def private_bytes(pid: int) -> int | None:
    """A process's resident memory that it does not share (Linux; None elsewhere or when it is gone)."""
    if pid <= 0:
        return None
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            fields = statm.read().split()
        return (int(fields[1]) - int(fields[2])) * _PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Collection:
    """One collection of a renderer: how big it was before and after (None where it cannot be told)."""

    pid: int
    before: int | None
    after: int | None
    ms: float
    documents: int


class _PageMemory(QObject):
    """What one page left in its renderer since its last collection (a child of the page: it goes with it)."""

    def __init__(self, page: QWebEnginePage, keeper: "RendererMemory") -> None:
        super().__init__(page)
        self.setObjectName("browserpilot-memory")
        self.page = page
        self.keeper = keeper
        self.documents = 0
        self.pid = 0
        self.baseline: int | None = None  # private bytes after the last collection (or the first load)
        self.collecting = False
        page.loadFinished.connect(self._on_load_finished)

    def _on_load_finished(self, _ok: bool) -> None:
        pid = self.page.renderProcessPid()
        if pid != self.pid:  # a new renderer (another site, or one that crashed): it starts clean
            self.pid, self.documents, self.baseline = pid, 0, private_bytes(pid)
        self.documents += 1
        if self.collecting:
            return
        size = private_bytes(pid)
        grown = size is not None and self.baseline is not None and size - self.baseline >= self.keeper.growth
        if self.documents >= self.keeper.documents or grown:
            self.collecting = True
            asyncio.ensure_future(self.keeper.collect(self))


class RendererMemory:
    """The app's keeper of its tabs' renderers (one per browser service); `watch` each page it makes."""

    def __init__(self, cdp: CdpHub, *, documents: int = DOCUMENTS_PER_COLLECTION,
                 growth: int = GROWTH_PER_COLLECTION) -> None:
        self._cdp = cdp
        self.documents = documents
        self.growth = growth
        self._one_at_a_time = asyncio.Lock()
        self.collections: list[Collection] = []  # the latest ones, for tests and the log

    def watch(self, page: QWebEnginePage) -> None:
        if page.findChild(_PageMemory, "browserpilot-memory") is None:
            _PageMemory(page, self)

    async def collect_now(self, page: QWebEnginePage) -> Collection | None:
        """Collect a watched page's renderer now, whatever it left (None: not watched, or collecting already)."""
        state = page.findChild(_PageMemory, "browserpilot-memory")
        if state is None or state.collecting:
            return None
        state.collecting = True
        return await self.collect(state)

    async def collect(self, state: _PageMemory) -> Collection | None:
        """Collect the page's renderer now (its garbage: every document it left); None when it could not be."""
        try:
            async with self._one_at_a_time:
                return await self._collect(state)
        finally:
            if shiboken6.isValid(state):
                state.collecting = False

    async def _collect(self, state: _PageMemory) -> Collection | None:
        page = state.page
        if not shiboken6.isValid(state) or not shiboken6.isValid(page):
            return None
        pid, documents = page.renderProcessPid(), state.documents
        before = private_bytes(pid)
        started = time.perf_counter()
        existing = self._cdp.existing(page)
        ours = existing is None or not existing.attached  # attached for this collection: detached after it
        channel = self._cdp.channel(page)
        try:
            await channel.send("HeapProfiler.collectGarbage", timeout=COLLECT_TIMEOUT)
        except (PageError, asyncio.TimeoutError) as exc:
            log.info("could not collect the renderer of %s: %s", page.url().toString()[:120], exc)
            return None
        finally:
            if ours and shiboken6.isValid(channel):
                channel.release(HOLDER, detach_now=True)
        if not shiboken6.isValid(state):
            return None
        after = private_bytes(pid)
        state.documents = 0
        state.baseline = after
        done = Collection(pid, before, after, (time.perf_counter() - started) * 1000, documents)
        self.collections = [*self.collections[-19:], done]
        log.info("collected renderer %s after %d documents: %s -> %s MB in %.0f ms", pid, documents,
                 _mb(before), _mb(after), done.ms)
        return done


def _mb(size: int | None) -> str:
    return "?" if size is None else f"{size / 1024 / 1024:.0f}"
