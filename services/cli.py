"""``raffe``: the command line for organisers.

    raffe tournament create --game giraffe-raffe --format swiss --bots 9
    raffe tournament run    --game giraffe-raffe,giraffometer,riff-raff --bots 12 --chart r.png
    raffe tournament watch  <tournament id> --chart ratings.png
    raffe ladder run --game giraffe-raffe --deals 2000   (every bot level, docs/bots.md)
    raffe records export --game giraffe-raffe --since 2026-11-01 --out games.jsonl
    raffe verify game.json games.jsonl

Talks to a gateway's REST API (--url, default http://127.0.0.1:8000 or RAFFE_URL).
``watch`` (and ``run``, which creates, registers, starts and then watches) shows a
progress bar of games played and, at the end, the standings and a PNG chart of every
player's rating after each round. ``verify`` re-plays portable game records offline
(docs/records.md); ``records export`` streams finished games as JSON Lines.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from services.records import cli as records_cli
from services.targets import GATEWAY_PORT
from services.tournament.ladder import levels as ladder_levels
from services.tournament.ladder import paired as ladder_paired

console = Console()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.area == "verify":  # offline: the engines' code, no server
        return records_cli.verify_files(args.files)
    with httpx.Client(base_url=args.url, timeout=30) as http:
        try:
            if args.area == "records":
                return records_cli.export(http, args.game, args.since, args.until, args.out)
            if args.area == "ladder":
                return ladder(http, args)
            if args.action == "watch":
                return watch(http, args.tournament_id, args.chart, args.timeout)
            created = create(http, args)
            if args.action == "run":
                start(http, created)
                return watch(http, created["tournament_id"], args.chart, args.timeout)
        except httpx.HTTPStatusError as error:
            console.print(f"[red]{error.response.status_code}[/red] {error.response.text}")
            return 1
        except httpx.HTTPError as error:
            console.print(f"[red]cannot reach {args.url}[/red]: {error}")
            return 1
    return 0


def create(http: httpx.Client, args: argparse.Namespace) -> dict[str, Any]:
    """Create the tournament and register its bots and humans; prints the tokens."""
    body: dict[str, Any] = {
        "name": args.name,
        "games": args.game.split(","),
        "format": args.format,
        "rounds": args.rounds,
        "advance": args.advance,
    }
    if args.table_size:
        body["table_size"] = args.table_size
    created = _ok(http.post("/v1/tournaments", json=body))
    tid, organiser = created["tournament_id"], created["organiser_token"]
    auth = {"Authorization": f"Bearer {organiser}"}
    for i in range(args.bots):
        player = {"name": f"bot-{i + 1}", "kind": "bot", "bot_level": args.bot_level}
        _ok(http.post(f"/v1/tournaments/{tid}/players", json=player, headers=auth))
    for name in args.human:
        got = _ok(
            http.post(
                f"/v1/tournaments/{tid}/players", json={"name": name, "kind": "human"}, headers=auth
            )
        )
        console.print(f"player {name}: token {got['token']}")
    console.print(f"tournament {tid}\norganiser token {organiser}")
    return {"tournament_id": tid, "organiser_token": organiser}


def start(http: httpx.Client, created: dict[str, Any]) -> None:
    auth = {"Authorization": f"Bearer {created['organiser_token']}"}
    _ok(http.post(f"/v1/tournaments/{created['tournament_id']}/start", headers=auth))


def watch(http: httpx.Client, tid: str, chart: str, timeout: float) -> int:
    """A progress bar of games until the tournament ends; then standings and chart."""
    deadline = time.monotonic() + timeout
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        games = progress.add_task("games", total=None)
        while True:
            t = _ok(http.get(f"/v1/tournaments/{tid}"))
            done, known = t["progress"]["finished"], t["progress"]["games"]
            rounds = len(t["rounds"])
            progress.update(
                games,
                completed=done,
                total=max(known, expected_games(t)),
                description=f"games, round {rounds}",
            )
            if t["status"]["over"] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    show_standings(t)
    if chart:
        draw_chart(t, Path(chart))
        console.print(f"ratings chart: {chart}")
    return 0 if t["status"]["over"] else 2


def expected_games(t: dict[str, Any]) -> int:
    """Games the whole tournament will have, where the format fixes it in advance."""
    options, players = t["options"], len(t["players"])
    per_round = players // int(options["table_size"])
    if options["format"] == "round_robin":
        return (players - 1 if players % 2 == 0 else players) * (players // 2)
    if options["format"] in ("swiss", "duplicate"):
        return int(options["rounds"]) * per_round
    if options["format"] == "ladder":  # a table per seat rotation, every round
        return int(options["rounds"]) * int(options["table_size"])
    return 0


def shown(name: str) -> Text:
    """A name as the terminal shows it: never markup, never a control character (names
    of tournaments from before names were checked may hold escape sequences)."""
    return Text("".join(c if c.isprintable() else "\N{REPLACEMENT CHARACTER}" for c in name))


def ladder(http: httpx.Client, args: argparse.Namespace) -> int:
    """A bot ladder (docs/bots.md): every level of a game (or ``--levels``) on ``--deals``
    deals, each played in every seat rotation; then what it publishes per level."""
    if args.action == "show":
        show_ladder(_ok(http.get(f"/v1/tournaments/{args.tournament_id}")))
        return 0
    chosen = args.levels.split(",") if args.levels else []
    code, tid = run_ladder(http, args.game, args.deals, chosen, args.name, args.timeout)
    show_ladder(_ok(http.get(f"/v1/tournaments/{tid}")))
    return code


def run_ladder(
    http: httpx.Client, game_name: str, deals: int, chosen: list[str], name: str, timeout: float
) -> tuple[int, str]:
    """Creates, fills and starts a ladder of ``chosen`` levels (all when empty), then
    shows its progress until it ends: the watch's exit code and the tournament id."""
    (game,) = [g for g in _ok_list(http.get("/v1/game-types")) if g["name"] == game_name]
    known = {lv["level"]: lv["name"] for lv in game["bot_levels"]}
    chosen = chosen or list(known)
    body = {
        "name": name or f"{game['title']} bot ladder",
        "games": [game_name],
        "format": "ladder",
        "table_size": len(chosen),
        "rounds": deals,
    }
    created = _ok(http.post("/v1/tournaments", json=body))
    tid, auth = created["tournament_id"], {"Authorization": f"Bearer {created['organiser_token']}"}
    for level in chosen:
        player = {"name": f"{known.get(level, level)} ({level})", "kind": "bot", "bot_level": level}
        _ok(http.post(f"/v1/tournaments/{tid}/players", json=player, headers=auth))
    console.print(f"ladder {tid}: {', '.join(chosen)}, {deals} deals")
    start(http, {"tournament_id": tid, "organiser_token": created["organiser_token"]})
    return watch(http, tid, "", timeout), tid


def show_ladder(t: dict[str, Any]) -> None:
    """Per level: rating, mean place and win rate with 95% intervals; then how far each
    level finishes ahead of the next one down on the same deals."""
    results = ladder_levels(t)
    table = Table(title=shown(str(t["options"].get("name") or t["tournament_id"])))
    for column in ("level", "mu", "sigma", "games", "mean place", "wins"):
        table.add_column(column, justify="left" if column == "level" else "right")
    for r in results:
        table.add_row(
            shown(r.level),
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            str(r.games),
            str(r.place),
            f"{r.wins.mean:.1%} ± {r.wins.half:.1%}",
        )
    console.print(table)
    for upper, lower in pairwise(results):
        gap = ladder_paired(t, upper.level, lower.level)
        verdict = "beats" if gap.mean > 0 and gap.excludes_zero else "does not clearly beat"
        console.print(f"{upper.level} {verdict} {lower.level}: {gap} places a deal")


def show_standings(t: dict[str, Any]) -> None:
    title = shown(str(t["options"].get("name") or t["tournament_id"]))
    table = Table(title=title + ": standings")
    for column in ("#", "player", "points", "buchholz", "rating (mu - 3 sigma)"):
        table.add_column(column, justify="left" if column == "player" else "right")
    champions = set(t["status"].get("champions", []))
    for s in t["standings"]:
        mark = " *" if s["player"] in champions else ""
        table.add_row(
            str(s["rank"]),
            shown(s["name"] + mark),
            f"{s['points']:g}",
            f"{s['buchholz']:g}",
            f"{s['rating']['ordinal']:.2f}",
        )
    console.print(table)


def draw_chart(t: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no screen needed
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    history = t["rating_history"]
    fig, ax = plt.subplots(figsize=(8, 5))
    for p in t["players"]:
        series = [0.0, *(after[p["player"]] for after in history)]
        ax.plot(range(len(series)), series, marker="o", label=p["name"])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("round")
    ax.set_ylabel("rating (mu - 3 sigma)")
    ax.set_title(f"{t['options'].get('name') or t['tournament_id']}: ratings by round")
    if len(t["players"]) <= 16:
        ax.legend(fontsize="small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _ok(response: httpx.Response) -> dict[str, Any]:
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    return body


def _ok_list(response: httpx.Response) -> list[dict[str, Any]]:
    response.raise_for_status()
    body: list[dict[str, Any]] = response.json()
    return body


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="raffe", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--url", default=os.environ.get("RAFFE_URL", f"http://127.0.0.1:{GATEWAY_PORT}")
    )
    sub = parser.add_subparsers(dest="area", required=True)
    tournament = sub.add_parser("tournament", help="create, run and watch tournaments")
    actions = tournament.add_subparsers(dest="action", required=True)
    for name in ("create", "run"):
        p = actions.add_parser(name)
        p.add_argument("--name", default="")
        p.add_argument("--game", default="giraffe-raffe", help="one or several, comma-separated")
        p.add_argument(
            "--format",
            default="swiss",
            choices=["round_robin", "swiss", "elimination", "duplicate"],
        )
        p.add_argument("--table-size", type=int, default=0)
        p.add_argument("--rounds", type=int, default=3)
        p.add_argument("--advance", type=int, default=1)
        p.add_argument("--bots", type=int, default=0)
        p.add_argument("--bot-level", default="")
        p.add_argument("--human", action="append", default=[], help="a human player's name")
        if name == "run":
            _watch_options(p)
    ladder_area = sub.add_parser("ladder", help="a bot ladder: every level on the same deals")
    ladder_actions = ladder_area.add_subparsers(dest="action", required=True)
    run_ladder = ladder_actions.add_parser("run")
    run_ladder.add_argument("--game", default="giraffe-raffe")
    run_ladder.add_argument("--deals", type=int, default=2000)
    run_ladder.add_argument("--levels", default="", help="comma-separated (default: all)")
    run_ladder.add_argument("--name", default="")
    run_ladder.add_argument("--timeout", type=float, default=7 * 24 * 3600)
    show = ladder_actions.add_parser("show")
    show.add_argument("tournament_id")
    verify = sub.add_parser("verify", help="re-play game records offline, byte for byte")
    verify.add_argument("files", nargs="+", help="a record (JSON) or records (JSON Lines)")
    records = sub.add_parser("records", help="export finished games")
    records_actions = records.add_subparsers(dest="action", required=True)
    export = records_actions.add_parser("export", help="as JSON Lines, streamed")
    export.add_argument("--game", default="", help="a game type (all if empty)")
    export.add_argument("--since", default="", help="ended at or after: a date, time or ms")
    export.add_argument("--until", default="", help="ended before: a date, time or ms")
    export.add_argument("--out", default="records.jsonl")
    w = actions.add_parser("watch")
    w.add_argument("tournament_id")
    _watch_options(w)
    return parser


def _watch_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--chart", default="", help="write a PNG of ratings by round here")
    p.add_argument("--timeout", type=float, default=3600.0, help="stop watching after this")


if __name__ == "__main__":
    sys.exit(main())
