"""Game reviews and hints (issue #13): :mod:`~bot.core.review.service` (who may ask, where the
work runs, what is kept), :mod:`~bot.core.review.model` (what is shown, plain values),
:mod:`~bot.core.review.store` (reviews as stored, once per seat). This file imports nothing,
so that the model loads alone.
"""
