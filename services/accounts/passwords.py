"""Passwords: argon2id (argon2-cffi, its defaults per RFC 9106's second choice unless the
settings lower them for tests), never stored or logged in clear.

A sign-in for a name nobody has still verifies against a hash (of a random password)
with the same parameters, so a wrong name costs the same time as a wrong password and
answers the same: timing does not tell which names exist."""

from __future__ import annotations

import secrets
from functools import cached_property

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from services.kernel.errors import InvalidArgument

MIN_PASSWORD = 8
MAX_PASSWORD = 256  # argon2 takes any length; this bounds the work a request can ask for


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidArgument(
            f"a password is {MIN_PASSWORD}-{MAX_PASSWORD} characters", "bad_password"
        )
    return password


class Passwords:
    def __init__(self, time_cost: int = 3, memory_kib: int = 65536) -> None:
        self.hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=1)

    @cached_property
    def _decoy(self) -> str:
        return self.hasher.hash(secrets.token_urlsafe(16))

    def hash(self, password: str) -> str:
        return self.hasher.hash(password)

    def verify(self, hashed: str | None, password: str) -> bool:
        """Whether ``password`` matches ``hashed``; with no hash (no such name, an erased
        account) the same work is done against a decoy and the answer is False."""
        try:
            return self.hasher.verify(hashed or self._decoy, password) and hashed is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
