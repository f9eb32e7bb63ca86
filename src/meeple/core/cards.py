"""Card-game helpers shared by games: hands are int bitmasks of card ids."""

from __future__ import annotations

import random

from .rng import shuffle


def deal_avoiding(
    pool: list[int], sizes: list[int], excluded: list[int], rng: random.Random, tries: int = 100
) -> list[int] | None:
    """Deal the cards of ``pool`` into hands (masks) of ``sizes``, hand ``i`` getting none of the
    cards in mask ``excluded[i]``, uniformly shuffled. Cards left over are not dealt.

    Used by `determinize` to respect what play has revealed (a player who did not follow holds no
    card of that colour). The most constrained hand chooses first; a dead end reshuffles. Returns
    None if ``tries`` shuffles all fail (the caller then keeps the real deal, which satisfies the
    constraints). Shuffles ``pool`` in place.
    """
    order = sorted(range(len(sizes)), key=lambda i: -excluded[i].bit_count())
    for _ in range(tries):
        shuffle(rng, pool)  # = rng.shuffle(pool), faster (see rng.shuffle)
        hands = [0] * len(sizes)
        taken = 0
        for i in order:
            need, hand, blocked = sizes[i], 0, taken | excluded[i]
            for card in pool:
                if need == 0:
                    break
                bit = 1 << card
                if not blocked & bit:
                    hand |= bit
                    need -= 1
            if need:
                break
            hands[i] = hand
            taken |= hand
        else:
            return hands
    return None
