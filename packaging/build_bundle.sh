#!/usr/bin/env bash
# `./dev.sh package`: the wheel, then a PyInstaller bundle of it, then dist/browserpilot-VERSION-linux-x86_64.tar.gz.
#
# Steps (all under build/, the results in dist/):
#   1. `pip wheel .` (no build isolation: .venv has setuptools; resources/i18n/*.ts compiled to .qm by setup.py)
#   2. build/bundle-venv: PyInstaller (from PyPI, pinned below) + the wheel; the app's dependencies are those
#      of .venv, reached through one .pth line (so the bundle holds the same versions the tests ran against)
#   3. PyInstaller with packaging/browserpilot.spec -> build/bundle/dist/browserpilot/
#   4. icons (packaging/make_icons.py), the desktop entry and install.sh added; tar.gz written
#   5. the .deb of the same bundle (packaging/build_deb.sh): dist/browserpilot_VERSION_amd64.deb
# BROWSERPILOT_BUNDLE_FFMPEG=/path/to/static/ffmpeg ships that ffmpeg inside the bundle (else the system's is used).
# Needs ./dev.sh setup done first (dev.sh package does it).
#
#   packaging/build_bundle.sh                     package the working tree as it is
#   packaging/build_bundle.sh --from-commit REF   package a commit (git archive REF), e.g. HEAD for a release
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv
BUILD=build/bundle
BVENV=build/bundle-venv
PYINSTALLER_REQ="pyinstaller>=6.10,<7"
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "package: builds for Linux x86-64 only" >&2; exit 1; }

version=$("$VENV/bin/python" -c "import tomllib; print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])")
name="browserpilot-$version-linux-x86_64"

source=.
if [ "${1:-}" = --from-commit ]; then
  [ -n "${2:-}" ] || { echo "package: --from-commit needs a commit" >&2; exit 2; }
  rm -rf build/source && mkdir -p build/source
  git archive "$2" | tar -x -C build/source
  source=build/source
  echo "package: from commit $(git rev-parse --short "$2")"
elif [ $# -gt 0 ]; then
  echo "usage: packaging/build_bundle.sh [--from-commit REF]" >&2; exit 2
fi

echo "package: wheel"
rm -rf build/wheel build/lib build/bdist.* && mkdir -p dist
"$VENV/bin/python" -m pip wheel "$source" --no-deps --no-build-isolation -q -w build/wheel
wheel=$(ls build/wheel/browserpilot-"$version"-*.whl)
cp "$wheel" dist/

echo "package: build venv"
if [ ! -x "$BVENV/bin/pyinstaller" ]; then
  base=$("$VENV/bin/python" -c "import sys; print(sys._base_executable)")
  "$base" -m venv "$BVENV"
  "$BVENV/bin/python" -m pip install -q "$PYINSTALLER_REQ"
fi
purelib() { "$1" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"; }
purelib "$VENV/bin/python" > "$(purelib "$BVENV/bin/python")/browserpilot-deps.pth"
"$BVENV/bin/python" -m pip install -q --no-deps --force-reinstall "$wheel"

echo "package: PyInstaller (a few minutes)"
rm -rf "$BUILD" && mkdir -p "$BUILD"
root=$(pwd)
# From inside build/: the checkout's app/ must not shadow the installed wheel while PyInstaller imports it.
(cd "$BUILD" && "$root/$BVENV/bin/pyinstaller" --noconfirm --log-level WARN --distpath "$root/$BUILD/dist" \
  --workpath "$root/$BUILD/work" "$root/packaging/browserpilot.spec")
bundle="$BUILD/dist/browserpilot"
[ -x "$bundle/browserpilot" ] || { echo "package: PyInstaller made no executable" >&2; exit 1; }

echo "package: desktop entry, icons, installer"
"$VENV/bin/python" packaging/make_icons.py packaging/browserpilot.svg "$bundle/share/icons/hicolor"
mkdir -p "$bundle/share/applications"
cp packaging/browserpilot.desktop "$bundle/share/applications/"
cp packaging/install.sh "$bundle/install.sh"
cp packaging/BUNDLE_README.txt "$bundle/README.txt"
# ffmpeg (merging a streamed video's audio and video): the system's (`apt install ffmpeg`; the .deb depends on
# it), or a self-contained (static) build given here, shipped beside the executable, where the app looks first
# (app/browser/streamsave.py: find_ffmpeg). The system's own binary is not copied: it needs ~200 shared libraries.
if [ -n "${BROWSERPILOT_BUNDLE_FFMPEG:-}" ]; then
  install -m 0755 "$BROWSERPILOT_BUNDLE_FFMPEG" "$bundle/ffmpeg"
  echo "package: ffmpeg from $BROWSERPILOT_BUNDLE_FFMPEG shipped in the bundle"
fi

echo "package: tarball"
rm -rf "$BUILD/$name" && mv "$bundle" "$BUILD/$name"
tar -C "$BUILD" -czf "dist/$name.tar.gz" "$name"
echo "package: dist/$name.tar.gz ($(du -h "dist/$name.tar.gz" | cut -f1); unpacked $(du -sh "$BUILD/$name" | cut -f1))"

echo "package: .deb"
if command -v dpkg-deb >/dev/null; then
  packaging/build_deb.sh "$BUILD/$name" "$version"
else
  echo "package: no dpkg-deb here: no .deb made" >&2
fi
