"""Real profiles of the browsers people use, made by those browsers for the login-import tests: Debian's
`chromium` (driven headless by Playwright for Python, with a `--user-data-dir` of its own) and Debian's `firefox-esr`
(headless, with a profile folder of its own). Each logs in to local sites — the servers set the cookies — and is
closed; the profile folder is what `env import --from-browser` reads.

Chromium writes its cookie store to disk only now and then or when it closes properly (a SIGTERM loses it), so it
is closed through Playwright (the DevTools protocol's Browser.close). Firefox is ended with SIGTERM, as a crash or
a running browser leaves it: its newest cookies are then only in `cookies.sqlite-wal`, which the import reads too.
Playwright's sync API refuses to run where an asyncio loop runs (the app's, inside Qt), so `off_loop` runs it on a
thread of its own.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

from tests.support.server import LocalServer, Request, Response

CHROMIUM = shutil.which("chromium")
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
# BENCHMARKS.md: what Debian's chromium needs here (root, a closed network).
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]
T = TypeVar("T")


def login_site(server: LocalServer, user: str) -> LocalServer:
    """/login sets an HttpOnly session cookie and a preference, and keeps a note in local storage; /account
    welcomes whoever sends the session; /seen is the login page's next request."""
    session = f"sid-{user}"

    def login(request: Request) -> Response:
        return Response(f"<title>in</title><script>localStorage.setItem('user', '{user}');"
                        f"fetch('/seen')</script>logged in", headers=[
                            ("Set-Cookie", f"sid={session}; Path=/; HttpOnly; Max-Age=3600"),
                            ("Set-Cookie", "theme=dark; Path=/; SameSite=Strict; Max-Age=3600")])

    def account(request: Request) -> Response:
        if f"sid={session}" in request.headers.get("cookie", ""):
            return Response(f"<title>account</title><p id=who>Welcome {user}</p>")
        return Response("<title>denied</title>please log in", status=403)

    server.routes["/login"] = login
    server.routes["/account"] = account
    server.routes["/seen"] = lambda r: Response("ok", content_type="text/plain")
    return server


def off_loop(work: Callable[[], T], timeout: float = 120.0) -> T:
    """Run `work` on a thread of its own (no asyncio loop there) and return what it returned."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the browser work did not finish in time"
    if "error" in box:
        raise box["error"]
    return box["value"]


def chromium_login(user_data_dir: Path, urls: list[str]) -> None:
    """Debian's chromium, headless, with its own user data folder, opens each URL (a login) and closes."""
    from playwright.sync_api import sync_playwright

    def work() -> None:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(user_data_dir), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            page = context.new_page()
            for url in urls:
                page.goto(url)
            context.close()

    off_loop(work)


def playwright_page_text(storage_state: Path, url: str, script: str = "document.body.innerText") -> Any:
    """What `url` shows in Playwright's Chromium in a new context made from a storage_state file."""
    from playwright.sync_api import sync_playwright

    def work() -> Any:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            context = browser.new_context(storage_state=str(storage_state))
            page = context.new_page()
            page.goto(url)
            value = page.evaluate(script)
            browser.close()
            return value

    return off_loop(work)


def playwright_storage_state(url: str, target: Path) -> None:
    """Playwright's Chromium opens `url` (a login) and saves its own storage_state to `target`."""
    from playwright.sync_api import sync_playwright

    def work() -> None:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            context = browser.new_context()
            page = context.new_page()
            page.goto(url)
            context.storage_state(path=str(target))
            browser.close()

    off_loop(work)


def firefox_login(profile: Path, server: LocalServer, login_path: str, seen_path: str, cookie: str) -> None:
    """Firefox ESR, headless, with its own profile folder, opens the login page; once the page's next request
    (`seen_path`, sent with the cookie) has reached the server and Firefox has written the cookie named `cookie` to
    its database (or its log), Firefox is ended with SIGTERM."""
    assert FIREFOX is not None
    env = {**os.environ, "MOZ_HEADLESS": "1", "HOME": str(profile)}
    process = subprocess.Popen([FIREFOX, "--headless", "--no-remote", "--profile", str(profile),
                                server.url(login_path)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        server.wait_for(seen_path, timeout=90)
        written = threading.Event()
        for _ in range(300):  # Firefox writes its cookies on a thread of its own, a moment after using them
            if any(cookie.encode() in path.read_bytes() for path in (profile / "cookies.sqlite",
                                                                      profile / "cookies.sqlite-wal")
                   if path.exists()):
                break
            written.wait(0.1)
        else:
            raise AssertionError("Firefox never wrote the cookie to its profile")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)
