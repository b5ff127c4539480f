"""The companion web site (issue #32): read-only pages of a server's games, tournaments and
players, served by the bot itself (aiohttp) when ``CALICO_WEB_PORT`` and ``CALICO_WEB_SECRET``
are set and the server turned it on with ``/calico admin``.

Like the adapter, it reads the core only through the features' service modules with the kernel
(``bot.core.site.service``, ``queries``, ``records``...), never discord. Modules: ``links``
(signed identifiers), ``guard`` (headers, rate limit), ``giveway`` (the CPU offered to
the bot's threads while the site works), ``language`` (Accept-Language),
``pictures`` (the renderers off the event loop, cached with ETags), ``plot`` (the rating SVG),
``pages`` (what each page shows), ``app`` (routes and the listener); ``templates/`` (Jinja2,
autoescaped) and ``static/`` (CSS and the stepper's script).
"""
