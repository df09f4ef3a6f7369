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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from citeaudit.core._claims import EXEMPT_KINDS, PRESETS, ClaimSettings, claim_settings
from citeaudit.core._judging import JUDGES
from citeaudit.core._loading import (
    DEFAULT_MAX_BYTES,
    decode_text,
    line_column,
    read_bytes,
    too_deep,
)
from citeaudit.core._policy import NOT_CITABLE, RULE_KINDS
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
    support: str | None = None  # a support judge's name: CA501-CA504 need one
    support_threshold: float | None = None  # None: the judge's own default
    checks: tuple[str, ...] = ()  # installed checks to run beside the built-in ones, by name
    # The claim policy's rules in force: uncited sentences they exempt are no claims.
    not_citable: frozenset[str] = frozenset(NOT_CITABLE)
    # How uncited units the rules leave are judged by what they say: "strict" (the rules
    # alone), "balanced" or "lenient" (the citability scorer's threshold); and the kinds of
    # unit that need a citation whatever the rules and the scorer say.
    claims: str = "balanced"
    require: frozenset[str] = frozenset()
    enabled: frozenset[str] = field(init=False, repr=False, compare=False)
    # What the two above make of the policy: the rules in force, the content judge's settings.
    rules: frozenset[str] = field(init=False, repr=False, compare=False)
    claim_settings: ClaimSettings = field(init=False, repr=False, compare=False)
    # Whether a free-text answer's verdict follows from where its markers and claims are (any
    # unresolved id, any claim without a marker fails it: see _engine.audit), and whether an
    # answer with no claims fails (CA403 an error).
    settles: bool = field(init=False, repr=False, compare=False)
    empty_fails: bool = field(init=False, repr=False, compare=False)
    # The matcher of accepted refusals, made once (a field, not a property: read on every
    # audit).
    refusals: Refusal = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, setting in SETTINGS.items():  # every field checked by its table entry
            if setting.check is not None:
                kept = setting.check(getattr(self, name), setting.key)
                if kept is not None:  # the checked value in its one form (a str, a frozenset)
                    object.__setattr__(self, name, kept)
        if self.select:
            codes = {code for prefix in self.select for code in _matching(prefix)}
        else:
            codes = {code for code, rule in RULES.items() if rule.default_enabled}
        codes |= {code for prefix in self.extend_select for code in _matching(prefix)}
        codes -= {code for prefix in self.ignore for code in _matching(prefix)}
        object.__setattr__(self, "enabled", frozenset(codes))
        object.__setattr__(self, "rules", frozenset(
            rule for rule in self.not_citable if RULE_KINDS[rule] not in self.require))
        object.__setattr__(self, "claim_settings", claim_settings(self.claims, self.require))
        errors = {code for code in codes if self.severity_of(code) is Severity.ERROR}
        object.__setattr__(self, "settles", (
            errors >= _SETTLING and errors.isdisjoint(("CA101", "CA102"))
            and self.claim_policy == "all" and self.support is None and not self.checks
            and self.min_precision is None and self.min_recall is None))
        object.__setattr__(self, "empty_fails", "CA403" in errors)
        texts = (self.refusal,) if isinstance(self.refusal, str) else self.refusal
        object.__setattr__(self, "refusals", Refusal.of(texts, self.refusal_regex))

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
    return {name: setting.read(data[setting.key], setting.key)
            for name, setting in SETTINGS.items() if setting.key in data}


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


# Readers: a file's value (any TOML value) as the field's type, else a ConfigError. Checks: the
# field's value, however it was given (a file, a flag, Python), else a ConfigError; a check
# returns the value in its one form where it has several (None: keep it).


def _kept(value: Any, _key: str) -> Any:
    return value


def _string(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string" + (" (an RE2 pattern)" if "regex" in key
                                                       else ""))
    return value


def _number(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{key} must be a number")
    return float(value)


def _integer(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} must be an integer")
    return int(value)


def _severity_table(value: Any, key: str) -> dict[str, Severity]:
    if not isinstance(value, dict):
        raise ConfigError(f"{key} must be a table of CODE = \"error\" | \"warning\"")
    return {code: parse_severity(level, code) for code, level in value.items()}


def _refusal_strings(value: Any, key: str) -> str | tuple[str, ...]:
    refusals = _strings(value, key)
    return refusals[0] if len(refusals) == 1 else refusals


def _rule_names(value: Any, key: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{key} must be a list of claim policy rules")
    return frozenset(value)


def _prefixes(value: tuple[str, ...], key: str) -> None:
    for prefix in value:
        if not _PREFIX.fullmatch(prefix) or not _matching(prefix):
            raise ConfigError(f"{key}: {prefix!r} matches no rule code")


def _severities(value: Mapping[str, Severity], key: str) -> None:
    for code, level in value.items():
        if code not in RULES:
            raise ConfigError(f"{key}: unknown rule code {code!r}")
        if not isinstance(level, Severity):
            raise ConfigError(f"severity of {code} must be a Severity")


def _ratio(value: float | None, key: str) -> None:
    if value is not None and (not 0.0 <= value <= 1.0 or math.isnan(value)):
        raise ConfigError(f"{key} must lie in [0, 1], not {value}")


def _positive(value: int, key: str) -> None:
    if value < 1:
        raise ConfigError(f"{key} must be positive, not {value}")


def _claim_policy(value: str, key: str) -> None:
    if value not in ("all", "quantities"):
        raise ConfigError(f"{key} must be 'all' or 'quantities', not {value!r}")


def _policy_rules(value: frozenset[str] | Any, key: str) -> frozenset[str]:
    rules = frozenset(value)
    for name in sorted(rules - set(NOT_CITABLE)):
        raise ConfigError(f"{key}: {name!r} is no claim policy rule; the rules:"
                          f" {', '.join(NOT_CITABLE)}")
    return rules


def _preset(value: str, key: str) -> None:
    if value not in PRESETS:
        raise ConfigError(f"{key} must be one of {', '.join(map(repr, PRESETS))}, not {value!r}")


def _kinds(value: frozenset[str] | Any, key: str) -> frozenset[str]:
    kinds = frozenset((value,) if isinstance(value, str) else value)
    for kind in sorted(kinds - set(EXEMPT_KINDS)):
        raise ConfigError(f"{key}: {kind!r} is no kind of unit; the kinds:"
                          f" {', '.join(EXEMPT_KINDS)}")
    return kinds


def _judge(value: str | None, key: str) -> None:
    if value is not None and value not in JUDGES:
        raise ConfigError(f"{key} must be one of {', '.join(JUDGES)}, not {value!r}")


def _refusals(value: str | tuple[str, ...], key: str) -> str | tuple[str, ...]:
    refusals = (value,) if isinstance(value, str) else tuple(value)
    if not refusals or not all(isinstance(r, str) and r.strip() for r in refusals):
        raise ConfigError(f"{key} must be a non-empty string (or a list of them)")
    return refusals[0] if len(refusals) == 1 else refusals


def _pattern(value: str | None, _key: str) -> None:
    if value is not None:
        Refusal.of(DEFAULT_REFUSAL, value)  # compiles it: a bad pattern fails here


@dataclass(frozen=True, slots=True)
class Setting:
    """One configuration field: its key in files, how a file's value is read, how any value
    is checked.
    """

    key: str
    read: Callable[[Any, str], Any] = _kept
    check: Callable[[Any, str], Any] | None = None


# Every field a file or a flag may set, in the order they are checked.
SETTINGS: dict[str, Setting] = {
    "grammar": Setting("grammar", _strings),
    "refusal": Setting("refusal", _refusal_strings, _refusals),
    "refusal_regex": Setting("refusal-regex", _string, _pattern),
    "select": Setting("select", _strings, _prefixes),
    "extend_select": Setting("extend-select", _strings, _prefixes),
    "ignore": Setting("ignore", _strings, _prefixes),
    "severity": Setting("severity", _severity_table, _severities),
    "min_precision": Setting("min-precision", _number, _ratio),
    "min_recall": Setting("min-recall", _number, _ratio),
    "max_bytes": Setting("max-bytes", _integer, _positive),
    "claim_policy": Setting("claim-policy", _kept, _claim_policy),
    "support": Setting("support", _string, _judge),
    "support_threshold": Setting("support-threshold", _number, _ratio),
    "checks": Setting("checks", _strings),
    "not_citable": Setting("not-citable", _rule_names, _policy_rules),
    "claims": Setting("claims", _string, _preset),
    "require": Setting("require", _strings, _kinds),
}
_KEYS = frozenset(setting.key for setting in SETTINGS.values())
