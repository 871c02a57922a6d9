"""How to play a game, as data its package declares and every client draws
(GET /v1/game-types, ``how_to_play``): headings, paragraphs, lists and small pictures.

Text is plain, with two marks a client renders: ``**strong**`` and ``*emphasis*``.
A picture is one of three kinds a client knows how to draw without knowing the game:
rows of cards (``cards``: groups of card codes, drawn side by side with an arrow between
groups), tiles (``tiles``: a title, a line of text, a muted note and optionally cards)
and preformatted text (``pre``). A client that meets a kind it does not know shows the
caption alone.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Block(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Heading(_Block):
    h: str = Field(description="a section heading")


class Paragraph(_Block):
    p: str = Field(description="a paragraph; **strong** and *emphasis* marks")
    muted: bool = Field(False, description="an aside, drawn quieter")


class Steps(_Block):
    ol: list[str] = Field(description="numbered items, in order")


class Points(_Block):
    ul: list[str] = Field(description="items in no order")


class Tile(_Block):
    title: str
    text: str = ""
    note: str = Field("", description="drawn muted after the text")
    cards: list[str] | None = Field(None, description="card codes; [] draws 'empty'")


class Figure(_Block):
    figure: str = Field(description="the picture's caption")
    cards: list[list[str]] = Field(default_factory=list, description="groups of card codes")
    tiles: list[Tile] = Field(default_factory=list)
    pre: str = Field("", description="preformatted text, drawn as written")
    style: Literal["", "trees", "facts"] = Field("", description="a look for the tiles")


Block = Heading | Paragraph | Steps | Points | Figure


def h(text: str) -> Heading:
    return Heading(h=text)


def p(*parts: str, muted: bool = False) -> Paragraph:
    return Paragraph(p="".join(parts), muted=muted)


def ol(*items: str) -> Steps:
    return Steps(ol=list(items))


def ul(*items: str) -> Points:
    return Points(ul=list(items))
