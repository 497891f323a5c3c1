"""The README cannot drift from the code.

- It stays a reference: at most 15 KB, with a table of contents whose links are its headings.
- Every relative link of the README and of docs/*.md points at a file that exists, and an
  anchor at a heading of that file.
- Every python block of the README runs as written (a subprocess each, with a timeout).
- Every shell command of the README (fenced bash blocks and inline `python x.py ...` spans)
  names a script that exists, and its flags parse with that script's own argparse parser:
  the script runs up to its ``parse_args`` call and stops there, so nothing trains.

The commands are read from the README at test time, so a README that names other scripts
or flags is checked as it stands.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
MAX_BYTES = 15 * 1024
PYTHON_TIMEOUT_S = 300
PARSE_TIMEOUT_S = 600


# ---------------------------------------------------------------- markdown helpers


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block."""
    return [
        (m[1].strip().lower(), m[2])
        for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.M | re.S)
    ]


def without_code(text: str) -> str:
    """The text with fenced blocks and inline code removed (links inside code are not links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped (letters of
    any script, digits, '-' and '_' stay), spaces to '-'."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a markdown file, with GitHub's -1, -2 for repeats."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(text: str) -> list[str]:
    return re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", without_code(text))


# ---------------------------------------------------------------- size, contents, links


def test_readme_is_at_most_15_kb():
    size = len(TEXT.encode("utf-8"))
    assert size <= MAX_BYTES, f"README.md is {size:,} bytes, more than {MAX_BYTES:,}"


def test_readme_has_a_table_of_contents_of_its_headings():
    m = re.search(r"^## Contents\n(.*?)(?=^## )", TEXT, re.M | re.S)
    assert m, "README.md has no '## Contents' section"
    toc = re.findall(r"\]\(#([^)]+)\)", m[1])
    headings = [
        slug(h) for h in re.findall(r"^## (.+)$", without_fences(TEXT), re.M) if h != "Contents"
    ]
    assert toc, "the contents list no section"
    assert set(toc) <= anchors(README), set(toc) - anchors(README)
    assert toc == headings, "the contents should list every ## heading, in order"


def without_fences(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path):
    bad = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.exists():
            bad.append(
                f"{target}: no file {path.relative_to(ROOT) if ROOT in path.parents else path}"
            )
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            bad.append(f"{target}: no heading #{anchor} in {path.name}")
    assert not bad, f"{page.name}: broken links\n" + "\n".join(bad)


# ---------------------------------------------------------------- python blocks


PYTHON_BLOCKS = [body for lang, body in fenced_blocks(TEXT) if lang in ("python", "py")]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("MPLBACKEND", "Agg")
    return env


def test_readme_has_python_blocks():
    assert PYTHON_BLOCKS


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_block_runs_as_written(index: int, tmp_path: Path):
    block = PYTHON_BLOCKS[index]
    proc = subprocess.run(
        [sys.executable, "-c", block],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=PYTHON_TIMEOUT_S,
    )
    assert proc.returncode == 0, f"README python block {index} failed:\n{block}\n{proc.stderr}"


# ---------------------------------------------------------------- shell commands


def shell_lines(text: str) -> list[str]:
    """Command lines of the fenced shell blocks (continuations joined) and inline code
    spans that are a python command."""
    lines = []
    for lang, body in fenced_blocks(text):
        if lang not in ("bash", "sh", "shell", "console", ""):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if line and not line.startswith("#"):
                lines.append(line)
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    lines += [span for span in re.findall(r"`([^`\n]+)`", text) if re.match(r"python3? \S", span)]
    return lines


def commands(line: str) -> list[list[str]]:
    """The simple commands of one line: split at && || ; |, comments and redirections dropped."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    out: list[list[str]] = [[]]
    redirect = False
    for token in lexer:
        if token in ("&&", "||", ";", "|", "&"):
            out.append([])
        elif token in ("<", ">", ">>", "2>", "&>"):
            redirect = True
        elif redirect:
            redirect = False
        else:
            out[-1].append(token)
    return [c for c in out if c]


def script_calls(text: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """(script, argv) of every `python path.py ...` command, and what else was checked
    without running (pip extras)."""
    calls, problems = [], []
    extras = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    for line in shell_lines(text):
        for cmd in commands(line):
            while cmd and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", cmd[0]):  # VAR=value prefix
                cmd = cmd[1:]
            if not cmd:
                continue
            program = Path(cmd[0]).name
            if program in ("pip", "pip3") or cmd[1:3] == ["-m", "pip"]:
                for arg in cmd:
                    m = re.fullmatch(r"\.\[([^\]]+)\]", arg)
                    if m:
                        problems += [
                            f"{line}: no extra [{e}] in pyproject.toml"
                            for e in m[1].split(",")
                            if e.strip() not in extras
                        ]
            if not re.fullmatch(r"python(3(\.\d+)?)?", program) or len(cmd) < 2:
                continue
            if cmd[1] in ("-m", "-c") or cmd[1].startswith("-"):
                continue  # python -m venv / pytest / pip: not a script of this project
            script = ROOT / cmd[1]
            if not script.is_file():
                problems.append(f"{line}: no script {cmd[1]}")
                continue
            calls.append((cmd[1], cmd[2:]))
            problems += config_problems(line, cmd[2:])
    return calls, problems


def config_problems(line: str, argv: list[str]) -> list[str]:
    """`--config NAME` names a file: a path, or a bare name in configs/ (.yaml optional)."""
    out = []
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag == "--config":
            candidates = [
                ROOT / value,
                ROOT / "configs" / value,
                ROOT / "configs" / f"{value}.yaml",
            ]
            if not any(c.is_file() for c in candidates):
                out.append(f"{line}: no config {value}")
    return out


DRIVER = r"""
import argparse, io, json, os, runpy, sys, contextlib, traceback

class Parsed(BaseException):
    pass

original = argparse.ArgumentParser.parse_args

def parse_args(self, args=None, namespace=None):
    original(self, args, namespace)
    raise Parsed()

argparse.ArgumentParser.parse_args = parse_args
root = os.getcwd()
results = []
for script, argv in json.loads(sys.stdin.read()):
    path = os.path.join(root, script)
    sys.argv = [path, *argv]
    sys.path[0] = os.path.dirname(path)
    err = io.StringIO()
    status = "never parsed its arguments"
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            runpy.run_path(path, run_name="__main__")
    except Parsed:
        status = "ok"
    except SystemExit as e:
        status = "ok" if e.code in (0, None) and "--help" in argv else f"exit {e.code}"
    except BaseException:
        status = traceback.format_exc(limit=3)
    results.append([script, argv, status, err.getvalue()[-600:]])
print("RESULTS" + json.dumps(results))
"""


def test_readme_commands_name_scripts_configs_and_extras_that_exist():
    calls, problems = script_calls(TEXT)
    assert calls, "README.md has no python command"
    assert not problems, "\n".join(problems)


def test_readme_commands_parse_with_their_scripts_argparse():
    calls, _ = script_calls(TEXT)
    unique = [list(c) for c in dict.fromkeys((s, tuple(a)) for s, a in calls)]
    unique = [[s, list(a)] for s, a in unique]
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER],
        input=json.dumps(unique),
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=PARSE_TIMEOUT_S,
    )
    out = proc.stdout.rpartition("RESULTS")[2]
    assert proc.returncode == 0 and out, proc.stderr[-3000:]
    bad = [
        f"python {script} {shlex.join(argv)}: {status}\n{stderr}"
        for script, argv, status, stderr in json.loads(out)
        if status != "ok"
    ]
    assert not bad, "README commands the scripts refuse:\n" + "\n".join(bad)


# ---------------------------------------------------------------- the checker itself


def test_the_command_reader():
    line = 'A=1 python train/play.py --game yahtzee --seed 3 < in && pip install -e ".[dev]" # x'
    assert commands(line) == [
        ["A=1", "python", "train/play.py", "--game", "yahtzee", "--seed", "3"],
        ["pip", "install", "-e", ".[dev]"],
    ]
    assert slug("Design map") == "design-map"
    assert (
        slug("The `scorecard` game «Покер», 2-6 players") == "the-scorecard-game-покер-2-6-players"
    )
