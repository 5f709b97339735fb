"""`browserpilot agent "TASK" …`: run the built-in agent from the command line.

Like `run`, it goes to the running app when there is one (forwarded as the `agent_run` operation), otherwise
it starts the app for the run (headless with `--headless` or without a display) and stops it afterwards.
Exit status 0 only when the agent reported success (and every `--expect` held, and a `--save-workflow` was
saved, and a `--replay-after-save` replay passed), 1 otherwise, 2 on a usage error (a bad `--secret` or
`--secret-domains`, a secret with no site to be typed on). `--json` prints the agent record, with where each
secret may be typed and every refused use. Secret values never appear in the output.

The model: the saved settings, or `--provider openai --base-url URL --model NAME` for any OpenAI-compatible
endpoint (Ollama, llama.cpp's server, vLLM, LM Studio, OpenRouter…); its key comes from the saved settings or
`OPENAI_API_KEY` (and its URL, without `--base-url`, from `OPENAI_BASE_URL`) in the app that runs the agent.
`--list-models` prints the models the endpoint offers and exits.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from app.agent.secrets import SecretError, parse_secret
from app.cli.common import run_here_or_forward
from app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from plumbing.datadir import DataDir
from workflows.secret_binding import parse_domains, rules_for


def add_parser(verbs: Any, common: argparse.ArgumentParser) -> None:
    agent = verbs.add_parser("agent", parents=[common], help="let the built-in agent do a task in words")
    agent.add_argument("task", metavar="TASK", nargs="?", help='what to do, e.g. "Sign in with <secret:pw>"')
    agent.add_argument("--env", dest="agent_env", metavar="ID", default=None, help="environment (default env-default)")
    agent.add_argument("--url", metavar="URL", help="open this address in the agent's tab first")
    agent.add_argument("--secret", dest="secrets", metavar="NAME=VALUE", action="append", default=[],
                       help="a secret the task names as <secret:NAME> (repeatable); the model never sees it")
    agent.add_argument("--secret-domains", dest="secret_domains", metavar="NAME=PATTERN,…", action="append",
                       default=[], help="where that secret may be typed: shop.example.com, *.example.org, a scheme, "
                                    "host:port; * for anywhere (default: the site of --url) (repeatable)")
    agent.add_argument("--expect", metavar="LOCATOR", action="append", default=[],
                       help="must be on the final page: CSS, text=…, role=…, or an XPath (repeatable)")
    agent.add_argument("--max-steps", type=int, metavar="N", help="model requests at most (default 40)")
    agent.add_argument("--provider", choices=("anthropic", "openai"), help="anthropic, or openai: any "
                       "OpenAI-compatible Chat Completions endpoint with tool calling (default: the saved setting)")
    agent.add_argument("--base-url", metavar="URL", help="the provider's endpoint, e.g. http://127.0.0.1:11434/v1 "
                                                         "(default: the saved one, else OPENAI_BASE_URL)")
    agent.add_argument("--model", metavar="NAME", help="model name (default: the saved setting)")
    agent.add_argument("--list-models", action="store_true", help="print the models the endpoint offers (its "
                                                                  "/v1/models) and exit (no TASK)")
    agent.add_argument("--save-workflow", metavar="NAME", help="save what worked as a workflow that ends with "
                                                               "the --expect checks (nothing is replayed)")
    agent.add_argument("--typed-as-inputs", action="store_true", help="with --save-workflow: the values the "
                                                                    "agent typed become start inputs")
    agent.add_argument("--replay-after-save", action="store_true", help="with --save-workflow: then replay it "
                                                                      "once (repeating what the task did)")
    agent.add_argument("--headless", dest="agent_headless", action="store_true", help="no visible window")
    agent.add_argument("--json", action="store_true", help="print the agent record as JSON")


def agent_params(args: argparse.Namespace) -> dict[str, Any]:
    """The `agent_run` parameters; `SecretError` for a bad --secret or --secret-domains, or a secret that has no
    site to be typed on (no domains and no --url)."""
    params: dict[str, Any] = {"task": args.task, "secrets": dict(parse_secret(pair) for pair in args.secrets),
                              "expect": list(args.expect)}
    domains: dict[str, list[str]] = {}
    for pair in args.secret_domains:
        name, patterns = parse_domains(pair)
        domains.setdefault(name, []).extend(patterns)
    rules_for(params["secrets"], domains, args.url)  # a usage error here, before any app starts
    if domains:
        params["secretDomains"] = domains
    for key, value in (("env", args.agent_env), ("url", args.url), ("maxSteps", args.max_steps),
                       ("provider", args.provider), ("baseUrl", args.base_url), ("model", args.model),
                       ("saveWorkflow", args.save_workflow)):
        if value is not None:
            params[key] = value
    if args.typed_as_inputs:
        params["typedAsInputs"] = True
    if args.replay_after_save:
        params["replayAfterSave"] = True
    return params


def print_record(record: dict[str, Any]) -> None:
    print(f"{record['id']}  {record['status']}  {record.get('provider', 'anthropic')}:{record['model']}  "
          f"{len(record.get('steps') or [])} steps")
    for note in record.get("limitations") or []:
        print(f"note: {note}")
    report = record.get("selfReport")
    if report:
        print(f"agent says: {'success' if report['success'] else 'failure'}: {report['answer']}")
    if record.get("judge"):
        print(f"judge: {record['judge']['verdict']}: {record['judge']['reason']}")
    for check in record.get("checks") or []:
        print(f"check {check['locator']}: {'ok' if check['ok'] else 'FAILED'}")
    for bound in record.get("secretDomains") or []:
        where = ("anywhere (chosen explicitly)" if bound.get("anywhere") else "only on " + ", ".join(bound["domains"])
                 + (" (the start page's site)" if bound.get("fromStartPage") else ""))
        print(f"secret {bound['name']}: typed {where}")
    refusals = record.get("refusals") or []
    if refusals:
        print(f"refused uses of secrets: {len(refusals)}")
        for refusal in refusals:
            print(f"  step {refusal.get('step')}: {refusal['secret']} by {refusal['tool']}"
                  + (f" ({refusal['site']})" if refusal.get("site") else ""))
    usage = record.get("usage") or {}
    cost = usage.get("costUsd")
    print(f"tokens: {usage.get('inputTokens', 0)} in, {usage.get('cacheReadInputTokens', 0)} cached, "
          f"{usage.get('outputTokens', 0)} out" + (f", ${cost:.4f}" if cost is not None else ""))
    saved = record.get("workflow")
    if saved:
        print(f"workflow: {saved.get('name')}: {'saved' if saved.get('saved') else saved.get('error')}")
        for note in saved.get("notes") or []:
            print(f"  note: {note}")
        replay = saved.get("replay")
        if replay:
            print(f"replay: {replay.get('runId')}: {'ok' if replay.get('ok') else replay.get('error')}")
    if record.get("error"):
        print(f"error: {record['error']}")


def list_models_verb(args: argparse.Namespace, data: DataDir) -> int:
    params = {key: value for key, value in (("provider", args.provider), ("baseUrl", args.base_url)) if value}
    result = run_here_or_forward(data, "agent_models", params, headless=True)
    if result is None:
        return EXIT_FAILED
    if not result.get("ok"):
        print(f"browserpilot: {result.get('error')}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k not in ("ok", "control")}, ensure_ascii=False))
    else:
        print("\n".join(result["models"]))
    return EXIT_OK


def agent_verb(args: argparse.Namespace, data: DataDir) -> int:
    from app.startup.runtime import has_display

    if args.list_models:
        return list_models_verb(args, data)
    if not args.task:
        print("browserpilot: agent needs a TASK (what to do, in words)", file=sys.stderr)
        return EXIT_USAGE
    try:
        params = agent_params(args)
    except SecretError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.replay_after_save and not args.save_workflow:
        print("browserpilot: --replay-after-save needs --save-workflow NAME", file=sys.stderr)
        return EXIT_USAGE
    headless = args.agent_headless or not (has_display() or os.environ.get("QT_QPA_PLATFORM"))
    result = run_here_or_forward(data, "agent_run", params, headless=headless)
    if result is None:
        return EXIT_FAILED
    record = result.get("record")
    if args.json:
        print(json.dumps(record if record is not None else result, ensure_ascii=False, indent=2))
    elif record is not None:
        print_record(record)
    if not result.get("ok") or not result.get("success"):
        if not args.json:
            print(f"browserpilot: {result.get('error')}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
