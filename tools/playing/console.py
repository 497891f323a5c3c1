"""The terminal of ``tools/play.py``: one line in, lines out, and the words every table knows.

:class:`Console` takes an input function and an output stream, so tests drive the
program with scripted lines and read the transcript.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from tools.playing.base import Quit

QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("help", "h", "?")
MOVES_WORDS = ("moves", "legal", "m")
SHOW_WORDS = ("show", "table", "board")


class Console:
    """The program's input and output: ``input_fn()`` returns one line (EOFError at the end)."""

    def __init__(
        self, input_fn: Callable[[], str] = input, out: TextIO | None = None, echo: bool = False
    ) -> None:
        self.input_fn, self.out, self.echo = input_fn, out or sys.stdout, echo

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out)
        self.out.flush()

    def ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        try:
            line = self.input_fn()
        except EOFError:
            self.say("")
            raise Quit("End of input: leaving the game.") from None
        if self.echo:
            self.say(line)
        return line
