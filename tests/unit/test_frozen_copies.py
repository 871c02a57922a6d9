"""Replaceable.but: the fast copy the games' states make on every event."""

from __future__ import annotations

import pytest

from services.giraffe_raffe.state import State
from services.tournament.state import Table


def test_a_copy_changes_what_it_names_and_leaves_the_original_as_it_was() -> None:
    before = State()
    after = before.but(turn=2, over=True)
    assert (after.turn, after.over) == (2, True)
    assert (before.turn, before.over) == (State().turn, State().over)
    assert after.hands == before.hands


@pytest.mark.parametrize("state", [State(), Table(table=1, game="g", players=(0, 1))])
def test_a_misspelt_field_is_refused_rather_than_added_beside_the_real_one(
    state: object,
) -> None:
    with pytest.raises(TypeError, match="no field tunr"):
        state.but(tunr=1)  # type: ignore[attr-defined]
