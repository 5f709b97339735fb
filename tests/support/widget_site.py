"""A form whose "Category" is a custom select widget from a real library (tests/fixtures/widgets, vendored from
npm: select2 3 and 4 on jQuery, Choices.js, Tom Select, react-select on React), served on a LocalServer; the
server keeps what each submission sent.

`/widget-start/<library>` links to `/widget/<library>`, the form; `?theme=new` is the same form after a redesign (another
wrapper, the label reworded, the options in another order, the field's id changed). The native <select> under
the widget (react-select has none: a hidden input carries its value) is named `category`; the form posts
`title` and `category` to `/widget-sent`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from tests.support.server import LocalServer, Request, Response

WIDGETS = Path(__file__).resolve().parent.parent / "fixtures" / "widgets"
LIBRARIES = ("select2-4", "select2-3", "choices", "tom-select", "react-select")
OPTIONS = ["Concert", "Conference", "Exhibition", "Festival", "Fair", "Lecture", "Market", "Meetup", "Party",
           "Performance", "Reading", "Screening", "Seminar", "Show", "Talk", "Tour", "Webinar", "Workshop"]
TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".gif": "image/gif"}

HEAD = {
    "select2-4": '<script src="/widgets/jquery.min.js"></script><script src="/widgets/select2-4.min.js"></script>'
                 '<link rel=stylesheet href="/widgets/select2-4.min.css">',
    "select2-3": '<script src="/widgets/jquery.min.js"></script><script src="/widgets/select2-3.min.js"></script>'
                 '<link rel=stylesheet href="/widgets/select2-3.css">',
    "choices": '<script src="/widgets/choices.min.js"></script><link rel=stylesheet href="/widgets/choices.min.css">',
    "tom-select": '<script src="/widgets/tom-select.min.js"></script>'
                  '<link rel=stylesheet href="/widgets/tom-select.min.css">',
    "react-select": '<script src="/widgets/react-select.bundle.js"></script>',
}
INIT = {
    "select2-4": "$('#{id}').select2({{width: '300px'}});",
    "select2-3": "$('#{id}').select2({{width: '300px'}});",
    "choices": "new Choices('#{id}', {{shouldSort: false, searchResultLimit: 30, itemSelectText: ''}});",
    "tom-select": "new TomSelect('#{id}', {{maxOptions: 100}});",
    "react-select": "mountReactSelect(document.getElementById('{id}-box'), {{inputId: '{id}', name: 'category', "
                    "placeholder: 'Choose…', options: {options}}});",
}


class WidgetSite:
    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self.sent: list[dict[str, list[str]]] = []
        server.route("/widget-sent", self._sent)
        for library in LIBRARIES:
            server.route(f"/widget/{library}", lambda request, library=library: self._form(request, library))
            server.route(f"/widget-start/{library}", lambda request, library=library: self._start(request, library))
        for path in WIDGETS.iterdir():
            if path.suffix in TYPES:
                server.route(f"/widgets/{path.name}", lambda request, data=path.read_bytes(), kind=TYPES[path.suffix]:
                             Response(data, content_type=kind))

    def url(self, library: str, theme: str = "") -> str:
        return self.server.url(f"/widget/{library}" + (f"?theme={theme}" if theme else ""))

    def start_url(self, library: str, theme: str = "") -> str:
        """A page before the form (the recording spans two documents): a link to it."""
        return self.server.url(f"/widget-start/{library}" + (f"?theme={theme}" if theme else ""))

    def _start(self, request: Request, library: str) -> Response:
        form = f"/widget/{library}" + (f"?theme={request.arg('theme')}" if request.arg("theme") else "")
        return Response(f'<!doctype html><title>Events</title><body style="margin:0;font:16px sans-serif">'
                        f'<p style="margin:30px"><a href="{form}">Add event</a></p></body>')

    def _sent(self, request: Request) -> Response:
        self.sent.append(parse_qs(request.body.decode(), keep_blank_values=True))
        return Response("<!doctype html><title>Saved</title><p>saved</p>")

    def _form(self, request: Request, library: str) -> Response:
        new = request.arg("theme") == "new"
        field_id = "id_kind" if new else "id_category"
        label = "Kind of event" if new else "Category"
        options = list(reversed(OPTIONS)) if new else OPTIONS
        if library == "react-select":
            import json
            data: Any = json.dumps([{"value": o.lower(), "label": o} for o in options])
            control = f'<label for={field_id}>{label}</label> <div id="{field_id}-box" style="width:300px"></div>'
        else:
            data = ""
            control = (f'<label for={field_id}>{label}</label> <select id={field_id} name=category>'
                       f'<option value="">---------</option>'
                       + "".join(f'<option value="{o.lower()}">{o}</option>' for o in options) + "</select>")
        row = f'<div class="form-row field-category"><div>{control}</div></div>'
        if new:
            row = f'<section class="card"><div class="card-body"><div class="mb-3">{row}</div></div></section>'
        init = INIT[library].format(id=field_id, options=data)
        return Response(f"""<!doctype html><html><head><title>Add event</title>{HEAD[library]}
<style>body {{ margin: 0; font: 16px sans-serif }} form {{ margin: 30px }} .form-row {{ margin: 18px 0 }}
label {{ display: inline-block; width: 120px }}</style></head><body>
<h1 style="margin:30px 30px 0">Add event</h1>
<form method=post action="/widget-sent"><div class="form-row"><label for=id_title>Title</label>
<input id=id_title name=title></div>{row}
<div class="submit-row"><input type=submit name=_save value=Save></div></form>
<script>{init}</script></body></html>""")
