import json

import pytest


@pytest.fixture
def rigid_file(tmp_path):
    path = tmp_path / "inst.json"
    path.write_text(
        json.dumps(
            {
                "family": "rigid",
                "format_version": 1,
                "P": 4,
                "jobs": [
                    {"p": 2, "t": 3},
                    {"p": 1, "t": "5/2"},
                    {"p": 4, "t": 1},
                    {"p": 3, "t": 2},
                ],
                "failures": [0, 2, 1, 0],
            }
        )
    )
    return path
