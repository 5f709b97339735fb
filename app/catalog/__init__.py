"""The operations seen as tools: their descriptions and schemas, groups and profiles, call timeouts, results as
text, and the conventions every tool shares. One catalog below both the MCP server and the built-in agent, which
show the same tools. Import its modules directly: this package imports nothing, so the stdio bridge can read the
profiles and conventions without loading the registry."""
