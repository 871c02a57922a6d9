"""What the append script publishes on a game stream's name after each append: the new
version, and, when the append was small (at most 16 KiB of payloads), its events, so a
gateway's live fan-out folds and sends them without reading them back from the stream.

    <version>\\n<count>\\n<command id>\\n<time ms>\\n<engine version>
    then per event: \\n<id>\\n<type>\\n<schema>\\n<actor>\\n<payload length>\\n<payload>

Names cannot hold a newline (the script refuses control characters); payloads are
counted, not scanned. The partition log keeps the same text, always whole, as the
append's one entry (DESIGN §3). An announcement of the version alone (a large append,
or a script from before the events were carried) parses to no events: the reader reads
them."""

from __future__ import annotations

from dataclasses import dataclass

from services.core.eventstore.model import StoredEvent


@dataclass(frozen=True)
class Announcement:
    version: int
    events: list[StoredEvent]  # oldest first; empty when only the version was said


def parse_announcement(
    game_id: str, game_type: str, data: bytes, last_position: int = 0
) -> Announcement:
    """The announcement's version and events; ValueError if it is not one. Read from a
    partition log entry (the same text), ``last_position`` is the entry's: the events
    get their positions."""
    head = data.split(b"\n", 5)
    version = int(head[0])
    if len(head) == 1:
        return Announcement(version, [])
    count, command_id, time_ms = int(head[1]), head[2].decode(), int(head[3])
    engine, rest, events = head[4].decode(), head[5], []
    first = last_position - count + 1 if last_position else 0
    oldest = version - count + 1
    for i in range(count):
        eid, etype, schema, actor, size, rest = rest.split(b"\n", 5)
        length = int(size)
        payload, rest = rest[:length], rest[length + 1 :]
        if len(payload) != length:
            raise ValueError("announcement cut short")
        # By position (StoredEvent's field order): a projection and a runner parse every
        # event of the log here, and keywords cost nearly a fifth of it.
        events.append(
            StoredEvent(
                game_id,
                game_type,
                oldest + i,
                eid.decode(),
                etype.decode(),
                int(schema),
                payload,
                int(actor),
                command_id,
                time_ms,
                engine,
                first + i if first else 0,
            )
        )
    return Announcement(version, events)
