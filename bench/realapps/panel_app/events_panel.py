"""The corpus's Panel app (Bokeh 3 web components: every widget is drawn inside a shadow root): a text input, a
select, a date picker (flatpickr), a checkbox, a rich-text editor (Quill) and a Save button whose click goes
through Bokeh's WebSocket to the server, which saves into SQLite.

BENCH_DB: the SQLite file; BENCH_DESIGN: bootstrap, material or fast (Panel's designs: the same widgets in
another design system).
"""
import datetime
import os
import sqlite3

import panel as pn

pn.extension("texteditor", design=os.environ.get("BENCH_DESIGN", "bootstrap"))

DB = os.environ["BENCH_DB"]
CATEGORIES = ["Conference", "Hackathon", "Meetup night", "Training", "Webinar series", "Workshop",
              "Workshop online"]


def page():
    title = pn.widgets.TextInput(name="Title")
    category = pn.widgets.Select(name="Category", options=CATEGORIES)
    starts_on = pn.widgets.DatePicker(name="Starts on", value=datetime.date(2026, 3, 1))
    public = pn.widgets.Checkbox(name="Public")
    notes = pn.widgets.TextEditor(placeholder="Notes", height=160, width=500)
    save = pn.widgets.Button(name="Save event", button_type="primary")
    status = pn.pane.Markdown("")

    def on_save(_event):
        with sqlite3.connect(DB) as conn:
            cursor = conn.execute(
                "INSERT INTO event (title, category, starts_on, public, notes) VALUES (?, ?, ?, ?, ?)",
                (title.value, category.value, str(starts_on.value), int(public.value), notes.value))
        status.object = f"Saved event #{cursor.lastrowid}: {title.value}"

    save.on_click(on_save)
    return pn.Column("# Bench events", title, category, starts_on, public, pn.pane.Markdown("**Notes**"), notes,
                     save, status, width=600)


page().servable(title="Bench events")
