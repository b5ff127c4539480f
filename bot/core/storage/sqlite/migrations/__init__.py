"""Numbered forward migrations (NNNN_name.sql), applied in order by bot.core.storage.sqlite.db."""
