"""``raffe verify`` and ``raffe records export`` (services.cli wires them in)."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from services.games import GAMES
from services.records.verify import Mismatch, verify

console = Console(stderr=True)


def verify_files(paths: list[str]) -> int:
    """Verify each file: one record (JSON) or many (JSON Lines). 0 if all re-play; a
    file that cannot be read or holds no record is one FAILED line, never a traceback."""
    bad = 0
    for path in paths:
        try:
            docs = _records(Path(path))
        except NotRecords as unreadable:
            bad += 1
            console.print(f"[red]FAILED[/red] {escape(f'{path}: {unreadable}')}", soft_wrap=True)
            continue
        for n, doc in enumerate(docs, start=1):
            name = f"{path}:{n}" if n > 1 or path.endswith(".jsonl") else path
            try:
                done = verify(doc, GAMES)
            except Mismatch as mismatch:
                bad += 1
                # One line per record, whatever the width (grep finds it; a wrap once
                # split "command 1" across lines), and a record's text is never markup.
                said = escape(f"{name} (game {doc.get('game_id')}): {mismatch}")
                console.print(f"[red]FAILED[/red] {said}", soft_wrap=True)
                continue
            console.print(
                f"[green]ok[/green] {escape(name)}: game {done.game_id}, "
                f"{done.commands} commands, {done.events} events re-played byte for byte",
                soft_wrap=True,
            )
    return 1 if bad else 0


class NotRecords(Exception):
    """A file that is not one record nor JSON Lines of records (the reason, in words)."""


def _records(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_bytes()
    except OSError as error:
        raise NotRecords(error.strerror or str(error)) from None
    try:
        docs = [orjson.loads(text)]
    except orjson.JSONDecodeError:
        try:
            docs = [orjson.loads(line) for line in text.splitlines() if line.strip()]
        except orjson.JSONDecodeError as error:
            raise NotRecords(f"not JSON nor JSON Lines ({error})") from None
    if not docs:
        raise NotRecords("empty: no record in it")
    for n, doc in enumerate(docs, start=1):
        if not isinstance(doc, dict):
            raise NotRecords(f"record {n} is a JSON {_json_kind(doc)}, not an object")
    return docs


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    kinds = {bool: "boolean", int: "number", float: "number", str: "string", list: "array"}
    return kinds.get(type(value), type(value).__name__)


def export(http: httpx.Client, game: str, since: str, until: str, out: str) -> int:
    """Stream the finished games to ``out`` (JSON Lines), counting as they come."""
    params: dict[str, str | int] = {"game": game, "since_ms": _ms(since), "until_ms": _ms(until)}
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress, Path(out).open("wb") as f:
        task = progress.add_task("0 games", total=None)
        count, size, started = 0, 0, time.monotonic()
        with http.stream("GET", "/v1/records", params=params, timeout=None) as answer:
            answer.raise_for_status()
            for line in answer.iter_lines():
                if not line.strip():
                    continue
                f.write(line.encode() + b"\n")
                count, size = count + 1, size + len(line) + 1
                progress.update(task, description=f"{count} games, {size / 1e6:.1f} MB")
    rate = count / max(time.monotonic() - started, 1e-3)
    console.print(f"{count} finished games written to {out} ({rate:.0f} games/s)")
    return 0


def _ms(day_or_ms: str) -> int:
    """A date (2026-12-01), a time (2026-12-01T10:00:00+00:00), ms, or "" (no bound)."""
    if not day_or_ms:
        return 0
    if day_or_ms.isdigit():
        return int(day_or_ms)
    moment = datetime.fromisoformat(day_or_ms)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.now().astimezone().tzinfo)
    return int(moment.timestamp() * 1000)
