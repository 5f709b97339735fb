"""Making the side panel's forms fit its width: the panel scrolls only up and down, so no field may ask for
more width than it has. Combo boxes stop growing with their longest item (their text is elided instead),
and nested forms put their labels above their fields."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout

COMBO_CHARACTERS = 8   # the width, in characters, a combo box asks for at least


def narrow_combo(combo: QComboBox) -> QComboBox:
    """`combo` asks for a few characters' width (not its longest item's); a form row still widens it."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(COMBO_CHARACTERS)
    return combo


def narrow_form(form: QFormLayout, *, labels_above: bool = False) -> QFormLayout:
    """Labels beside their fields while they fit (else above them), or always above (`labels_above`: nested
    forms, where a column of labels at each level would add up)."""
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows if labels_above
                          else QFormLayout.RowWrapPolicy.WrapLongRows)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    return form
