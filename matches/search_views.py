"""The guaranteed-Bavan question (KORT_RULES §6): a public, stateless endpoint over the search."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.kort.bavan_search import bavan_guaranteed
from matches.kort.cards import CARD_NAMES
from matches.search_serializers import BavanAnswerSerializer, BavanPositionSerializer


class BavanGuaranteedView(APIView):
    """Whether the Bavan team takes every remaining trick for sure, and a first card that does.

    400 names the field and the rule: a bad card or suit, a card listed twice or in two sets,
    hands of unequal size or not 1 to 6 cards, a leader outside the team, voids no split allows.
    """

    authentication_classes = []
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
