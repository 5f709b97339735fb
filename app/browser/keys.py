"""Keys as the input driver (app/browser/input_driver.py) sends them: modifier and key names, shortcuts
("Ctrl+Shift+K", "Enter", "PageDown"), the Qt key and Shift for typing a character on a US keyboard, and text cut
into graphemes (an emoji with its modifiers, a flag, a letter with its accents is one key press)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from PySide6.QtCore import Qt

_K = Qt.Key
_M = Qt.KeyboardModifier

MODIFIERS: dict[str, tuple[Qt.KeyboardModifier, Qt.Key]] = {
    "ctrl": (_M.ControlModifier, _K.Key_Control),
    "control": (_M.ControlModifier, _K.Key_Control),
    "shift": (_M.ShiftModifier, _K.Key_Shift),
    "alt": (_M.AltModifier, _K.Key_Alt),
    "option": (_M.AltModifier, _K.Key_Alt),
    "meta": (_M.MetaModifier, _K.Key_Meta),
    "cmd": (_M.MetaModifier, _K.Key_Meta),
    "command": (_M.MetaModifier, _K.Key_Meta),
    "super": (_M.MetaModifier, _K.Key_Meta),
    "win": (_M.MetaModifier, _K.Key_Meta),
}

# Named keys -> (Qt key, text the key produces). Only Enter and Space produce text (Enter's keypress is
# part of what pages expect, e.g. to submit); Tab, Backspace, Escape… fire keydown/keyup only, as in Chrome.
NAMED_KEYS: dict[str, tuple[Qt.Key, str]] = {
    "enter": (_K.Key_Return, "\r"),
    "return": (_K.Key_Return, "\r"),
    "tab": (_K.Key_Tab, ""),
    "esc": (_K.Key_Escape, ""),
    "escape": (_K.Key_Escape, ""),
    "backspace": (_K.Key_Backspace, ""),
    "delete": (_K.Key_Delete, ""),
    "del": (_K.Key_Delete, ""),
    "insert": (_K.Key_Insert, ""),
    "arrowup": (_K.Key_Up, ""),
    "up": (_K.Key_Up, ""),
    "arrowdown": (_K.Key_Down, ""),
    "down": (_K.Key_Down, ""),
    "arrowleft": (_K.Key_Left, ""),
    "left": (_K.Key_Left, ""),
    "arrowright": (_K.Key_Right, ""),
    "right": (_K.Key_Right, ""),
    "home": (_K.Key_Home, ""),
    "end": (_K.Key_End, ""),
    "pageup": (_K.Key_PageUp, ""),
    "pgup": (_K.Key_PageUp, ""),
    "pagedown": (_K.Key_PageDown, ""),
    "pgdn": (_K.Key_PageDown, ""),
    "space": (_K.Key_Space, " "),
    "plus": (_K.Key_Plus, "+"),
    **{f"f{n}": (Qt.Key(int(_K.Key_F1) + n - 1), "") for n in range(1, 13)},
}

# US layout: characters typed with Shift held (letters are handled separately).
_US_SHIFTED = set('~!@#$%^&*()_+{}|:"<>?')
# A key event carries at most this many UTF-16 code units of text into Chromium (its buffer holds 4 and
# needs a terminating zero); longer graphemes are committed through the input method path.
MAX_KEY_TEXT_UNITS = 3


def modifier_names(modifiers: str | Iterable[str]) -> list[str]:
    names = [m for m in modifiers.split("+")] if isinstance(modifiers, str) else list(modifiers)
    result: list[str] = []
    for raw in names:
        name = raw.strip().lower()
        if not name:
            continue
        if name not in MODIFIERS:
            raise ValueError(f"unknown modifier {raw!r}; use any of: {', '.join(MODIFIERS)}")
        if MODIFIERS[name][1] not in (MODIFIERS[n][1] for n in result):
            result.append(name)
    return result


def char_key(char: str) -> tuple[int, bool]:
    """The Qt key for typing `char` (one grapheme) and whether Shift is held for it on a US keyboard."""
    if len(char) == 1 and " " <= char <= "~":
        if "a" <= char <= "z":
            return ord(char.upper()), False
        if "A" <= char <= "Z":
            return ord(char), True
        return ord(char), char in _US_SHIFTED
    if len(char) == 1:  # one code point: Qt keys for letters are their uppercase form (é -> É)
        upper = char.upper()
        return ord(upper if len(upper) == 1 else char), False
    return 0, False  # several code points: Chromium takes the key from the text


def _key_names() -> str:
    return ", ".join(sorted(set(NAMED_KEYS))) + ", or a single character"


def parse_shortcut(shortcut: str) -> tuple[list[str], Qt.Key | int, str, bool]:
    """`"ctrl+shift+k"` -> (modifier names, Qt key, text, shift implied by the character).

    Names are case-insensitive ("Ctrl+A" is ctrl+a); a lone uppercase letter ("A") or US-shifted symbol
    ("!") implies Shift.

    Raises `ValueError` naming the unknown part and listing accepted names.
    """
    if not isinstance(shortcut, str) or not shortcut:
        raise ValueError("empty key; give a key name such as 'enter' or 'ctrl+a'")
    if shortcut == "+":
        parts = ["+"]
    elif shortcut.endswith("++"):
        parts = shortcut[:-2].split("+") + ["+"]
    else:
        parts = shortcut.split("+")
    *mod_parts, key_part = parts
    if any(not p.strip() for p in mod_parts):
        raise ValueError(f"malformed shortcut {shortcut!r}; write it like 'ctrl+shift+k'")
    mods = modifier_names(mod_parts)
    name = key_part if len(key_part) == 1 else key_part.strip().lower()
    if name in NAMED_KEYS:
        key, text = NAMED_KEYS[name]
        return mods, key, text, False
    if len(graphemes(key_part)) == 1 and key_part not in ("\n", "\r", "\t"):
        key, shifted = char_key(key_part)
        if any(MODIFIERS[m][1] != _K.Key_Shift for m in mods):
            # "Ctrl+A" means ctrl+a, as people write it; only a lone "A" implies Shift.
            return mods, key, key_part.lower(), False
        return mods, key, key_part, shifted
    if name in MODIFIERS:
        raise ValueError(f"{shortcut!r} has only modifiers; add the key to press, e.g. '{name}+a'")
    raise ValueError(f"unknown key {key_part!r} in {shortcut!r}; use one of: {_key_names()}")


# -- graphemes -----------------------------------------------------------------------------------------
_ZWJ = "\u200d"


def _extends(char: str) -> bool:
    """True if `char` belongs to the grapheme before it (marks, variation selectors, skin tones, tags)."""
    cp = ord(char)
    return (unicodedata.category(char) in ("Mn", "Me", "Mc")
            or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF  # variation selectors
            or 0x1F3FB <= cp <= 0x1F3FF  # emoji skin tones
            or 0xE0020 <= cp <= 0xE007F)  # tag characters (subdivision flags)


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def graphemes(text: str) -> list[str]:
    """Split text into user-perceived characters (close to UAX #29 for what people type: combining marks,
    emoji modifiers, ZWJ sequences, flags, keycaps, CR LF)."""
    clusters: list[str] = []
    i = 0
    while i < len(text):
        start = i
        char = text[i]
        i += 1
        if char == "\r" and i < len(text) and text[i] == "\n":
            i += 1
        elif _regional(char) and i < len(text) and _regional(text[i]):
            i += 1
        elif char not in "\r\n":
            while i < len(text):
                nxt = text[i]
                if _extends(nxt):
                    i += 1
                elif nxt == _ZWJ:
                    i += 2 if i + 1 < len(text) and text[i + 1] not in "\r\n" else 1
                else:
                    break
        clusters.append(text[start:i])
    return clusters


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2



