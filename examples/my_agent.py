"""Your own agents in the arena: meeple arena scarvus --players 4 --bots hard,py:examples.my_agent:MyBot,pz:examples.my_agent:act"""

import random


class MyBot:  # py:examples.my_agent:MyBot -- the bot protocol: a name and choose(state) -> int
    name = "my-bot"

    def __init__(self, seed: int = 0) -> None:  # meeple passes `seed` (and `info`) if you take them
        self.rng = random.Random(seed)

    def choose(self, state) -> int:  # state: what your seat may know; the rest is resampled
        return self.rng.choice(state.legal_actions())


def act(observation) -> int:  # pz:examples.my_agent:act -- a policy on PettingZoo's observation
    return int(observation["action_mask"].nonzero()[0][-1])  # the highest legal action id
