"""Configuration files, rule selection and severities."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from citeaudit import Config, ConfigError, Severity, audit, load_config
from citeaudit.core._config import SETTINGS


def test_defaults() -> None:
    config = Config()
    assert "CA403" not in config.enabled
    assert {"CA101", "CA201", "CA301", "CA404"} <= config.enabled
    assert (config.min_precision, config.min_recall) == (None, None)  # only when set
    assert config.refusal == "Not covered by the provided documents."


@pytest.mark.parametrize(("kwargs", "enabled"), [
    ({"select": ("CA2",)}, {"CA201", "CA202", "CA203", "CA204", "CA205", "CA206",
                            "CA207"}),
    ({"select": ("CA3", "CA101")}, {"CA101", "CA301", "CA302"}),
    ({"select": ("CA4",), "ignore": ("CA404",)}, {"CA401", "CA402", "CA403"}),
    ({"select": ("ALL",), "ignore": ("CA1", "CA2", "CA3", "CA4", "CA5")}, set()),
    ({"extend_select": ("CA403",), "ignore": ("CA1", "CA2", "CA3", "CA5")},
     {"CA401", "CA402", "CA403", "CA404"}),
])
def test_selection(kwargs: dict[str, tuple[str, ...]], enabled: set[str]) -> None:
    assert Config(**kwargs).enabled == enabled  # type: ignore[arg-type]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"select": ("CA9",)}, "matches no rule code"),
    ({"ignore": ("XX1",)}, "matches no rule code"),
    ({"min_precision": 1.5}, "must lie in \\[0, 1\\]"),
    ({"min_recall": -0.1}, "must lie in \\[0, 1\\]"),
    ({"max_bytes": 0}, "must be positive"),
    ({"claim_policy": "some"}, "claim-policy"),
    ({"refusal": "  "}, "refusal must be a non-empty string"),
    ({"severity": {"CA999": Severity.ERROR}}, "unknown rule code"),
])
def test_bad_values(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config(**kwargs)  # type: ignore[arg-type]


def test_pyproject_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.citeaudit]\ngrammar = ["numeric", "S"]\n'
        'refusal = "No answer."\nignore = ["CA302"]\nmin-recall = 0.25\n'
        'claim-policy = "quantities"\nmax-bytes = 5000\n\n'
        '[tool.citeaudit.severity]\nCA101 = "error"\n')
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    config = load_config(start=nested)
    assert config.grammar == ("numeric", "S")
    assert config.refusal == "No answer."
    assert "CA302" not in config.enabled
    assert config.min_recall == 0.25
    assert config.claim_policy == "quantities"
    assert config.max_bytes == 5000
    assert config.severity_of("CA101") is Severity.ERROR


def test_citeaudit_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.citeaudit]\nmin-recall = 0.1\n')
    (tmp_path / "citeaudit.toml").write_text('min-recall = 0.2\n')
    assert load_config(start=tmp_path).min_recall == 0.2


def test_pyproject_without_section_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load_config(start=tmp_path) == Config()


@pytest.mark.parametrize(("content", "message"), [
    ("min-recall = \n", "invalid TOML"),
    ("colour = 'red'\n", "unknown key 'colour'"),
    ("min-recall = 'high'\n", "min-recall must be a number"),
    ("grammar = 3\n", "grammar must be a string or a list of strings"),
    ("[severity]\nCA101 = 'fatal'\n", "must be \"error\" or \"warning\""),
    ("select = ['CA9']\n", "matches no rule code"),
])
def test_bad_files_name_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "citeaudit.toml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(path)
    assert str(path) in str(caught.value)


def test_claim_policy_quantities() -> None:
    config = Config(claim_policy="quantities", claims="strict")
    report = audit("Sunny today. It costs 5 dollars. Cited [1].", ["a"], config=config)
    assert [(f.code, f.claim) for f in report.findings] == [("CA302", 2)]


def test_severity_override_turns_an_error_into_a_warning() -> None:
    config = Config(severity={"CA301": Severity.WARNING}, min_recall=0.0)
    report = audit("Cited [1]. Uncited.", ["a"], config=config)
    assert [(f.code, f.severity) for f in report.findings] == [("CA301", Severity.WARNING)]
    assert report.passed


@pytest.mark.parametrize(("name", "content", "message"), [
    ("citeaudit.toml", b"min-recall = 0.5\nrefusal = \"No \xff.\"\n",
     "line 2, column 15: not valid UTF-8 (byte 0xff: invalid start byte)"),
    ("citeaudit.toml", "refusal = \"Déjà\"\n".encode() + b"grammar = 'S'  # \xc3\x28\n",
     "line 2, column 18: not valid UTF-8 (byte 0xc3: invalid continuation byte)"),
    ("pyproject.toml", b"[tool.citeaudit]\nmin-recall = 0.5 # \xe2\x82\n",
     "line 2, column 20: not valid UTF-8 (byte 0xe2: invalid continuation byte)"),
    ("citeaudit.toml", b"a = " + b"[" * 2000 + b"]" * 2000 + b"\n",
     "line 1, column 69: nested deeper than 64 levels"),
    ("citeaudit.toml", b"[severity]\nx = " + b"{a = " * 500 + b"1" + b"}" * 500 + b"\n",
     "line 2, column 325: nested deeper than 64 levels"),
    ("pyproject.toml", b"[project]\nname = 'x'\n[tool.citeaudit]\nb = [\n" + b"[\n" * 300
     + b"]\n" * 301, "line 68, column 1: nested deeper than 64 levels"),
])
def test_undecodable_or_deep_files_name_the_file_and_place(
        tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    for found in (lambda: load_config(path), lambda: load_config(start=tmp_path)):
        with pytest.raises(ConfigError) as caught:
            found()
        assert str(caught.value) == f"{path}: {message}"


def test_brackets_in_strings_and_comments_are_no_nesting(tmp_path: Path) -> None:
    path = tmp_path / "citeaudit.toml"
    path.write_text("refusal = ['" + "[" * 300 + "', \"" + "{" * 300 + "\", '''\n"
                    + "[" * 300 + "''', \"\"\"\n" + "[" * 300 + "\"\"\"]\n# " + "[" * 300 + "\n"
                    "grammar = [[][0:0]]\n".replace("[[][0:0]]", "'regex:\\[(\\d+)\\]'"))
    config = load_config(path)
    assert config.refusal[0] == "[" * 300
    assert config.grammar == ("regex:\\[(\\d+)\\]",)


def test_a_config_file_that_never_ends_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^/dev/zero: input is over the limit of"):
        load_config(Path("/dev/zero"))


def test_every_setting_has_one_table_entry() -> None:
    """Each field a file or a flag sets is read and checked by its entry in one table; the
    derived fields are not settable."""
    settable = {f.name for f in dataclasses.fields(Config) if f.init}
    assert set(SETTINGS) == settable
    assert all(setting.key == name.replace("_", "-") for name, setting in SETTINGS.items())
