"""Operations: metrics, the health and metrics HTTP listener, and structured logs.

Nothing here imports discord.py: the values that live in the client (gateway shards, latency)
and in the core (counters, the outbox, the last sweep) come in as plain callables, so every
piece can be tested, and reused, without Discord.

- :mod:`bot.ops.metrics`: the Prometheus metrics of one bot, in their own registry;
- :mod:`bot.ops.health`: ``/healthz`` and ``/metrics`` on an optional aiohttp listener;
- :mod:`bot.ops.logs`: one line per event, with the game and interaction it belongs to;
- :mod:`bot.ops.memory`: freed heap memory handed back to the system every 30 seconds;
- :mod:`bot.ops.sources`: the plain values both read, and adapters from the core and client;
"""
