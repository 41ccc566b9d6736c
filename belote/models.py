"""Bazar Belote score sheets ("protocols") and their scored deals (BELOTE_SCORING §5; API.md
"Bazar Belote"). A deal is stored with the result the pure scorer (:mod:`belote.scoring`) gave it,
and the database backs the rules of that result with its constraints."""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Mod
from django.db.models.lookups import Exact, In

from belote.scoring import (
    ALL_TRUMPS,
    ALL_TRUMPS_DECK_WHISTS,
    MAX_KONTRA,
    SUIT_DECK_WHISTS,
    SUITS,
    Breakdown,
    Contract,
    Deal,
    DealScore,
    Pair,
    PerPair,
)


class BelotePair(models.TextChoices):
    """The two columns of a score sheet."""

    PAIR_1 = "pair_1"
    PAIR_2 = "pair_2"

    @property
    def other(self) -> "BelotePair":
        return BelotePair.PAIR_2 if self is BelotePair.PAIR_1 else BelotePair.PAIR_1


class BeloteProtocol(models.Model):
    """A Bazar Belote score sheet ("protocol") for two pairs, shown under their display names.
    Its totals and bait marks are sums over its deals (``belote.selectors``)."""

    pair_1 = models.CharField(max_length=60)
    pair_2 = models.CharField(max_length=60)
    service_key = models.ForeignKey(
        "rest_framework_api_key.APIKey",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="belote_protocols",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(pair_1=models.F("pair_2")), name="belote_pair_names_differ"
            ),
        ]

    def __str__(self):
        return f"protocol {self.pk}: {self.pair_1} / {self.pair_2}"

    def pair_name(self, pair: BelotePair) -> str:
        return self.pair_1 if pair == BelotePair.PAIR_1 else self.pair_2


def _multiple_of_ten(field: str) -> Exact:
    return Exact(Mod(models.F(field), 10), 0)


class BeloteDeal(models.Model):
    """One scored deal of a protocol, numbered from 1 in the order it was added. Holds the deal
    as the scorer saw it (BELOTE_SCORING §1, trick whists counted when cards were given) and its
    result (§5) from the side of the playing and the whisting pair; ``playing_pair`` says which
    column of the sheet played the contract."""

    protocol = models.ForeignKey(BeloteProtocol, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveSmallIntegerField()
    playing_pair = models.CharField(max_length=6, choices=BelotePair.choices)
    contract = models.CharField(max_length=16, choices=[(c.value, c.value) for c in Contract])
    suit = models.CharField(
        max_length=2, choices=[(s, s) for s in (*SUITS, ALL_TRUMPS)], null=True, blank=True
    )
    contract_number = models.PositiveSmallIntegerField(help_text="N, or K for a Kapo")
    kontra = models.PositiveSmallIntegerField(default=0)
    trick_whists_playing = models.PositiveSmallIntegerField()
    trick_whists_whisting = models.PositiveSmallIntegerField()
    constructions_playing = models.PositiveSmallIntegerField(default=0)
    constructions_whisting = models.PositiveSmallIntegerField(default=0)
    playing_took_tricks = models.BooleanField()
    whisting_took_tricks = models.BooleanField()
    played = models.BooleanField()
    points_playing = models.PositiveIntegerField()
    points_whisting = models.PositiveIntegerField()
    bait = models.CharField(
        max_length=8, choices=[(p.value, p.value) for p in Pair], null=True, blank=True
    )
    breakdown = models.JSONField(help_text="C, PC, Pp, Pv (points) and Vp, Vv (whists)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["protocol", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["protocol", "number"], name="one_belote_deal_per_number"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="belote_deal_number_from_one"),
            models.CheckConstraint(
                condition=Q(playing_pair__in=BelotePair.values), name="belote_playing_pair_known"
            ),
            models.CheckConstraint(
                condition=Q(kontra__lte=MAX_KONTRA) & Q(contract_number__gte=1),
                name="belote_kontra_and_number_in_range",
            ),
            models.CheckConstraint(
                condition=In(
                    models.F("trick_whists_playing") + models.F("trick_whists_whisting"),
                    [SUIT_DECK_WHISTS, ALL_TRUMPS_DECK_WHISTS],
                ),
                name="belote_trick_whists_add_up_to_the_deck",
            ),
            models.CheckConstraint(
                condition=_multiple_of_ten("constructions_playing")
                & _multiple_of_ten("constructions_whisting"),
                name="belote_constructions_in_tens",
            ),
            models.CheckConstraint(
                # bait__isnull=False keeps a NULL bait from making the check unknown (= passed).
                condition=Q(played=False, bait__isnull=False, bait=Pair.PLAYING.value)
                | Q(played=True, kontra=0, bait__isnull=True)
                | Q(played=True, kontra__gte=1, bait__isnull=False, bait=Pair.WHISTING.value),
                name="belote_bait_follows_the_result",
            ),
        ]

    def __str__(self):
        return f"deal {self.number} of protocol {self.protocol_id}: {self.contract}"

    def sheet_pair(self, pair: Pair) -> BelotePair:
        """The column of the sheet that was the ``pair`` (playing or whisting) in this deal."""
        playing = BelotePair(self.playing_pair)
        return playing if pair is Pair.PLAYING else playing.other

    @property
    def deal(self) -> Deal:
        """The stored deal as the scorer's value object."""
        return Deal(
            contract=Contract(self.contract),
            suit=self.suit,
            number=self.contract_number,
            kontra=self.kontra,
            tricks_whists=PerPair(self.trick_whists_playing, self.trick_whists_whisting),
            constructions=PerPair(self.constructions_playing, self.constructions_whisting),
            playing_took_tricks=self.playing_took_tricks,
            whisting_took_tricks=self.whisting_took_tricks,
        )

    @property
    def score(self) -> DealScore:
        """The stored result as the scorer's value object."""
        return DealScore(
            played=self.played,
            points=PerPair(self.points_playing, self.points_whisting),
            bait=Pair(self.bait) if self.bait else None,
            breakdown=Breakdown(**self.breakdown),
        )
