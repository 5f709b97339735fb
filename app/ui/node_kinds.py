"""The names the UI shows for node types.

In English a node type is shown as it is written in the workflow file ("goto", "if-else"); a translation gives it
the name its users know: in Chinese the original app's own words (打开, 点击, 判断, 循环…). The file keeps the type.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

CONTEXT = "NodeKind"

# Listed for pyside6-lupdate (one literal per type, in the order of workflows.nodes.NODE_TYPES).
KIND_NAMES = (
    QT_TRANSLATE_NOOP("NodeKind", "start"), QT_TRANSLATE_NOOP("NodeKind", "end"),
    QT_TRANSLATE_NOOP("NodeKind", "if-else"), QT_TRANSLATE_NOOP("NodeKind", "loop"),
    QT_TRANSLATE_NOOP("NodeKind", "goto"), QT_TRANSLATE_NOOP("NodeKind", "click"),
    QT_TRANSLATE_NOOP("NodeKind", "fill"), QT_TRANSLATE_NOOP("NodeKind", "select"),
    QT_TRANSLATE_NOOP("NodeKind", "press"), QT_TRANSLATE_NOOP("NodeKind", "scroll"),
    QT_TRANSLATE_NOOP("NodeKind", "swipe"), QT_TRANSLATE_NOOP("NodeKind", "upload"),
    QT_TRANSLATE_NOOP("NodeKind", "wait"), QT_TRANSLATE_NOOP("NodeKind", "extract"),
    QT_TRANSLATE_NOOP("NodeKind", "export"), QT_TRANSLATE_NOOP("NodeKind", "script"),
    QT_TRANSLATE_NOOP("NodeKind", "code"), QT_TRANSLATE_NOOP("NodeKind", "cdp"),
    QT_TRANSLATE_NOOP("NodeKind", "http-request"), QT_TRANSLATE_NOOP("NodeKind", "download"),
    QT_TRANSLATE_NOOP("NodeKind", "handoff"), QT_TRANSLATE_NOOP("NodeKind", "captcha"),
)


def kind_label(kind: str) -> str:
    """The shown name of a node type: the type itself in English, its translation otherwise (an unknown type
    stays as it is)."""
    return QCoreApplication.translate(CONTEXT, kind)


def kind_with_name(kind: str) -> str:
    """The shown name with the type beside it when they differ ("点击 click", but "CDP"), so a search by either
    finds it."""
    label = kind_label(kind)
    return label if label.casefold() == kind.casefold() else f"{label} {kind}"
