"""Karvi (Torgeir Tjong, Hans im Glück 2023): registration.

Not yet registered as ``GAME``: the rules are landing in steps (see docs/games/karvi.md).
"""
