"""The MCP server: every operation of the registry as a tool for agent clients, secure by default.

- `config`: `mcp.json` (URL, token, pid; mode 0600) and ready-to-paste client configurations;
- `profiles`: which tools a client is shown (the groups operations declare; core, full, original; a session's
  selection, which `tools_enable` grows);
- `tools`: operations as MCP tools (schemas from the pydantic models, descriptions, annotations, results);
- `result_text`: a result as the model reads it (a header line, the payload as plain text);
- `server`: streamable HTTP on 127.0.0.1 in its own thread, Host/Origin and bearer-token checks, calls
  handed to the app's main loop;
- `quick`: the private line-JSON endpoint the stdio bridge (and CLI forwarding) use: the same tools, calls and
  results, up before the SDK has loaded (an app the bridge started answers its first call without the SDK);
- `service`: the server as the app and its settings dialog see it (on/off, status, token);
- `client`: reaching a running app from another process (CLI forwarding, the bridge), starting it headless;
- `bridge`: `browserpilot mcp`, a stdio server (plain JSON-RPC, the SDK server's answers) that forwards to the
  running app;
- `idle`: the idle exit of an app the bridge started (who started it, its bridge clients, when it quits).

None of them imports the `mcp` SDK when it loads; each imports it when it first needs its types (the HTTP
server's thread, `ToolCatalog.tools`, `tool_result`, the client's HTTP sessions, a bridge talking to an older
app without the private endpoint).
"""
