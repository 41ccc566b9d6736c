"""Wire shapes of the guaranteed-Bavan question (KORT_RULES §6): card names become masks here; the
rules between the sets (sizes, overlaps, leader, voids) are checked by the pure search."""

from rest_framework import serializers

from matches.kort.cards import (
    CARD_NAMES,
    DECK_SIZE,
    InvalidCardError,
    InvalidSuitError,
    parse_card,
    parse_suit,
)

SEAT_KEYS = {str(seat): seat for seat in range(4)}


def card_mask(names: list[str]) -> int:
    """The mask of ``names`` (wire notation, KORT_RULES §1); a name listed twice is refused."""
    mask = 0
    for name in names:
        try:
            bit = 1 << parse_card(name)
        except InvalidCardError as error:
            raise serializers.ValidationError(str(error)) from None
        if mask & bit:
            raise serializers.ValidationError(f"{name} is listed twice")
        mask |= bit
    return mask


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
