"""Where the app is wired: the operations registry built from every layer's operations, the shell that joins the
browser, the stores, the MCP server, the windows and the desktop, and the Qt application that runs it (the GUI's,
a headless one, a worker's). The top layer: it may import anything, nothing imports it but the command line."""
