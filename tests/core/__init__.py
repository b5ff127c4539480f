"""Tests of the game manager, its storage, the outbox and the timers (no Discord)."""
