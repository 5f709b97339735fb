"""Serve a Roundup tracker through Roundup's WSGI dispatcher on the standard library's WSGI server (a deployment
Roundup documents): roundup-server refuses to run as root, and these machines run everything as root.
Usage: serve.py TRACKER HOST PORT (the tracker's `web` option must be http://HOST:PORT/)."""
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from roundup.cgi.wsgi_handler import RequestDispatcher


class ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


tracker, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
make_server(host, port, RequestDispatcher(tracker), server_class=ThreadingServer,
            handler_class=QuietHandler).serve_forever()
