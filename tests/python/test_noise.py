"""analysis.noise: the one test of "faster beyond the noise" (tune's incumbent and winner)."""
import pytest

from pario.analysis import noise


def test_separated_samples_are_faster_with_an_interval_above_one():
    c = noise.compare([100, 104, 98, 101], [150, 149, 155, 152])
    assert c.verdict == "faster" and c.faster
    assert c.ratio == pytest.approx(151 / 100.5)
    assert 1.0 < c.low <= c.ratio <= c.high


def test_slower_and_overlapping():
    assert noise.compare([150, 149, 155], [100, 104, 98]).verdict == "slower"
    c = noise.compare([100, 140, 90, 120], [110, 95, 130, 105])
    assert c.verdict == "within noise" and c.low < 1.0 < c.high


def test_three_samples_a_side_is_about_the_ranges_not_overlapping():
    # one overlapping sample is enough to keep the interval across 1 with 3 samples a side
    assert noise.compare([100, 101, 102], [101.5, 130, 131]).verdict == "within noise"
    assert noise.compare([100, 101, 102], [103, 130, 131]).verdict == "faster"


def test_too_few_samples_gives_no_interval():
    c = noise.compare([100, 101], [300, 301, 302])
    assert c.verdict == "too few samples" and c.low is None and c.ratio == pytest.approx(301 / 100.5)
    assert noise.compare([], [1, 2, 3]).ratio is None


def test_same_samples_same_interval():
    a, b = [100, 120, 90, 110, 105], [130, 140, 100, 150, 120]
    assert noise.compare(a, b) == noise.compare(a, b)
    assert noise.compare(a, b).to_dict()["method"] == noise.METHOD
