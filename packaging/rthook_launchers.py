"""PyInstaller runtime hook: put the bundle's launcher stand-ins (packaging/launchers/) first on PATH.

Qt opens folders and files through `xdg-open`, yt-dlp merges streamed videos with `ffmpeg`; the stand-ins start
the real ones with the system's library path instead of the bundle's (see packaging/launchers/xdg-open). Runs
before the app's own code, only in the bundle.
"""

import os
import sys

_launchers = os.path.join(getattr(sys, "_MEIPASS", ""), "launchers")
if os.path.isdir(_launchers):
    os.environ["PATH"] = _launchers + os.pathsep + os.environ.get("PATH", os.defpath)
