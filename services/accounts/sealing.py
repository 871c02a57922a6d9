"""Personal data in an account's events, sealed with the account's own key (AES-256-GCM).

The event logs are append-only and copied (each game stream and its partition log), so
erasing a person cannot mean finding and rewriting every copy. Instead each account
has a random key, kept apart from the logs; its events hold only ciphertext, and
erasure deletes the key ("crypto-shredding"): every copy of the name and the password's
hash reads as nothing from then on. The account id is bound into each seal (GCM's
associated data), so a sealed value copied into another account's event does not open."""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PREFIX = "s1:"  # the sealing's format version
NONCE_BYTES = 12


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=256)


def seal(key: bytes, account_id: str, text: str) -> str:
    """``text`` sealed for ``account_id`` ("" stays "": nothing to hide)."""
    if not text:
        return ""
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, text.encode(), account_id.encode())
    return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()


def open_sealed(key: bytes | None, account_id: str, sealed: str) -> str | None:
    """The text, or None when the key is gone (erased) or the value is not this
    account's."""
    if not sealed:
        return ""
    if key is None or not sealed.startswith(PREFIX):
        return None
    raw = base64.urlsafe_b64decode(sealed[len(PREFIX) :])
    try:
        plain = AESGCM(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], account_id.encode())
    except InvalidTag:
        return None
    return plain.decode()
