"""The promptfoo assertion: one audit per output, as promptfoo's grading result."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import orjson

from citeaudit.core import Config, audit, load_config
from citeaudit.errors import CiteauditError

__all__ = ["get_assert"]


def _sources(context: dict[str, Any], name: str) -> Any:
    sources = (context.get("vars") or {}).get(name)
    if isinstance(sources, str):
        try:
            return orjson.loads(sources)
        except orjson.JSONDecodeError as error:
            raise ValueError(f"vars.{name}: not JSON ({error})") from None
    if sources is None:
        raise ValueError(f"vars.{name}: the test case has no passages")
    return sources


@functools.lru_cache(maxsize=4)
def _project_config(folder: str) -> Config:
    """The project's configuration, found once from where promptfoo runs."""
    return load_config(start=Path(folder))


def get_assert(output: str, context: dict[str, Any]) -> dict[str, Any]:
    """The grading result promptfoo expects for one output: it passes when the audit
    passes.
    """
    config = (context or {}).get("config") or {}
    try:
        sources = _sources(context or {}, str(config.get("sources_var", "sources")))
        settings = _project_config(os.getcwd()).replace(
            min_precision=config.get("min_precision"), min_recall=config.get("min_recall"))
        report = audit(output, sources, config=settings, grammar=config.get("grammar"),
                       refusal=config.get("refusal"), answerable=config.get("answerable"))
    except (CiteauditError, ValueError) as error:
        return {"pass": False, "score": 0.0, "reason": f"citeaudit: cannot audit: {error}"}
    metrics = report.metrics
    score = 1.0 if report.status == "no_evidence" and report.passed else (metrics.f1 or 0.0)
    named = {name: value for name, value in (
        ("citation_precision", metrics.precision), ("citation_recall", metrics.recall),
        ("claim_coverage", metrics.claim_coverage)) if value is not None}
    findings = [{"pass": finding.severity.value != "error", "score": 0.0,
                 "reason": f"{finding.code} {finding.severity.value}: {finding.message}"}
                for finding in report.findings]
    reason = "; ".join(report.reasons) if not report.passed else (
        f"citations hold ({report.status}"
        + (f", {len(findings)} warning{'s' if len(findings) != 1 else ''})" if findings
           else ")"))
    return {"pass": report.passed, "score": score, "reason": reason, "namedScores": named,
            "componentResults": findings}
