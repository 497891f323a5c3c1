"""The card poker table of ``tools/play.py`` (docs/rules.md section 3)."""

from __future__ import annotations

import numpy as np

from envs import games as registry
from envs.obs.card_poker import observe
from envs.rules.card_poker import (
    FIRST_BID,
    HAND_SIZE,
    PASS,
    REVEAL,
    CardPokerGame,
    CardPokerMatch,
    CardPokerRules,
    Phase,
)
from tools.playing.base import COMMON_HELP, MoveError, Table, subject


def is_number(word: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also accepts ² and ①, which ``int`` rejects."""
    return word.isascii() and word.isdigit()


class CardPokerTable(Table):
    def frame(self) -> np.ndarray:  # the person's cards show, as on the screen
        from envs.render import draw

        return draw(self.match, self.labels, viewer=self.human)

    """Card poker: one deal, or a session of up to ``games`` deals (docs/rules.md section 3)."""

    rules: CardPokerRules

    def start(self, rng: np.random.Generator, games: int) -> None:
        episode = "session" if games > 1 else "deal"
        self.match = CardPokerMatch(self.n_players, rng, self.rules, episode, games)

    @property
    def done(self) -> bool:
        return self.match.done

    @property
    def current_seat(self) -> int:
        return self.match.current_player

    def observation(self, seat: int) -> np.ndarray:
        m = self.match
        return observe(m.game, seat, m.deals_left, m.net[seat])

    def mask(self) -> np.ndarray:
        return self.match.game.action_mask()

    def _cards(self, g: CardPokerGame, seat: int, numbered: bool = False) -> str:
        labels = [g.deck.label(c) for c in g.hands[seat]]
        if numbered:
            labels = [f"{k + 1}:{c}" for k, c in enumerate(labels)]
        return " ".join(labels)

    def _hand(self, g: CardPokerGame, seat: int) -> str:
        return g.hand(seat).name.replace("_", " ")

    def intro(self) -> list[str]:
        r, m = self.rules, self.match
        joker = "two jokers X" if r.deck == 54 else f"{r.joker_card}* plays the joker"
        joker = joker if r.joker_card else "no joker"
        deals = f"up to {m.max_deals} deals" if m.max_deals > 1 else "1 deal"
        return [
            f"{registry.get(self.game).title}, {r.deck} cards ({joker})"
            f" · {self.n_players} players: "
            + ", ".join(self.labels[s] for s in range(self.n_players))
            + f" · {deals} · stack {r.stack}, ante {r.ante}, bids {r.min_bid}-{r.max_bid}"
            + (f", draw fee {r.draw_fee}/card" if r.draw_fee else ""),
            "Each deal: ante, five cards, one exchange of 0-5 cards, then bidding: pass (fold),"
            " bid at least the last bid, or reveal (pay the last bid, everyone still in shows).",
        ]

    def view(self, full: bool = False) -> str:
        m, g = self.match, self.match.game
        deal = f"deal {m.deals_played + 1}" + (f"/{m.max_deals}" if m.max_deals > 1 else "")
        lines = [
            f"-- {deal} · pot {g.pot} · {g.phase.name.lower()} phase · "
            f"bid level {g.level or '-'} · bids {g.n_bids}/{g.rules.max_bids} --"
        ]
        for s in g.order:
            drew = "-" if g.drawn[s] < 0 else str(g.drawn[s])
            state = "in" if g.in_play[s] else "passed"
            lines.append(
                f"  {self.labels[s]:<13} stack {g.stacks[s]:>4}  net {m.net[s]:+4d}  drew {drew}  "
                f"{state:<6}  bids {g.bids_made[s]} ({g.bid_chips[s]} chips)"
            )
        lines.append(
            f"Your cards: {self._cards(g, self.human, numbered=True)}   = "
            f"{self._hand(g, self.human)}"
        )
        if any(g.deck.is_joker(c) and not g.deck.cards[c].is_joker for c in g.hands[self.human]):
            lines.append("  (a card marked * is the joker: it plays as any card)")
        lines.append(self.moves())
        return "\n".join(lines)

    def moves(self) -> str:
        g = self.match.game
        if g.phase == Phase.DRAW:
            fee = f" at {g.rules.draw_fee} chip(s) a card" if g.rules.draw_fee else ""
            return f"Moves: discard <card numbers or names>{fee} | keep   (e.g. 'discard 1 4')"
        legal = self.legal()
        bids = [self.rules.bid_amount(a) for a in legal if a >= FIRST_BID]
        parts = ["pass"]
        if REVEAL in legal:
            parts.append(f"reveal (costs {g.reveal_cost})")
        if bids:
            parts.append(f"bid {bids[0]}" + (f"..{bids[-1]}" if len(bids) > 1 else ""))
        return "Moves: " + " | ".join(parts)

    def help(self) -> str:
        from envs.rules.card_hands import hand_names

        r = self.rules
        names = hand_names(r.categories, r.swap_four_and_straight_flush)
        names = ", ".join(n.replace("_", " ") for n in names)
        if r.categories == "short":
            names = names.replace("straight suit", "straight")
        return (
            "Card poker commands:\n"
            "  discard 1 4  exchange your 1st and 4th cards (or by name: 'discard 7H QS')\n"
            "  keep         keep all five cards (no exchange)\n"
            "  bid 3        bid 3 chips (at least the last bid); each bid is paid into the pot\n"
            "  reveal       pay the last bid; everyone still in shows, the best hand wins\n"
            "  pass         fold: you are out of this deal (also: fold)\n"
            f"Hands, low to high: {names} (poker = four + joker).\n" + COMMON_HELP
        )

    def parse(self, words: list[str]) -> int:
        g = self.match.game
        verb, rest = words[0], words[1:]
        legal = self.legal()
        if g.phase == Phase.DRAW:
            if verb in ("keep", "stand", "pat") and not rest:
                return 0
            if verb not in ("discard", "exchange", "draw", "d", "change"):
                raise MoveError(f"it is the exchange now: {self.moves()[7:]}")
            chosen = self._chosen_cards(g, rest)
            action = sum(1 << i for i in chosen)
            if action not in legal:
                raise MoveError(
                    f"exchanging {len(chosen)} cards costs {len(chosen) * g.rules.draw_fee} "
                    f"chips; you have {g.stacks[self.human]}"
                )
            return action
        if verb in ("discard", "exchange", "keep", "draw"):
            raise MoveError(f"the exchange is over; now: {self.moves()[7:]}")
        if verb in ("pass", "fold", "p"):
            return PASS
        if verb in ("reveal", "show", "call"):
            if REVEAL not in legal:
                raise MoveError(f"revealing costs {g.reveal_cost}; you have {g.stacks[self.human]}")
            return REVEAL
        if verb in ("bid", "b", "raise"):
            if len(rest) != 1 or not is_number(rest[0]):
                raise MoveError(f"say how much: {self.moves()[7:]}")
            amount = int(rest[0])
            bids = [self.rules.bid_amount(a) for a in legal if a >= FIRST_BID]
            if not bids:
                raise MoveError(
                    f"no bid is possible now (all {g.rules.max_bids} bids made, or too few "
                    f"chips): reveal or pass"
                )
            if amount not in bids:
                raise MoveError(f"a bid now is {bids[0]}..{bids[-1]} chips, not {amount}")
            return self.rules.bid_action(amount)
        raise MoveError(f"unknown move {verb!r}: {self.moves()[7:]}; or help")

    def _chosen_cards(self, g: CardPokerGame, words: list[str]) -> list[int]:
        hand = list(g.hands[self.human])
        chosen: list[int] = []
        for word in words:
            if is_number(word):
                picks = [int(ch) - 1 for ch in word]
                if any(not 0 <= p < HAND_SIZE for p in picks):
                    raise MoveError(f"cards are numbered 1-{HAND_SIZE}, got {word!r}")
            else:
                try:
                    (index,) = g.deck.indices([word.rstrip("*")])
                except ValueError as e:
                    raise MoveError(f"{e}; name cards by number 1-5 or like 7H, QS, X") from None
                if index not in hand:
                    raise MoveError(
                        f"{word.upper()} is not in your hand ({self._cards(g, self.human)})"
                    )
                picks = [hand.index(index)]
            for p in picks:
                if p in chosen:
                    raise MoveError(f"card {p + 1} is named twice")
                chosen.append(p)
        return chosen

    def describe(self, action: int) -> str:
        g = self.match.game
        if g.phase == Phase.DRAW:
            if action == 0:
                return "keep"
            out = [
                g.deck.label(c) for i, c in enumerate(g.hands[g.current_player]) if action >> i & 1
            ]
            return "discard " + " ".join(out)
        if action == PASS:
            return "pass"
        if action == REVEAL:
            return "reveal"
        return f"bid {self.rules.bid_amount(action)}"

    def step(self, action: int) -> list[str]:
        m = self.match
        g, seat = m.game, m.current_player
        who, you = subject(self, seat), seat == self.human
        before = g.hands[seat]
        n_events = len(g.events)
        m.step(action)
        lines = []
        for e in g.events[n_events:]:
            if e.phase == Phase.DRAW:
                k = e.action.bit_count()
                fee = f", paying {e.paid}" if e.paid else ""
                if you:
                    out = [g.deck.label(c) for i, c in enumerate(before) if e.action >> i & 1]
                    now = f"{self._cards(g, seat)} = {self._hand(g, seat)}"
                    if out:
                        lines.append(f"You exchange {' '.join(out)}{fee} -> {now}")
                    else:
                        lines.append(f"You keep your five cards: {now}")
                else:
                    lines.append(f"{who} exchanges {k} card{'s' if k != 1 else ''}{fee}")
            elif e.action == PASS:
                lines.append(f"{who} {'pass' if you else 'passes'}")
            elif e.action == REVEAL:
                lines.append(f"{who} {'reveal' if you else 'reveals'}, paying {e.paid}")
            else:
                lines.append(f"{who} {'bid' if you else 'bids'} {e.paid}")
        if g.done:
            lines += self._deal_end(g)
        return lines

    def _deal_end(self, g: CardPokerGame) -> list[str]:
        sd, m = g.showdown, self.match
        lines = []
        if sd.hands:
            lines.append("Showdown:")
            for s, hand in sd.hands.items():
                lines.append(
                    f"  {self.labels[s]:<13} {self._cards(g, s)}   {hand.name.replace('_', ' ')}"
                )
        pot = sum(sd.won.values())
        if len(sd.won) > 1:
            won = ", ".join(f"{self.labels[s]} {c}" for s, c in sd.won.items())
            lines.append(f"Equal best hands split the pot of {pot}: {won}.")
        else:
            (s,) = sd.won
            verb = "take" if s == self.human else "takes"
            how = "Everyone else passed: " if not sd.hands else ""
            lines.append(
                f"{how}{subject(self, s) if not how else self.labels[s]} {verb} the pot of "
                f"{pot}{' unseen' if how else ''}."
            )
        lines.append(
            "Net chips: " + ", ".join(f"{self.labels[s]} {c:+d}" for s, c in enumerate(m.net))
        )
        if not m.done:
            first = m.game.order[0]
            verb = "act" if first == self.human else "acts"
            lines.append(f"\nDeal {m.deals_played + 1}: {self.labels[first]} {verb} first.")
        return lines

    def summary(self) -> list[str]:
        m = self.match
        return [
            f"After {m.deals_played} deal{'s' if m.deals_played > 1 else ''}, net chips: "
            + ", ".join(f"{self.labels[s]} {c:+d}" for s, c in enumerate(m.net))
        ]
