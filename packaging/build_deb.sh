#!/usr/bin/env bash
# The .deb of a built bundle (called by build_bundle.sh; `./dev.sh package` makes both):
#
#   packaging/build_deb.sh BUNDLE_DIR VERSION   -> dist/browserpilot_VERSION_amd64.deb
#
# Layout: the bundle under /opt/browserpilot (it is self-contained: Python, Qt and Chromium inside), the
# command /usr/bin/browserpilot (a symlink into it), the desktop entry in /usr/share/applications, the icons in
# /usr/share/icons/hicolor, a manual page, the copyright file and the lintian overrides that
# packaging/README.md justifies. No maintainer scripts: dpkg's triggers refresh the menu and the icon cache, and
# removing the package never touches a user's data folder (~/.local/share/BrowserPilot). Built with
# `dpkg-deb --root-owner-group`, so no fakeroot is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:?bundle folder}
version=${2:?version}
root=build/deb/root
rm -rf build/deb && mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications" \
  "$root/usr/share/doc/browserpilot" "$root/usr/share/man/man1" "$root/usr/share/lintian/overrides"

cp -a "$bundle" "$root/opt/browserpilot"
rm -f "$root/opt/browserpilot/install.sh"  # the tarball's per-user installer; the package puts things in place
mv "$root/opt/browserpilot/share/icons" "$root/usr/share/icons"
rm -rf "$root/opt/browserpilot/share"
# Chromium makes Qt's resources/locales folder at start when it can (run as root: `sudo browserpilot`); the
# package owns it, so that `apt remove` does not leave /opt/browserpilot behind for one empty folder.
mkdir -p "$root/opt/browserpilot/_internal/PySide6/Qt/resources/locales"
ln -s /opt/browserpilot/browserpilot "$root/usr/bin/browserpilot"
install -m 0644 packaging/browserpilot.desktop "$root/usr/share/applications/browserpilot.desktop"
install -m 0644 packaging/deb/copyright "$root/usr/share/doc/browserpilot/copyright"
gzip -9n -c packaging/deb/changelog > "$root/usr/share/doc/browserpilot/changelog.gz"
sed "s/@VERSION@/$version/" packaging/deb/browserpilot.1 | gzip -9n > "$root/usr/share/man/man1/browserpilot.1.gz"
install -m 0644 packaging/deb/lintian-overrides "$root/usr/share/lintian/overrides/browserpilot"
# What lintian expects of modes: no executable bit on data or shared libraries, none missing on programs.
find "$root/opt" "$root/usr/share" -type d -exec chmod 0755 {} +
find "$root/opt" -type f ! -perm -u+x -exec chmod 0644 {} +
find "$root/opt" -type f -perm -u+x -exec chmod 0755 {} +
find "$root/opt" -type f \( -name '*.so' -o -name '*.so.*' \) -exec chmod 0644 {} +
# The shared objects as Debian's own packages ship them (dh_strip's options): no symbols, no build notes. Not
# the executables: PyInstaller's launcher carries its archive at its end.
find "$root/opt" -type f \( -name '*.so' -o -name '*.so.*' \) -exec \
  strip --strip-unneeded --remove-section=.comment --remove-section=.note {} + 2>/dev/null || true
# Python's libraries arrive with the build machine's Python prefix as RUNPATH (e.g. a pyenv under /root): the
# bundle finds its libraries itself, so the path goes (patchelf, which ./dev.sh setup installs).
if command -v patchelf >/dev/null; then
  while IFS= read -r -d '' lib; do
    if [ -n "$(patchelf --print-rpath "$lib" 2>/dev/null)" ]; then patchelf --remove-rpath "$lib"; fi
  done < <(find "$root/opt" -type f \( -name '*.so' -o -name '*.so.*' \) -print0)
else
  echo "package: no patchelf here: the libraries keep the build machine's RUNPATH (lintian will say so)" >&2
fi

installed_kb=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
# ffmpeg: shipped inside the bundle (build_bundle.sh), else the system's package is a dependency.
ffmpeg_depends=", ffmpeg"
[ -x "$root/opt/browserpilot/ffmpeg" ] && ffmpeg_depends=""
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$installed_kb/" -e "s/@FFMPEG_DEPENDS@/$ffmpeg_depends/" \
  packaging/deb/control > "$root/DEBIAN/control"
mkdir -p dist
deb="dist/browserpilot_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "package: $deb ($(du -h "$deb" | cut -f1); installed $((installed_kb / 1024)) MB)"
