"""The corpus's Gradio app (Svelte): a form whose Save goes through Gradio's server queue into SQLite.

BENCH_DB: the SQLite file; BENCH_HOST / BENCH_PORT: where to serve. A text box, a dropdown (Gradio's own
custom select), a date typed as text, a checkbox, a multi-line text box and a Save button.
"""
import os
import sqlite3

import gradio as gr

DB = os.environ["BENCH_DB"]
CATEGORIES = ["Conference", "Hackathon", "Meetup night", "Training", "Webinar series", "Workshop",
              "Workshop online"]


def save_event(title, category, starts_on, public, notes):
    print(f"save_event called: {title!r} {category!r}", flush=True)  # the server log says whether the click arrived
    with sqlite3.connect(DB) as conn:
        cursor = conn.execute("INSERT INTO event (title, category, starts_on, public, notes) VALUES (?, ?, ?, ?, ?)",
                              (title, category or "", starts_on, int(bool(public)), notes))
    return f"Saved event #{cursor.lastrowid}: {title}"


with gr.Blocks(title="Bench events") as demo:
    gr.Markdown("# Bench events")
    title = gr.Textbox(label="Title")
    category = gr.Dropdown(label="Category", choices=CATEGORIES, value=None)
    starts_on = gr.Textbox(label="Starts on", placeholder="YYYY-MM-DD")
    public = gr.Checkbox(label="Public")
    notes = gr.Textbox(label="Notes", lines=4)
    save = gr.Button("Save event", variant="primary")
    result = gr.Markdown()
    save.click(save_event, inputs=[title, category, starts_on, public, notes], outputs=result)

if __name__ == "__main__":
    demo.queue().launch(server_name=os.environ["BENCH_HOST"], server_port=int(os.environ["BENCH_PORT"]),
                        show_api=False, prevent_thread_lock=False)
