"""Users' languages for what the bot posts: each person's DMs read in the locale stored with
them (from their last interaction with a game), thread posts in the server's chosen language
(else the host's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from bot.core import queries
from bot.words.catalogue import Text

if TYPE_CHECKING:
    from bot.core.kernel import Kernel


class Locales(Protocol):
    """Where a user's language comes from (the stored locale of each user)."""

    async def locale(self, user_id: int | None) -> str: ...

    def remember(self, user_id: int, locale: str) -> None: ...

    async def text_for(self, user_id: int | None) -> Text: ...


class LocaleSource:
    """Users' languages: the locale the kernel stored for each (``Kernel.user_locale``).

    ``remember`` covers the moment between an interaction and the kernel storing its user (a
    host's lobby being created): a stored locale always wins over a remembered one.
    """

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self._remembered: dict[int, str] = {}

    async def locale(self, user_id: int | None) -> str:
        if user_id is None:
            return "en-US"
        stored = await queries.user_locale(self.kernel, user_id, default="")
        return stored or self._remembered.get(user_id) or "en-US"

    def remember(self, user_id: int, locale: str) -> None:
        if len(self._remembered) > 10_000:
            self._remembered.clear()
        self._remembered[user_id] = locale

    async def text_for(self, user_id: int | None) -> Text:
        return Text(await self.locale(user_id))
