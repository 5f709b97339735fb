"""The same events table for the apps whose own code saves into SQLite (Streamlit, Gradio, Panel)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from bench.realapps.common import rows

SCHEMA = ("CREATE TABLE event (id INTEGER PRIMARY KEY, title TEXT NOT NULL, category TEXT NOT NULL, "
          "starts_on TEXT NOT NULL, public INTEGER NOT NULL, notes TEXT NOT NULL)")
SEEDED = [("Spring kickoff", "Conference", "2026-02-02", 1, "seeded"),
          ("Data hack", "Hackathon", "2026-02-09", 1, "seeded"),
          ("Intro to SQL", "Training", "2026-02-20", 1, "seeded")]


def seed(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(SCHEMA)
        conn.executemany("INSERT INTO event (title, category, starts_on, public, notes) VALUES (?, ?, ?, ?, ?)",
                         SEEDED)


def events(db: Path) -> list[dict[str, Any]]:
    found = rows(db, "SELECT id, title, category, starts_on, public, notes FROM event")
    for row in found:
        row["public"] = bool(row["public"])
    return found
