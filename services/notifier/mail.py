"""A "your turn" (and an address's confirmation) as an e-mail, through SMTP.

Turn mails carry ``List-Unsubscribe`` with a one-click link (RFC 8058:
``List-Unsubscribe-Post: List-Unsubscribe=One-Click``), so a mail client's unsubscribe
button stops them without signing in. Nothing is mailed to an address before its owner
opened the confirmation link sent to it (docs/notifications.md)."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import aiosmtplib


@dataclass(frozen=True)
class Smtp:
    host: str
    port: int
    security: str  # "none", "starttls" or "tls"
    user: str
    password: str
    sender: str  # the From address
    timeout_s: float = 10.0

    @property
    def configured(self) -> bool:
        return bool(self.host)


NO_SMTP = Smtp("", 25, "none", "", "", "raffe@localhost")  # no e-mail channel


def smtp_of(settings: Any) -> Smtp:
    """The SMTP server of a MailSettings (services.core.settings)."""
    s = settings
    login = (s.smtp_user, s.smtp_password)
    return Smtp(s.smtp_host, s.smtp_port, s.smtp_security, *login, s.mail_from)


def turn_mail(
    smtp: Smtp, to: str, text: str, url: str, unsubscribe: str, action: str = "Play your move"
) -> EmailMessage:
    """A turn (or a challenge: ``action`` "Answer it") in one mail, with its link."""
    mail = _mail(smtp, to, text)
    mail["List-Unsubscribe"] = f"<{unsubscribe}>"
    mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    mail.set_content(
        f"{text}\n\n{action}: {url}\n\n"
        f"You get this because you asked Raffe to tell you of your turns and challenges. "
        f"Stop these mails: {unsubscribe}\n"
    )
    return mail


def digest_mail(smtp: Smtp, to: str, lines: list[str], unsubscribe: str) -> EmailMessage:
    """The daily digest: every game whose move is the player's, one line each."""
    games = "1 game awaits" if len(lines) == 1 else f"{len(lines)} games await"
    mail = _mail(smtp, to, f"Your move: {games} you at Raffe")
    mail["List-Unsubscribe"] = f"<{unsubscribe}>"
    mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    listed = "\n".join(f"- {line}" for line in lines)
    mail.set_content(
        f"Your move in these turn-based games:\n\n{listed}\n\n"
        "You get one such mail a day, when a game awaits you, because you asked for a "
        f"daily digest of your turns at Raffe. Stop these mails: {unsubscribe}\n"
    )
    return mail


def confirmation_mail(smtp: Smtp, to: str, confirm: str) -> EmailMessage:
    mail = _mail(smtp, to, "Confirm your address for Raffe")
    mail.set_content(
        "Someone (we hope you) asked Raffe to tell this address when it is their turn at a "
        f"turn-based table.\n\nConfirm it: {confirm}\n\n"
        "If it was not you, do nothing: no other mail comes.\n"
    )
    return mail


def _mail(smtp: Smtp, to: str, subject: str) -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = smtp.sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Message-ID"] = make_msgid(domain=smtp.sender.rpartition("@")[2] or None)
    return mail


async def send(smtp: Smtp, mail: EmailMessage) -> str:
    """ "sent", or what went wrong, in words."""
    try:
        await aiosmtplib.send(
            mail,
            hostname=smtp.host,
            port=smtp.port,
            username=smtp.user or None,
            password=smtp.password or None,
            use_tls=smtp.security == "tls",
            start_tls=smtp.security == "starttls",
            timeout=smtp.timeout_s,
        )
    except (aiosmtplib.SMTPException, OSError) as error:
        return f"SMTP: {type(error).__name__}"
    return "sent"
