"""Pages for the login-container tests: one that logs a user in (cookie, localStorage, IndexedDB) and one
that reports back what the browser still holds."""

from __future__ import annotations

from tests.support.server import LocalServer, Request, Response

LOGIN_PAGE = """<!doctype html><title>Logged in</title><body>
<p id=status>storing…</p>
<script>
const user = new URLSearchParams(location.search).get('user');
localStorage.setItem('who', user);
const open = indexedDB.open('bp', 1);
open.onupgradeneeded = () => open.result.createObjectStore('kv');
open.onsuccess = () => {
  const tx = open.result.transaction('kv', 'readwrite');
  tx.objectStore('kv').put(user, 'who');
  tx.oncomplete = () => fetch('/stored?user=' + encodeURIComponent(user)).then(() => {
    document.getElementById('status').textContent = 'stored';
  });
};
</script></body>"""

WHOAMI_PAGE = """<!doctype html><title>Who am I</title><body>
<script>
const report = (idb) => fetch('/report?ls=' + encodeURIComponent(localStorage.getItem('who') || '') +
                              '&idb=' + encodeURIComponent(idb || ''));
const open = indexedDB.open('bp', 1);
open.onupgradeneeded = () => open.result.createObjectStore('kv');
open.onsuccess = () => {
  const get = open.result.transaction('kv').objectStore('kv').get('who');
  get.onsuccess = () => report(get.result);
  get.onerror = () => report('');
};
open.onerror = () => report('');
</script></body>"""


def add_login_routes(server: LocalServer) -> None:
    def login(request: Request) -> Response:
        user = request.arg("user")
        return Response(LOGIN_PAGE, headers=[
            ("Set-Cookie", f"sid={user}-token; Path=/; HttpOnly"),
            ("Set-Cookie", f"pref={user}-pref; Path=/; Max-Age=86400"),
        ])

    server.route("/login", login)
    server.route("/stored", "ok", content_type="text/plain")
    server.route("/whoami", WHOAMI_PAGE)
    server.route("/report", "ok", content_type="text/plain")


def cookies_of(request: Request) -> dict[str, str]:
    header = request.headers.get("cookie", "")
    pairs = [part.strip().split("=", 1) for part in header.split(";") if "=" in part]
    return {name: value for name, value in pairs}
