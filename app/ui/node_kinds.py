"""The names the UI shows for node types and their fields.

Each node class declares its label (`workflows.nodes`: `label = QT_TRANSLATE_NOOP("NodeKind", "goto")`, English,
which is the type as it is written in the workflow file); the UI translates it under the context "NodeKind", so
that in Chinese a type has the name its users know: the original app's own words (打开, 点击, 判断, 循环…).
packaging/compile_translations.py collects the labels from workflows/nodes/ into the catalogue. The file keeps
the type.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from workflows.nodes import NODE_TYPES
from workflows.nodes.base import FIELD_CONTEXT, FIELD_LABELS, LABEL_CONTEXT, SUMMARY_CONTEXT

CONTEXT = LABEL_CONTEXT

KIND_NAMES = tuple(model.label for model in NODE_TYPES.values())
"""The English labels of the node types this app was started with (in the order of NODE_TYPES)."""


def kind_label(kind: str) -> str:
    """The shown name of a node type: its label in English, its translation otherwise (an unknown type stays
    as it is)."""
    model = NODE_TYPES.get(kind)
    return QCoreApplication.translate(CONTEXT, model.label if model is not None else kind)


def kind_with_name(kind: str) -> str:
    """The shown name with the type beside it when they differ ("点击 click", but "CDP"), so a search by either
    finds it."""
    label = kind_label(kind)
    return label if label.casefold() == kind.casefold() else f"{label} {kind}"


def field_label(key: str) -> str:
    """A node field's (or a list record's) name for a person, in their language; a key without one stays as it
    is."""
    english = FIELD_LABELS.get(key)
    return QCoreApplication.translate(FIELD_CONTEXT, english) if english is not None else key


def kind_summary(kind: str) -> str:
    """What a node type does, in a sentence in the person's language ("" for an unknown type)."""
    model = NODE_TYPES.get(kind)
    return QCoreApplication.translate(SUMMARY_CONTEXT, model.summary) if model is not None and model.summary else ""
