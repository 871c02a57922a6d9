"""Names people give themselves (#30 item 3): plain text, look-alikes collide, and the
CLI never prints markup or control characters."""

from __future__ import annotations

import subprocess
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.cli import shown
from services.kernel import lookalikes
from services.kernel.errors import InvalidArgument
from services.kernel.names import clean_name, look_alike_key

SHOWN_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


@given(st.text(max_size=80))
def test_a_clean_name_is_plain_text_and_stays_as_it_is(raw: str) -> None:
    try:
        name = clean_name(raw)
    except InvalidArgument as error:
        assert error.code == "bad_name"
        return
    assert 1 <= len(name) <= 64 and name == name.strip() and "  " not in name
    assert not {unicodedata.category(c) for c in name} & SHOWN_CATEGORIES
    assert all(c == " " or unicodedata.category(c) != "Zs" for c in name)
    assert clean_name(name) == name  # cleaning again changes nothing


@pytest.mark.parametrize(
    "raw",
    [
        "a\x00b",
        "two\nlines",
        "red\x1b[31m",
        "abc\u202edcba",
        "zero\u200bwidth",
        "\u0410lice",
        "",
        "  ",
    ],
)
def test_names_that_are_not_plain_text_are_refused(raw: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        clean_name(raw)
    assert refused.value.code == "bad_name"


@pytest.mark.parametrize("other", ["alice", "ALICE", "\uff21lice", "Alic\u0435"])
def test_look_alikes_share_a_key(other: str) -> None:
    assert look_alike_key(other) == look_alike_key("Alice")


def test_different_names_keep_different_keys() -> None:
    names = ["Alice", "Alicia", "Bob", "Zoë", "Zoe", "李雷", "Ана"]
    assert len({look_alike_key(n) for n in names}) == len(names)


def test_the_cli_shows_names_without_markup_or_control_characters() -> None:
    text = shown("[bold]Eve\x1b[2J")
    assert text.plain == "[bold]Eve\N{REPLACEMENT CHARACTER}[2J"  # literal, not markup
    assert not text.spans


def test_the_look_alike_table_is_current_and_reads_as_unicodes_data() -> None:
    """services/kernel/lookalikes.json is what `python -m services.kernel.lookalikes`
    generates from the pinned confusable-homoglyphs, and answers as the package does for
    every code point (script, the Latin letter imitated) and for mixed-script names."""
    from confusable_homoglyphs import categories, confusables

    assert lookalikes.main(["--check"]) == 0, "run python -m services.kernel.lookalikes"
    for point in range(0x20, 0x30000):
        char = chr(point)
        assert lookalikes.script(char) == categories.alias(char), hex(point)
        assert lookalikes.imitates(char) == (char in confusables.confusables_data), hex(point)
    for name in [
        "Alice",
        "\u0410lice",
        "\u0391\u03b2\u03b3",
        "pa\u03c1a",
        "Bob-7",
        "\u0430\u0431\u0432",
    ]:
        expected = bool(confusables.is_dangerous(name))
        assert (
            lookalikes.is_mixed_script(name) and any(map(lookalikes.imitates, name))
        ) == expected


def test_no_process_loads_the_confusables_package_or_jsonschema_to_check_a_name() -> None:
    """The look-alike table replaces the package at run time (its tables took ~20 MiB in
    each process); jsonschema loads only with a custom Giraffometer deck."""
    code = (
        "import sys; from services.kernel.names import clean_name, look_alike_key; "
        "import services.games; clean_name('Alice ok'); "
        "look_alike_key('\\u0410lice'); "
        "assert 'confusable_homoglyphs' not in sys.modules, 'confusables'; "
        "assert 'jsonschema' not in sys.modules, 'jsonschema'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
