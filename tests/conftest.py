from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's ``chromium``) driven by Playwright.

    Skipped when Chromium is not installed, unless ``CITEAUDIT_REQUIRE_BROWSER`` is set (as CI
    does), which turns its absence into a failure.
    """
    path = os.environ.get("CITEAUDIT_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    if not path:
        if os.environ.get("CITEAUDIT_REQUIRE_BROWSER"):
            pytest.fail("CITEAUDIT_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 - only browser tests need it

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield launched
        launched.close()
