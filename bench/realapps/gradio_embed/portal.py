"""A portal page on another host that embeds an application in an iframe (a cross-origin frame), the way
sites embed forms, payment fields and hosted demos. BENCH_HOST / BENCH_PORT: where to serve; BENCH_FRAME: the
embedded application's address."""
import html
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Community portal</title>
<style>body {{ font: 16px sans-serif; margin: 0 }} header {{ background: #234; color: white; padding: 12px 20px }}
main {{ display: flex; gap: 20px; padding: 20px }} aside {{ width: 200px }}
iframe {{ border: 1px solid #ccc; width: 900px; height: 1100px }}</style></head>
<body><header><h1>Community portal</h1></header>
<main><aside><h2>Events</h2><p>Propose an event with the form.</p><a href="/">Home</a></aside>
<iframe title="Event form" src="{src}"></iframe></main></body></html>"""


class Portal(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        body = PAGE.format(src=html.escape(os.environ["BENCH_FRAME"])).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer((os.environ["BENCH_HOST"], int(os.environ["BENCH_PORT"])), Portal).serve_forever()
