"""Research interop: every meeple game as an OpenSpiel game and a PettingZoo environment.

The adapters live in submodules so that importing `meeple` never needs the ``interop`` extra:

- `meeple.interop.openspiel`: ``pyspiel`` registration (``meeple_<game>``), observers,
  `resample_from_infostate`, serialization; importing it registers every game.
- `meeple.interop.pettingzoo`: ``env(game, players=..., **options)``, an AEC environment.
- `meeple.interop.vector`: ``vector_env(game, num_envs, ...)``, N games stepped at once
  (Gymnasium's vector conventions).
- `meeple.interop.tensor`: the observation tensor encoding both share (and its layout docs);
  `meeple.interop.recall`: the information-state tensor, kept incrementally.
- `meeple.interop.agents`: ``pz:`` policies and ``learned:`` weights as arena and table agents.

See docs/interop.md.
"""
