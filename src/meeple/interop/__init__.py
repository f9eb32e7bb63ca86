"""Research interop: every meeple game as an OpenSpiel game and a PettingZoo environment.

The adapters live in submodules so that importing `meeple` never needs the ``interop`` extra:

- `meeple.interop.openspiel`: ``pyspiel`` registration (``meeple_<game>``), observers,
  `resample_from_infostate`, serialization; importing it registers every game.
- `meeple.interop.pettingzoo`: ``env(game, players=..., **options)``, an AEC environment.
- `meeple.interop.tensor`: the observation tensor encoding both share (and its layout docs).

See docs/interop.md.
"""
