"""The node-graph editor of workflows, one job per module:

- `model`: the document as JSON (unknown fields kept), its levels (top, loop bodies) and change signals;
  `layout` and `rules`: pure helpers (left-to-right layout, the runtime's connection rules, new ids).
- `commands`: one `QUndoCommand` per kind of edit; `controller`: every edit as commands on one `QUndoStack`.
- `items`, `scene`, `view`, `minimap`: the canvas, which only subscribes to the model.
- `forms`, `templates`, `locator_editor`, `node_menu`, `validation`: the side panel and lists.
- `run_view`: live node states of a run (or a past run's overlay); `window`: the editor window;
  `editors`: the open editor windows, one per workflow.
"""
