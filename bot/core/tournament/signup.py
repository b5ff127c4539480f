"""What people do to a tournament: the organiser creates it (its sign-up message queued),
players join and leave until the sign-up closes (the organiser may close it early), a player
withdraws (or is removed) while it runs, the organiser pauses, resumes or cancels it. Each is
one versioned step (:func:`bot.core.tournament.records.step`).

Withdrawing drops a player from later rounds; their seats in open games become computer
players (:func:`bot.core.leaving.leave_game`).
"""

from __future__ import annotations

import contextlib
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
    HOUR_MS,
    MAX_ROUND_HOURS,
    MAX_ROUNDS,
    NOT_IN,
    NOT_NOW,
    ORGANISER_ONLY,
    PAUSED,
    RUNNING,
    SIGNUP,
    SIGNUP_CLOSED,
    EntrantRow,
    PostKind,
    Spec,
    TournamentInfo,
    TournamentRow,
)
from bot.core.tournament.store import TournamentWrite


def _check_organiser(row: TournamentRow, by_user_id: int, privileged: bool) -> None:
    if by_user_id != row.organiser_id and not privileged:
        raise ManagerError(ORGANISER_ONLY, "only the organiser can do that")


async def create(k: Kernel, organiser: UserRef, guild_id: int, channel_id: int,
                 spec: Spec) -> TournamentInfo:
    """A new tournament in its sign-up, with its sign-up message queued (one transaction)."""
    now = k.now_ms()
    name = " ".join(spec.name.split())
    if not 1 <= len(name) <= 80 or spec.format not in FORMATS \
            or not 2 <= spec.table_size <= 4 or not 1 <= spec.rounds <= MAX_ROUNDS \
            or not now <= spec.signup_ends_at <= spec.starts_at \
            or not 0 < spec.round_hours <= MAX_ROUND_HOURS:  # False for NaN too
        raise ManagerError(BAD, "name, format, size, rounds or times out of range")
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

    tid = await store.create(k.store, row, notices)
    return await records.get(k, tid)


async def attach_message(k: Kernel, tournament_id: int, message_id: int) -> None:
    """Record the sign-up message (posted by the outbox). Repeating it is harmless."""
    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        if row.message_id == message_id:
            return None, None
        return records.write(row, k.now_ms(), message_id=message_id), None

    await records.step(k, tournament_id, change)


async def join(k: Kernel, tournament_id: int, user: UserRef) -> TournamentInfo:
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        if row.status != SIGNUP or now >= row.signup_ends_at:
            raise ManagerError(SIGNUP_CLOSED, "sign-up is closed")
        if any(e.user_id == user.id for e in await store.entrants(k.store, row.id)):
            raise ManagerError(ALREADY_IN, "you are signed up already")
        w = records.write(row, now)
        w.add_entrants.append(EntrantRow(row.id, user.id, user.name[:80], now))
        return w, None

    await records.step(k, tournament_id, change)
    return await records.get(k, tournament_id)


async def leave(k: Kernel, tournament_id: int, user_id: int) -> TournamentInfo:
    """Leave the sign-up, or withdraw from a tournament under way."""
    return await _drop(k, tournament_id, user_id)


async def remove(k: Kernel, tournament_id: int, by_user_id: int, user_id: int,
                 privileged: bool = False) -> TournamentInfo:
    """The organiser removes an entrant (as :func:`leave`)."""
    _check_organiser(await records.row(k, tournament_id), by_user_id, privileged)
    return await _drop(k, tournament_id, user_id)


async def _drop(k: Kernel, tournament_id: int, user_id: int) -> TournamentInfo:
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, int | None]:
        entrant = next((e for e in await store.entrants(k.store, row.id)
                        if e.user_id == user_id), None)
        if entrant is None or entrant.withdrawn is not None:
            raise ManagerError(NOT_IN, "not an entrant")
        w = records.write(row, now)
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
    passed meanwhile starts again from now)."""
    now = k.now_ms()

    async def change(row: TournamentRow) -> tuple[TournamentWrite | None, None]:
        _check_organiser(row, by_user_id, privileged)
        if row.status != (RUNNING if paused else PAUSED):
            raise ManagerError(NOT_NOW, "not running" if paused else "not paused")
        cols: dict[str, Any] = {"status": PAUSED if paused else RUNNING}
        if not paused and (row.round_deadline_at or 0) <= now:
            cols["round_deadline_at"] = now + int(row.round_hours * HOUR_MS)
        w = records.write(row, now, **cols)
        w.notices.append(records.post(row, 0, PostKind.PAUSED if paused else PostKind.RESUMED))
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
