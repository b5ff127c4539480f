"""End-to-end tests: the real discord.py client against the fake Discord."""
