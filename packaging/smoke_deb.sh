#!/usr/bin/env bash
# The .deb part of the packaging smoke test (packaging/smoke_test.sh runs it after the bundle's part):
# lintian (anything but the overrides packaging/README.md justifies fails), `apt install ./browserpilot_*.deb`,
# the command on the PATH, the menu entry and icons in their system places, `schedule list`, a workflow run
# by the installed app's Chromium against a page on loopback (the package's libraries are stripped: this is
# where a broken one would show), then `apt remove`, which must leave the user's data folder alone. Needs
# root (or sudo), and python3 for the page's server.
#
#   packaging/smoke_deb.sh [dist/browserpilot_VERSION_amd64.deb]
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:-$(ls -t dist/browserpilot_*_amd64.deb 2>/dev/null | head -1)}
[ -f "${deb:-}" ] || { echo "smoke-deb: no .deb (run ./dev.sh package first)" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "smoke-deb: $deb ($(du -h "$deb" | cut -f1))"

if command -v lintian >/dev/null; then
  # One pass (a few minutes for ~500 MB); the overridden findings are shown as O: lines, to count them.
  report=$(lintian --tag-display-limit 0 --show-overrides "$deb" 2>/dev/null || true)
  problems=$(echo "$report" | grep -E '^[EW]:' || true)
  if [ -n "$problems" ]; then
    echo "$problems" | sed 's/^/smoke-deb: lintian: /'
    echo "smoke-deb: lintian errors or warnings beyond the overrides" >&2
    exit 1
  fi
  echo "smoke-deb: lintian: no errors or warnings ($(echo "$report" | grep -c '^O:') findings overridden)"
fi

home=$(mktemp -d /tmp/browserpilot-deb-home.XXXXXX)
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$deb" >/dev/null
[ "$(command -v browserpilot)" = /usr/bin/browserpilot ] || { echo "smoke-deb: browserpilot is not on the PATH" >&2; exit 1; }
/usr/bin/browserpilot --version
desktop-file-validate /usr/share/applications/browserpilot.desktop
ls /usr/share/icons/hicolor/*/apps/browserpilot.* >/dev/null
echo "smoke-deb: installed: /usr/bin/browserpilot, menu entry, $(ls /usr/share/icons/hicolor/*/apps/browserpilot.* | wc -l) icons"
HOME="$home" /usr/bin/browserpilot schedule list --json >/dev/null  # the user's data folder comes to exist
data="$home/.local/share/BrowserPilot"
[ -f "$data/envs.json" ] || { echo "smoke-deb: no data folder at $data" >&2; exit 1; }

# A workflow the installed app runs in its Chromium: a page on loopback, an element waited for.
site=$(mktemp -d /tmp/browserpilot-deb-site.XXXXXX)
echo '<!doctype html><title>Installed</title><p id="installed">the package works</p>' > "$site/index.html"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -u -m http.server --bind 127.0.0.1 "$port" -d "$site" > "$site/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
cat > "$site/check.json" <<JSON
{"kind": "app", "version": "0.3.0", "app": {"name": "Installed", "mode": "workflow"},
 "workflow": {"environment_variables": [], "conversation_variables": [], "graph": {"nodes": [
  {"id": "start", "data": {"type": "start"}},
  {"id": "go", "data": {"type": "goto", "url": "http://127.0.0.1:$port/index.html"}},
  {"id": "see", "data": {"type": "wait", "locator": {"selector": "#installed"}, "state": "appear", "timeout": 30}},
  {"id": "end", "data": {"type": "end"}}],
  "edges": [{"source": "start", "target": "go"}, {"source": "go", "target": "see"}, {"source": "see", "target": "end"}]}}}
JSON
for _ in $(seq 50); do grep -q "Serving" "$site/server.log" && break; sleep 0.1; done
env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 /usr/bin/browserpilot run "$site/check.json" \
  | sed 's/^/smoke-deb: run: /'
grep -q '"GET /index.html' "$site/server.log" || { echo "smoke-deb: the page was never fetched" >&2; exit 1; }
kill $server
trap - EXIT
rm -rf "$site"
echo "smoke-deb: the installed app ran a workflow in its Chromium"
as_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq browserpilot >/dev/null
[ ! -e /usr/bin/browserpilot ] && [ ! -e /opt/browserpilot ] || { echo "smoke-deb: files left after remove" >&2; exit 1; }
[ -f "$data/envs.json" ] || { echo "smoke-deb: removing the package touched the data folder" >&2; exit 1; }
echo "smoke-deb: removed; the data folder $data is left alone"
rm -rf "$home"
