"""A player's notification channels (docs/notifications.md): the webhook that tells them
it is their turn at a turn-based table. Kept per player in Redis
(services.notifier.channels), read by the notifier; erased with the account."""

from __future__ import annotations

import html
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Path, Query, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from gateway.http.auth import CallerDep, ClientsDep, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem, problems
from services.kernel.commands import Strict
from services.kernel.errors import InvalidArgument
from services.notifier.channels import (
    add_subscription,
    channels_key,
    check_address,
    check_url,
    confirm_email,
    email_of,
    forget_email,
    known_token,
    remove_subscription,
    remove_webhook,
    set_email,
    set_email_schedule,
    set_webhook,
    subscriptions_in,
    unsubscribe,
    webhook_of,
)
from services.notifier.mail import confirmation_mail, send, smtp_of
from services.notifier.push import Subscription, public_key, unb64url, vapid_of

router = APIRouter(tags=["accounts"])
PROBLEMS = problems(
    (401, "no, a wrong or a revoked token"),
    (403, "the token lacks the account scope (a sign-in has it, an API token not)"),
    (404, "no_address: a schedule needs an address first"),
    (422, "invalid request: bad_url (not https, no host, or a private address)"),
)


class WebhookIn(Strict):
    url: str = Field(description="https URL that receives a POST for each of your turns")
    format: Literal["raffe", "discord", "slack"] = Field(
        "raffe", description="Raffe's JSON (signed), or a Discord or Slack message"
    )


class WebhookOut(BaseModel):
    url: str
    format: str
    on: bool = Field(description="false once switched off after failed deliveries")
    failures: int = Field(description="deliveries that failed for good, in a row")
    notice: str = Field(description="why it was switched off, if it was")


class WebhookMade(WebhookOut):
    secret: str = Field(
        description="signs every delivery (Raffe-Signature: HMAC-SHA256 over '<t>.<body>'); "
        "shown this once"
    )


class EmailIn(Strict):
    address: str = Field(description="where to mail your turns, once you confirm it")


class EmailOut(BaseModel):
    address: str
    confirmed: bool = Field(description="false until the link mailed to it is opened")
    on: bool = Field(description="false once its one-click unsubscribe was used")
    when: Literal["each_turn", "daily"] = Field(
        "each_turn", description="a mail per turn, or one a day listing the games awaiting you"
    )
    hour_utc: int = Field(8, description="the daily digest's hour, UTC")


class EmailSchedule(Strict):
    when: Literal["each_turn", "daily"] = Field(
        description="each_turn: a mail per turn; daily: one mail a day, at hour_utc, listing "
        "the games whose move is still yours (none: no mail)"
    )
    hour_utc: int = Field(8, ge=0, le=23, description="the daily digest's hour, UTC")


class Channels(BaseModel):
    webhook: WebhookOut | None
    email: EmailOut | None
    push: list[str] = Field(description="the ids of the browsers told by web push")


def _shown(hook: Any) -> dict[str, Any]:
    return {
        "url": hook.url,
        "format": hook.format,
        "on": hook.on,
        "failures": hook.failures,
        "notice": hook.notice,
    }


@router.get(
    "/v1/accounts/me/notifications",
    response_model=Channels,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def channels(c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Your notification channels and their state (a webhook switched off says why)."""
    me = player(who, "account")
    prefix = c.settings.store.key_prefix
    hook = await webhook_of(c.store.redis, prefix, me.player_id)
    email = await email_of(c.store.redis, prefix, me.player_id)
    raw = cast(dict[bytes, bytes], await c.store.redis.hgetall(channels_key(prefix, me.player_id)))
    pushed = sorted(Subscription.decoded(s).id for s in subscriptions_in(raw))
    shown = email and _email_shown(email)
    return {"webhook": _shown(hook) if hook else None, "email": shown or None, "push": pushed}


def _email_shown(email: Any) -> dict[str, Any]:
    return {
        "address": email.address,
        "confirmed": email.confirmed,
        "on": email.on,
        "when": email.when,
        "hour_utc": email.hour_utc,
    }


@router.put(
    "/v1/accounts/me/notifications/webhook",
    response_model=WebhookMade,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def put_webhook(body: WebhookIn, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Be told of each of your turns at turn-based tables by a POST to this URL: once per
    turn, signed with the secret this answer shows (once), retried until the receiver
    answers 2xx. Setting it again replaces it, with a new secret, switched on."""
    me = player(who, "account")
    hooks = c.settings.webhooks
    try:
        url = await check_url(body.url, hooks.webhook_allow_http, hooks.webhook_allow_private)
    except InvalidArgument as error:
        raise Problem(422, error.code, str(error)) from None
    prefix = c.settings.store.key_prefix
    secret = await set_webhook(c.store.redis, prefix, me.player_id, url, body.format)
    return {
        "url": url,
        "format": body.format,
        "on": True,
        "failures": 0,
        "notice": "",
        "secret": secret,
    }


@router.delete(
    "/v1/accounts/me/notifications/webhook",
    status_code=204,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def delete_webhook(c: ClientsDep, who: CallerDep) -> Response:
    """No more webhook deliveries (those already on their way may still arrive)."""
    me = player(who, "account")
    await remove_webhook(c.store.redis, c.settings.store.key_prefix, me.player_id)
    return Response(status_code=204)


@router.put(
    "/v1/accounts/me/notifications/email",
    status_code=202,
    response_model=EmailOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def put_email(body: EmailIn, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """Be told of each of your turns at turn-based tables by e-mail: a link to confirm
    the address is mailed to it at once, and nothing else is until it is opened. Every
    turn mail carries a one-click unsubscribe. Setting it again starts over."""
    me = player(who, "account")
    try:
        address = check_address(body.address.strip())
    except InvalidArgument as error:
        raise Problem(422, error.code, str(error)) from None
    smtp = smtp_of(c.settings.mail)
    if not smtp.configured:
        raise Problem(503, "mail_unavailable", "this server sends no e-mail")
    token = await set_email(c.store.redis, c.settings.store.key_prefix, me.player_id, address)
    link = f"{c.settings.public_url.rstrip('/')}/v1/notifications/email/confirm?token={token}"
    outcome = await send(smtp, confirmation_mail(smtp, address, link))
    if outcome != "sent":
        raise Problem(503, "mail_unavailable", f"the confirmation could not be sent: {outcome}")
    return {"address": address, "confirmed": False, "on": True}


@router.put(
    "/v1/accounts/me/notifications/email/schedule",
    response_model=EmailOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def put_email_schedule(body: EmailSchedule, c: ClientsDep, who: CallerDep) -> dict[str, Any]:
    """A mail per turn (the default), or a daily digest at ``hour_utc``: one mail a day
    listing the games whose move is still yours when it goes (none: no mail). The
    address stays as it is, confirmed or not."""
    me = player(who, "account")
    prefix = c.settings.store.key_prefix
    if not await set_email_schedule(c.store.redis, prefix, me.player_id, body.when, body.hour_utc):
        raise Problem(404, "no_address", "set an address first")
    email = await email_of(c.store.redis, prefix, me.player_id)
    assert email is not None
    return _email_shown(email)


@router.delete(
    "/v1/accounts/me/notifications/email",
    status_code=204,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def delete_email(c: ClientsDep, who: CallerDep) -> Response:
    """No more turn mails; the address is forgotten."""
    me = player(who, "account")
    await forget_email(c.store.redis, c.settings.store.key_prefix, me.player_id)
    return Response(status_code=204)


LINK_PROBLEMS: dict[int | str, dict[str, Any]] = {
    404: {
        "description": "no_such_token: the link is unknown or used up",
        "content": {"application/problem+json": {}},
    }
}
Token = Annotated[str, Query(min_length=1, max_length=100)]


def _page(text: str, form: str = "") -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><html lang=en><meta charset=utf-8><title>Raffe</title>"
        f"<main><p>{text}</p>{form}</main></html>"
    )


@router.get("/v1/notifications/email/confirm", response_class=HTMLResponse, responses=LINK_PROBLEMS)
async def confirm(token: Token, c: ClientsDep) -> HTMLResponse:
    """The link mailed to an address: opening it confirms it (a page says so)."""
    if not await confirm_email(c.store.redis, c.settings.store.key_prefix, token):
        raise Problem(404, "no_such_token", "this link is unknown, used or too old")
    return _page("Your address is confirmed: Raffe will mail you when it is your turn.")


@router.get(
    "/v1/notifications/email/unsubscribe", response_class=HTMLResponse, responses=LINK_PROBLEMS
)
async def unsubscribe_page(token: Token, c: ClientsDep) -> HTMLResponse:
    """The link in every turn mail, opened: a page with the button (opening it does
    nothing by itself: mail scanners open links)."""
    if not await known_token(c.store.redis, c.settings.store.key_prefix, "unsub", token):
        raise Problem(404, "no_such_token", "this link is unknown")
    form = (
        f'<form method=post action="?token={html.escape(token)}">'
        "<button>Stop the turn mails</button></form>"
    )
    return _page("Stop Raffe's turn mails to this address?", form)


@router.post(
    "/v1/notifications/email/unsubscribe", response_class=HTMLResponse, responses=LINK_PROBLEMS
)
async def one_click_unsubscribe(token: Token, c: ClientsDep) -> HTMLResponse:
    """RFC 8058's one click (a mail client POSTs ``List-Unsubscribe=One-Click``), or the
    page's button: no more turn mails to this address."""
    if not await unsubscribe(c.store.redis, c.settings.store.key_prefix, token):
        raise Problem(404, "no_such_token", "this link is unknown")
    return _page("Done: no more turn mails come to this address.")


class PushKey(BaseModel):
    public_key: str = Field(description="applicationServerKey for pushManager.subscribe")


class PushKeys(Strict):
    p256dh: str = Field(min_length=1, max_length=200)
    auth: str = Field(min_length=1, max_length=100)


class PushIn(Strict):
    """A browser's PushSubscription, as its toJSON() gives it."""

    endpoint: str = Field(max_length=2000)
    keys: PushKeys
    expirationTime: int | None = None


class PushOut(BaseModel):
    id: str = Field(description="this browser's subscription: DELETE .../push/{id}")
    endpoint: str


@router.get("/v1/notifications/push/key", response_model=PushKey, responses=LINK_PROBLEMS)
async def push_key(c: ClientsDep) -> dict[str, str]:
    """The server's VAPID public key, which a page subscribes with."""
    key = c.settings.push.vapid_private_key
    if not key:
        raise Problem(503, "push_unavailable", "this server sends no web push")
    return {"public_key": public_key(vapid_of(key))}


@router.put(
    "/v1/accounts/me/notifications/push",
    response_model=PushOut,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def put_push(body: PushIn, c: ClientsDep, who: CallerDep) -> dict[str, str]:
    """Be told of your turns in this browser: its push subscription, one per browser (the
    same endpoint again replaces it). A push service that says it is gone ends it."""
    me = player(who, "account")
    hooks = c.settings.webhooks
    try:
        await check_url(body.endpoint, hooks.webhook_allow_http, hooks.webhook_allow_private)
        for key in (body.keys.p256dh, body.keys.auth):
            unb64url(key)
    except (InvalidArgument, ValueError) as error:
        raise Problem(422, "bad_subscription", f"endpoint and keys: {error}") from None
    sub = Subscription(body.endpoint, body.keys.p256dh, body.keys.auth)
    prefix = c.settings.store.key_prefix
    await add_subscription(c.store.redis, prefix, me.player_id, sub.id, sub.encoded())
    return {"id": sub.id, "endpoint": sub.endpoint}


@router.delete(
    "/v1/accounts/me/notifications/push/{sub_id}",
    status_code=204,
    responses=PROBLEMS,
    openapi_extra=TOKEN_REQUIRED,
)
async def delete_push(
    sub_id: Annotated[str, Path(pattern=r"^[0-9a-f]{16}$")], c: ClientsDep, who: CallerDep
) -> Response:
    """This browser is told nothing more."""
    me = player(who, "account")
    await remove_subscription(c.store.redis, c.settings.store.key_prefix, me.player_id, sub_id)
    return Response(status_code=204)
