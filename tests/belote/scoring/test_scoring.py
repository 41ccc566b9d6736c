"""Golden deals for BELOTE_SCORING §1-§6; each expected value is worked out by hand beside it."""

import pytest

from belote.scoring import (
    Breakdown,
    Contract,
    Deal,
    InvalidBeloteDealError,
    Pair,
    PerPair,
    round10,
    score_deal,
)


def make_deal(**overrides):
    """A played-out deal in hearts where both pairs took tricks, with ``overrides`` applied."""
    fields = {
        "contract": Contract.SUIT,
        "suit": "H",
        "number": 8,
        "kontra": 0,
        "tricks_whists": PerPair(playing=100, whisting=62),
        "constructions": PerPair(playing=0, whisting=0),
        "playing_took_tricks": True,
        "whisting_took_tricks": True,
    }
    return Deal(**{**fields, **overrides})


# --- §6: the source's worked examples ----------------------------------------------------------


def test_example_1_22_all_trumps():
    # Vv = 37 -> Pv = round10(37) div 10 = 4; Pp = (258 - 40) div 10 = 21; 221 >= 220, played.
    score = score_deal(
        make_deal(
            contract=Contract.ALL_TRUMPS,
            suit=None,
            number=22,
            tricks_whists=PerPair(playing=221, whisting=37),
        )
    )
    assert score.played
    assert score.points == PerPair(playing=43, whisting=4)  # 22 + 21, and 4
    assert score.bait is None
    assert score.breakdown == Breakdown(C=25, PC=22, Pp=21, Pv=4, Vp=221, Vv=37)


def test_example_2_12_clubs_with_terz_and_bella():
    # Vp = 144 + 20 = 164 >= 120; Vv = 18 + 20 = 38 -> Pv = 4 (2 + 2 for Bella);
    # Pp = (202 - 40) div 10 = 16, which the source writes 14 + 2 (terz).
    score = score_deal(
        make_deal(
            suit="C",
            number=12,
            tricks_whists=PerPair(playing=144, whisting=18),
            constructions=PerPair(playing=20, whisting=20),
        )
    )
    assert score.played
    assert score.points == PerPair(playing=28, whisting=4)  # 12 + 16, and 4
    assert score.bait is None
    assert score.breakdown == Breakdown(C=16, PC=12, Pp=16, Pv=4, Vp=164, Vv=38)


def test_example_3_15_spades_kontra_not_played():
    # Vp = 129 + 20 = 149 < 150, not played. PC = 15 x 2 = 30. Pv = round10(33) div 10 = 3;
    # Pp = (182 - 30) div 10 = 15; the whisting pair records 30 + 15 + 3 = 48, which the source
    # writes 30 + 16 (C) + 2 (terz).
    score = score_deal(
        make_deal(
            suit="S",
            number=15,
            kontra=1,
            tricks_whists=PerPair(playing=129, whisting=33),
            constructions=PerPair(playing=20, whisting=0),
        )
    )
    assert not score.played
    assert score.points == PerPair(playing=0, whisting=48)
    assert score.bait is Pair.PLAYING
    assert score.breakdown == Breakdown(C=16, PC=30, Pp=15, Pv=3, Vp=149, Vv=33)


# --- §5: every row of the result table ---------------------------------------------------------


def test_not_played_without_kontra_gives_everything_to_the_whisting_pair():
    # 10 hearts, Vp = 92 < 100. Pv = round10(70) div 10 = 7; Pp = (162 - 70) div 10 = 9.
    # Whisting: PC + Pp + Pv = 10 + 9 + 7 = 26.
    score = score_deal(make_deal(number=10, tricks_whists=PerPair(playing=92, whisting=70)))
    assert not score.played
    assert score.points == PerPair(playing=0, whisting=26)
    assert score.bait is Pair.PLAYING


def test_not_played_with_rekontra_quadruples_the_contract():
    # 9 diamonds, Rekontra: PC = 9 x 4 = 36. Vp = 80 < 90. Pv = round10(82) div 10 = 8;
    # Pp = (162 - 80) div 10 = 8. Whisting: 36 + 8 + 8 = 52.
    score = score_deal(
        make_deal(suit="D", number=9, kontra=2, tricks_whists=PerPair(playing=80, whisting=82))
    )
    assert not score.played
    assert score.points == PerPair(playing=0, whisting=52)
    assert score.bait is Pair.PLAYING
    assert score.breakdown.PC == 36


def test_played_gives_each_pair_its_own_points():
    # 8 hearts, Vp = 100 >= 80. Pv = round10(62) div 10 = 6; Pp = (162 - 60) div 10 = 10.
    # Playing: 8 + 10 = 18; whisting: 6.
    score = score_deal(make_deal())
    assert score.played
    assert score.points == PerPair(playing=18, whisting=6)
    assert score.bait is None


def test_played_with_kontra_gives_everything_to_the_playing_pair():
    # Same deal, Kontra: PC = 16. Playing: 16 + 10 + 6 = 32; whisting 0 and baited.
    score = score_deal(make_deal(kontra=1))
    assert score.played
    assert score.points == PerPair(playing=32, whisting=0)
    assert score.bait is Pair.WHISTING


def test_played_with_rekontra_in_all_trumps():
    # 20 all trumps, Rekontra: PC = 80. Vp = 208 + 50 = 258 >= 200; Vv = 50 -> Pv = 5;
    # Pp = (308 - 50) div 10 = 25. Playing: 80 + 25 + 5 = 110.
    score = score_deal(
        make_deal(
            contract=Contract.ALL_TRUMPS,
            suit=None,
            number=20,
            kontra=2,
            tricks_whists=PerPair(playing=208, whisting=50),
            constructions=PerPair(playing=50, whisting=0),
        )
    )
    assert score.played
    assert score.points == PerPair(playing=110, whisting=0)
    assert score.bait is Pair.WHISTING
    assert score.breakdown == Breakdown(C=25, PC=80, Pp=25, Pv=5, Vp=258, Vv=50)


def test_reaching_exactly_the_number_plays_the_contract():
    # 10 hearts, Vp = 100 = 10 x 10: played (Vp >= N x 10).
    assert score_deal(make_deal(number=10)).played
    assert not score_deal(make_deal(number=11)).played


# --- Kapo ---------------------------------------------------------------------------------------


def kapo(**overrides):
    """A Kapo in hearts with K = 3 where the playing pair took every trick."""
    fields = {
        "contract": Contract.KAPO,
        "number": 3,
        "tricks_whists": PerPair(playing=162, whisting=0),
        "constructions": PerPair(playing=20, whisting=20),
        "whisting_took_tricks": False,
    }
    return make_deal(**{**fields, **overrides})


def test_kapo_made():
    # C = 25, PC = 25 + 3 = 28; Pp = 25 + 20/10 = 27; Pv = 20/10 = 2.
    # Playing: 28 + 27 = 55; whisting: 2.
    score = score_deal(kapo())
    assert score.played
    assert score.points == PerPair(playing=55, whisting=2)
    assert score.bait is None
    assert score.breakdown == Breakdown(C=25, PC=28, Pp=27, Pv=2, Vp=182, Vv=20)


def test_kapo_broken_by_a_trick_worth_no_whists():
    # Same whists, but the whisting pair took a trick worth 0: not played.
    # Whisting: 28 + 27 + 2 = 57.
    score = score_deal(kapo(whisting_took_tricks=True))
    assert not score.played
    assert score.points == PerPair(playing=0, whisting=57)
    assert score.bait is Pair.PLAYING


def test_kapo_all_trumps_broken_by_a_trick_with_whists():
    # C = 34, PC = 35; Pp = 34, Pv = 0. Whisting: 35 + 34 + 0 = 69.
    score = score_deal(
        kapo(
            contract=Contract.KAPO_ALL_TRUMPS,
            suit=None,
            number=1,
            tricks_whists=PerPair(playing=238, whisting=20),
            constructions=PerPair(playing=0, whisting=0),
            whisting_took_tricks=True,
        )
    )
    assert not score.played
    assert score.points == PerPair(playing=0, whisting=69)


def test_kapo_all_trumps_made_with_kontra():
    # C = 34, PC = (34 + 2) x 2 = 72; Pp = 34, Pv = 0. Playing: 72 + 34 + 0 = 106.
    score = score_deal(
        kapo(
            contract=Contract.KAPO_ALL_TRUMPS,
            suit=None,
            number=2,
            kontra=1,
            tricks_whists=PerPair(playing=258, whisting=0),
            constructions=PerPair(playing=0, whisting=0),
        )
    )
    assert score.played
    assert score.points == PerPair(playing=106, whisting=0)
    assert score.bait is Pair.WHISTING


def test_kapo_from_a_hand_in_a_suit():
    # C = 50, PC = 51; Pp = 50 + 100/10 = 60; Pv = 0. Playing: 51 + 60 = 111.
    score = score_deal(
        kapo(
            contract=Contract.KAPO_FROM_HAND,
            suit="D",
            number=1,
            constructions=PerPair(playing=100, whisting=0),
        )
    )
    assert score.played
    assert score.points == PerPair(playing=111, whisting=0)
    assert score.breakdown.C == 50


def test_kapo_from_a_hand_in_all_trumps():
    # S = 258, C = 50, PC = 51; Pp = 50; Pv = 0. Playing: 51 + 50 = 101.
    score = score_deal(
        kapo(
            contract=Contract.KAPO_FROM_HAND,
            suit="AT",
            number=1,
            tricks_whists=PerPair(playing=258, whisting=0),
            constructions=PerPair(playing=0, whisting=0),
        )
    )
    assert score.played
    assert score.points == PerPair(playing=101, whisting=0)


# --- §4: rounding and the cap -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("whists", "rounded"),
    [(0, 0), (4, 0), (5, 10), (10, 10), (14, 10), (15, 20), (19, 20), (255, 260)],
)
def test_round10_rounds_halves_up(whists, rounded):
    assert round10(whists) == rounded


@pytest.mark.parametrize(
    ("vv", "pv", "pp"),
    [
        # Pv = round10(Vv) div 10; Pp = (162 - Pv x 10) div 10.
        (4, 0, 16),  # 162 div 10 = 16
        (5, 1, 15),  # 152 div 10 = 15
        (14, 1, 15),  # 152 div 10 = 15
        (15, 2, 14),  # 142 div 10 = 14
    ],
)
def test_whisting_points_round_at_4_and_5(vv, pv, pp):
    score = score_deal(make_deal(number=10, tricks_whists=PerPair(playing=162 - vv, whisting=vv)))
    assert (score.breakdown.Pv, score.breakdown.Pp) == (pv, pp)
    assert score.points == PerPair(playing=10 + pp, whisting=pv)


def test_cap_takes_the_rounding_point_off_the_playing_pair():
    # Vv = 25 -> Pv = 3; Vp = 137 + 20 = 157 would round to 16 points, but Pp = (182 - 30) div 10
    # = 15 so that Pp + Pv = 18 = C + (20 + 0)/10.
    score = score_deal(
        make_deal(
            number=10,
            tricks_whists=PerPair(playing=137, whisting=25),
            constructions=PerPair(playing=20, whisting=0),
        )
    )
    assert (score.breakdown.Pp, score.breakdown.Pv) == (15, 3)


def test_cap_can_make_pp_negative_in_all_trumps():
    # 16 all trumps, Vp = 3, Vv = 255 -> Pv = 26 > C = 25, so Pp = (258 - 260) div 10 = -1.
    # Whisting: 16 + (-1) + 26 = 41 = PC + C.
    score = score_deal(
        make_deal(
            contract=Contract.ALL_TRUMPS,
            suit=None,
            number=16,
            tricks_whists=PerPair(playing=3, whisting=255),
        )
    )
    assert (score.breakdown.Pp, score.breakdown.Pv) == (-1, 26)
    assert score.points == PerPair(playing=0, whisting=41)


# --- §1: constructions of a pair without tricks -------------------------------------------------


def test_playing_pair_without_tricks_gives_its_constructions_away():
    # 5 hearts with a quarta (50) but no trick: Vp = 0 (not 50, which would play the contract),
    # Vv = 162 + 50 = 212 -> Pv = 21, Pp = (212 - 210) div 10 = 0. Whisting: 5 + 0 + 21 = 26.
    score = score_deal(
        make_deal(
            number=5,
            tricks_whists=PerPair(playing=0, whisting=162),
            constructions=PerPair(playing=50, whisting=0),
            playing_took_tricks=False,
        )
    )
    assert not score.played
    assert (score.breakdown.Vp, score.breakdown.Vv) == (0, 212)
    assert score.points == PerPair(playing=0, whisting=26)


def test_whisting_pair_without_tricks_keeps_its_constructions():
    # Vv = 0 + 20 (Bella) -> Pv = 2; Pp = (182 - 20) div 10 = 16. Playing: 8 + 16 = 24.
    score = score_deal(
        make_deal(
            tricks_whists=PerPair(playing=162, whisting=0),
            constructions=PerPair(playing=0, whisting=20),
            whisting_took_tricks=False,
        )
    )
    assert score.breakdown.Vv == 20
    assert score.points == PerPair(playing=24, whisting=2)


# --- Validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "field", "phrase"),
    [
        (
            {"tricks_whists": PerPair(playing=150, whisting=20)},
            "tricks_whists",
            "must add up to 162 for a suit contract; got 170",
        ),
        (
            {"contract": Contract.ALL_TRUMPS, "suit": None},
            "tricks_whists",
            "must add up to 258 for an all-trumps contract; got 162",
        ),
        (
            {"contract": Contract.KAPO_FROM_HAND, "suit": "AT"},
            "tricks_whists",
            "must add up to 258",
        ),
        (
            {
                "contract": Contract.KAPO_FROM_HAND,
                "suit": "S",
                "tricks_whists": PerPair(playing=258, whisting=0),
            },
            "tricks_whists",
            "must add up to 162",
        ),
        (
            {"tricks_whists": PerPair(playing=170, whisting=-8)},
            "tricks_whists",
            "whisting trick whists must be at least 0; got -8",
        ),
        (
            {"tricks_whists": PerPair(playing=100.0, whisting=62)},
            "tricks_whists",
            "must be an integer",
        ),
        (
            {"constructions": PerPair(playing=25, whisting=0)},
            "constructions",
            "playing construction whists must be a multiple of 10; got 25",
        ),
        (
            {"constructions": PerPair(playing=0, whisting=-20)},
            "constructions",
            "must be between 0 and 1000",
        ),
        (
            {"constructions": PerPair(playing=1010, whisting=0)},
            "constructions",
            "must be between 0 and 1000; got 1010",
        ),
        ({"contract": "grand"}, "contract", "contract must be one of suit, all_trumps"),
        ({"suit": None}, "suit", "suit must be one of S, H, D, C for suit; got none"),
        ({"suit": "AT"}, "suit", "must be one of S, H, D, C for suit"),
        (
            {"contract": Contract.KAPO, "suit": "AT", "whisting_took_tricks": False},
            "suit",
            "for kapo",
        ),
        ({"contract": Contract.KAPO_FROM_HAND, "suit": "X"}, "suit", "S, H, D, C, AT"),
        ({"contract": Contract.ALL_TRUMPS, "suit": "H"}, "suit", "must be absent"),
        ({"number": 0}, "number", "the number must be between 1 and 100; got 0"),
        ({"number": 101}, "number", "the number must be between 1 and 100; got 101"),
        ({"number": None}, "number", "must be an integer"),
        ({"number": True}, "number", "must be an integer"),
        ({"kontra": 3}, "kontra", "between 0 and 2; got 3"),
        ({"kontra": -1}, "kontra", "between 0 and 2"),
        (
            {"playing_took_tricks": False},
            "playing_took_tricks",
            "took no trick has 0 trick whists; the playing pair has 100",
        ),
        (
            {"whisting_took_tricks": False},
            "whisting_took_tricks",
            "the whisting pair has 62",
        ),
        ({"whisting_took_tricks": "no"}, "whisting_took_tricks", "must be true or false"),
    ],
)
def test_invalid_deal_names_the_field_and_the_rule(overrides, field, phrase):
    with pytest.raises(InvalidBeloteDealError, match=phrase) as raised:
        make_deal(**overrides)
    assert raised.value.field == field


def test_contract_given_as_wire_text_is_accepted():
    assert make_deal(contract="all_trumps", suit=None, tricks_whists=PerPair(200, 58)).contract is (
        Contract.ALL_TRUMPS
    )


def test_a_pair_may_take_a_trick_worth_no_whists():
    deal = make_deal(tricks_whists=PerPair(playing=162, whisting=0))
    assert deal.whisting_took_tricks
