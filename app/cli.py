"""The `browserpilot` command line.

No verb starts the GUI (or the windowless app with `--headless`); the `env` verbs run the same operations
as the GUI through the operations registry, without starting Qt. Exit status: 0 success, 1 the operation
failed (one line on stderr), 2 usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import Any, Sequence

from app import __version__
from app.instance import AlreadyRunningError, InstanceLock
from app.logsetup import setup_logging
from envs.datadir import DataDir, resolve_data_dir
from envs.jsonstore import StoreError

log = logging.getLogger("browserpilot.cli")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


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
    delete = env_verbs.add_parser("delete", parents=[common], help="delete an environment and its browser data")
    delete.add_argument("id")
    delete.add_argument("--json", action="store_true", help="print JSON")
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
    return "env_delete", {"env": args.id}


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
    verb = {"create": "created", "rename": "renamed", "remark": "updated", "delete": "deleted"}[args.env_verb]
    print(f"{verb} {env['id']}\t{env['name']}")


def run_env_verb(args: argparse.Namespace, data: DataDir) -> int:
    from app.ops import OpContext, build_registry
    from envs.store import EnvStore

    try:
        with InstanceLock(data.lock_file):
            store = EnvStore(data)
            if store.load_problem:
                print(f"warning: {store.load_problem}", file=sys.stderr)
            name, params = env_call(args)
            result = asyncio.run(build_registry().call(OpContext(data=data, envs=store), name, params))
    except AlreadyRunningError as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except (StoreError, OSError) as exc:
        print(f"browserpilot: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not result["ok"]:
        print(f"browserpilot: {result['error']}", file=sys.stderr)
        return EXIT_FAILED
    print_env_result(args, result)
    return EXIT_OK


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
    from app.application import run_app

    return run_app(data, headless=args.headless, open_urls=args.open, debug=debug)


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
