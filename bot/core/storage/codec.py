"""How engine states are stored: the JSON of ``engine.serialize.state_to_json``, written faster.

``state_to_json`` goes through ``dataclasses.asdict``, which deep-copies the whole state,
config included (about 0.7 ms a call, the largest cost of a move). The config never changes
during a game, so it is encoded once per game and spliced in; the rest is read field by field.
The result decodes with the engine's own ``state_from_json`` (the tests compare both encoders on
many states), so the stored format stays the engine's.
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from typing import Any

from engine.events import Event
from engine.serialize import state_from_json
from engine.state import GameState, SeatState

_STATE_FIELDS = tuple(f.name for f in fields(GameState) if f.name != "config")
_SEAT_FIELDS = tuple(f.name for f in fields(SeatState))
_COMPACT = (",", ":")


def encode_config(state: GameState) -> str:
    """The config part of the state JSON (constant for a game: cache it)."""
    return json.dumps(asdict(state.config), separators=_COMPACT)


def encode_state(state: GameState, config_json: str | None = None) -> str:
    """The state as JSON text; pass ``encode_config(state)`` once computed to save its cost."""
    data: dict[str, Any] = {}
    for name in _STATE_FIELDS:
        value = getattr(state, name)
        if name == "seats":
            value = [{f: getattr(seat, f) for f in _SEAT_FIELDS} for seat in value]
        data[name] = value
    body = json.dumps(data, separators=_COMPACT)
    config = config_json if config_json is not None else encode_config(state)
    return f'{body[:-1]},"config":{config}}}'


def decode_state(text: str) -> GameState:
    return state_from_json(json.loads(text))


_EVENT_FIELDS: dict[type[Event], tuple[str, ...]] = {}


def event_dict(event: Event) -> dict[str, Any]:
    """``engine.events.event_to_dict`` without ``asdict``'s deep copy (same JSON): events are
    frozen, so their tuples can be encoded as they are."""
    cls = type(event)
    names = _EVENT_FIELDS.get(cls)
    if names is None:
        names = _EVENT_FIELDS[cls] = tuple(f.name for f in fields(event))
    data: dict[str, Any] = {"kind": event.kind}
    for name in names:
        data[name] = getattr(event, name)
    return data


def dumps(value: Any) -> str:
    """Compact JSON, as stored."""
    return json.dumps(value, separators=_COMPACT)


def splice(payload: dict[str, Any], raw: dict[str, str]) -> str:
    """JSON of ``payload`` plus members whose values are already encoded JSON text (so that
    a large part shared by several rows, such as a move's events, is encoded once)."""
    body = dumps(payload)
    if not raw:
        return body
    extra = ",".join(f"{json.dumps(k)}:{v}" for k, v in raw.items())
    return f"{body[:-1]},{extra}}}" if payload else f"{{{extra}}}"
