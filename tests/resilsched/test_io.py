"""The nesting depth `resilsched.io.read_json` refuses beyond is counted on the text (fast on
large files) and agrees with a walk of the parsed value."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from resilsched.io import _depth

TEXT = st.text(alphabet=st.sampled_from('ab"\\[]{}é \n'), max_size=6)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                    allow_infinity=False) | TEXT,
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(TEXT, inner, max_size=4), max_leaves=30)


def _walk(value) -> int:
    """Independent oracle: the depth of the parsed value, recursively."""
    if isinstance(value, dict):
        return 1 + max(map(_walk, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_walk, value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(JSON, st.booleans(), st.sampled_from([None, 2]))
def test_text_depth_equals_the_parsed_depth(value, ascii_only, indent):
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert _depth(text) == _walk(json.loads(text))


@settings(max_examples=100, deadline=None)
@given(JSON)
def test_depth_carries_across_chunks(value):
    import resilsched.io as io

    text, chunk = json.dumps(value), io._CHUNK
    try:
        io._CHUNK = 3
        assert _depth(text) == _walk(value)
    finally:
        io._CHUNK = chunk
