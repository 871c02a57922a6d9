"""An account's events, in its own stream (aggregate type ``account``).

Personal data (the name, the password's hash) is sealed with the account's own key
(services.accounts.sealing): the partition logs keep copies of every event, so erasing
an account deletes its key, and every copy of its name becomes unreadable at once.
Nothing else here is personal: ids, token hashes of random secrets, times."""

from __future__ import annotations

from services.kernel.events import EventTypes, event


@event
class Registered:
    """The account exists. A guest has a generated name and no password."""

    guest: bool
    name: str  # sealed
    password: str  # sealed argon2 hash; "" for a guest


@event
class NameClaimed:
    """A guest chose a name and a password: a registered account from now on."""

    name: str  # sealed
    password: str  # sealed argon2 hash


@event
class SessionOpened:
    """A bearer token of the account: a sign-in (``session``, every scope) or a personal
    API token (``token``, the scopes chosen). Only the token's SHA-256 is kept."""

    session_id: str
    kind: str  # "session" | "token"
    token_hash: str
    scopes: list[str]
    label: str
    expires_ms: int  # 0: never (API tokens live until revoked)


@event
class SessionClosed:
    """Sign-out of one session, or an API token revoked."""

    session_id: str


@event
class SignedOutEverywhere:
    """Every sign-in session closed at once (API tokens stay: each is revoked alone)."""


@event
class SeatTaken:
    """The player sat down at a game's open seat (a seat given at creation is in the
    game's own GameCreated instead)."""

    game_id: str
    seat: int


@event
class Followed:
    """The player follows another (docs/social.md): two players who follow each other are
    friends. An id, nothing personal."""

    player: str


@event
class Unfollowed:
    player: str


@event
class Blocked:
    """The player blocks another (docs/social.md): the two are kept apart both ways (no
    friends, no quick-play table together). An id, nothing personal."""

    player: str


@event
class Unblocked:
    player: str


@event
class ModeratorGranted:
    """An operator made the player a moderator (``python -m gateway.accounts.admin``)."""

    by: str  # "operator" (the admin command)


@event
class Moderated:
    """A moderator acted on the player (docs/social.md): ``action`` is warn, mute,
    shadow_mute, suspend_rated, ban or clear (which lifts mutes and suspensions), until
    ``until_ms`` (0: for good, or at once for a warning), with the moderator and the
    reason the player is shown."""

    action: str
    by: str
    reason: str
    until_ms: int


@event
class BecameBot:
    """The account is a program's from now on (docs/bot-api.md): marked as a bot wherever
    it is shown, limited as a bot, and for good. Only before its first game."""


@event
class BotsWelcomed:
    """The player's consent to meet programs (bot accounts): at quick-play tables and in
    challenges from them. Both are off until the player turns them on."""

    quick_play: bool
    challenges: bool


@event
class Erased:
    """The account is gone: its key was deleted, so its sealed data reads as nothing."""


TYPES = EventTypes(
    Registered,
    NameClaimed,
    SessionOpened,
    SessionClosed,
    SignedOutEverywhere,
    SeatTaken,
    Followed,
    Unfollowed,
    Blocked,
    Unblocked,
    ModeratorGranted,
    Moderated,
    BecameBot,
    BotsWelcomed,
    Erased,
)
