#!/usr/bin/env bash
# Smoke test of the built bundle (not part of the test suite: building takes minutes). The numbers in the
# packaging notes come from here.
#
#   packaging/smoke_test.sh [dist/browserpilot-VERSION-linux-x86_64.tar.gz]
#
# Unpacks the tarball into a fresh folder under /tmp, then, with the bundle in a clean environment (no venv
# on PATH, PYTHONPATH unset, `cd /`): `--version`; `browserpilot mcp` started by an MCP client (the app starts
# headless, first call timed) and a page action needing the injected JavaScript; the memory maps checked for
# anything from outside the bundle; `browserpilot run` of a workflow; the same first call with the checkout's
# .venv/bin/browserpilot for a ratio under the same load; with windows under Xvfb, a screenshot;
# install.sh into a scratch XDG folder and desktop-file-validate. Needs Xvfb, xdotool and ImageMagick for the
# window part (skipped, and said so, when missing). Prints sizes and times; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=${1:-$(ls -t dist/browserpilot-*-linux-x86_64.tar.gz 2>/dev/null | head -1)}
[ -f "${tarball:-}" ] || { echo "smoke: no bundle tarball (run ./dev.sh package first)" >&2; exit 1; }
client_python=${SMOKE_PYTHON:-.venv/bin/python}

work=$(mktemp -d /tmp/browserpilot-smoke.XXXXXX)
xvfb_pid=
# The unpacked bundle (~535 MB) goes at the end unless SMOKE_KEEP=1; the screenshots and logs stay.
cleanup() {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null
  [ "${SMOKE_KEEP:-0}" = 1 ] || rm -rf "$work"/browserpilot-*/
  true
}
trap cleanup EXIT

start=$(date +%s%N)
tar -C "$work" -xzf "$tarball"
bundle=$(ls -d "$work"/browserpilot-*/)
bundle=${bundle%/}
echo "smoke: unpacked into $bundle in $((($(date +%s%N) - start) / 1000000)) ms"
echo "smoke: tar.gz $(du -h "$tarball" | cut -f1) ($(stat -c %s "$tarball") bytes); unpacked $(du -sh "$bundle" | cut -f1) ($(du -sb "$bundle" | cut -f1) bytes, $(find "$bundle" -type f | wc -l) files)"

clean() { (cd / && env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"); }
mkdir -p "$work/home"
version=$(clean "$bundle/browserpilot" --version)
echo "smoke: $version"
for part in QtWebEngineProcess icudtl.dat qtwebengine_resources.pak qtwebengine_locales; do
  found=$(find "$bundle" -name "$part" | head -1)
  [ -n "$found" ] || { echo "smoke: $part is missing from the bundle" >&2; exit 1; }
done
for asset in js/locator.js styles/app.qss icons/browserpilot.svg; do
  [ -f "$bundle/_internal/app/assets/$asset" ] || { echo "smoke: $asset is missing" >&2; exit 1; }
done
ts_count=$(find "$bundle/_internal/app/assets" -path "*/i18n/*.ts" | wc -l)
qm_count=$(find "$bundle/_internal/app/assets" -path "*/i18n/*.qm" | wc -l)
[ "$qm_count" -ge "$ts_count" ] || { echo "smoke: $ts_count .ts but only $qm_count .qm in the bundle" >&2; exit 1; }
echo "smoke: QtWebEngine parts, resources and $qm_count compiled translation(s) present"

# The xdg-open stand-in hands the real one the library path from before the bundle started (here: none).
mkdir -p "$work/fakebin"
printf '#!/bin/sh\necho "LD_LIBRARY_PATH=${LD_LIBRARY_PATH-unset} $*"\n' > "$work/fakebin/xdg-open"
chmod +x "$work/fakebin/xdg-open"
opened=$(env -i PATH="$bundle/_internal/launchers:$work/fakebin:/usr/bin:/bin" LD_LIBRARY_PATH="$bundle/_internal" \
  "$bundle/_internal/launchers/xdg-open" /tmp)
[ "$opened" = "LD_LIBRARY_PATH=unset /tmp" ] || { echo "smoke: the xdg-open stand-in passed on: $opened" >&2; exit 1; }
echo "smoke: xdg-open stand-in restores the system's library path"

display_args=()
if command -v Xvfb >/dev/null && command -v xdotool >/dev/null && command -v import >/dev/null; then
  display=":$((90 + RANDOM % 400))"
  Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  for _ in $(seq 100); do DISPLAY=$display xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done
  display_args=(--display "$display" --shot "$work/screen.png")
else
  echo "smoke: Xvfb, xdotool or ImageMagick missing: the part with windows is skipped"
fi
reference_args=()
[ -x .venv/bin/browserpilot ] && reference_args=(--reference "$PWD/.venv/bin/browserpilot")
echo "smoke: load average before the timed part: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
report=$("$client_python" packaging/smoke_client.py "$bundle" "$work" "${display_args[@]}" "${reference_args[@]}")
echo "smoke: $report"

clean XDG_DATA_HOME="$work/xdg" "$bundle/install.sh" >/dev/null
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$work/xdg/applications/browserpilot.desktop"
  echo "smoke: install.sh: desktop entry valid, $(find "$work/xdg/icons" -name 'browserpilot.*' | wc -l) icons"
fi
grep -q "^Exec=$bundle/browserpilot$" "$work/xdg/applications/browserpilot.desktop" || {
  echo "smoke: the installed entry does not run $bundle/browserpilot" >&2; exit 1; }
if command -v dpkg-deb >/dev/null && ls dist/browserpilot_*_amd64.deb >/dev/null 2>&1; then
  packaging/smoke_deb.sh
fi
echo "smoke: ok (work folder $work${display_args:+, screenshot $work/screen.png})"
