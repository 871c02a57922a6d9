"""The errors a game raises: a malformed command or option, and a rule that says no.

Each error carries a stable machine-readable ``code`` and one human sentence. Adapters
(gRPC, HTTP) map the classes to statuses; nothing above them parses messages.
"""

from __future__ import annotations


class RaffeError(Exception):
    """Base of every error Raffe reports to a caller."""

    code: str = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class InvalidArgument(RaffeError):
    """The request is malformed: nothing was read or written."""

    code = "invalid_argument"


class RuleViolation(RaffeError):
    """A command the game's rules do not allow. ``code`` names the rule that says no."""

    code = "rule_violation"
