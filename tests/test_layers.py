"""The layers import one way: rules <- obs / registry <- batched, render <- agents <- wrappers
(DESIGN.md); benchmarks never import tests.

Read from the source (every ``import``, also those inside functions), so a lazy
import cannot hide a wrong arrow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WRAPPERS = (
    "envs.dice_poker",
    "envs.card_poker",
    "envs.scorecard",
    "envs.yahtzee",
    "envs.table",
    "envs.multi",
    "envs.rllib",
)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def _under(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _files(*parts: str) -> list[Path]:
    out = []
    for part in parts:
        p = ROOT / part
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


@pytest.mark.parametrize(
    "path", _files("envs/rules", "envs/obs", "envs/games.py"), ids=lambda p: p.name
)
def test_rules_obs_and_registry_import_nothing_above_them(path):
    # envs/obs may build its Box with gymnasium.spaces (only inside Layout.box)
    allowed_gym = ("gymnasium.spaces",) if "obs" in path.parts else ()
    bad = sorted(
        m
        for m in _imports(path)
        if _under(m, ("agents", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"))
        or _under(m, WRAPPERS)
        or (_under(m, ("gymnasium",)) and not _under(m, allowed_gym))
    )
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _files("agents"), ids=lambda p: p.name)
def test_agents_never_import_a_wrapper(path):
    bad = sorted(m for m in _imports(path) if _under(m, WRAPPERS))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_check_sees_lazy_imports(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("def f():\n    from envs.dice_poker import observe\n")
    assert _under("envs.dice_poker.observe", WRAPPERS) and "envs.dice_poker.observe" in _imports(f)


GYM_WRAPPERS = (
    "envs.dice_poker",
    "envs.card_poker",
    "envs.scorecard",
    "envs.yahtzee",
    "envs.table",
)


@pytest.mark.parametrize("path", _files("envs/batched"), ids=lambda p: p.name)
def test_the_batched_engines_import_neither_agents_nor_wrappers(path):
    # the engine core sits below the agents: opponents arrive as objects, never as specs
    bad = sorted(m for m in _imports(path) if _under(m, ("agents", *WRAPPERS, "envs.vector")))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _files("envs/render"), ids=lambda p: p.name)
def test_the_render_layer_imports_no_wrapper_and_no_agent(path):
    # a recording seats Agents; agents.tables.record_game resolves specs
    bad = sorted(m for m in _imports(path) if _under(m, (*WRAPPERS, "envs.vector", "agents")))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_text_tables_import_only_the_rules():
    bad = sorted(
        m
        for m in _imports(ROOT / "envs/render/text.py")
        if not _under(m, ("envs.rules", "__future__"))
    )
    assert not bad, f"envs/render/text.py imports {bad}"


@pytest.mark.parametrize("path", _files("envs/multi"), ids=lambda p: p.name)
def test_the_aec_envs_import_no_gym_wrapper(path):
    # the AEC envs take their text tables from envs.render.text, not from the Gym wrappers
    bad = sorted(m for m in _imports(path) if _under(m, GYM_WRAPPERS))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _files("envs"), ids=lambda p: str(p.relative_to(ROOT)))
def test_envs_never_import_agents(path):
    # opponents arrive as Agents or batched callables; spec strings are resolved one floor
    # up (agents.tables, named by string in the entry points envs/__init__.py registers)
    bad = sorted(m for m in _imports(path) if _under(m, ("agents",)))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", _files("benchmarks"), ids=lambda p: p.name)
def test_benchmarks_never_import_tests(path):
    bad = sorted(m for m in _imports(path) if _under(m, ("tests",)))
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


# -- scripts: a file run as a script (``if __name__ == "__main__"``) is a leaf --------------
SCRIPT_FOLDERS = ("train", "tools", "benchmarks", "docs")


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _is_shim(path: Path) -> bool:
    # a moved script kept at its old path: it hands its module over to the new one
    return "sys.modules[__name__] =" in path.read_text()


SCRIPTS = {
    _module(p): p
    for folder in SCRIPT_FOLDERS
    for p in sorted((ROOT / folder).glob("*.py"))
    if 'if __name__ == "__main__":' in p.read_text() and not _is_shim(p)
}


def _scripts_imported(path: Path) -> list[str]:
    found = set()
    for m in _imports(path):
        for name in (m, m.rpartition(".")[0]):
            if name in SCRIPTS and SCRIPTS[name] != path:
                found.add(name)
    return sorted(found)


@pytest.mark.parametrize(
    "path",
    list(SCRIPTS.values()),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_script_imports_another_script(path):
    bad = _scripts_imported(path)
    assert not bad, f"{path.relative_to(ROOT)} imports the script(s) {bad}"


def test_the_script_check_sees_a_script_import(tmp_path):
    assert "tools.benchmark" in SCRIPTS and "benchmarks.differential" in SCRIPTS
    f = tmp_path / "x.py"
    f.write_text("from tools.benchmark import main\nfrom benchmarks import differential\n")
    assert _scripts_imported(f) == ["benchmarks.differential", "tools.benchmark"]


# -- trainers: each a short linear file on train/common (one run protocol) ------------------
MAIN_MAX_LINES = 60


def _main_lengths() -> dict[str, int]:
    """Lines of ``main`` in each file of train/ that defines one (a shim defines none)."""
    out = {}
    for path in sorted((ROOT / "train").glob("*.py")):
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.FunctionDef) and node.name == "main":
                out[path.name] = node.end_lineno - node.lineno + 1
    return out


MAINS = _main_lengths()


def test_every_trainer_has_a_main():
    trainers = {"ppo.py", "league.py", "afterstate.py", "handvalue.py", "best_response.py"}
    assert trainers | {"rllib.py", "cli.py"} <= set(MAINS)


@pytest.mark.parametrize("name", sorted(MAINS))
def test_a_trainer_main_reads_on_one_screen(name):
    assert MAINS[name] <= MAIN_MAX_LINES, (
        f"train/{name}: main is {MAINS[name]} lines; at most {MAIN_MAX_LINES} "
        "(the shared steps belong in train/common)"
    )
