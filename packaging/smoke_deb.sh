#!/usr/bin/env bash
# The .deb part of the packaging smoke test (packaging/smoke_test.sh runs it after the bundle's part):
# lintian (anything but the overrides packaging/README.md justifies fails), `apt install ./browserpilot_*.deb`,
# the command on the PATH, the menu entry and icons in their system places, a headless start that answers
# `schedule list`, then `apt remove`, which must leave the user's data folder alone. Needs root (or sudo).
#
#   packaging/smoke_deb.sh [dist/browserpilot_VERSION_amd64.deb]
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:-$(ls -t dist/browserpilot_*_amd64.deb 2>/dev/null | head -1)}
[ -f "${deb:-}" ] || { echo "smoke-deb: no .deb (run ./dev.sh package first)" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "smoke-deb: $deb ($(du -h "$deb" | cut -f1))"

if command -v lintian >/dev/null; then
  findings=$(lintian --no-tag-display-limit "$deb" 2>&1 || true)
  if [ -n "$findings" ]; then
    echo "$findings" | sed 's/^/smoke-deb: lintian: /'
    echo "$findings" | grep -q '^[EW]:' && { echo "smoke-deb: lintian errors or warnings beyond the overrides" >&2; exit 1; }
  fi
  echo "smoke-deb: lintian: no errors or warnings (overridden: $(lintian --show-overrides "$deb" 2>/dev/null | grep -c '^O:'))"
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
as_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq browserpilot >/dev/null
[ ! -e /usr/bin/browserpilot ] && [ ! -e /opt/browserpilot ] || { echo "smoke-deb: files left after remove" >&2; exit 1; }
[ -f "$data/envs.json" ] || { echo "smoke-deb: removing the package touched the data folder" >&2; exit 1; }
echo "smoke-deb: removed; the data folder $data is left alone"
rm -rf "$home"
