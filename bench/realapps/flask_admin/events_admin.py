"""The corpus's Flask-Admin site: events and categories in SQLite, every Flask-Admin template mode.

Environment: BENCH_DB (the SQLite file), BENCH_MODE (bootstrap2, bootstrap3, bootstrap4: Flask-Admin 2 has only
bootstrap4), BENCH_SEED=1 to create the tables and the same data and exit, BENCH_HOST / BENCH_PORT to serve.
"""
import datetime
import os

from flask import Flask, redirect
from flask_admin import Admin
from flask_admin.contrib.sqla import ModelView
from flask_sqlalchemy import SQLAlchemy

app = Flask(__name__)
app.config.update(SQLALCHEMY_DATABASE_URI="sqlite:///" + os.environ["BENCH_DB"], SECRET_KEY="bench-not-secret",
                  SQLALCHEMY_TRACK_MODIFICATIONS=False)
db = SQLAlchemy(app)

KINDS = [("talk", "Talk"), ("workshop", "Workshop"), ("meetup", "Meetup"), ("webinar", "Webinar")]


class Category(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(50), unique=True, nullable=False)

    def __str__(self):
        return self.name


class Event(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    title = db.Column(db.String(100), nullable=False)
    category_id = db.Column(db.Integer, db.ForeignKey("category.id"), nullable=False)
    category = db.relationship(Category)
    kind = db.Column(db.String(20), nullable=False, default="talk")
    starts_on = db.Column(db.Date, nullable=False)
    public = db.Column(db.Boolean, nullable=False, default=False)
    notes = db.Column(db.Text, nullable=False, default="")


class EventView(ModelView):
    column_list = ["title", "category", "kind", "starts_on", "public"]
    form_columns = ["title", "category", "kind", "starts_on", "public", "notes"]
    form_choices = {"kind": KINDS}
    form_args = {"starts_on": {"label": "Starts on", "default": datetime.date(2026, 3, 1)},
                 "category": {"query_factory": lambda: Category.query.order_by(Category.name)}}


class CategoryView(ModelView):
    form_columns = ["name"]


admin_kwargs = {"name": "Bench events"}
mode = os.environ.get("BENCH_MODE", "bootstrap4")
try:
    admin = Admin(app, template_mode=mode, **admin_kwargs)
except TypeError:  # Flask-Admin 2 chooses its theme with an object
    from flask_admin.theme import Bootstrap4Theme
    admin = Admin(app, theme=Bootstrap4Theme(), **admin_kwargs)
admin.add_view(EventView(Event, db.session))
admin.add_view(CategoryView(Category, db.session))


@app.route("/")
def index():
    return redirect("/admin/")


def seed():
    with app.app_context():
        db.create_all()
        names = ["Conference", "Hackathon", "Meetup night", "Training", "Webinar series", "Workshop",
                 "Workshop online"]
        categories = {name: Category(name=name) for name in names}
        db.session.add_all(categories.values())
        for title, category, kind, day in [("Spring kickoff", "Conference", "talk", 2),
                                            ("Data hack", "Hackathon", "meetup", 9),
                                            ("Intro to SQL", "Training", "workshop", 20)]:
            db.session.add(Event(title=title, category=categories[category], kind=kind,
                                 starts_on=datetime.date(2026, 2, day), public=True, notes="seeded"))
        db.session.commit()


if __name__ == "__main__":
    if os.environ.get("BENCH_SEED"):
        seed()
    else:
        app.run(host=os.environ["BENCH_HOST"], port=int(os.environ["BENCH_PORT"]), use_reloader=False)
