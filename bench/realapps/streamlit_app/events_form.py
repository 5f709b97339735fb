"""The corpus's Streamlit app (React): a form that saves an event into SQLite (BENCH_DB) when submitted.

A text input, a select box (Base Web's custom select), a date input (Base Web's date picker), a checkbox, a
text area and a submit button; the save goes through Streamlit's WebSocket (a rerun on the server).
"""
import datetime
import os
import sqlite3

import streamlit as st

DB = os.environ["BENCH_DB"]
CATEGORIES = ["Conference", "Hackathon", "Meetup night", "Training", "Webinar series", "Workshop",
              "Workshop online"]

st.title("Bench events")
with st.form("new_event", clear_on_submit=True):
    title = st.text_input("Title")
    category = st.selectbox("Category", CATEGORIES)
    starts_on = st.date_input("Starts on", value=datetime.date(2026, 3, 1))
    public = st.checkbox("Public")
    notes = st.text_area("Notes")
    submitted = st.form_submit_button("Save event")
if submitted:
    with sqlite3.connect(DB) as conn:
        cursor = conn.execute("INSERT INTO event (title, category, starts_on, public, notes) VALUES (?, ?, ?, ?, ?)",
                              (title, category, starts_on.isoformat(), int(public), notes))
    st.success(f"Saved event #{cursor.lastrowid}: {title}")
with sqlite3.connect(DB) as conn:
    st.write(f"{conn.execute('SELECT count(*) FROM event').fetchone()[0]} events")
