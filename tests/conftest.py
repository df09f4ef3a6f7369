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
from citeaudit.core._registry import reload_all
from requires import absent, needs
from thorough import examples

DATA = Path(__file__).parent / "data"

try:
    from hypothesis import settings
except ImportError:  # the evaluation frameworks' environment has no property tests
    pass
else:
    # Property tests that name no count of their own try hypothesis's 100, scaled
    # (tests/thorough.py).
    settings.register_profile("citeaudit", max_examples=examples(100))
    settings.load_profile("citeaudit")


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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's ``chromium``) driven by Playwright.

    One a module, not a session: Playwright's sync API keeps its event loop marked running in
    the thread while it is open, so a later module's ``asyncio.run`` (the MCP client's, the
    service's) in the same worker would fail.

    Skipped without Playwright or Chromium, unless ``CITEAUDIT_REQUIRE_BROWSER`` is set (as CI
    does), which turns their absence into a failure (tests/requires.py).
    """
    needs("playwright", part="browser")
    path = os.environ.get("CITEAUDIT_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    if not path:
        absent("browser", "chromium")
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 - only browser tests need it

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield launched
        launched.close()


Plugins = Callable[[dict[str, str], dict[str, dict[str, str]]], Path]


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Plugins]:
    """Install a distribution with entry points for this test (and the processes it starts):
    ``install({module: source}, {group: {name: "module:attribute"}})``.
    """
    site = tmp_path / "site"

    def install(modules: dict[str, str], groups: dict[str, dict[str, str]]) -> Path:
        dist = site / "example_plugins-1.0.dist-info"
        dist.mkdir(parents=True, exist_ok=True)
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: example-plugins\n"
                                       "Version: 1.0\n")
        (dist / "entry_points.txt").write_text("".join(
            f"[{group}]\n" + "".join(f"{name} = {ref}\n" for name, ref in points.items())
            for group, points in groups.items()))
        for module, source in modules.items():
            (site / f"{module}.py").write_text(source)
        monkeypatch.syspath_prepend(str(site))
        monkeypatch.setenv("PYTHONPATH", str(site))
        reload_all()
        return site

    yield install
    reload_all()
