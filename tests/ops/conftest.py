"""Helpers for the ops tests: read a Prometheus exposition back into samples."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from bot.ops.metrics import Metrics

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    """Every sample of an exposition: (name, labels) -> value (parsed by prometheus_client)."""
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def scrape(metrics: Metrics) -> Samples:
    body, _ = metrics.render()
    return parse(body.decode())


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def names(samples: Samples) -> set[str]:
    return {name for name, _ in samples}
