"""``python -m gateway.accounts.admin``: what an operator does to accounts without their player.

    python -m gateway.accounts.admin erase pl0123… pl4567…
    python -m gateway.accounts.admin erase --from-log gateway.log --since 2026-12-02T07:00:00
    python -m gateway.accounts.admin moderator pl0123…     (make a player a moderator)

``erase`` erases accounts as their players would (gateway.accounts.service.Accounts.erased: the
sealing key, the name, the directory entry, the games list; an Erased event in the
account's stream). ``--from-log`` takes the player ids from the gateways' JSON logs (the
"account erased" lines) at or after ``--since``: after restoring a backup older than
some erasures, this erases those accounts again (docs/operations.md). Reads the
gateway's settings (RAFFE_REDIS_URL, ...)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import orjson

from gateway.accounts.tokens import SeatTokens
from gateway.clients import accounts
from gateway.http.problems import Problem
from gateway.settings import GatewaySettings
from services.core.eventstore import open_store


def erased_in_log(path: Path, since: str) -> list[str]:
    """Player ids of the "account erased" lines at or after ``since`` (ISO time, UTC)."""
    found: list[str] = []
    for line in path.read_bytes().splitlines():
        if not line.startswith(b"{"):
            continue
        entry = orjson.loads(line)
        erased = entry.get("message") == "account erased" and entry.get("player_id")
        if erased and str(entry.get("time", "")) >= since and entry["player_id"] not in found:
            found.append(str(entry["player_id"]))
    return found


async def erase(players: list[str]) -> int:
    settings = GatewaySettings()
    store = await open_store(settings.store)
    done = 0
    try:
        who = accounts(store, SeatTokens(store, settings.token_ttl_s), settings)
        for player_id in players:
            try:
                await who.erased(player_id)
            except Problem as problem:
                print(f"{player_id}: {problem.detail}", flush=True)
                continue
            done += 1
            print(f"{player_id}: erased", flush=True)
    finally:
        await store.redis.aclose()
    print(f"{done} of {len(players)} accounts erased", flush=True)
    return 0 if done == len(players) else 1


async def moderators(players: list[str]) -> int:
    """Make players moderators (docs/social.md): a ModeratorGranted in each stream."""
    settings = GatewaySettings()
    store = await open_store(settings.store)
    failed = 0
    try:
        who = accounts(store, SeatTokens(store, settings.token_ttl_s), settings)
        for player_id in players:
            try:
                await who.grant_moderator(player_id)
                print(f"{player_id}: a moderator", flush=True)
            except Problem as problem:
                print(f"{player_id}: {problem.detail}", flush=True)
                failed += 1
    finally:
        await store.redis.aclose()
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m gateway.accounts.admin", description=__doc__)
    sub = parser.add_subparsers(dest="action", required=True)
    erasing = sub.add_parser("erase", help="erase accounts without their player")
    erasing.add_argument("players", nargs="*", help="player ids")
    erasing.add_argument("--from-log", default="", help="a gateway log (JSON lines)")
    erasing.add_argument("--since", default="", help="lines at or after this ISO time (UTC)")
    granting = sub.add_parser("moderator", help="make players moderators")
    granting.add_argument("players", nargs="+", help="player ids")
    args = parser.parse_args(argv)
    if args.action == "moderator":
        return asyncio.run(moderators(list(args.players)))
    players = list(args.players)
    if args.from_log:
        players += [p for p in erased_in_log(Path(args.from_log), args.since) if p not in players]
    if not players:
        print("no account to erase", flush=True)
        return 0
    return asyncio.run(erase(players))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
