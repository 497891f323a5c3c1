"""Files that survive a kill: written whole or not at all.

:func:`atomic_write` writes into a temporary file beside the target, flushes
and fsyncs it, then ``os.replace``-s it over the target (atomic on POSIX) and
fsyncs the folder, so a reader sees the old file or the new one, never half of
one. The temporary file is named after the target and the writing process
(``.NAME.PID.tmp``): one that a killed process left behind is removed by the
next write to the same target. Files get the usual permissions (``0666`` less
the umask, so ``0644`` normally), not the ``0600`` of ``tempfile``.
"""

from __future__ import annotations

import contextlib
import glob
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def temp_path(path: Path) -> Path:
    """Where this process writes ``path`` before it replaces it."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale_temps(path: Path) -> list[Path]:
    """Delete the temporary files of ``path`` whose writer is gone; returns them."""
    removed = []
    prefix = f".{path.name}."
    for tmp in path.parent.glob(glob.escape(prefix) + "*.tmp"):
        pid = tmp.name[len(prefix) : -len(".tmp")]
        if pid.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid))):
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
    return removed


def sweep_stale_temps(folder: Path) -> list[Path]:
    """Delete every temporary file in ``folder`` whose writer is gone; returns them."""
    removed = []
    for tmp in Path(folder).glob(".*.*.tmp"):
        target = tmp.name[1:].rsplit(".", 2)[0]
        removed += remove_stale_temps(tmp.with_name(target))
    return removed


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "wb", **open_kwargs) -> Iterator[IO]:
    """``with atomic_write(path) as f: ...``: ``path`` holds what was written once the
    block ends without an exception; otherwise it is untouched and no temp file stays."""
    path = Path(path)
    remove_stale_temps(path)
    tmp = temp_path(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with os.fdopen(fd, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def write_text(path: str | Path, text: str) -> None:
    """``Path.write_text``, atomically."""
    with atomic_write(path, "w", encoding="utf-8") as f:
        f.write(text)


def json_safe(x):
    """JSON has no NaN: write null instead."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [json_safe(v) for v in x]
    return x
