"""Exact solutions of small imperfect-information games: the flat game tree
(:mod:`agents.exact.tree`: values, exact best responses, exploitability), the games it
walks (:mod:`agents.exact.games`: Kuhn poker, mini card poker) and equilibrium finding
(:mod:`agents.exact.solve`: CFR, CFR+, fictitious play). docs/card_poker_research.md."""
