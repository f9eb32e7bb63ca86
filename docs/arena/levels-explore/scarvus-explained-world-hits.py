import random
import sys

import meeple
from meeple.bots import make_bot
from meeple.games.scarvus import search
from meeple.games.scarvus.bot import ProbabilisticBot
from meeple.games.scarvus.rules import BID, BIDDING, NC

info = meeple.game_info("scarvus")
for players in (7,):
    full = part = none = nb = 0
    for g in range(3):
        st = meeple.make("scarvus", players=players, seed=100 + g)
        bots = [make_bot("hard", info, g * 10 + p) for p in range(players)]
        rng = random.Random(g)
        n = 0
        while not st.is_over() and n < 400:
            me = st.to_move
            if len(st.legal_actions()) > 1 and n % 3 == 0:
                bids = search.round_bids(st, me)
                if bids and not (st.daedalus_mode or st.flight_on or st.fight):
                    nb += len(bids)
                    model = ProbabilisticBot(0)
                    for _ in range(3):
                        hit_any = False
                        for _ in range(int(sys.argv[1])):
                            w = st.determinize(me, rng)
                            hits = 0
                            now = w.phase, w.to_move, w.bid
                            for bidder, prev, number, colour in reversed(bids):
                                w.phase, w.to_move, w.bid = BIDDING, bidder, prev
                                if model.choose(w) != BID + (number - 1) * NC + colour:
                                    break
                                hits += 1
                            if hits == len(bids):
                                hit_any = True
                                break
                        full += hit_any
                        none += not hit_any
            st.apply(bots[me].choose(st))
            n += 1
    print(
        players,
        "worlds explaining all bids",
        full,
        "fallback",
        none,
        "mean bids",
        round(nb / max(1, (full + none) / 3), 2),
    )
