"""Small rules over the BbF data that the engine will build on: unit classes and dice sums."""

from __future__ import annotations

from fractions import Fraction

from pbem.games.bcs.data import Face, Modifier, TerrainRow, Unit


def round_bcs(x: Fraction | float) -> int:
    """BCS 1.3c rounding: below .5 rounds down, .5 or more rounds up."""
    f = Fraction(x)
    whole = f.numerator // f.denominator
    return whole + (1 if f - whole >= Fraction(1, 2) else 0)


def net_drm(mods: list[Modifier]) -> int:
    """BCS 1.3d: several modifiers on one roll add up."""
    return sum(m.drm for m in mods)


def is_av(face: Face) -> bool:
    """An AV unit: any side showing an Armor Value (1.2c)."""
    return face.av is not None


def is_dual(face: Face) -> bool:
    """A Dual unit shows both an Assault Arrow and an AV (1.2c)."""
    return face.assault_arrow and face.av is not None


def is_unprepared(face: Face) -> bool:
    """Unprepared: neither an Assault Arrow nor an AV on the side showing (1.2d)."""
    return not face.assault_arrow and face.av is None


def is_infantry_for_terrain(face: Face) -> bool:
    """No printed AV: the unit is Infantry for the Combat Table terrain DRM (1.2c)."""
    return face.av is None


def faces(u: Unit) -> list[tuple[str, Face]]:
    """The printed sides of a counter: Move, and Deployed when it has two sides (1.2b)."""
    return [("move", u.move)] + ([("deployed", u.deployed)] if u.deployed is not None else [])


def mp_cost(row: TerrainRow, mclass: str, rain: bool = False) -> Fraction | str:
    """The TEC cost for a movement class: a Fraction of MP, or 'P', 'ot', 'all', 'STOP', '+n'."""
    v = getattr(row, ("rain_" if rain else "") + mclass)
    if v in ("P", "ot", "all", "STOP") or v.startswith("+"):
        return v
    return Fraction(v)
