"""The `browserpilot` command line.

No verb starts the GUI (or the windowless app with `--headless`); the `env` verbs run the same operations
as the GUI through the operations registry, without starting Qt. When the app already runs on the data
folder, a verb's operation is sent to it through its MCP endpoint instead (app/cli/common.py): same output,
same exit status. `mcp` serves MCP on stdio for clients that only speak stdio (forwarding to the app, which
it starts headless when needed); `mcp token [--regenerate]` prints or replaces the MCP token; `mcp status`
says whether the app serves MCP, who started it, its bridge clients and when it will quit by itself. Exit status:
0 success, 1 the operation failed (one line on stderr), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from app import __version__
from app.cli import agent, batch, editor, schedules, workflows
from app.cli.common import run_here_or_forward, run_operation_verb
from app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.startup.logsetup import setup_logging
from plumbing import loggers
from plumbing.datadir import DataDir, resolve_data_dir
from plumbing.errors import StoreError

log = logging.getLogger(loggers.CLI)



class _EnvScope(argparse.Action):
    """`--env ID` applies to the `--open` options after it: `--env A --open u1 --env B --open u2`."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, "env", values)


class _OpenInEnv(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        opened = list(getattr(namespace, "open", None) or [])
        opened.append((getattr(namespace, "env", "env-default"), values))
        setattr(namespace, "open", opened)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help="data folder (default: $BROWSERPILOT_HOME or the platform's user data folder)")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="verbose logging on stderr")

    parser = argparse.ArgumentParser(
        prog="browserpilot",
        parents=[common],
        description="A shared, persistent, multi-environment browser for people and AI agents.",
    )
    parser.add_argument("--version", action="version", version=f"BrowserPilot {__version__}")
    parser.add_argument("--headless", action="store_true", help="run the app without a visible window (Qt offscreen)")
    parser.add_argument("--minimized", action="store_true",
                        help="start in the system tray (or minimised where there is none): how start at login starts it")
    parser.add_argument("--env", metavar="ID", action=_EnvScope, default="env-default",
                        help="environment for the --open options that follow it (default env-default)")
    parser.add_argument("--open", metavar="URL", action=_OpenInEnv, default=[],
                        help="open URL in a tab at start, in the environment of the last --env (repeatable)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    env = verbs.add_parser("env", parents=[common], help="list, create, rename or delete environments")
    env_verbs = env.add_subparsers(dest="env_verb", metavar="ACTION", required=True)
    listing = env_verbs.add_parser("list", parents=[common], help="list environments")
    listing.add_argument("--json", action="store_true", help="print JSON")
    create = env_verbs.add_parser("create", parents=[common], help="create an environment")
    create.add_argument("name")
    create.add_argument("--remark", default="")
    create.add_argument("--json", action="store_true", help="print JSON")
    rename = env_verbs.add_parser("rename", parents=[common], help="rename an environment")
    rename.add_argument("id")
    rename.add_argument("name")
    rename.add_argument("--json", action="store_true", help="print JSON")
    remark = env_verbs.add_parser("remark", parents=[common], help="set an environment's remark")
    remark.add_argument("id")
    remark.add_argument("text")
    remark.add_argument("--json", action="store_true", help="print JSON")
    update = env_verbs.add_parser(
        "update", parents=[common], help="change an environment: name, remark, allowed and blocked domains",
        description="Domain patterns: example.com (and www.), *.example.com (and every subdomain), "
                    "https://example.com (only that scheme), host:port (only that port), * (everything). With "
                    "allowed domains, every other host is blocked for every request; blocked domains apply on "
                    "top. A running app applies the change at once.")
    update.add_argument("id")
    update.add_argument("--name")
    update.add_argument("--remark")
    update.add_argument("--allow", metavar="PATTERN", nargs="+", action="extend",
                        help="allowed domains (replaces the list)")
    update.add_argument("--block", metavar="PATTERN", nargs="+", action="extend",
                        help="blocked domains (replaces the list)")
    update.add_argument("--clear-allow", action="store_true", help="remove every allowed domain (no allow list)")
    update.add_argument("--clear-block", action="store_true", help="remove every blocked domain")
    update.add_argument("--user-agent", metavar="TEXT", help="the user agent of every tab and request (client hints "
                                                             "follow it); \"\" restores the browser's")
    update.add_argument("--languages", metavar="TAG", nargs="+", action="extend",
                        help="languages, first preferred (Accept-Language, navigator.languages), e.g. zh-CN en")
    update.add_argument("--timezone", metavar="IANA", help="time zone the pages see, e.g. Asia/Shanghai; \"\" "
                                                           "restores the machine's")
    update.add_argument("--geolocation", metavar="LAT,LON[,ACCURACY]",
                        help="the position navigator.geolocation reports (accuracy in metres, default 50)")
    update.add_argument("--clear-identity", action="store_true",
                        help="the browser's own user agent, languages, time zone and no geolocation")
    update.add_argument("--json", action="store_true", help="print JSON")
    exported = env_verbs.add_parser(
        "export", parents=[common], help="write an environment's login (cookies) to a file",
        description="Formats: json (default, the original's: cookies, local storage and the identity), playwright "
                    "(Playwright's and browser-use's storage_state: cookies and each origin's local storage), netscape "
                    "(a cookies.txt for curl -b, wget --load-cookies, yt-dlp --cookies) or cookie-editor (the JSON of "
                    "the Cookie-Editor / EditThisCookie extensions). The file is a live login, readable only by you. "
                    "Uses the running app, or starts it headless for the export.")
    exported.add_argument("id")
    exported.add_argument("--format", choices=("json", "playwright", "netscape", "cookie-editor"), default="json")
    exported.add_argument("-o", "--output", metavar="FILE", help="also copy the file here (mode 0600)")
    exported.add_argument("--json", action="store_true", help="print JSON")
    imported = env_verbs.add_parser(
        "import", parents=[common], help="set a login from a file or an installed browser into a new or an "
                                         "existing environment",
        description="Reads an env_export file (ours or the original's), a Playwright storage_state, a Netscape "
                    "cookies.txt or a cookie editor's JSON: the format is recognised by the content. Or, with "
                    "--from-browser, copies the chosen sites' cookies from a browser installed here (decrypted as "
                    "that browser does); without --domains it lists the sites found and asks.")
    imported.add_argument("file", nargs="?", help="the file to read (or --from-browser)")
    imported.add_argument("--from-browser", metavar="BROWSER[:PROFILE]",
                          help="chrome, chromium, brave, edge or firefox, with a profile's name or folder after a "
                               "colon (default: the most recently used profile)")
    imported.add_argument("--domains", metavar="A.COM,B.ORG", help="with --from-browser: the sites to copy (each with "
                                                                    "its subdomains); * for every site")
    imported.add_argument("--env", dest="into", metavar="ID", help="import into this environment (default: a new one)")
    imported.add_argument("--name", help="name of the new environment")
    imported.add_argument("--json", action="store_true", help="print JSON")
    delete = env_verbs.add_parser("delete", parents=[common], help="delete an environment and its browser data")
    delete.add_argument("id")
    delete.add_argument("--json", action="store_true", help="print JSON")

    workflows.add_parsers(verbs, common)
    schedules.add_parser(verbs, common)
    editor.add_parser(verbs, common)
    agent.add_parser(verbs, common)
    batch.add_worker_parser(verbs, common)
    batch.add_batch_parser(verbs, common)
    mcp = verbs.add_parser("mcp", parents=[common], help="serve MCP on stdio (forwarding to the running app, "
                                                          "started headless if needed); show or renew the token")
    mcp.add_argument("--tools", metavar="PROFILE", default=None,
                     help="which tools the client is shown: core (the default: a whole task, and tools_enable for "
                          "more), full, original (the original BrowserPilot's tool names and call forms), or a "
                          "comma list of groups: core,network,recording,...")
    mcp_verbs = mcp.add_subparsers(dest="mcp_verb", metavar="ACTION")
    token = mcp_verbs.add_parser("token", parents=[common], help="print the MCP bearer token")
    token.add_argument("--regenerate", action="store_true",
                       help="make a new token; the old one stops working at once, also in a running app")
    status = mcp_verbs.add_parser("status", parents=[common],
                                  help="is the app serving MCP (URL), who started it, its clients, when it will stop")
    status.add_argument("--json", action="store_true", help="print JSON")
    return parser


def env_call(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """Map an `env` verb to the operation that carries it out."""
    if args.env_verb == "list":
        return "env_list", {}
    if args.env_verb == "create":
        return "env_create", {"name": args.name, "remark": args.remark}
    if args.env_verb == "rename":
        return "env_update", {"env": args.id, "name": args.name}
    if args.env_verb == "remark":
        return "env_update", {"env": args.id, "remark": args.text}
    if args.env_verb == "update":
        params: dict[str, Any] = {"env": args.id}
        for key, value in (("name", args.name), ("remark", args.remark)):
            if value is not None:
                params[key] = value
        for key, patterns, clear in (("allowedDomains", args.allow, args.clear_allow),
                                     ("blockedDomains", args.block, args.clear_block)):
            if clear or patterns is not None:
                params[key] = [] if clear else patterns
        if args.clear_identity:
            params.update({"userAgent": "", "languages": [], "timezone": "", "geolocation": {}})
        for key, value in (("userAgent", args.user_agent), ("languages", args.languages),
                           ("timezone", args.timezone)):
            if value is not None:
                params[key] = value
        if args.geolocation is not None:
            params["geolocation"] = geolocation_arg(args.geolocation)
        return "env_update", params
    return "env_delete", {"env": args.id}


def geolocation_arg(text: str) -> dict[str, str]:
    """`LAT,LON[,ACCURACY]` as env_update's geolocation (the operation checks the numbers)."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) not in (2, 3):
        raise SystemExit(f"browserpilot: --geolocation takes LAT,LON or LAT,LON,ACCURACY, not {text!r}")
    return dict(zip(("latitude", "longitude", "accuracy"), parts))


def print_env_result(args: argparse.Namespace, result: dict[str, Any]) -> None:
    if getattr(args, "json", False):
        payload = result["environments"] if args.env_verb == "list" else result["environment"]
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    if args.env_verb == "list":
        for env in result["environments"]:
            sites = ", ".join(site["domain"] for site in env["sites"][:3])
            print("\t".join([env["id"], env["name"], env["remark"], sites]).rstrip())
        return
    env = result["environment"]
    verb = {"create": "created", "rename": "renamed", "remark": "updated", "update": "updated",
            "delete": "deleted"}[args.env_verb]
    print(f"{verb} {env['id']}\t{env['name']}")
    if args.env_verb == "update":
        print("allowed domains:\t" + (" ".join(env.get("allowedDomains") or []) or "(any)"))
        print("blocked domains:\t" + (" ".join(env.get("blockedDomains") or []) or "(none)"))
        where = env.get("geolocation")
        parts = [f"user agent {env['userAgent']}" if env.get("userAgent") else "",
                 f"languages {' '.join(env['languages'])}" if env.get("languages") else "",
                 f"time zone {env['timezone']}" if env.get("timezone") else "",
                 f"geolocation {where['latitude']:g},{where['longitude']:g} ±{where['accuracy']:g} m" if where else ""]
        print("identity:\t" + ("; ".join(part for part in parts if part) or "(the browser's)"))


def run_env_transfer_verb(args: argparse.Namespace, data: DataDir) -> int:
    """`env export` and `env import`: they need the browser (its cookie store), so they run in the app."""
    import shutil

    if args.env_verb == "export":
        name, params = "env_export", {"env": args.id, "format": args.format}
    else:
        if (args.file is None) == (args.from_browser is None):
            print("browserpilot: env import takes a FILE or --from-browser BROWSER[:PROFILE]", file=sys.stderr)
            return EXIT_USAGE
        if args.from_browser is None and args.domains is not None:
            print("browserpilot: --domains goes with --from-browser", file=sys.stderr)
            return EXIT_USAGE
        name = "env_import"
        params = {"path": str(Path(args.file).expanduser().resolve())} if args.file else \
            {"fromBrowser": args.from_browser}
        if args.domains is not None:
            params["domains"] = [part.strip() for part in args.domains.split(",") if part.strip()]
        params.update({key: value for key, value in (("env", args.into), ("name", args.name)) if value})
    result = run_here_or_forward(data, name, params, headless=True)
    if result is not None and result.get("code") == "sites_needed" and sys.stdin.isatty():
        result = ask_sites_and_import(data, params, result)
    if result is None:
        return EXIT_FAILED
    if not result.get("ok"):
        print(f"browserpilot: {result.get('error')}", file=sys.stderr)
        if result.get("code") == "sites_needed":
            for site in result.get("sites") or []:
                print(f"  {site['site']}\t{site['cookies']} cookies", file=sys.stderr)
            print("browserpilot: choose with --domains (a.com,b.org; * for every site)", file=sys.stderr)
        return EXIT_FAILED
    if args.env_verb == "export" and args.output:
        target = Path(args.output).expanduser()
        try:
            shutil.copyfile(result["path"], target)
            os.chmod(target, 0o600)
        except OSError as exc:
            print(f"browserpilot: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_FAILED
        result["output"] = str(target)
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if k not in ("ok", "control")}, ensure_ascii=False))
    elif args.env_verb == "export":
        print(f"exported {result['cookies']} cookies of {result['env']} ({result['format']})\t"
              f"{result.get('output') or result['path']}")
    else:
        into = "a new environment" if result["created"] else "the environment"
        origin = f"from {result['source']}" if result.get("source") else f"({result['format']})"
        print(f"imported {result['cookies']} of {result['total']} cookies {origin} into {into} "
              f"{result['env']}" + (f"; {result['failed']} could not be set" if result["failed"] else ""))
        for site in result.get("sites") or []:
            print(f"  {site['site']}\t{site['cookies']} cookies")
        if result.get("undecryptable"):
            print(f"  ({result['undecryptable']} cookies of the profile could not be decrypted)")
    return EXIT_OK


def ask_sites_and_import(data: DataDir, params: dict[str, Any], listed: dict[str, Any]) -> dict[str, Any] | None:
    """`env import --from-browser` without --domains, at a terminal: show the sites found, ask which, import those."""
    sites = listed.get("sites") or []
    print(f"{listed.get('source')} has cookies for {len(sites)} sites:")
    for number, site in enumerate(sites, start=1):
        print(f"  {number:>3}. {site['site']}\t{site['cookies']} cookies")
    answer = input("Copy which sites? (numbers or domains, separated by commas; * for all; empty: none) ").strip()
    chosen: list[str] = []
    for part in (p.strip() for p in answer.split(",")):
        if part.isdigit() and 1 <= int(part) <= len(sites):
            chosen.append(sites[int(part) - 1]["site"])
        elif part:
            chosen.append(part)
    if not chosen:
        print("nothing imported")
        return None
    return run_here_or_forward(data, "env_import", {**params, "domains": chosen}, headless=True)


def run_env_verb(args: argparse.Namespace, data: DataDir) -> int:
    if args.env_verb in ("export", "import"):
        return run_env_transfer_verb(args, data)
    name, params = env_call(args)
    return run_operation_verb(data, name, params, lambda result: print_env_result(args, result))


def run_mcp_verb(args: argparse.Namespace, data: DataDir) -> int:
    from app.mcp import config

    if args.mcp_verb is None:
        from app.catalog.profiles import ProfileError, parse_profile

        try:
            parse_profile(args.tools)
        except ProfileError as exc:
            print(f"browserpilot mcp: {exc}", file=sys.stderr)
            return EXIT_USAGE
        from app.mcp.client import start_app_if_needed

        started = start_app_if_needed(data)  # the app boots while the bridge loads the SDK (about a second)
        from app.mcp.bridge import run_bridge

        return run_bridge(data, started, args.tools)
    try:
        content = config.regenerate_token(data) if args.mcp_verb == "token" and args.regenerate else \
            config.load_or_create(data)
    except StoreError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.mcp_verb == "token":
        print(content.token)
        return EXIT_OK
    from app.mcp.client import live_endpoint, mcp_switched_off, running_pid

    # The bridge endpoint first: probing the HTTP port would make the app load the SDK for nothing.
    endpoint = live_endpoint(data, quick=True) or live_endpoint(data)
    if endpoint is not None:
        return _print_app_status(args, data, endpoint.url, endpoint.pid)
    if getattr(args, "json", False):
        pid = running_pid(data)
        print(json.dumps({"running": pid is not None, "pid": pid, "url": content.url,
                          "mcp": {"status": ("off" if mcp_switched_off(data) else "starting") if pid else "off"}}))
    elif running_pid(data) is not None:
        print("off (switched off in the settings)" if mcp_switched_off(data) else "starting or not answering")
    else:
        print(f"not running\t{content.url or config.endpoint_url(config.DEFAULT_PORT)}")
    return EXIT_OK


def _print_app_status(args: argparse.Namespace, data: DataDir, url: str, pid: int) -> int:
    """`mcp status` of a running app: its endpoint, who started it, its bridges, when it will stop."""
    from app.mcp.client import EndpointUnavailable, forward_operation

    try:
        state = forward_operation(data, "app_status", {})
    except EndpointUnavailable as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not state.get("ok"):  # an app of an older version: no app_status
        state = {}
    url = (state.get("mcp") or {}).get("url") or url  # the HTTP URL, also while the SDK server is starting
    if getattr(args, "json", False):
        print(json.dumps({"running": True, "pid": pid, "url": url,
                          **{k: v for k, v in state.items() if k not in ("ok", "control")}}, indent=2))
        return EXIT_OK
    print(f"running\t{url}\tpid {pid}")
    if not state:
        return EXIT_OK
    if not (state.get("mcp") or {}).get("sdkLoaded", True):
        print("HTTP\tlistening; the MCP SDK loads when the first HTTP client connects (about a second)")
    starter = state.get("startedBy")
    mode = "headless" if state.get("headless") else "with windows"
    if starter is None:
        print(f"started by\ta person ({mode})")
    else:
        gone = "" if starter.get("alive") else ", gone"
        client = (f"; its client: pid {starter['clientPid']} ({starter.get('clientCommand') or '?'})"
                  if starter.get("clientPid") else "")
        print(f"started by\tbrowserpilot mcp, pid {starter['pid']} ({starter.get('command') or '?'}{gone}), "
              f"{mode}{client}")
    bridges = state.get("bridges") or []
    print("clients\t" + (", ".join(f"pid {b['pid']} ({b.get('command') or '?'})" for b in bridges)
                          if bridges else "no bridge connected"))
    idle = state.get("idleExit") or {}
    left, why = idle.get("stopsInSeconds"), idle.get("wontStopBecause")
    if left is not None:
        print(f"stops\tin {_duration(left)} unless a client connects "
              f"(after {_duration(idle.get('timeoutSeconds') or 0)} without one)")
    else:
        print(f"stops\tnot by itself: {why}")
    return EXIT_OK


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    data = DataDir(resolve_data_dir(getattr(args, "data_dir", None)))
    debug = getattr(args, "debug", False)
    try:
        data.check_writable()
    except OSError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    setup_logging(data.logs, debug=debug, quiet=args.verb is not None)
    if args.verb == "env":
        return run_env_verb(args, data)
    if args.verb == "mcp":
        return run_mcp_verb(args, data)
    if args.verb == "edit":
        return editor.edit_verb(args, data)
    if args.verb == "agent":
        return agent.agent_verb(args, data)
    if args.verb == "worker":
        return batch.run_worker_verb(args, data)
    if args.verb == "batch":
        return batch.run_batch_verb(args, data)
    if args.verb == "schedule":
        return schedules.schedule_verb(args, data)
    if args.verb in ("workflow", "runs", "run"):
        if args.verb == "run":
            return workflows.run_verb(args, data)
        call = workflows.workflow_call if args.verb == "workflow" else workflows.runs_call
        name, params, show = call(args)
        return run_operation_verb(data, name, params, show)
    from app.wiring.application import run_app

    return run_app(data, headless=args.headless, open_urls=args.open, debug=debug, minimized=args.minimized)


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
