"""Numbered forward migrations (NNNN_name.sql), applied in order by bot.storage.db."""
