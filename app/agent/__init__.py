"""The built-in agent: a model drives one tab through the operations registry, and what worked becomes a workflow.

Modules, one job each: `settings` (model, key, budgets), `secrets` (substitution and redaction), `records`
(agent run records and their store), `model` (the Anthropic client on a worker thread, streaming), `tools`
(the registry as the model's tools), `loop` (observe, decide, act), `judge` (the separate verdict call),
`to_workflow` (steps to a workflow document), `runner` (one run end to end), `ops` (`agent_run`), `cli`.
Only `runner`, `ops` and `cli` touch the app; `secrets`, `records` and `to_workflow` are pure.
"""
