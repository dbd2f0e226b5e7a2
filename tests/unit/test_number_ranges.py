"""The bound patterns against plain arithmetic, over whole numbers and decimals of many shapes."""
import random
import re

import pytest

from core.retrieval.number_ranges import bound_pattern

_rng = random.Random(7)
NUMBERS = sorted({str(i) for i in range(0, 1100)} |
                 {f"{_rng.randint(0, 1000)}.{_rng.choice(['0', '00', '5', '9', '95', '99', '999', '05', '40', '251', '0417'])}"
                  for _ in range(1500)} |
                 {"99.9", "99.90", "99.95", "99.5", "99.99", "99.899", "715.39", "715.4", "715.41", "0.05", "0.049", "0.0"})


@pytest.mark.parametrize("value", [0, 1, 9, 10, 12, 30, 99, 99.9, 99.95, 100, 0.5, 2.25, 715.4, 1000, 0.05, 43800])
@pytest.mark.parametrize("greater, strict", [(True, False), (True, True), (False, False), (False, True)])
def test_a_bound_pattern_takes_exactly_the_numbers_on_its_side(value, greater, strict):
    pattern = re.compile(bound_pattern(value, greater, strict))
    for n in NUMBERS:
        x = float(n)
        want = (x > value if strict else x >= value) if greater else (x < value if strict else x <= value)
        assert bool(pattern.fullmatch(n)) is want, (value, greater, strict, n)
        assert bool(pattern.search(f"at {n}% a month")) is want, (value, greater, strict, n)


def test_a_number_is_read_whole():
    at_least = re.compile(bound_pattern(99.9, True))
    assert at_least.search("199.1 days") and not at_least.search("1.99 days")
    assert not at_least.search("version 1.99.95")
    assert not re.compile(bound_pattern(30, False)).search("1,030 hours")
