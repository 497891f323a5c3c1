"""docs/sb3.md runs as written: its python blocks, in order, with a tiny training budget."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("one_torch_thread")
DOC = (Path(__file__).resolve().parents[2] / "docs" / "sb3.md").read_text()


def test_the_page_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC, re.S)
    assert len(blocks) >= 3
    code = "\n".join(blocks)
    assert "STEPS = 20_000" in code
    code = code.replace("STEPS = 20_000", "STEPS = 256", 1)
    exec(compile(code, "docs/sb3.md", "exec"), {"__name__": "sb3_doc"})
    out = capsys.readouterr().out
    assert "first move" in out
    for name in ("PPO", "A2C", "DQN", "MaskableDQN"):
        assert re.search(rf"^{name}: [+-]\d\.\d{{3}} chips per game", out, re.M)
