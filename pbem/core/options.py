"""House options: resolving what a proposer chose against a game's option specs.

An option (``pbem.core.game.OptionSpec``) has a list of ``choices`` and either a ``default``
or ``required=True`` (no default: the proposer must choose). Two kinds of dependency:

- ``when = {"other": (v1, v2)}``: the option applies only while every named option has one of
  the listed values. While it does not apply its value is its ``default`` (``None`` for a
  required option): giving that value is accepted (a proposal lists every option explicitly),
  any other value contradicts the other option and is refused.
- ``value_when = {value: {"other": (v1, ...)}}``: this value is allowed only while every named
  option has one of the listed values (a default that contradicts another choice is refused
  too: the proposer must choose).

``resolve`` returns every option with its value, which is what the genesis records; every
refusal is one ``PbemError`` line naming the options and the allowed values.
"""

from __future__ import annotations

from typing import Any, Mapping

from pbem.core.errors import PbemError, ScenarioError
from pbem.core.game import OptionSpec


def _cond(cond: Mapping[str, tuple[Any, ...]]) -> str:
    return " and ".join(f"{k} is {' or '.join(repr(v) for v in vals)}"
                        for k, vals in sorted(cond.items()))


def _holds(cond: Mapping[str, tuple[Any, ...]], values: Mapping[str, Any]) -> bool:
    return all(values[k] in vals for k, vals in cond.items())


def check_specs(specs: Mapping[str, OptionSpec], owner: str = "game") -> None:
    """ScenarioError if the specs themselves are inconsistent (a bug of the game, not the user)."""
    for k, spec in specs.items():
        if not spec.required and spec.default not in spec.choices and not spec.when:
            raise ScenarioError(f"{owner}: option {k} has default {spec.default!r}, "
                                f"not one of {list(spec.choices)}")
        for v, cond in spec.value_when.items():
            if v not in spec.choices:
                raise ScenarioError(f"{owner}: option {k}: value_when names {v!r}, "
                                    f"not one of {list(spec.choices)}")
        for cond in (spec.when, *spec.value_when.values()):
            for other in cond:
                if other not in specs or other == k:
                    raise ScenarioError(f"{owner}: option {k} depends on {other!r}, "
                                        "which is not another option of the game")


def resolve(specs: Mapping[str, OptionSpec], given: Mapping[str, Any] | None, *,
            where: str = "options", owner: str = "game",
            error: type[PbemError] = PbemError, ask: str = "") -> dict[str, Any]:
    """Every option with its value, defaults filled in; ``error`` (one line) when the choice is
    incomplete or contradictory: an unknown option or value, a required option missing, an
    option given while another option makes it not apply, a value another option forbids.
    ``ask`` says how the caller's user gives an option ("{k}" is the option's name), and is
    added to the message for a required option left out."""
    check_specs(specs, owner)
    given = dict(given or {})
    for k in given:
        if k not in specs:
            raise error(f"{where}: unknown option {k!r} for {owner} "
                        f"(known: {', '.join(sorted(specs)) or 'none'})")
    values = _Values(specs, given, where, owner, error, ask)
    for k in sorted(specs):
        values.value_of(k)
    out = values.out
    for k in sorted(specs):
        cond = _value_cond(specs[k], out[k])
        if cond and not _holds(cond, out):
            now = ", ".join(f"{d}={out[d]!r}" for d in sorted(cond))
            how = "given" if k in given else "the default"
            raise error(f"{where}: option {k}={out[k]!r} ({how}) needs {_cond(cond)}, "
                        f"not {now}: choose another {k} or change {', '.join(sorted(cond))}")
    return out


class _Values:
    """The values resolve() settles, each after the options its applicability depends on (a
    class, not a nested recursive function: that would be a reference cycle, and turn
    commands run without the cyclic collector)."""

    def __init__(self, specs: Mapping[str, OptionSpec], given: dict[str, Any], where: str,
                 owner: str, error: type[PbemError], ask: str = "") -> None:
        self.specs, self.given, self.where, self.owner, self.error = (specs, given, where,
                                                                       owner, error)
        self.ask = ask
        self.out: dict[str, Any] = {}
        self.busy: list[str] = []

    def value_of(self, k: str) -> Any:
        """The value of option k, the options it depends on first."""
        specs, given, out, busy = self.specs, self.given, self.out, self.busy
        where, owner, error = self.where, self.owner, self.error
        if k in out:
            return out[k]
        if k in busy:
            raise ScenarioError(f"{owner}: options {' -> '.join([*busy, k])} depend on "
                                "each other in a cycle")
        busy.append(k)
        spec = specs[k]
        deps = {d: self.value_of(d) for d in sorted(spec.when)}
        busy.pop()
        if not _holds(spec.when, deps):
            off = spec.default
            if k in given and given[k] != off:
                now = ", ".join(f"{d}={deps[d]!r}" for d in sorted(deps))
                raise error(f"{where}: option {k} applies only when {_cond(spec.when)}, "
                            f"not with {now}: leave it out")
            out[k] = off
            return off
        if k in given:
            v = given[k]
            if v not in spec.choices:
                raise error(f"{where}: option {k}={v!r} is not one of {', '.join(map(str, spec.choices))}")
        elif spec.required:
            how = f" ({self.ask.format(k=k)})" if self.ask else ""
            raise error(f"{where}: option {k} is required for {owner} (no default): "
                        f"choose one of {', '.join(map(str, spec.choices))}{how}")
        else:
            v = spec.default
            if v not in spec.choices:
                raise ScenarioError(f"{owner}: option {k} has default {v!r}, "
                                    f"not one of {list(spec.choices)}")
        out[k] = v
        return v


def bot_choices(specs: Mapping[str, OptionSpec], owner: str = "game") -> dict[str, Any]:
    """The options a bot game (``pbem demo``, test games) plays: every default, and for a
    required option its first choice that the other options allow. Never a proposal's default:
    a player who leaves a required option out is still refused by ``resolve``."""
    given: dict[str, Any] = {}
    for k in sorted(specs):
        spec = specs[k]
        if spec.required and _holds(spec.when, {**{d: specs[d].default for d in spec.when},
                                                **given}):
            given[k] = spec.choices[0]
    return resolve(specs, given, where="bot options", owner=owner)


def required_choices(specs: Mapping[str, OptionSpec], chosen: Mapping[str, Any]) -> dict[str, Any]:
    """The required options among chosen (what a bot game had to pick for the players)."""
    return {k: v for k, v in chosen.items() if specs[k].required}


def _value_cond(spec: OptionSpec, value: Any) -> dict[str, tuple[Any, ...]]:
    """The condition on other options that this value of the option needs (compared with ==,
    as the choices are)."""
    for v, cond in spec.value_when.items():
        if v == value:
            return dict(cond)
    return {}


def as_typed(value: Any) -> str:
    """An option value as a player writes it after --option NAME= (true/false, numbers)."""
    if value is True or value is False:
        return "true" if value else "false"
    return "(none)" if value is None else str(value)


def describe(specs: Mapping[str, OptionSpec]) -> list[str]:
    """One line per house option: name, default, the other choices and the gap it settles."""
    out = []
    for k in sorted(specs):
        spec = specs[k]
        head = (f"{k} (required: one of {', '.join(map(as_typed, spec.choices))})" if spec.required
                else f"{k} = {as_typed(spec.default)}" + (
                    f" (or {', '.join(as_typed(c) for c in spec.choices if c != spec.default)})"
                    if len(spec.choices) > 1 else " (fixed)"))
        out.append(f"{head}: {spec.doc}")
    return out


def chosen(specs: Mapping[str, OptionSpec], values: Mapping[str, Any],
           implied: Mapping[str, Any] | None = None) -> str:
    """What a proposal chose, in one line: the options set away from their defaults (and the
    required ones); the rest are said to be the defaults. implied: options pbem itself sets
    (a sealed game's), left out at those values."""
    implied = implied or {}
    picked = [f"{k}={as_typed(v)}" for k, v in sorted(values.items())
              if k in specs and (specs[k].required or v != specs[k].default)
              and not (k in implied and implied[k] == v)]
    unknown = sorted(k for k in values if k not in specs)
    if unknown:
        picked.append("unknown to this version: " + ", ".join(unknown))
    return ("House options: " + ", ".join(picked) + "; every other option at its default"
            if picked else "House options: every option at its default")
