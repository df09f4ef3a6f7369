"""Configuration: ``[tool.citeaudit]`` in ``pyproject.toml`` or ``citeaudit.toml``, then flags.

Keys (kebab-case in files): ``grammar`` (a name, ``regex:...`` or a list: a chain),
``refusal`` (a string or a list: every one is accepted), ``refusal-regex`` (RE2),
``select``, ``extend-select``, ``ignore`` (code prefixes such as ``CA3``),
``severity`` (table ``CODE = "error" | "warning"``), ``min-precision``, ``min-recall``,
``max-bytes``, ``checks`` (installed checks to run, by name), ``claim-policy`` (``all``:
every claim needs a citation; ``quantities``: only claims stating a number do),
``not-citable`` (the claim policy's rules in force, default all: see :mod:`._policy`).
"""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from citeaudit.core._judging import JUDGES
from citeaudit.core._loading import (
    DEFAULT_MAX_BYTES,
    decode_text,
    line_column,
    read_bytes,
    too_deep,
)
from citeaudit.core._policy import NOT_CITABLE
from citeaudit.core._refusal import Refusal
from citeaudit.core._rules import RULES, Severity
from citeaudit.errors import ConfigError, InputError

__all__ = ["DEFAULT_REFUSAL", "Config", "config_with", "find_config", "load_config"]

DEFAULT_REFUSAL = "Not covered by the provided documents."
ClaimPolicy = Literal["all", "quantities"]
# The rules whose findings, all errors, settle a free-text answer's verdict (see settles).
_SETTLING = frozenset(("CA201", "CA202", "CA301", "CA302", "CA401"))
_PREFIX = re.compile(r"CA[0-9]{0,3}|ALL")


@dataclass(frozen=True, slots=True)
class Config:
    """Everything that tunes an audit. Immutable: derive variants with :meth:`replace`."""

    grammar: tuple[str, ...] = ()
    # The accepted refusal strings (one or several; the first is the one a prompt asks for).
    refusal: str | tuple[str, ...] = DEFAULT_REFUSAL
    refusal_regex: str | None = None  # RE2: an answer that matches it whole is a refusal
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    # Thresholds apply only when set; eval's citation_coverage evaluator reads them too (with
    # its own defaults, 0.9 and 0.5, when they are not).
    min_precision: float | None = None
    min_recall: float | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    claim_policy: ClaimPolicy = "all"
    support: str | None = None  # a support judge's name: CA501-CA503 need one
    support_threshold: float | None = None  # None: the judge's own default
    checks: tuple[str, ...] = ()  # installed checks to run beside the built-in ones, by name
    # The claim policy's rules in force: uncited sentences they exempt are no claims.
    not_citable: frozenset[str] = frozenset(NOT_CITABLE)
    enabled: frozenset[str] = field(init=False, repr=False, compare=False)
    # Whether a free-text answer's verdict follows from where its markers and claims are (any
    # unresolved id, any claim without a marker fails it: see _engine.audit), and whether an
    # answer with no claims fails (CA403 an error).
    settles: bool = field(init=False, repr=False, compare=False)
    empty_fails: bool = field(init=False, repr=False, compare=False)
    _refusals: Refusal = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("select", "extend_select", "ignore"):
            for prefix in getattr(self, name):
                if not _PREFIX.fullmatch(prefix) or not _matching(prefix):
                    raise ConfigError(f"{name.replace('_', '-')}: {prefix!r} matches no rule code")
        for code, level in self.severity.items():
            if code not in RULES:
                raise ConfigError(f"severity: unknown rule code {code!r}")
            if not isinstance(level, Severity):
                raise ConfigError(f"severity of {code} must be a Severity")
        for name in ("min_precision", "min_recall"):
            value = getattr(self, name)
            if value is not None and (not 0.0 <= value <= 1.0 or math.isnan(value)):
                raise ConfigError(f"{name.replace('_', '-')} must lie in [0, 1], not {value}")
        if self.max_bytes < 1:
            raise ConfigError(f"max-bytes must be positive, not {self.max_bytes}")
        if self.claim_policy not in ("all", "quantities"):
            raise ConfigError("claim-policy must be 'all' or 'quantities', not"
                              f" {self.claim_policy!r}")
        if not isinstance(self.not_citable, frozenset):
            object.__setattr__(self, "not_citable", frozenset(self.not_citable))
        for name in sorted(self.not_citable - set(NOT_CITABLE)):
            raise ConfigError(f"not-citable: {name!r} is no claim policy rule; the rules:"
                              f" {', '.join(NOT_CITABLE)}")
        if self.support is not None and self.support not in JUDGES:
            raise ConfigError(f"support must be one of {', '.join(JUDGES)}, not"
                              f" {self.support!r}")
        if self.support_threshold is not None and not 0.0 <= self.support_threshold <= 1.0:
            raise ConfigError("support-threshold must lie in [0, 1], not"
                              f" {self.support_threshold}")
        refusals = (self.refusal,) if isinstance(self.refusal, str) else tuple(self.refusal)
        if not refusals or not all(isinstance(r, str) and r.strip() for r in refusals):
            raise ConfigError("refusal must be a non-empty string (or a list of them)")
        object.__setattr__(self, "refusal", refusals[0] if len(refusals) == 1 else refusals)
        if self.refusal_regex is not None:
            Refusal.of(refusals, self.refusal_regex)  # compiles it: a bad pattern fails here
        if self.select:
            codes = {code for prefix in self.select for code in _matching(prefix)}
        else:
            codes = {code for code, rule in RULES.items() if rule.default_enabled}
        codes |= {code for prefix in self.extend_select for code in _matching(prefix)}
        codes -= {code for prefix in self.ignore for code in _matching(prefix)}
        object.__setattr__(self, "enabled", frozenset(codes))
        errors = {code for code in codes if self.severity_of(code) is Severity.ERROR}
        object.__setattr__(self, "settles", (
            errors >= _SETTLING and errors.isdisjoint(("CA101", "CA102"))
            and self.claim_policy == "all" and self.support is None and not self.checks
            and self.min_precision is None and self.min_recall is None))
        object.__setattr__(self, "empty_fails", "CA403" in errors)
        texts = (self.refusal,) if isinstance(self.refusal, str) else self.refusal
        object.__setattr__(self, "_refusals", Refusal.of(texts, self.refusal_regex))

    @property
    def refusals(self) -> Refusal:
        """The matcher of accepted refusals (made once)."""
        return self._refusals

    def severity_of(self, code: str) -> Severity:
        """The configured severity of a rule code, else its default."""
        return self.severity.get(code) or RULES[code].severity

    def replace(self, **changes: Any) -> Config:
        """A copy with some fields changed (``None`` values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


def _matching(prefix: str) -> list[str]:
    return [code for code in RULES if prefix == "ALL" or code.startswith(prefix)]


def find_config(start: Path) -> Path | None:
    """The nearest ``citeaudit.toml``, or ``pyproject.toml`` with ``[tool.citeaudit]``,
    in ``start`` or its parents.
    """
    for folder in (start, *start.parents):
        candidate = folder / "citeaudit.toml"
        if candidate.is_file():
            return candidate
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and "citeaudit" in _read_toml(candidate).get("tool", {}):
            return candidate
    return None


def load_config(path: Path | None = None, *, start: Path | None = None) -> Config:
    """Load configuration from ``path``, or discover it from ``start`` (default: the current
    folder) upwards. No file found means the defaults.
    """
    if path is None:
        path = find_config((start or Path.cwd()).resolve())
        if path is None:
            return Config()
    data = _read_toml(path)
    if path.name == "pyproject.toml" or "tool" in data:
        data = data.get("tool", {}).get("citeaudit", {})
    try:
        return _from_mapping(data)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


# A configuration file is a few lines; a larger one (a device that never ends) is refused.
_MAX_FILE_BYTES = 10_000_000
# Deeper arrays and inline tables are refused before parsing: the TOML parser recurses once
# a level (past about 300 levels it fails), and no setting nests more than two.
_MAX_TOML_DEPTH = 64
# TOML's strings (multi-line ones first) and comments, which may hold any bracket; brackets.
_TOML_STRUCTURE = re.compile(
    rb'"""(?:[^"\\]|\\.|"(?!""))*"""'
    rb"|'''(?:[^']|'(?!''))*'''"
    rb'|"(?:[^"\\\n]|\\.)*"'
    rb"|'[^'\n]*'"
    rb"|#[^\n]*"
    rb"|[\[\]{}]", re.DOTALL)


def _read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's tables; a file that cannot be read, is no UTF-8, nests too deep or is
    no TOML is a :class:`ConfigError` naming it and, where it can, the line and column.
    """
    try:
        data = read_bytes(path, max_bytes=_MAX_FILE_BYTES)
        text = decode_text(data, origin=str(path))
    except InputError as error:
        raise ConfigError(str(error)) from None
    deep = too_deep(data, _MAX_TOML_DEPTH, structure=_TOML_STRUCTURE)
    if deep is not None:
        line, column = line_column(data, deep)
        raise ConfigError(f"{path}: line {line}, column {column}: nested deeper than"
                          f" {_MAX_TOML_DEPTH} levels")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:  # nesting the scan above cannot see (it does not parse TOML)
        raise ConfigError(f"{path}: nested too deep to be read") from None


_KEYS = {"grammar", "refusal", "refusal-regex", "select", "extend-select", "ignore", "severity",
         "min-precision", "min-recall", "max-bytes", "claim-policy", "support",
         "support-threshold", "checks", "not-citable"}


def _from_mapping(data: Mapping[str, Any]) -> Config:
    return Config(**_values(data, "[tool.citeaudit]"))


def config_with(base: Config, data: Mapping[str, Any], where: str) -> Config:
    """``base`` with the settings ``data`` gives, written as in a configuration file
    (``{"select": ["CA2"], "min-precision": 0.9}``); ``where`` names ``data`` in errors.
    """
    return dataclasses.replace(base, **_values(data, where))


def _values(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"unknown key {unknown[0]!r} in {where}; known keys:"
                          f" {', '.join(sorted(_KEYS))}")
    values: dict[str, Any] = {}
    if "grammar" in data:
        values["grammar"] = _strings(data["grammar"], "grammar")
    if "refusal" in data:
        refusals = _strings(data["refusal"], "refusal")
        values["refusal"] = refusals[0] if len(refusals) == 1 else refusals
    if "refusal-regex" in data:
        if not isinstance(data["refusal-regex"], str):
            raise ConfigError("refusal-regex must be a string (an RE2 pattern)")
        values["refusal_regex"] = data["refusal-regex"]
    for key in ("select", "extend-select", "ignore"):
        if key in data:
            values[key.replace("-", "_")] = _strings(data[key], key)
    if "severity" in data:
        table = data["severity"]
        if not isinstance(table, dict):
            raise ConfigError("severity must be a table of CODE = \"error\" | \"warning\"")
        values["severity"] = {code: parse_severity(level, code) for code, level in table.items()}
    if "support" in data:
        if not isinstance(data["support"], str):
            raise ConfigError("support must be a string")
        values["support"] = data["support"]
    for key in ("min-precision", "min-recall", "support-threshold"):
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{key} must be a number")
            values[key.replace("-", "_")] = float(value)
    if "max-bytes" in data:
        if isinstance(data["max-bytes"], bool) or not isinstance(data["max-bytes"], int):
            raise ConfigError("max-bytes must be an integer")
        values["max_bytes"] = data["max-bytes"]
    if "checks" in data:
        values["checks"] = _strings(data["checks"], "checks")
    if "not-citable" in data:
        value = data["not-citable"]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError("not-citable must be a list of claim policy rules")
        values["not_citable"] = frozenset(value)
    if "claim-policy" in data:
        values["claim_policy"] = data["claim-policy"]
    return values


def parse_severity(level: Any, code: str) -> Severity:
    """``"error"`` or ``"warning"`` as a :class:`Severity`, else a :class:`ConfigError`."""
    try:
        return Severity(level)
    except ValueError:
        raise ConfigError(f"severity of {code} must be \"error\" or \"warning\", not {level!r}") \
            from None


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ConfigError(f"{key} must be a string or a list of strings")
