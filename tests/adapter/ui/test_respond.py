"""When an interaction can no longer be answered in place (issue 29): its token lives 15
minutes from its creation, and Discord's refusals say so too; past it the answer goes another
way (tests/e2e/test_late_answers.py drives that through the stand-in)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.adapter.ui import respond

MADE = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def interaction() -> Any:
    return SimpleNamespace(created_at=MADE)


@pytest.mark.parametrize(("minutes", "gone"), [(1, False), (14, False), (14.6, True), (16, True)])
def test_a_token_is_gone_near_its_fifteen_minutes(minutes: float, gone: bool) -> None:
    now = MADE + timedelta(minutes=minutes)
    assert respond.token_gone(interaction(), now=now) is gone


class Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "x"


@pytest.mark.parametrize(("status", "code", "gone"), [
    (401, 50027, True), (404, 10015, True), (404, 10008, False), (500, 0, False)])
def test_discords_refusals_say_it_too(status: int, code: int, gone: bool) -> None:
    error = discord.HTTPException(Response(status), {"code": code, "message": "m"})  # type: ignore
    assert respond.token_gone(interaction(), error) is gone
