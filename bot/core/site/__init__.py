"""The companion web site's part of the core (issue #32): which servers show their games on the
web, who hid their name from it, each person's rating after every rated game (for the rating
plot), and a game's public steps. No imports here, so the model loads alone."""
