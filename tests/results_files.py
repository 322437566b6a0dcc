"""The chunk files of a results folder, by relative path: what two runs are compared on."""

from __future__ import annotations

from pathlib import Path


def files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for sub in ("hands", "sessions", "logs")
            for p in sorted((out / sub).glob("*/*")) if p.is_file()}
