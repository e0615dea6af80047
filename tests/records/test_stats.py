"""Dice statistics: the chi-square survival function, grouping, luck, text, JSON and charts."""

from __future__ import annotations

import json
import math
import random

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.records.stats import (Group, Stats, chart_svg, chi2_sf, gamma_q, normal_cdf, owner,
                                purpose_kind)


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("x,df,p", [
    (3.841458820694124, 1, 0.05), (6.634896601021214, 1, 0.01), (5.991464547107979, 2, 0.05),
    (11.070497693516351, 5, 0.05), (15.08627246938899, 5, 0.01), (20.515005652432873, 5, 0.001),
    (30.143527205646155, 19, 0.05), (124.34211340400407, 100, 0.05), (1.1454762260617692, 5, 0.95),
])
def test_chi_square_p_values_match_the_tables(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-9)


def test_chi_square_identities():
    for x in (0.01, 0.5, 1, 2.5, 7, 30, 200):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)          # df = 2
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10)
    assert chi2_sf(0, 5) == 1.0 and chi2_sf(1e6, 5) == 0.0
    assert gamma_q(3, 2) == pytest.approx(5 * math.exp(-2), rel=1e-12)             # Q(3,2)
    with pytest.raises(ValueError):
        gamma_q(0, 1)
    assert normal_cdf(0) == 0.5 and normal_cdf(1.959963984540054) == pytest.approx(0.975)


def test_purposes_group_by_kind_and_side():
    sides = ["allied", "axis"]
    assert purpose_kind("combat at 0805: allied attack dice (1/3)", sides) == "combat: attack dice"
    assert purpose_kind("combat at 1107: axis terrain bonus die (+1)", sides) == \
        "combat: terrain bonus die"
    assert purpose_kind("weather, turn 12", sides) == "weather"
    assert purpose_kind("us support fire draw: step 2 at 2714", ["axis", "us"]) == \
        "support fire draw: step #"
    assert purpose_kind("bombardment of 2714", ["axis", "us"]) == "bombardment"
    assert owner("combat at 0805: axis defence dice (2/3)", "allied", sides) == "axis"
    assert owner("combat at 2714", "us", ["axis", "us"]) == "us"
    assert owner("weather, turn 1", "host", sides) == "-"


def test_counts_mean_chi_square_and_luck_of_known_dice():
    st = Stats()
    faces = [1, 2, 3, 4, 5, 6] * 10 + [6] * 12
    for v in faces:
        st.add_roll("g", ["a", "b"], "a", "a attack (1/2)", 6, v)
    g = st.groups[("g", "a", "attack", 6)]
    assert g.counts == [10, 10, 10, 10, 10, 22] and g.n == 72
    assert g.mean == pytest.approx(sum(faces) / 72)
    assert g.chi2 == pytest.approx(sum((c - 12) ** 2 / 12 for c in g.counts))
    assert g.p_value == pytest.approx(chi2_sf(g.chi2, 5))
    assert st.groups[("g", "a", "all d6", 6)].counts == g.counts
    lk = st.luck[("g", "a")]
    assert lk.dice == 72 and lk.pips == sum(faces) and lk.z > 2
    assert lk.high == 10 + 22 and lk.expected_high == pytest.approx(24)
    # too few dice for a test: no statistic, no p-value
    small = Group(game="g", side="a", purpose="x", sides=6, counts=[1, 0, 2, 0, 0, 1])
    assert small.chi2 is None and small.p_value is None
    # draws count for fairness but not for luck
    st.add_roll("g", ["a", "b"], "b", "b support fire draw: x", 4, 4)
    assert ("g", "b") not in st.luck and st.groups[("g", "b", "support fire draw: x", 4)].n == 1


def test_fair_dice_give_unremarkable_p_values():
    rng = random.Random(5)
    st = Stats()
    for _ in range(6000):
        st.add_roll("g", ["a"], "a", "roll", 6, rng.randint(1, 6))
    p = st.groups[("g", "a", "roll", 6)].p_value
    assert 0.001 < p < 0.999


def test_charts_are_escaped_svg():
    g = Group(game="g", side="<script>", purpose='"><img src=x>', sides=6,
              counts=[5, 6, 7, 8, 9, 10])
    svg = chart_svg(g)
    assert svg.startswith("<svg") and "<script>" not in svg and "<img" not in svg
    assert svg.count('class="bar"') == 6


def test_stats_command_over_two_games(dash_peer, dash_hosted, tmp_path):
    from pbem.records.record import export_text

    rec = tmp_path / "peer.pbemrec"
    rec.write_text(export_text(dash_peer / "red"))
    r = run("stats", str(rec), str(dash_hosted / "referee"), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert len(data["games"]) == 2 and all(g["view"] == "full" for g in data["games"])
    total = sum(g["dice"] for g in data["games"])
    alls = [g for g in data["groups"] if g["purpose"] == "all d6"]
    assert sum(g["count"] for g in alls) == total
    for g in data["groups"]:
        assert set(g) >= {"side", "purpose", "die", "count", "counts", "mean", "expected_mean",
                          "chi2", "df", "p_value"}
    assert {lk["side"] for lk in data["luck"]} == {"red", "blue"}
    text = run("stats", str(rec)).output
    assert "Dice statistics: 1 game(s)" in text and "Luck" in text
    assert all(len(line) <= 100 for line in text.splitlines())


def test_stats_of_a_hosted_player_use_its_view(dash_hosted):
    r = run("stats", str(dash_hosted / "red"), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["games"][0]["view"] == "red"
