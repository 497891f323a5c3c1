"""What every table of ``tools/play.py`` shares: the Table interface, errors, and dice words."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence

import numpy as np

from agents import Agent

NUMBERS = ("no", "one", "two", "three", "four", "five", "six")
COMMON_HELP = (
    "  moves        list the legal moves now\n"
    "  show         draw the table again\n"
    "  help         this text\n"
    "  quit         leave the game"
)


class MoveError(ValueError):
    """Input that is not a legal move; the message says why, in one line."""


class SetupError(ValueError):
    """Bad command-line options (unknown game, agent, rule, player count...)."""


class Quit(Exception):
    """The person asked to leave (``quit``) or the input ended."""


# -- dice words ----------------------------------------------------------------------------


def read_faces(words: Sequence[str]) -> list[int]:
    """Die faces from words such as ``["5", "5"]``, ``["55"]`` or ``["5,5"]``."""
    faces = []
    for word in words:
        for ch in word.replace(",", ""):
            if ch not in "123456":
                raise MoveError(f"dice are named by their faces 1-6, got {word!r}")
            faces.append(int(ch))
    return faces


def take(pool: Sequence[int], faces: Sequence[int], what: str = "") -> list[int]:
    """Indices in ``pool`` of the dice ``faces`` (each die used once); MoveError if missing."""
    left = list(enumerate(pool))
    out = []
    for f in faces:
        hit = next((k for k, (_, d) in enumerate(left) if d == f), None)
        if hit is None:
            have = Counter(pool)[f]
            among = f"among your {what + ' ' if what else ''}dice ({dice_text(pool)})"
            if have == 0:
                raise MoveError(f"there is no {f} {among}")
            many = f"one {f}" if have == 1 else f"{NUMBERS[have]} {f}s"
            raise MoveError(f"there {'is' if have == 1 else 'are'} only {many} {among}")
        out.append(left.pop(hit)[0])
    return out


def dice_text(dice: Sequence[int]) -> str:
    return " ".join(map(str, dice))


def reroll_text(dice: Sequence[int], action: int, keep_word: str) -> str:
    """A re-roll bit set as the command that plays it: ``hold 5 5 (reroll 2 3 6)``."""
    out = [d for i, d in enumerate(dice) if action >> i & 1]
    kept = [d for i, d in enumerate(dice) if not action >> i & 1]
    if not kept:
        return "reroll all"
    return f"{keep_word} {dice_text(kept)} (reroll {dice_text(out)})"


def percent(p: float) -> str:
    return f"{100 * p:.1f}%"


# -- the table interface --------------------------------------------------------------------


class Table(ABC):
    """One game at a table: the state, the agents' turns, and the person's moves in words.

    ``step`` plays an action for the player to act and returns the lines that tell what
    happened; ``view`` is what the person sees before deciding.
    """

    game: str
    human: int
    labels: dict[int, str]
    last: tuple[int, int] | None = None  # (seat, action) just played, for the pictures

    def __init__(
        self,
        game: str,
        rules,
        human: int,
        agents: dict[int, Agent],
        rng: np.random.Generator,
        games: int = 1,
    ) -> None:
        """Seat the person at ``human`` and the ``agents`` at the other seats, then start
        ``games`` games (deals) of ``rules``, every chance drawn from ``rng``."""
        self.game, self.rules, self.human, self.agents = game, rules, human, agents
        self.n_players = len(agents) + 1
        self.labels = labels_of(self.n_players, human, agents)
        self.start(rng, games)

    @abstractmethod
    def start(self, rng: np.random.Generator, games: int) -> None:
        """Set up the match of ``games`` games (called once, by ``__init__``)."""

    @property
    @abstractmethod
    def done(self) -> bool: ...

    @property
    @abstractmethod
    def current_seat(self) -> int: ...

    @abstractmethod
    def observation(self, seat: int) -> np.ndarray: ...

    @abstractmethod
    def mask(self) -> np.ndarray: ...

    @abstractmethod
    def intro(self) -> list[str]: ...

    @abstractmethod
    def view(self, full: bool = False) -> str:
        """What the person sees before deciding; ``full`` also after the turn's first look."""

    @abstractmethod
    def moves(self) -> str:
        """The legal moves now, in the words the person types."""

    @abstractmethod
    def help(self) -> str: ...

    @abstractmethod
    def parse(self, words: list[str]) -> int:
        """The action of a typed move (lower-case words); MoveError when it is not legal."""

    @abstractmethod
    def describe(self, action: int) -> str:
        """An action of the player to act, as the command that plays it."""

    @abstractmethod
    def step(self, action: int) -> list[str]: ...

    @abstractmethod
    def summary(self) -> list[str]: ...

    @abstractmethod
    def frame(self) -> np.ndarray:
        """The table as a picture (``envs.render``), for ``--record``."""

    def legal(self) -> list[int]:
        return np.flatnonzero(self.mask()).tolist()


def subject(table: Table, seat: int) -> str:
    """The player as the first word of a sentence."""
    return "You" if seat == table.human else table.labels[seat]


def labels_of(n_players: int, human: int, agents: dict[int, Agent]) -> dict[int, str]:
    return {s: "you" if s == human else f"{agents[s].name}-{s}" for s in range(n_players)}
