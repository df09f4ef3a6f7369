"""An LLM support judge over an OpenAI-compatible HTTP API (``POST {base}/chat/completions``).

Configured from the environment: ``CITEAUDIT_LLM_BASE_URL`` (e.g. ``http://localhost:8000/v1``),
``CITEAUDIT_LLM_MODEL``, ``CITEAUDIT_LLM_API_KEY`` (optional), ``CITEAUDIT_LLM_CACHE`` (a file
for the on-disk cache; default ``~/.cache/citeaudit/llm.sqlite``), ``CITEAUDIT_LLM_TIMEOUT``
(seconds, default 30), ``CITEAUDIT_LLM_CONCURRENCY`` (requests at once, default 4).

Requests time out, are retried with exponential backoff (429, 5xx, timeouts, refused
connections), run at most ``concurrency`` at a time, and their answers are cached on disk by
model and prompt, so a second run over the same claims asks nothing. Needs the ``llm`` extra
(``httpx``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from citeaudit.errors import CiteauditError, ConfigError
from citeaudit.support.judges import Judgement, Passage

__all__ = ["JudgeError", "LLMJudge"]

PROMPT = """You check citations. Decide whether the PASSAGES support the CLAIM: every fact \
in the claim must be stated in the passages (numbers, names, negations included).
Reply with one JSON object and nothing else:
{"supported": true or false, "score": a number from 0 to 1 (how strongly the passages \
support the claim), "evidence": "the passage sentence that best supports it, or empty"}"""
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class JudgeError(CiteauditError):
    """The judge could not give a verdict (the service failed after retries)."""


class LLMJudge:
    """Asks a chat model whether the cited passages support each claim."""

    name = "llm"

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 threshold: float = 0.5, timeout: float = 30.0, retries: int = 3,
                 backoff: float = 0.5, concurrency: int = 4,
                 cache: Path | None = None) -> None:
        try:
            import httpx  # noqa: PLC0415 - the optional "llm" extra
        except ImportError:
            raise ConfigError("the llm judge needs httpx: pip install 'citeaudit[llm]'") \
                from None
        self.threshold = threshold
        self.model = model
        self._url = base_url.rstrip("/") + "/chat/completions"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)
        self._httpx = httpx
        self._retries = retries
        self._backoff = backoff
        self._concurrency = max(1, concurrency)
        self._cache = _Cache(cache) if cache is not None else None

    @classmethod
    def from_environment(cls, threshold: float | None = None) -> LLMJudge:
        """A judge configured by the ``CITEAUDIT_LLM_*`` variables."""
        base = os.environ.get("CITEAUDIT_LLM_BASE_URL")
        model = os.environ.get("CITEAUDIT_LLM_MODEL")
        if not base or not model:
            raise ConfigError("the llm judge needs CITEAUDIT_LLM_BASE_URL and"
                              " CITEAUDIT_LLM_MODEL in the environment")
        cache = os.environ.get("CITEAUDIT_LLM_CACHE") or str(
            Path.home() / ".cache" / "citeaudit" / "llm.sqlite")
        try:
            timeout = float(os.environ.get("CITEAUDIT_LLM_TIMEOUT", "30"))
            concurrency = int(os.environ.get("CITEAUDIT_LLM_CONCURRENCY", "4"))
        except ValueError:
            raise ConfigError("CITEAUDIT_LLM_TIMEOUT must be a number and"
                              " CITEAUDIT_LLM_CONCURRENCY a whole number") from None
        return cls(base, model, api_key=os.environ.get("CITEAUDIT_LLM_API_KEY"),
                   threshold=0.5 if threshold is None else threshold, timeout=timeout,
                   concurrency=concurrency, cache=Path(cache) if cache != "off" else None)

    def judge(self, pairs: Sequence[tuple[str, Sequence[Passage]]]) -> list[Judgement]:
        """One judgement per pair; requests run ``concurrency`` at a time."""
        if not pairs:
            return []
        with ThreadPoolExecutor(max_workers=min(self._concurrency, len(pairs))) as pool:
            return list(pool.map(lambda pair: self.judge_one(*pair), pairs))

    def judge_one(self, claim: str, passages: Sequence[Passage]) -> Judgement:
        """Ask (or recall from the cache) whether ``passages`` support ``claim``."""
        text = "\n\n".join(f"[{source_id}] {body}" for source_id, body in passages)
        user = f"CLAIM: {claim}\n\nPASSAGES:\n{text}"
        key = hashlib.sha256(json.dumps([self.model, PROMPT, user]).encode()).hexdigest()
        reply = self._cache.get(key) if self._cache is not None else None
        if reply is None:
            reply = self._ask(user)
            if self._cache is not None:
                self._cache.put(key, reply)
        supported, score, evidence = _verdict(reply)
        supported = supported and score >= self.threshold
        source = next((sid for sid, body in passages if evidence and evidence in body), None)
        problems = () if supported else (("CA503", f"the llm judge finds the claim unsupported"
                                                   f" (score {score:.2f})"),)
        return Judgement(score, supported, evidence, source, problems)

    def _ask(self, user: str) -> str:
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": "system", "content": PROMPT},
                             {"role": "user", "content": user}]}
        delay = self._backoff
        for attempt in range(self._retries + 1):
            try:
                response = self._client.post(self._url, json=body)
                if response.status_code not in _RETRY_STATUS:
                    response.raise_for_status()
                    return str(response.json()["choices"][0]["message"]["content"])
                problem = f"HTTP {response.status_code}"
                wait = _retry_after(response.headers.get("retry-after"), delay)
            except (self._httpx.TimeoutException, self._httpx.TransportError) as error:
                problem, wait = type(error).__name__, delay
            except (self._httpx.HTTPStatusError, KeyError, IndexError, TypeError,
                    ValueError) as error:
                raise JudgeError(f"the llm judge got an unusable reply from {self._url}:"
                                 f" {error}") from None
            if attempt < self._retries:
                time.sleep(wait)
                delay *= 2
        attempts = self._retries + 1
        raise JudgeError(f"the llm judge failed after {attempts} attempt"
                         f"{'s' if attempts != 1 else ''} at {self._url}: {problem}")


def _retry_after(header: str | None, default: float) -> float:
    try:
        return min(float(header), 60.0) if header else default
    except ValueError:
        return default


def _verdict(reply: str) -> tuple[bool, float, str]:
    """(supported, score, evidence) from the model's reply; a reply that is not the asked-for
    JSON counts as unsupported.
    """
    match = _OBJECT.search(reply)
    try:
        data: Any = json.loads(match[0]) if match else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return False, 0.0, ""
    supported = data.get("supported") is True
    score = data.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        score = 1.0 if supported else 0.0
    evidence = data.get("evidence")
    return supported, min(max(float(score), 0.0), 1.0), evidence if isinstance(evidence, str) \
        else ""


class _Cache:
    """Replies by key in one SQLite file, shared by threads (and processes)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._local = threading.local()
        with self._connection() as connection:
            connection.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY,"
                               " reply TEXT NOT NULL)")

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self._path, timeout=30)
            connection.execute("PRAGMA journal_mode=WAL")
            self._local.connection = connection
        return connection

    def get(self, key: str) -> str | None:
        row = self._connection().execute("SELECT reply FROM replies WHERE key = ?",
                                         (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, reply: str) -> None:
        with self._connection() as connection:
            connection.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, reply))
