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
# ffmpeg (merging streamed videos) is shipped inside: by default the self-contained build of the pinned
# imageio-ffmpeg wheel (FFMPEG_WHEEL_REQ below, fetched once into build/ffmpeg);
# BROWSERPILOT_BUNDLE_FFMPEG=/path/to/static/ffmpeg ships that one instead, =system ships none (the system's is
# then used, and the .deb depends on the ffmpeg package).
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
# A static ffmpeg (linked to nothing but glibc; GPL-3, see packaging/deb/copyright), as imageio-ffmpeg ships it.
FFMPEG_WHEEL_REQ="imageio-ffmpeg==0.8.1"
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
# ffmpeg (merging a streamed video's audio and video): a self-contained (static) build shipped beside the
# executable, where the app looks first (app/browser/streamsave.py: find_ffmpeg). The system's own binary is not
# copied: it needs ~200 shared libraries. yt-dlp needs no ffprobe (it probes with ffmpeg when there is none).
ffmpeg_from=${BROWSERPILOT_BUNDLE_FFMPEG:-wheel}
case "$ffmpeg_from" in
  system)
    echo "package: no ffmpeg inside the bundle: the system's is used (the .deb depends on the ffmpeg package)" ;;
  wheel)
    if ! ls build/ffmpeg/imageio_ffmpeg-*.whl >/dev/null 2>&1; then
      "$VENV/bin/python" -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
        -d build/ffmpeg "$FFMPEG_WHEEL_REQ"
    fi
    wheel_ffmpeg=$(ls build/ffmpeg/imageio_ffmpeg-*.whl | head -1)
    member=$("$VENV/bin/python" - "$wheel_ffmpeg" "$bundle/ffmpeg" <<'PY'
import shutil, sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
name = next(n for n in wheel.namelist() if "/binaries/ffmpeg-linux" in n)
with wheel.open(name) as source, open(sys.argv[2], "wb") as target:
    shutil.copyfileobj(source, target)
print(name.rsplit("/", 1)[-1])
PY
)
    chmod 0755 "$bundle/ffmpeg"
    "$bundle/ffmpeg" -hide_banner -version >/dev/null || { echo "package: the shipped ffmpeg does not run" >&2; exit 1; }
    echo "package: ffmpeg shipped in the bundle ($member from $(basename "$wheel_ffmpeg"))" ;;
  *)
    install -m 0755 "$ffmpeg_from" "$bundle/ffmpeg"
    echo "package: ffmpeg from $ffmpeg_from shipped in the bundle" ;;
esac

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
