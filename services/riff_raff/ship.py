"""The ship of Riff Raff as a deterministic fixed-step model (RR-7, simulated mode).

Geometry, in centimetres in the ship's frame, origin at the pivot:

* the deck, y = 0 from x = -20 to 20, is areas 1-4 (10 cm each, left to right);
* a mast at x = 0 carries three yardarms, each a left (odd) and right (even) half:
  5/6 at y = 15 reaching 13 cm out, 7/8 at y = 25 reaching 10 cm, 9/10 at y = 35
  reaching 7 cm. The mast closes the inner end of each half; the outer ends are open.

The hull hangs on a weighted pivot: a restoring torque -K sin(theta) and damping. Each
step (DT, fixed) sums the torque of every piece at its place in the world, advances the
tilt, then moves each piece along its surface in the ship's (rotating, accelerating)
frame: gravity along the tilted surface, plus the Euler and centrifugal terms, against
static or sliding friction. Tall pieces topple when the apparent gravity passes their
footprint. A piece placed where others lie is stacked on them and rides them. A piece
whose centre leaves its surface falls; the height of its fall is recorded, because
catching it gets harder the further it drops.

Nothing here draws randomness or reads a clock; bodies are processed in a fixed order,
so the same ship and load give the same outcome, to the last bit, in any process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from services.riff_raff.pieces import shape_of

PHYSICS_VERSION = "raffe-ship/1"  # bump when the model or a parameter changes
G = 981.0  # cm/s^2
DT = 0.01  # s
MAX_STEPS = 250
SETTLED_STEPS = 25  # this many quiet steps in a row end the simulation early
# Units: kg, cm, s. Torques in kg*cm^2/s^2, moments of inertia in kg*cm^2.
# The hull's weight below the pivot: one 30 g piece at the deck's end tilts it ~5.6 degrees.
K_RESTORE = 6000.0
I_SHIP = 240.0
DAMPING = 400.0  # about an eighth of critical damping: the ship wobbles
DROP_HEIGHT = 2.0  # cm above its resting place a piece is let go
WATER = -12.0  # y of the water, for fall heights
SLIDE = 0.9  # sliding friction as a share of static friction


@dataclass(frozen=True)
class Surface:
    y: float
    x0: float
    x1: float
    closed_inner: float | None = None  # x of the mast side, which stops pieces
    bulwark: float = 0.0  # ends that hold pieces until the tilt passes this (radians)
    grip: float = 1.0  # round yardarms hold cargo worse than the flat deck, higher ones worse


# The hull's raised ends hold cargo on the deck until the ship heels past ~29 degrees.
DECK = Surface(0.0, -20.0, 20.0, bulwark=0.5)
YARDARMS = {
    5: Surface(15.0, -14.0, -1.0, closed_inner=-1.0, grip=0.9),
    6: Surface(15.0, 1.0, 14.0, closed_inner=1.0, grip=0.9),
    7: Surface(25.0, -11.0, -1.0, closed_inner=-1.0, grip=0.7),
    8: Surface(25.0, 1.0, 11.0, closed_inner=1.0, grip=0.7),
    9: Surface(35.0, -8.0, -1.0, closed_inner=-1.0, grip=0.55),
    10: Surface(35.0, 1.0, 8.0, closed_inner=1.0, grip=0.55),
}
DECK_AREAS = {1: (-20.0, -10.0), 2: (-10.0, 0.0), 3: (0.0, 10.0), 4: (10.0, 20.0)}


def area_span(area: int) -> tuple[float, float]:
    """Where a load may be placed in an area, as an x range of the ship's frame."""
    if area in DECK_AREAS:
        return DECK_AREAS[area]
    s = YARDARMS[area]
    return (s.x0, s.x1)


def surface_of(area: int) -> Surface:
    return DECK if area in DECK_AREAS else YARDARMS[area]


def area_at(surface_area: int, x: float) -> int:
    """The area a piece lies in: its yardarm half, or the deck area under its centre."""
    if surface_area not in DECK_AREAS:
        return surface_area
    return next((a for a, (lo, hi) in DECK_AREAS.items() if lo <= x < hi), 4 if x >= 0 else 1)


@dataclass(frozen=True)
class Placed:
    """A piece at rest on the ship, as events record it."""

    id: str
    surface: int  # the area whose surface carries it (any deck area means the deck)
    x: float  # centre, ship frame
    base: float  # bottom, ship frame
    width: float
    height: float


@dataclass(frozen=True)
class Load:
    piece: str
    area: int
    position: float  # 0..1 across the area, left to right
    orientation: float  # degrees


@dataclass(frozen=True)
class Fall:
    id: str
    height: float  # cm from where it left the ship down to the water


@dataclass(frozen=True)
class Outcome:
    tilt: float  # radians, counter-clockwise positive (left side down)
    pieces: tuple[Placed, ...]
    fell: tuple[Fall, ...]
    peak_tilt: float  # the largest |tilt| during the load


def footprint(piece: str, orientation: float) -> tuple[float, float]:
    shape = shape_of(piece)
    a = math.radians(orientation)
    c, s = abs(math.cos(a)), abs(math.sin(a))
    return (shape.width * c + shape.height * s, shape.width * s + shape.height * c)


class _Body:
    """A piece during a simulation (mutable, local to one call)."""

    __slots__ = (
        "base",
        "fallen",
        "grip",
        "height",
        "id",
        "mass",
        "on",
        "support",
        "surface",
        "surface_grip",
        "v",
        "weight",
        "width",
        "x",
    )

    def __init__(self, p: Placed) -> None:
        shape = shape_of(p.id)
        self.id, self.surface, self.x, self.base = p.id, p.surface, p.x, p.base
        self.width, self.height = p.width, p.height
        self.mass, self.grip = shape.mass, shape.grip
        self.weight = self.mass * G
        self.on = surface_of(p.surface)  # a piece keeps its surface: looked up once
        self.surface_grip = self.grip * self.on.grip
        self.v = 0.0
        self.support: _Body | None = None
        self.fallen: float | None = None


def _rest_on(body: _Body, bodies: list[_Body]) -> None:
    """Put ``body`` on its surface, or on the highest piece under it there."""
    surface = surface_of(body.surface)
    body.base, body.support = surface.y, None
    for other in bodies:
        if other is body or other.fallen is not None or other.surface != body.surface:
            continue
        if abs(other.x - body.x) < (other.width + body.width) / 2 - 0.2:
            top = other.base + other.height
            if top > body.base and other.support is not body:
                body.base, body.support = top, other


def simulate(tilt: float, placed: tuple[Placed, ...], load: Load) -> Outcome:
    """Place ``load`` on the ship and run it to rest (or MAX_STEPS)."""
    bodies = [_Body(p) for p in placed]
    for b in bodies:
        _rest_on(b, bodies)
    lo, hi = area_span(load.area)
    width, height = footprint(load.piece, load.orientation)
    x = lo + (hi - lo) * min(1.0, max(0.0, load.position))
    surface_area = load.area if load.area in YARDARMS else 1
    new = _Body(Placed(load.piece, surface_area, x, 0.0, width, height))
    _rest_on(new, bodies)
    bodies.append(new)
    inertia = I_SHIP + sum(b.mass * (b.x**2 + b.base**2) for b in bodies)
    drop_speed = math.sqrt(2 * G * DROP_HEIGHT)
    world_x = new.x * math.cos(tilt) - (new.base + new.height / 2) * math.sin(tilt)
    omega = -new.mass * drop_speed * world_x / inertia
    return _run(tilt, omega, bodies, inertia)


def _run(theta: float, omega: float, bodies: list[_Body], inertia: float) -> Outcome:
    peak, quiet = abs(theta), 0
    for _ in range(MAX_STEPS):
        sin_t, cos_t = math.sin(theta), math.cos(theta)
        torque = -K_RESTORE * sin_t - DAMPING * omega
        for b in bodies:
            if b.fallen is None:
                torque -= b.weight * (b.x * cos_t - (b.base + b.height / 2) * sin_t)
        alpha = torque / inertia
        omega += alpha * DT
        theta += omega * DT
        peak = max(peak, abs(theta))
        moving = False
        # The new tilt's sine and cosine once a step, not once a piece (the same values).
        frame = (theta, -G * math.sin(theta), -G * math.cos(theta), omega * omega, alpha)
        for b in bodies:
            if b.fallen is None and _step_piece(b, bodies, frame):
                moving = True
        quiet = 0 if moving or abs(omega) > 0.02 else quiet + 1
        if quiet >= SETTLED_STEPS:
            break
    kept = tuple(
        Placed(
            b.id, b.surface, round(b.x, 4), round(b.base, 4), round(b.width, 4), round(b.height, 4)
        )
        for b in bodies
        if b.fallen is None
    )
    fell = tuple(Fall(b.id, round(b.fallen, 3)) for b in bodies if b.fallen is not None)
    return Outcome(round(theta, 6), kept, fell, round(peak, 6))


Frame = tuple[float, float, float, float, float]  # theta, -G sin, -G cos, omega^2, alpha


def _step_piece(b: _Body, bodies: list[_Body], frame: Frame) -> bool:
    """Advance one piece by DT; True if it moved. The hottest code of a search bot's
    decision (a simulation a placement tried): written for speed, each value computed
    as before to the last bit (tests/unit/riff_raff/test_ship_and_playthroughs.py
    pins them)."""
    theta, g_sin, g_cos, omega2, alpha = frame
    x = b.x
    y = b.base + b.height / 2
    along = g_sin + alpha * y + omega2 * x
    normal = g_cos - alpha * x + omega2 * y
    support = b.support
    grip = b.surface_grip if support is None else min(b.grip, support.grip)
    press = -normal if -normal > 0.0 else 0.0
    if b.height > b.width and press > 0 and abs(along) / press > b.width / b.height:
        shift = (b.height - b.width) / 2 * (1 if along > 0 else -1)
        b.width, b.height, b.x, b.v = b.height, b.width, b.x + shift, 0.0
        return _after_move(b, bodies, theta)
    if b.v == 0.0 and abs(along) <= grip * press:
        if support is not None and support.v != 0.0:
            b.x += support.v * DT  # riding the piece below
            return _after_move(b, bodies, theta)
        return False
    friction = SLIDE * grip * press
    direction = b.v if b.v != 0.0 else along
    accel = along - math.copysign(friction, direction)
    new_v = b.v + accel * DT
    b.v = 0.0 if b.v != 0.0 and (new_v > 0) != (b.v > 0) else new_v
    b.x += b.v * DT
    return _after_move(b, bodies, theta)


def _after_move(b: _Body, bodies: list[_Body], theta: float) -> bool:
    surface = b.on
    inner = surface.closed_inner
    if inner is not None:  # the mast stops it
        if inner > 0 and b.x - b.width / 2 < inner:
            b.x, b.v = inner + b.width / 2, 0.0
        elif inner < 0 and b.x + b.width / 2 > inner:
            b.x, b.v = inner - b.width / 2, 0.0
    if not surface.x0 <= b.x <= surface.x1 and abs(theta) < surface.bulwark:
        b.x, b.v = min(surface.x1, max(surface.x0, b.x)), 0.0
    elif not surface.x0 <= b.x <= surface.x1:
        world_y = b.x * math.sin(theta) + (b.base + b.height / 2) * math.cos(theta)
        b.fallen = world_y - WATER
        for other in bodies:  # what rode on it comes down to what is under it
            if other.support is b:
                _rest_on(other, bodies)
        return True
    if b.support is not None and abs(b.support.x - b.x) >= (b.support.width + b.width) / 2:
        _rest_on(b, bodies)
    return True
