#!/usr/bin/env bash
# Put BrowserPilot in the desktop's menu: its desktop entry and icons go into the user's XDG data folder
# ($XDG_DATA_HOME, else ~/.local/share); nothing outside it is touched and no root is needed.
#
#   ./install.sh                 from an unpacked bundle: the entry runs the `browserpilot` next to this script
#   ./install.sh --uninstall     remove the entry and the icons again
#   install.sh --exec PATH --icons DIR --desktop FILE    (what `./dev.sh install-desktop` passes for a checkout)
#
# Afterwards update-desktop-database and gtk-update-icon-cache run when they are installed, so menus that
# cache see the entry at once.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
exec_path="$here/browserpilot"
icons="$here/share/icons/hicolor"
desktop="$here/share/applications/browserpilot.desktop"
uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --exec) exec_path=$2; shift 2 ;;
    --icons) icons=$2; shift 2 ;;
    --desktop) desktop=$2; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

data=${XDG_DATA_HOME:-${HOME:?neither XDG_DATA_HOME nor HOME is set}/.local/share}
apps="$data/applications"
hicolor="$data/icons/hicolor"
entry="$apps/browserpilot.desktop"

refresh() {
  if command -v update-desktop-database >/dev/null; then update-desktop-database -q "$apps" || true; fi
  if command -v gtk-update-icon-cache >/dev/null && [ -f "$hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t -f "$hicolor" || true
  fi
}

if [ "$uninstall" = 1 ]; then
  rm -f "$entry"
  find "$hicolor" -path "*/apps/browserpilot.*" -delete 2>/dev/null || true
  refresh
  echo "install.sh: removed $entry and its icons"
  exit 0
fi

exec_path=$(cd "$(dirname "$exec_path")" && pwd)/$(basename "$exec_path")
[ -x "$exec_path" ] || { echo "install.sh: not an executable: $exec_path" >&2; exit 1; }
[ -f "$desktop" ] || { echo "install.sh: no desktop entry at $desktop" >&2; exit 1; }
[ -f "$icons/scalable/apps/browserpilot.svg" ] || { echo "install.sh: no icons under $icons" >&2; exit 1; }

# The Exec value as the desktop entry spec wants it: plain when it is only safe characters, otherwise in double
# quotes with \ " ` $ escaped; then every backslash doubled (string escaping) and % written as %%.
quoted=$exec_path
if [[ ! $exec_path =~ ^[A-Za-z0-9/._+-]+$ ]]; then
  quoted=${exec_path//\\/\\\\}; quoted=${quoted//\"/\\\"}; quoted=${quoted//\`/\\\`}; quoted=${quoted//\$/\\\$}
  quoted="\"$quoted\""
fi
quoted=${quoted//\\/\\\\}; quoted=${quoted//%/%%}

mkdir -p "$apps"
tmp=$(mktemp "$apps/.browserpilot.desktop.XXXXXX")
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    Exec=*) printf 'Exec=%s\n' "$quoted" ;;
    *) printf '%s\n' "$line" ;;
  esac
done < "$desktop" > "$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$entry"

count=0
for file in "$icons"/*/apps/browserpilot.*; do
  size=$(basename "$(dirname "$(dirname "$file")")")
  install -D -m 644 "$file" "$hicolor/$size/apps/$(basename "$file")"
  count=$((count + 1))
done
refresh
echo "install.sh: installed $entry (Exec=$exec_path) and $count icons under $hicolor"
