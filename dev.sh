#!/usr/bin/env bash
# BrowserPilot developer entry point: one command to set up and run the app, one to set up and run the tests.
#
#   ./dev.sh run [browserpilot arguments]   set up (first time) and start the app
#   ./dev.sh test [pytest arguments]        set up (first time) and run the whole test suite: on two workers, a
#                                           test file each (pytest-xdist); with arguments, just what they say
#   ./dev.sh setup                          only set up
#   ./dev.sh package                        build dist/: the wheel and a self-contained Linux x86-64 bundle
#                                           (browserpilot-VERSION-linux-x86_64.tar.gz; packaging/README.md)
#   ./dev.sh install-desktop [--uninstall]  put the app's menu entry and icons in ~/.local/share (or
#                                           $XDG_DATA_HOME), running this checkout's .venv/bin/browserpilot
#
# Setup creates .venv/ with the app and its test tools, and on Debian/Ubuntu installs the few system
# libraries Qt needs (with sudo when not root). It is repeated only when pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
VENV=.venv
STAMP="$VENV/.installed-$(cat pyproject.toml setup.py | sha1sum | cut -c1-12)"  # setup.py lists the packages

# Libraries Qt's xcb platform plugin and QtWebEngine load from the system (the PySide6 wheels bring Qt itself).
SYSTEM_PACKAGES=(libglib2.0-0 libnss3 libdbus-1-3 libfontconfig1 libfreetype6 libxkbcommon0 libxkbcommon-x11-0
  libegl1 libgl1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0
  libxcb-randr0 libxcb-xinerama0 libxcb-xkb1 libx11-xcb1 libxcomposite1 libxdamage1 libxrandr2 libxtst6 libxi6
  libxshmfence1 libgbm1)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "dev.sh: please install as root: $*" >&2; return 1; fi
}

install_system_packages() {
  command -v apt-get >/dev/null && command -v dpkg-query >/dev/null || return 0
  local missing=()
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || missing+=("python3-venv")
  command -v redis-server >/dev/null || missing+=("redis-server")  # distributed batches: tests start their own
  command -v desktop-file-validate >/dev/null || missing+=("desktop-file-utils")  # tests/test_packaging_desktop.py
  # Streamed videos (app/browser/streamsave.py): ffmpeg merges a stream's audio and video; the tests make their
  # streams with it and read the saved files with ffprobe.
  command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || missing+=("ffmpeg")
  command -v curl >/dev/null || missing+=("curl")  # tests/integration/test_cookie_files.py: curl reads our cookies.txt
  # Node.js and npm: the MCP Inspector's CLI the tests list each tool profile with (install_test_clients).
  command -v npm >/dev/null || missing+=("nodejs" "npm")
  # tests/integration/test_browser_logins.py: real browser profiles to import logins from (and Playwright's Chromium).
  command -v chromium >/dev/null || missing+=("chromium")
  command -v firefox-esr >/dev/null || command -v firefox >/dev/null || missing+=("firefox-esr")
  # The Chinese UI needs a CJK font (the tests measure Chinese labels and dialogs as a person sees them).
  { command -v fc-list >/dev/null && fc-list :lang=zh family | grep -q .; } || missing+=("fonts-noto-cjk")
  # A desktop for the tray and notification tests: Xvfb, a window manager, a tray host, a notification server.
  # Reading that desktop's screen as a person does (tests/support/screen_text.py): screenshots and OCR.
  for tool in Xvfb:xvfb openbox:openbox trayer:trayer dunst:dunst wmctrl:wmctrl xdotool:xdotool xwininfo:x11-utils \
      dbus-daemon:dbus import:imagemagick tesseract:tesseract-ocr; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
  done
  # ./dev.sh package: the .deb and its check (packaging/build_deb.sh, packaging/smoke_test.sh).
  command -v lintian >/dev/null || missing+=("lintian")
  command -v patchelf >/dev/null || missing+=("patchelf")  # build_deb.sh: the build machine's RUNPATH out
  if [ ${#missing[@]} -gt 0 ]; then
    echo "dev.sh: installing system packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

setup() {
  [ -f "$STAMP" ] && return 0
  install_system_packages
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e ".[test]"
  "$VENV/bin/python" packaging/compile_translations.py >/dev/null  # resources/i18n/*.ts -> .qm (gitignored)
  rm -f "$VENV"/.installed-*
  touch "$STAMP"
}

# MCP clients the tests drive (tests/support/node/package.json), reinstalled when that file changes; npm's
# registry is needed once, the tests then run them offline.
TEST_CLIENTS=tests/support/node
install_test_clients() {
  local stamp
  stamp="$TEST_CLIENTS/node_modules/.installed-$(sha1sum "$TEST_CLIENTS/package.json" | cut -c1-12)"
  [ -f "$stamp" ] && return 0
  command -v npm >/dev/null || install_system_packages
  (cd "$TEST_CLIENTS" && npm install --no-package-lock --no-audit --no-fund --loglevel=error >/dev/null)
  rm -f "$TEST_CLIENTS"/node_modules/.installed-*
  touch "$stamp"
}

# The project's bytecode, written before the tests start the app (hundreds of times, as subprocesses): where
# PYTHONDONTWRITEBYTECODE is set (as on our machines), no import writes it, and each start compiled ~75 of our modules again
# (~1 s of CPU per start). compileall writes it anyway and only for what changed since.
compile_bytecode() {
  "$VENV/bin/python" -m compileall -q app envs workflows plumbing tests >/dev/null
}

# The desktop entry and icons (rendered from packaging/browserpilot.svg) into the user's XDG folders.
install_desktop() {
  [ "${1:-}" = --uninstall ] && exec packaging/install.sh --uninstall
  "$VENV/bin/python" packaging/make_icons.py packaging/browserpilot.svg build/icons/hicolor
  packaging/install.sh --exec "$PWD/$VENV/bin/browserpilot" --icons build/icons/hicolor \
    --desktop packaging/browserpilot.desktop
}

verb=${1:-}
[ $# -gt 0 ] && shift
case "$verb" in
  setup) setup; install_test_clients ;;
  run) setup; exec "$VENV/bin/browserpilot" "$@" ;;
  test) setup; command -v redis-server >/dev/null || install_system_packages; install_test_clients
    compile_bytecode
    # The whole suite on two workers (CI has 2 cores), a test file per worker at a time (its module fixtures are
    # shared by its tests, as in one process; each worker has its own Xvfb, bus, redis and tmp folders).
    [ $# -eq 0 ] && set -- -n 2 --dist loadfile
    exec "$VENV/bin/python" -m pytest "$@" ;;
  package) setup; exec packaging/build_bundle.sh "$@" ;;
  install-desktop) setup; install_desktop "$@" ;;
  *) echo "usage: ./dev.sh run [browserpilot arguments] | test [pytest arguments] | setup | package" \
       "| install-desktop [--uninstall]" >&2; exit 2 ;;
esac
