"""Link buttons from Discord to the companion web site (issue #32): under the score sheet (the
game's page), the standings (the tournament's) and ``/calico stats`` (the player's), when this
bot serves the site (``CALICO_WEB_SECRET`` and ``CALICO_WEB_BASE_URL`` set, given once by the
client at start, like the render threads) and the server turned it on with ``/calico admin``.
A person who hid their name from the site gets no link to a page of their own."""

from __future__ import annotations

import discord

from bot.adapter.ui.outgoing import Outgoing
from bot.adapter.ui.views import ItemsView
from bot.core.kernel import Kernel
from bot.core.site import service as site
from bot.web import links
from bot.words.catalogue import Text

_base_url = ""
_signer: links.Signer | None = None


def configure(base_url: str, secret: str) -> None:
    """Where the site is and the key that signs its links (empty: no Link buttons)."""
    global _base_url, _signer
    _base_url = base_url.strip()
    _signer = links.Signer(secret) if secret and _base_url else None


async def page_url(kernel: Kernel, guild_id: int | None, kind: str, *ids: int) -> str | None:
    """The page's address, or None when there is no page to link to."""
    if _signer is None or not guild_id or not await site.enabled(kernel, guild_id):
        return None
    if kind == links.PLAYER and await site.name_hidden(kernel, ids[-1]):
        return None
    return links.page_url(_base_url, _signer, kind, *ids)


async def add_link(out: Outgoing, tr: Text, kernel: Kernel, guild_id: int | None, kind: str,
                   *ids: int) -> Outgoing:
    """``out`` with a Link button to the page (beside its other buttons), when there is one."""
    url = await page_url(kernel, guild_id, kind, *ids)
    if url is None:
        return out
    view = out.view if out.view is not None else ItemsView()
    view.add_item(discord.ui.Button(style=discord.ButtonStyle.link, url=url,
                                    label=tr("web.link"), row=0 if len(view.children) < 5
                                    else None))
    out.view = view
    return out
