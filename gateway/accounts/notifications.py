"""A player's notification channels (docs/notifications.md): the webhook that tells them
it is their turn at a turn-based table. Kept per player in Redis
(services.notifier.channels), read by the notifier; erased with the account."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Response
from pydantic import BaseModel, Field

from gateway.accounts.tokens import Caller
from gateway.clients import Clients
from gateway.http.auth import caller, clients, player
from gateway.http.openapi import TOKEN_REQUIRED
from gateway.http.problems import Problem
from services.kernel.commands import Strict
from services.kernel.errors import InvalidArgument
from services.notifier.channels import check_url, remove_webhook, set_webhook, webhook_of

router = APIRouter(tags=["accounts"])
PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/problem+json": {}}}
    for code, text in [
        (401, "no, a wrong or a revoked token"),
        (403, "the token lacks the account scope (a sign-in has it, an API token not)"),
        (422, "invalid request: bad_url (not https, no host, or a private address)"),
    ]
}
ClientsDep = Annotated[Clients, Depends(clients)]
CallerDep = Annotated[Caller, Depends(caller)]


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


class Channels(BaseModel):
    webhook: WebhookOut | None


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
    hook = await webhook_of(c.store.redis, c.settings.store.key_prefix, me.player_id)
    return {"webhook": _shown(hook) if hook else None}


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
