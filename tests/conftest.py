from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from citeaudit.cli import main

DATA = Path(__file__).parent / "data"


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def run() -> Callable[..., Run]:
    """Run the CLI in-process with captured streams."""

    def invoke(*argv: str, stdin: bytes = b"") -> Run:
        out, err = io.StringIO(), io.StringIO()
        code = main(list(argv), stdout=out, stderr=err, stdin=io.BytesIO(stdin))
        return Run(code, out.getvalue(), err.getvalue())

    return invoke


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run in an empty folder, so no configuration file is discovered by accident."""
    monkeypatch.chdir(tmp_path)
