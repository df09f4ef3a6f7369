"""Reading JSON: a repeated key is found whatever the white space and the strings around it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeaudit.core._loading import MAX_DEPTH, decode_json, too_deep
from citeaudit.errors import InputError
from thorough import examples

# Keys and strings that look like the end of a key: a quote, white space, a colon.
words = st.sampled_from(["a", "b", '"', '":', '" :', ":", "\\", "x\"\t:", " ", "é"])
blanks = st.sampled_from(["", " ", "\n", "\t ", "\r\n"])


@st.composite
def texts(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON text with objects written pair by pair, so a key may be repeated."""
    kind = draw(st.sampled_from(["scalar", "string", "list", "object"] if depth < 3
                                else ["scalar", "string"]))
    if kind == "scalar":
        return draw(st.sampled_from(["1", "true", "null", "-2.5"]))
    if kind == "string":
        return json.dumps("".join(draw(st.lists(words, max_size=3))))
    if kind == "list":
        items = draw(st.lists(texts(depth + 1), max_size=3))
        return "[" + ",".join(draw(blanks) + item for item in items) + "]"
    pairs = draw(st.lists(st.tuples(st.lists(words, max_size=2).map("".join),
                                    texts(depth + 1)), max_size=4))
    return "{" + ",".join(f"{draw(blanks)}{json.dumps(key)}{draw(blanks)}:{draw(blanks)}{value}"
                          for key, value in pairs) + "}"


def _repeats(text: str) -> bool:
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        repeated |= len({k for k, _ in items}) != len(items)
        return dict(items)

    json.loads(text, object_pairs_hook=pairs)
    return repeated


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts())
def test_a_repeated_key_is_an_error_exactly_when_there_is_one(text: str) -> None:
    if _repeats(text):
        with pytest.raises(InputError, match="duplicate key"):
            decode_json(text.encode(), origin="x.json")
    else:
        assert decode_json(text.encode(), origin="x.json") == json.loads(text)


@pytest.mark.parametrize("text", [
    '{"a": 1, "a" : 2}',
    '{"a": "\\":", "b": {"c": 1, "c": 1}}',
    '[{"k": 1}, {"k": 2, "j": [{"x": 1,\n"x"\n:2}]}]',
])
def test_repeated_keys_behind_white_space_and_quotes(text: str) -> None:
    with pytest.raises(InputError, match="duplicate key"):
        decode_json(text.encode(), origin="x.json")


@pytest.mark.parametrize("depth", [1, MAX_DEPTH, MAX_DEPTH + 1])
def test_the_depth_of_bytes_of_any_kind(depth: int) -> None:
    data = b'{"a": ' + b"[" * depth + b"]" * depth + b"}"
    expected = None if depth < MAX_DEPTH else MAX_DEPTH + 5
    for kind in (data, bytearray(data), type("Bytes", (bytes,), {})(data)):
        assert too_deep(kind) == expected, type(kind)  # type: ignore[arg-type]
