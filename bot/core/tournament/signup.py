"""What people do to a tournament: the organiser creates it (its sign-up message queued),
players join and leave until the sign-up closes (the organiser may close it early), a player
withdraws (or is removed) while it runs, the organiser pauses, resumes or cancels it. Each is
one versioned step (:func:`bot.core.tournament.records.step`), and each step that changes what
the sign-up message shows queues its edit (a Join click edits it in its own answer).

Withdrawing drops a player from later rounds; their seats in open games become computer
players (:func:`bot.core.leaving.leave_game`), and those games count as lost for them
(:mod:`bot.core.tournament.rounds`). Who may act for the organiser is the caller's business
(``privileged``: the adapter passes server managers).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from bot.core import leaving
from bot.core.kernel import Kernel
from bot.core.models import FirstPlayer, LobbyOptions, ManagerError, UserRef
from bot.core.storage import NoticeDraft
from bot.core.tournament import records, store
from bot.core.tournament.model import (
    ALREADY_IN,
    BAD,
    CANCELLED,
    FORMATS,
    FULL,
    HOUR_MS,
    MAX_NAME,
    MAX_OPEN_PER_SERVER,
    MAX_ROUND_HOURS,
    MAX_ROUNDS,
    MAX_SIGNUP_HOURS,
    MAX_START_HOURS,
    MAX_TABLE,
    MIN_TABLE,
    NOT_IN,
    NOT_NOW,
    OPTION,
    ORGANISER_ONLY,
    PAUSED,
    RUNNING,
    SIGNUP,
    SIGNUP_CLOSED,
    TOO_MANY,
    UNKNOWN,
    EntrantRow,
    PostKind,
    Spec,
    TournamentError,
    TournamentInfo,
    TournamentRow,
    max_entrants,
)
from bot.core.tournament.store import TournamentWrite


def _check_organiser(row: TournamentRow, by_user_id: int, privileged: bool) -> None:
    if by_user_id != row.organiser_id and not privileged:
        raise ManagerError(ORGANISER_ONLY, "only the organiser can do that")


def _in_range(option: str, value: float, low: float, high: float) -> None:
    """Refuse an option out of its range, naming it (NaN is out of every range)."""
    if not low <= value <= high:
        raise TournamentError(OPTION, f"{option} out of range", option=option, low=round(low),
                      high=round(high))


def check_spec(spec: Spec, name: str, now: int) -> None:
    """Each of the organiser's choices in its range, the option named as
    ``/calico tournament create`` names it (Discord's client keeps to these ranges; the API
    does not)."""
    if spec.format not in FORMATS:
        raise ManagerError(BAD, f"unknown format {spec.format!r}")
    _in_range("name", len(name), 1, MAX_NAME)
    _in_range("table_size", spec.table_size, MIN_TABLE, MAX_TABLE)
    _in_range("rounds", spec.rounds, 1, MAX_ROUNDS)
    _in_range("signup_hours", (spec.signup_ends_at - now) / HOUR_MS, 0, MAX_SIGNUP_HOURS)
    if not spec.signup_ends_at <= spec.starts_at <= now + MAX_START_HOURS * HOUR_MS:
        # Round 1 starts no earlier than the sign-up's end.
        raise TournamentError(OPTION, "start_hours out of range", option="start_hours",
                              low=math.ceil((spec.signup_ends_at - now) / HOUR_MS),
                              high=MAX_START_HOURS)
    if not 0 < spec.round_hours <= MAX_ROUND_HOURS:  # False for NaN too
        raise TournamentError(OPTION, "round_hours out of range", option="round_hours", low=1,
                      high=MAX_ROUND_HOURS)


async def create(k: Kernel, organiser: UserRef, guild_id: int, channel_id: int,
                 spec: Spec) -> TournamentInfo:
    """A new tournament in its sign-up, with its sign-up message queued (one transaction);
    refused past :data:`~bot.core.tournament.model.MAX_OPEN_PER_SERVER` open in the server."""
    now = k.now_ms()
    name = " ".join(spec.name.split())
    check_spec(spec, name, now)
    try:
        # Every table starts at once: no lobby race for the first player.
        options = LobbyOptions.model_validate({
            **spec.options.model_dump(), "players": spec.table_size,
            "first": FirstPlayer.RANDOM})
    except ValidationError as e:
        raise ManagerError(BAD, str(e.errors()[0].get("msg", ""))) from None
    row = TournamentRow(0, guild_id, channel_id, organiser.id, name, spec.format, spec.rounds,
                        spec.table_size, options.model_dump_json(), spec.signup_ends_at,
                        spec.starts_at, spec.round_hours, SIGNUP, 0, None, None, 0, now, now)

    def notices(tid: int) -> list[NoticeDraft]:
        return [records.post(replace(row, id=tid), 0, PostKind.SIGNUP, version=0)]

    tid = await store.create(k.store, row, notices, MAX_OPEN_PER_SERVER)
    if not tid:
        raise TournamentError(TOO_MANY, "too many open tournaments", count=MAX_OPEN_PER_SERVER)
    return await records.get(k, tid)


async def attach_message(k: Kernel, tournament_id: int, message_id: int) -> None:
    """Record the sign-up message (posted by the outbox). Repeating it is harmless."""
    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        if row.message_id == message_id:
            return None, None
        return records.write(row, k.now_ms(), message_id=message_id), None

    await records.step(k, tournament_id, change)


async def join(k: Kernel, tournament_id: int, user: UserRef,
               guild_id: int | None = None) -> TournamentInfo:
    """Sign up (a Join click; ``guild_id``: the server it came from, which must be the
    tournament's). TournamentError once the format's entrant cap is reached."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        if guild_id is not None and guild_id != row.guild_id:
            raise ManagerError(UNKNOWN, "another server's tournament")
        if row.status != SIGNUP or now >= row.signup_ends_at:
            raise ManagerError(SIGNUP_CLOSED, "sign-up is closed")
        entrants = await store.entrants(k.store, row.id)
        if any(e.user_id == user.id for e in entrants):
            raise ManagerError(ALREADY_IN, "you are signed up already")
        cap = max_entrants(row.format, row.table_size)
        if len(entrants) >= cap:
            raise TournamentError(FULL, "the tournament is full", count=cap)
        w = records.write(row, now)
        w.add_entrants.append(EntrantRow(row.id, user.id, user.name[:80], now))
        # The click's answer edits the message at once; this edit, after every join, keeps
        # it right when clicks cross (a burst of them is edited once: the delivery skips an
        # edit showing nothing new).
        w.notices.append(records.post(row, 0, PostKind.SIGNUP))
        return w, None

    await records.step(k, tournament_id, change)
    return await records.get(k, tournament_id)


async def leave(k: Kernel, tournament_id: int, user_id: int,
                guild_id: int | None = None) -> TournamentInfo:
    """Leave the sign-up, or withdraw from a tournament under way."""
    return await drop(k, tournament_id, user_id, guild_id=guild_id)


async def remove(k: Kernel, tournament_id: int, by_user_id: int, user_id: int,
                 privileged: bool = False) -> TournamentInfo:
    """The organiser removes an entrant (as :func:`leave`)."""
    _check_organiser(await records.row(k, tournament_id), by_user_id, privileged)
    return await drop(k, tournament_id, user_id)


async def drop(k: Kernel, tournament_id: int, user_id: int, *,
               guild_id: int | None = None) -> TournamentInfo:
    """An entrant out: gone from the sign-up, or withdrawn from a tournament under way (never
    paired again; their open game's seat becomes a computer and the game counts as lost for
    them). The sign-up message is edited."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int | None]:
        if guild_id is not None and guild_id != row.guild_id:
            raise ManagerError(UNKNOWN, "another server's tournament")
        entrant = next((e for e in await store.entrants(k.store, row.id)
                        if e.user_id == user_id), None)
        if entrant is None or entrant.withdrawn is not None:
            raise ManagerError(NOT_IN, "not an entrant")
        w = records.write(row, now)
        w.notices.append(records.post(row, 0, PostKind.SIGNUP))
        if row.status == SIGNUP:
            w.remove_entrants.append(user_id)
            return w, None
        if row.status not in (RUNNING, PAUSED):
            raise ManagerError(NOT_NOW, "the tournament is over")
        w.withdraw.append((user_id, row.round))
        return w, row.round

    round_no = await records.step(k, tournament_id, change)
    if round_no is not None:
        # Their open games go on without them: each seat becomes a computer player.
        for t in await records.games_of(k, tournament_id, user_id):
            if t.round == round_no and t.game_id is not None:
                with contextlib.suppress(ManagerError):  # that game had ended
                    await leaving.leave_game(k, t.game_id, user_id)
    return await records.get(k, tournament_id)


async def close_signup(k: Kernel, tournament_id: int, by_user_id: int,
                       privileged: bool = False) -> TournamentInfo:
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        _check_organiser(row, by_user_id, privileged)
        if row.status != SIGNUP or now >= row.signup_ends_at:
            raise ManagerError(SIGNUP_CLOSED, "sign-up is closed")
        w = records.write(row, now, signup_ends_at=now)
        w.notices.append(records.post(row, 0, PostKind.SIGNUP))
        return w, None

    await records.step(k, tournament_id, change)
    return await records.get(k, tournament_id)


async def pause(k: Kernel, tournament_id: int, by_user_id: int, paused: bool,
                privileged: bool = False) -> TournamentInfo:
    """Pause a running tournament (no round starts or ends), or resume it (a deadline that
    passed meanwhile starts again from now; one paused in its sign-up, because its channel
    was lost, goes back to it)."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        _check_organiser(row, by_user_id, privileged)
        if row.status != (RUNNING if paused else PAUSED):
            raise ManagerError(NOT_NOW, "not running" if paused else "not paused")
        cols: dict[str, Any] = {"status": PAUSED if paused else
                                (RUNNING if row.round else SIGNUP)}
        if not paused and row.round and (row.round_deadline_at or 0) <= now:
            cols["round_deadline_at"] = now + int(row.round_hours * HOUR_MS)
        w = records.write(row, now, **cols)
        w.notices += [records.post(row, 0, PostKind.PAUSED if paused else PostKind.RESUMED),
                      records.post(row, 1, PostKind.SIGNUP)]
        return w, None

    await records.step(k, tournament_id, change)
    return await records.get(k, tournament_id)


async def cancel(k: Kernel, tournament_id: int, by_user_id: int,
                 privileged: bool = False) -> TournamentInfo:
    """End the tournament (its open games go on as ordinary games)."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        _check_organiser(row, by_user_id, privileged)
        if row.status not in (SIGNUP, RUNNING, PAUSED):
            raise ManagerError(NOT_NOW, "the tournament has ended")
        w = records.write(row, now, status=CANCELLED, round_deadline_at=None)
        w.notices += [records.post(row, 0, PostKind.CANCELLED),
                      records.post(row, 1, PostKind.SIGNUP)]
        return w, None

    await records.step(k, tournament_id, change)
    return await records.get(k, tournament_id)
