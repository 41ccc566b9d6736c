"""The guaranteed-Bavan question (KORT_RULES §6): a public, stateless endpoint over the pure
search (``matches.kort.bavan_search``), with its wire shapes. Card names become masks here
(``cards.parse_cards``); the rules between the sets (sizes, overlaps, leader, voids) are checked
by the search."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.kort.bavan_search import bavan_guaranteed
from matches.kort.cards import (
    CARD_NAMES,
    DECK_SIZE,
    InvalidCardError,
    InvalidSuitError,
    parse_cards,
    parse_suit,
)

SEAT_KEYS = {str(seat): seat for seat in range(4)}


def card_mask(names: list[str]) -> int:
    """The mask of ``names`` (wire notation, KORT_RULES §1); a name listed twice is refused."""
    try:
        return parse_cards(names)
    except InvalidCardError as error:
        raise serializers.ValidationError(str(error)) from None


def seat_of(key: str) -> int:
    """The seat (0..3) of a JSON object key (``"0"`` .. ``"3"``); anything else is refused."""
    try:
        return SEAT_KEYS[key]
    except KeyError:
        raise serializers.ValidationError(f"{key!r} is not a seat: use 0, 1, 2 or 3") from None


class BavanPositionSerializer(serializers.Serializer):
    """A Bavan position: the team's hands by seat, the opponents' cards, trump, leader, bar."""

    hands = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(), max_length=13),
        help_text='the two Bavan seats -> their unplayed cards, e.g. {"0": ["AS"], "2": ["AH"]}',
    )
    unknown = serializers.ListField(
        child=serializers.CharField(),
        max_length=DECK_SIZE,
        help_text="the opponents' unplayed cards, not known who holds which",
    )
    trump_suit = serializers.CharField(help_text="S, H, D or C")
    leader = serializers.IntegerField(help_text="the Bavan seat to lead (the last trick's taker)")
    trop_bar = serializers.BooleanField(
        default=False, help_text="the trump-lead bar after a completed Trop holds (§3)"
    )
    voids = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(), max_length=4),
        required=False,
        help_text='opponent seat -> suits it has shown out of, e.g. {"1": ["S"]}',
    )

    def validate_hands(self, hands: dict) -> dict[int, int]:
        return {seat_of(key): card_mask(names) for key, names in hands.items()}

    def validate_unknown(self, names: list[str]) -> int:
        return card_mask(names)

    def validate_trump_suit(self, letter: str) -> int:
        try:
            return parse_suit(letter)
        except InvalidSuitError as error:
            raise serializers.ValidationError(str(error)) from None

    def validate_voids(self, voids: dict) -> dict[int, int]:
        shown = {}
        for key, letters in voids.items():
            suits = 0
            for letter in letters:
                suits |= 1 << self.validate_trump_suit(letter)
            shown[seat_of(key)] = suits
        return shown


class BavanAnswerSerializer(serializers.Serializer):
    guaranteed = serializers.BooleanField()
    first_card = serializers.ChoiceField(choices=CARD_NAMES, allow_null=True)


class BavanGuaranteedView(APIView):
    """Whether the Bavan team takes every remaining trick for sure, and a first card that does.

    400 names the field and the rule: a bad card or suit, a card listed twice or in two sets,
    hands of unequal size or not 1 to 6 cards, a leader outside the team, voids no split allows.
    """

    permission_classes = [AllowAny]

    @extend_schema(request=BavanPositionSerializer, responses={200: BavanAnswerSerializer})
    def post(self, request):
        given = BavanPositionSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        position = given.validated_data
        result = bavan_guaranteed(
            position["hands"],
            position["unknown"],
            position["trump_suit"],
            position["leader"],
            position["trop_bar"],
            position.get("voids"),
        )
        first = None if result.first_card is None else CARD_NAMES[result.first_card]
        return Response({"guaranteed": result.guaranteed, "first_card": first})
