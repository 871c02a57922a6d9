"""Seat tokens a gateway hands out are trusted there at once (gateway.accounts.tokens): a seat's
first command reads no binding back from Redis, as long as the gateway hears
revocations; otherwise every resolve reads Redis, as before. Against a real
redis-server: a binding deleted behind the gateway's back shows which one it did."""

from __future__ import annotations

from gateway.accounts.tokens import SeatTokens, token_hash
from services.core.eventstore import EventStore


async def forget_behind_its_back(store: EventStore, tokens: SeatTokens, token: str) -> None:
    await store.redis.delete(tokens.token_key(token_hash(token)))


async def test_tokens_handed_out_resolve_without_reading_redis(store: EventStore) -> None:
    tokens = SeatTokens(store, 3600)
    tokens.set_listening(True)
    handed = await tokens.register("g1", ["human", "bot", "human"])
    assert sorted(handed) == [0, 2]
    for seat, token in handed.items():
        await forget_behind_its_back(store, tokens, token)
        caller = await tokens.resolve(token)
        assert caller is not None and (caller.game_id, caller.seat) == ("g1", seat)
        assert caller.expires_at > 0
    tokens.set_listening(False)  # revocations may be missed now: nothing cached counts
    tokens.set_listening(True)
    assert [await tokens.resolve(t) for t in handed.values()] == [None, None]


async def test_a_gateway_deaf_to_revocations_reads_every_token(store: EventStore) -> None:
    tokens = SeatTokens(store, 3600)
    token = await tokens.issue("g2", 1)
    caller = await tokens.resolve(token)
    assert caller is not None and caller.seat == 1
    await forget_behind_its_back(store, tokens, token)
    assert await tokens.resolve(token) is None


async def test_a_token_revoked_after_it_was_handed_out_stops_at_once(
    store: EventStore,
) -> None:
    tokens = SeatTokens(store, 3600)
    tokens.set_listening(True)
    token = await tokens.issue("g3", 0)
    await tokens.revoke_digests([token_hash(token)])
    assert await tokens.resolve(token) is None
