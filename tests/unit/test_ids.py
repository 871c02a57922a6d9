"""Event ids: the text of a version 4 UUID, made without the UUID object."""

from __future__ import annotations

import uuid

from services.core.ids import random_uuid


def test_an_id_is_the_text_of_a_random_uuid() -> None:
    for _ in range(2000):  # every variant digit is met many times over
        made = random_uuid()
        parsed = uuid.UUID(made)
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122
        assert str(parsed) == made  # lower case, dashes where uuid4's text has them


def test_ids_do_not_repeat_and_every_random_digit_varies() -> None:
    made = [random_uuid() for _ in range(5000)]
    assert len(set(made)) == len(made)
    fixed = {14}  # the version digit; the variant digit varies over 8, 9, a, b
    for i in range(36):
        seen = {m[i] for m in made}
        if made[0][i] == "-":
            assert seen == {"-"}
        elif i in fixed:
            assert seen == {"4"}
        elif i == 19:
            assert seen == set("89ab")
        else:
            assert len(seen) == 16, i
