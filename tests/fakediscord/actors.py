"""Acting as a Discord user: slash commands, autocomplete, context menus, button clicks, select
menus, modal submissions and plain messages.

Each action builds the exact ``INTERACTION_CREATE`` payload Discord would send (nested
subcommand/group options, ``resolved`` users/channels/roles/attachments, member with
``permissions`` and ``flags``, ``app_permissions``, ``locale``, ``attachment_size_limit``,
``version``...), dispatches it on the fake gateway and returns the :class:`FakeInteraction`
record, on which the test awaits the bot's answer.  Actions a real user could not perform
(clicking a disabled button, picking a value that is not an option, omitting a required option)
raise :class:`ActorError` instead of sending anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .server import FakeDiscordServer
from .state import (
    JSON,
    FakeAttachment,
    FakeChannel,
    FakeDiscordState,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionType,
)

UserRef = FakeUser | str | int
ChannelRef = FakeChannel | str | int
MessageRef = FakeMessage | int

_PY_TYPES: tuple[tuple[type, int], ...] = (
    (bool, 5),
    (int, 4),
    (float, 10),
    (str, 3),
    (FakeUser, 6),
    (FakeChannel, 7),
    (FakeRole, 8),
    (FakeAttachment, 11),
)


class ActorError(AssertionError):
    """The test asked a user to do something a Discord user cannot do."""


class UserActions:
    """User-side actions; :class:`~tests.fakediscord.env.DiscordEnv` inherits them."""

    state: FakeDiscordState
    server: FakeDiscordServer

    # -- resolution (overridden/extended by the environment) -----------------------------------
    def default_channel(self) -> FakeChannel:
        raise ActorError("no default channel: pass channel=...")

    def local_command(
        self, name: str, guild_id: int | None, command_type: int
    ) -> tuple[JSON, bool] | None:
        """Definition of a command from the running client's tree (``(dict, is_guild)``)."""
        return None

    def resolve_user(self, user: UserRef) -> FakeUser:
        if isinstance(user, FakeUser):
            return user
        if isinstance(user, int):
            found = self.state.users.get(user)
            if found is None:
                raise ActorError(f"unknown user id {user}")
            return found
        for candidate in self.state.users.values():
            if candidate.name == user:
                return candidate
        raise ActorError(f"unknown user {user!r}")

    def resolve_channel(self, channel: ChannelRef | None) -> FakeChannel:
        if channel is None:
            return self.default_channel()
        if isinstance(channel, FakeChannel):
            return self.state.channels[channel.id]
        if isinstance(channel, int):
            found = self.state.channels.get(channel)
            if found is None:
                raise ActorError(f"unknown channel id {channel}")
            return found
        name = channel.lstrip("#")
        matches = [c for c in self.state.channels.values() if c.name == name and not c.deleted]
        if len(matches) != 1:
            raise ActorError(f"expected one channel named {name!r}, found {len(matches)}")
        return matches[0]

    def resolve_message(self, message: MessageRef) -> FakeMessage:
        mid = message.id if isinstance(message, FakeMessage) else message
        found = self.state.messages.get(mid)
        if found is None:
            raise ActorError(f"unknown message {mid}")
        return found

    # -- interaction plumbing ------------------------------------------------------------------
    def _guild_context(self, user: FakeUser, channel: FakeChannel) -> FakeGuild | None:
        if channel.deleted:
            raise ActorError(f"{channel!r} was deleted")
        if channel.is_dm:
            if channel.recipient_id != user.id:
                raise ActorError(f"{user!r} is not part of DM channel {channel.id}")
            return None
        guild = self.state.guild_of(channel)
        if guild is None:
            raise ActorError(f"{channel!r} has no guild")
        if user.id not in guild.members:
            raise ActorError(f"{user!r} is not a member of {guild!r}")
        if not self.state.permissions_in(channel, user.id):
            raise ActorError(f"{user!r} cannot see {channel!r}")
        return guild

    async def send_interaction(
        self,
        user: UserRef,
        channel: ChannelRef | None,
        interaction_type: int,
        data: JSON,
        *,
        message: FakeMessage | None = None,
        source: FakeInteraction | None = None,
    ) -> FakeInteraction:
        """Dispatch a raw interaction of any type (the other actions build on this)."""
        state = self.state
        who = self.resolve_user(user)
        chan = self.resolve_channel(channel)
        guild = self._guild_context(who, chan)
        ix_id = state.next_id()
        token = f"fake-interaction-token-{ix_id}"
        payload: JSON = {
            "id": str(ix_id),
            "application_id": str(state.application_id),
            "type": int(interaction_type),
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(chan.id),
            "channel": state.channel_payload(chan, with_permissions_for=who.id),
            "locale": who.locale,
            "app_permissions": str(state.permissions_in(chan, state.bot_user.id)),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": state.attachment_size_limit,
        }
        if guild is not None:
            payload.update(
                {
                    "guild_id": str(guild.id),
                    "guild_locale": guild.locale,
                    "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                    "member": state.member_payload(guild, who, chan),
                    "authorizing_integration_owners": {"0": str(guild.id)},
                    "context": 0,
                }
            )
        else:
            payload.update(
                {
                    "user": who.payload(),
                    "authorizing_integration_owners": {"1": str(who.id)},
                    "context": 1,
                }
            )
        if message is not None:
            payload["message"] = state.message_payload(message)
        ix = FakeInteraction(
            id=ix_id,
            token=token,
            type=int(interaction_type),
            application_id=state.application_id,
            user=who,
            guild_id=None if guild is None else guild.id,
            channel_id=chan.id,
            data=data,
            locale=who.locale,
            dispatched_at=state.clock(),
            world=state,
            message_id=None if message is None else message.id,
            source_interaction_id=None if source is None else source.id,
        )
        state.interactions[ix.id] = ix
        state.interactions_by_token[token] = ix
        await self.server.dispatch_interaction(payload)
        state.notify()
        return ix

    # -- application commands ------------------------------------------------------------------
    def _command_schema(
        self, name: str, guild: FakeGuild | None, command_type: int
    ) -> tuple[JSON | None, bool, bool]:
        """(definition, is_guild_command, a source of truth exists)."""
        state = self.state
        key = name if command_type == 1 else f"{command_type}:{name}"
        known = False
        if guild is not None and guild.id in state.guild_commands:
            known = True
            found = state.guild_commands[guild.id].get(key)
            if found is not None:
                return found, True, True
        if state.command_syncs and any(s.guild_id is None for s in state.command_syncs):
            known = True
        found = state.global_commands.get(key)
        if found is not None:
            return found, False, True
        local = self.local_command(name, None if guild is None else guild.id, command_type)
        if local is not None:
            return local[0], local[1], True
        return None, False, known

    def _resolve_value(
        self,
        opt_type: int,
        value: Any,
        resolved: JSON,
        guild: FakeGuild | None,
        channel: FakeChannel,
        user: FakeUser,
        name: str,
    ) -> Any:
        state = self.state
        if opt_type == 3:
            return str(value)
        if opt_type == 4:
            return int(value)
        if opt_type == 5:
            return bool(value)
        if opt_type == 10:
            return float(value)
        if opt_type in (6, 9) and isinstance(value, FakeUser | str):
            target = self.resolve_user(value)
            resolved.setdefault("users", {})[str(target.id)] = target.payload()
            if guild is not None and target.id in guild.members:
                member = guild.members[target.id].payload(
                    permissions=state.permissions_in(channel, target.id), with_user=False
                )
                resolved.setdefault("members", {})[str(target.id)] = member
            return str(target.id)
        if opt_type in (8, 9) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if opt_type == 7:
            target_ch = value if isinstance(value, FakeChannel) else self.resolve_channel(value)
            data = state.channel_payload(target_ch, with_permissions_for=user.id)
            resolved.setdefault("channels", {})[str(target_ch.id)] = data
            return str(target_ch.id)
        if opt_type == 11:
            if isinstance(value, tuple):
                att = state.make_attachment(str(value[0]), bytes(value[1]), ephemeral=True)
            elif isinstance(value, FakeAttachment):
                att = value
            else:
                raise ActorError(
                    f"option {name!r}: attachment must be FakeAttachment or (filename, bytes)"
                )
            resolved.setdefault("attachments", {})[str(att.id)] = att.payload()
            return str(att.id)
        raise ActorError(f"option {name!r}: cannot send {value!r} as option type {opt_type}")

    def _build_options(
        self,
        defs: list[JSON] | None,
        values: Mapping[str, Any],
        resolved: JSON,
        guild: FakeGuild | None,
        channel: FakeChannel,
        user: FakeUser,
        *,
        focused: str | None = None,
    ) -> list[JSON]:
        by_name = {d["name"]: d for d in defs or []}
        if defs is not None:
            unknown_names = [n for n in values if n not in by_name]
            if unknown_names:
                raise ActorError(
                    f"unknown option(s) {unknown_names}; the command has {list(by_name)}"
                )
            if focused is None:
                missing = [d["name"] for d in defs if d.get("required") and d["name"] not in values]
                if missing:
                    raise ActorError(f"required option(s) missing: {missing}")
        out: list[JSON] = []
        for name, value in values.items():
            defn = by_name.get(name)
            if defn is not None:
                opt_type = int(defn["type"])
            else:
                opt_type = next((t for py, t in _PY_TYPES if isinstance(value, py)), 3)
            if name == focused:
                out.append({"name": name, "type": opt_type, "value": str(value), "focused": True})
                continue
            if focused is not None and opt_type in (4, 10) and isinstance(value, str):
                # While a person types, Discord sends the other options as they stand: a number
                # option still being typed arrives as text ("abc"), unchecked.
                out.append({"name": name, "type": opt_type, "value": value})
                continue
            converted = self._resolve_value(opt_type, value, resolved, guild, channel, user, name)
            choices = (defn or {}).get("choices")
            if choices and converted not in [c.get("value") for c in choices]:
                raise ActorError(f"option {name!r}: {value!r} is not one of the choices {choices}")
            out.append({"name": name, "type": opt_type, "value": converted})
        return out

    async def _app_command(
        self,
        interaction_type: int,
        user: UserRef,
        name: str,
        subcommand: str | None,
        *,
        group: str | None,
        options: Mapping[str, Any] | None,
        channel: ChannelRef | None,
        guild_command: bool | None,
        focused: str | None = None,
    ) -> FakeInteraction:
        who = self.resolve_user(user)
        chan = self.resolve_channel(channel)
        guild = self._guild_context(who, chan)
        if subcommand and " " in subcommand and group is None:
            group, subcommand = subcommand.split(" ", 1)
        schema, is_guild, known = self._command_schema(name, guild, 1)
        if schema is None and known:
            raise ActorError(f"/{name} is not registered (synced or in the client's tree)")
        defs: list[JSON] | None = None if schema is None else list(schema.get("options") or [])
        for part, part_type in ((group, 2), (subcommand, 1)):
            if part is None or defs is None:
                continue
            match = next(
                (d for d in defs if d.get("name") == part and d.get("type") == part_type), None
            )
            if match is None:
                raise ActorError(
                    f"/{name} has no {'group' if part_type == 2 else 'subcommand'} {part!r}"
                )
            defs = list(match.get("options") or [])
        resolved: JSON = {}
        leaf = self._build_options(defs, options or {}, resolved, guild, chan, who, focused=focused)
        top: list[JSON] = leaf
        if subcommand is not None:
            top = [{"type": 1, "name": subcommand, "options": leaf}]
            if group is not None:
                top = [{"type": 2, "name": group, "options": top}]
        data: JSON = {
            "id": str(schema["id"]) if schema and "id" in schema else str(self.state.next_id()),
            "name": name,
            "type": 1,
            "options": top,
        }
        scope_guild = is_guild if guild_command is None else guild_command
        if scope_guild and guild is not None:
            data["guild_id"] = str(guild.id)
        if resolved:
            data["resolved"] = resolved
        return await self.send_interaction(who, chan, interaction_type, data)

    async def slash(
        self,
        user: UserRef,
        name: str,
        subcommand: str | None = None,
        *,
        group: str | None = None,
        options: Mapping[str, Any] | None = None,
        channel: ChannelRef | None = None,
        guild_command: bool | None = None,
    ) -> FakeInteraction:
        """``/name [group] [subcommand] option:value ...`` by ``user`` in ``channel``.

        ``subcommand="group sub"`` is accepted as a shorthand for ``group=..., subcommand=...``.
        Option types come from the synced commands or the running client's tree; otherwise
        they are inferred from the Python values (FakeUser → user, FakeChannel → channel...).
        """
        return await self._app_command(
            InteractionType.APPLICATION_COMMAND,
            user,
            name,
            subcommand,
            group=group,
            options=options,
            channel=channel,
            guild_command=guild_command,
        )

    async def autocomplete(
        self,
        user: UserRef,
        name: str,
        subcommand: str | None = None,
        *,
        focused: str,
        group: str | None = None,
        options: Mapping[str, Any] | None = None,
        channel: ChannelRef | None = None,
        guild_command: bool | None = None,
    ) -> FakeInteraction:
        """The user is typing into option ``focused`` (its partial text is ``options[focused]``).
        Await ``wait_response()`` and read ``.choices``."""
        opts = dict(options or {})
        opts.setdefault(focused, "")
        return await self._app_command(
            InteractionType.AUTOCOMPLETE,
            user,
            name,
            subcommand,
            group=group,
            options=opts,
            channel=channel,
            guild_command=guild_command,
            focused=focused,
        )

    async def context_menu(
        self,
        user: UserRef,
        name: str,
        target: FakeUser | FakeMessage,
        *,
        channel: ChannelRef | None = None,
    ) -> FakeInteraction:
        """Right-click → Apps → ``name`` on a user (type 2) or a message (type 3)."""
        who = self.resolve_user(user)
        if isinstance(target, FakeMessage):
            chan = self.resolve_channel(channel if channel is not None else target.channel_id)
        else:
            chan = self.resolve_channel(channel)
        guild = self._guild_context(who, chan)
        ctype = 3 if isinstance(target, FakeMessage) else 2
        schema, is_guild, _ = self._command_schema(name, guild, ctype)
        resolved: JSON = {}
        if isinstance(target, FakeMessage):
            resolved["messages"] = {str(target.id): self.state.message_payload(target)}
        else:
            self._resolve_value(6, target, resolved, guild, chan, who, "target")
        data: JSON = {
            "id": str(schema["id"]) if schema and "id" in schema else str(self.state.next_id()),
            "name": name,
            "type": ctype,
            "target_id": str(target.id),
            "resolved": resolved,
        }
        if is_guild and guild is not None:
            data["guild_id"] = str(guild.id)
        return await self.send_interaction(who, chan, InteractionType.APPLICATION_COMMAND, data)

    # -- components ---------------------------------------------------------------------------
    def _visible_message(self, user: FakeUser, message: MessageRef) -> FakeMessage:
        msg = self.resolve_message(message)
        if msg.deleted:
            raise ActorError(f"{msg!r} was deleted")
        if msg.ephemeral and msg.visible_to != user.id:
            raise ActorError(f"{msg!r} is ephemeral and only visible to user {msg.visible_to}")
        return msg

    async def click(
        self,
        user: UserRef,
        message: MessageRef,
        label: str | None = None,
        *,
        custom_id: str | None = None,
    ) -> FakeInteraction:
        """Click the button with this label and/or custom_id on the message's current version."""
        who = self.resolve_user(user)
        msg = self._visible_message(who, message)
        if label is None and custom_id is None:
            raise ActorError("click() needs label= or custom_id=")
        button = msg.button(label, custom_id=custom_id)
        if button.disabled:
            raise ActorError(f"{button!r} is disabled")
        if button.custom_id is None or button.style in (5, 6):
            raise ActorError(f"{button!r} is a link/premium button and sends no interaction")
        data = {"custom_id": button.custom_id, "component_type": 2}
        return await self.send_interaction(
            who, msg.channel_id, InteractionType.MESSAGE_COMPONENT, data, message=msg
        )

    async def select(
        self,
        user: UserRef,
        message: MessageRef,
        custom_id: str | None = None,
        values: Iterable[Any] = (),
    ) -> FakeInteraction:
        """Pick ``values`` in the select menu (string values, or FakeUser/FakeRole/FakeChannel for
        entity selects)."""
        who = self.resolve_user(user)
        msg = self._visible_message(who, message)
        menu = msg.select(custom_id)
        if menu.disabled:
            raise ActorError(f"{menu!r} is disabled")
        picked = list(values)
        if not menu.min_values <= len(picked) <= menu.max_values:
            raise ActorError(
                f"{menu!r} takes {menu.min_values}..{menu.max_values} values, got {len(picked)}"
            )
        chan = self.resolve_channel(msg.channel_id)
        guild = self.state.guild_of(chan)
        data: JSON = {"custom_id": menu.custom_id, "component_type": menu.type}
        if menu.type == 3:
            allowed = [o.value for o in menu.options]
            bad = [v for v in picked if str(v) not in allowed]
            if bad:
                raise ActorError(f"{bad} are not options of {menu!r}; options: {allowed}")
            data["values"] = [str(v) for v in picked]
        else:
            resolved: JSON = {}
            ids = []
            for v in picked:
                opt_type = 8 if isinstance(v, FakeRole) else 7 if isinstance(v, FakeChannel) else 6
                ids.append(
                    self._resolve_value(
                        opt_type, v, resolved, guild, chan, who, str(menu.custom_id)
                    )
                )
            data["values"] = ids
            data["resolved"] = resolved
        return await self.send_interaction(
            who, msg.channel_id, InteractionType.MESSAGE_COMPONENT, data, message=msg
        )

    async def submit_modal(
        self,
        user: UserRef,
        source: FakeInteraction,
        values: Mapping[str, Any] | None = None,
    ) -> FakeInteraction:
        """Fill in and submit the modal the bot opened in answer to ``source``.

        ``values`` maps input custom_ids to text (or lists for selects, bools for checkboxes);
        inputs left out keep their pre-filled value.
        """
        who = self.resolve_user(user)
        if source.modal is None:
            raise ActorError(f"{source!r} was not answered with a modal")
        if source.user.id != who.id:
            raise ActorError("only the user who opened a modal can submit it")
        if source.modal_submitted:
            raise ActorError("this modal was already submitted")
        given = dict(values or {})
        used: set[str] = set()

        def submitted(comp: JSON) -> JSON | None:
            ctype = int(comp.get("type", 0))
            cid = comp.get("custom_id")
            if ctype == 1:
                children = [c for c in (submitted(x) for x in comp.get("components") or []) if c]
                return {"type": 1, "components": children}
            if ctype == 18:
                inner = submitted(comp.get("component") or {})
                return None if inner is None else {"type": 18, "component": inner}
            if cid is None:
                return None
            used.add(cid)
            value = given.get(cid, comp.get("value"))
            out: JSON = {"type": ctype, "custom_id": cid}
            if ctype == 4:
                text = "" if value is None else str(value)
                if comp.get("required", True) and not text:
                    raise ActorError(f"modal input {cid!r} is required")
                max_len = comp.get("max_length")
                if max_len is not None and len(text) > int(max_len):
                    raise ActorError(f"modal input {cid!r} allows at most {max_len} characters")
                out["value"] = text
            elif isinstance(value, bool):
                out["value"] = value
            elif isinstance(value, list | tuple):
                out["values"] = [str(v) for v in value]
            elif value is not None:
                out["value"] = str(value)
            else:
                out["values"] = []
            return out

        components = [c for c in (submitted(x) for x in source.modal.get("components") or []) if c]
        stray = set(given) - used
        if stray:
            raise ActorError(f"the modal has no inputs {sorted(stray)}")
        data = {"custom_id": source.modal.get("custom_id"), "components": components}
        message = source.source_message
        ix = await self.send_interaction(
            who,
            source.channel_id,
            InteractionType.MODAL_SUBMIT,
            data,
            message=message,
            source=source,
        )
        source.modal_submitted = True
        return ix

    # -- plain messages -------------------------------------------------------------------------
    async def post_message(
        self, user: UserRef, channel: ChannelRef | None, content: str
    ) -> FakeMessage:
        """A user writes a message (dispatched as MESSAGE_CREATE, content subject to intents)."""
        state = self.state
        who = self.resolve_user(user)
        chan = self.resolve_channel(channel)
        guild = self._guild_context(who, chan)
        msg = FakeMessage(
            id=state.next_id(),
            channel_id=chan.id,
            guild_id=None if guild is None else guild.id,
            author=who,
            content=content,
            created_at=state.clock(),
        )
        state.add_message(msg)
        data = state.message_payload(msg)
        if guild is not None:
            data["member"] = guild.members[who.id].payload(with_user=False)
        if state.bot_user.mention in content or f"<@!{state.bot_user.id}>" in content:
            data["mentions"] = [state.bot_user.payload()]
        if chan.is_thread and chan.archived and not chan.locked:
            chan.archived = False
        await self.server.dispatch("MESSAGE_CREATE", data)
        return msg
