"""The built-in agent: a model drives one tab through the operations registry, and what worked becomes a workflow.

Modules, one job each: `settings` (provider, model, key, budgets), `secrets` (substitution and redaction), `records`
(agent run records and their store), `model` (the provider-neutral model port), `model_anthropic` and
`model_openai` (its adapters: Anthropic's Messages API, any OpenAI-compatible Chat Completions endpoint),
`providers` (opening the chosen one, listing an endpoint's models), `tools`
(the registry as the model's tools), `loop` (observe, decide, act), `judge` (the separate verdict call),
`to_workflow` (steps to a workflow document), `runner` (one run end to end), `ops` (`agent_run`), `cli`.
Only `runner`, `ops` and `cli` touch the app; `secrets`, `records` and `to_workflow` are pure.
"""
