"""The trick-level state of one KORT round: who plays, what is legal, who takes each trick.

A :class:`RoundState` starts from a deal (four 13-card hand masks, see :mod:`matches.kort.cards`),
the trump suit and the trump caller's seat, and is advanced with :meth:`RoundState.play`,
:meth:`RoundState.declare` and :meth:`RoundState.decide_bavan`, each of which checks the rules and
raises :class:`IllegalPlayError` naming the trick, seat, card and rule.

Rules (KORT_RULES §1, §3, §9):

- Seats 0..3 play in order; team A = seats 0 and 2, team B = seats 1 and 3 (team index
  ``seat & 1``). The trump caller leads trick 1; each trick's taker leads the next.
- A player must follow the led suit if able, otherwise may play any card. The trick goes to the
  highest trump in it, else to the highest card of the led suit.
- Play stops when a team has 7 tricks and the other at least 1. At 7:0 the round pauses for the
  Bavan decision: STOP ends it (Kort / At-kort); GO plays on (Bavan), the 7th trick's taker
  leading, until 13:0 or the opponents' first trick.
- Sar and Trop are recorded as declarations and change no score. Outside Bavan a team with 5 or
  more tricks may declare only Sar; the team on Bavan may declare Trop at any count.
- A "completed Trop to the end" is a Trop declared by the team that then reached 7:0. If that team
  goes for Bavan, neither partner may lead a trump until one of them leads another suit; a barred
  leader holding only trumps must lead a trump, and that lead does not lift the bar.

Decisions where the rules are silent:

- The trump suit is not checked against the caller's first five cards: hands are sets, the
  order of the deal is not recorded.
- Declarations are made between tricks, before the first card of trick ``before_trick``
  (1..13). Declaring before trick 1 is allowed. Any seat may declare, in or out of turn.
- No declaration while the round waits for the Bavan decision: a declaration "before trick 8"
  of a Bavan is made after the GO.
- At most one declaration per team before any one trick (a second one, by either partner, is
  refused). The same kind may be declared again before a later trick.
- A Trop declared during the Bavan is recorded and does not start a new trump-lead bar; the bar
  comes only from a Trop declared in the first 7 tricks by the team that reached 7:0.
- The team at 5 or more tricks is counted before the trick that follows the declaration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from matches.kort.cards import (
    CARD_NAMES,
    DECK_SIZE,
    SUIT_MASK_OF,
    SUIT_MASKS,
    SUIT_NOUNS,
    SUIT_OF,
    Card,
    Suit,
    cards_in,
)
from matches.kort.rules import (
    SEATS,
    TRICKS_IN_ROUND,
    TRICKS_TO_WIN,
    BavanDecision,
    RoundResult,
    Team,
    round_outcome,
)

HAND_SIZE = 13
SAR_ONLY_FROM = 5
"""Outside Bavan, a team with this many tricks or more may declare only Sar (KORT_RULES §3)."""

NO_TEAM = -1


class DeclarationKind(StrEnum):
    """The two declarations of KORT_RULES §3 and §9."""

    SAR = "sar"
    TROP = "trop"

    def __repr__(self) -> str:
        return f"DeclarationKind.{self.name}"


DECLARATION_KINDS = frozenset(DeclarationKind)
"""The declaration kinds; ``"sar" in DECLARATION_KINDS`` holds for the wire strings too."""
BAVAN_DECISIONS = frozenset(BavanDecision)
"""The Bavan decisions; ``"go" in BAVAN_DECISIONS`` holds for the wire strings too."""


class IllegalPlayError(ValueError):
    """A card, declaration or Bavan decision the rules refuse in the current state.

    The message names the trick, the seat, the card and the rule, e.g.
    ``trick 4: seat 2 played 5D holding a heart after a heart lead``.
    """


class InvalidDealError(ValueError):
    """A deal, trump suit or trump caller that cannot start a round (KORT_RULES §1)."""


@dataclass(frozen=True, slots=True)
class Declaration:
    """A Sar or Trop declared by ``seat`` (0..3) before trick ``before_trick`` (1..13)."""

    seat: int
    kind: DeclarationKind
    before_trick: int


def completes_trop(declarations: Sequence[Declaration], team: int) -> bool:
    """Whether ``team`` (0 = A, 1 = B), on reaching 7:0, completed a "Trop to the end": it
    declared a Trop before the 7:0. Going for Bavan then bars its trump leads (KORT_RULES §3)."""
    return any(d.kind == DeclarationKind.TROP and d.seat & 1 == team for d in declarations)


@dataclass(frozen=True, slots=True)
class Trick:
    """A played trick: its number (1..13), leader's seat, cards in play order, taker's seat."""

    number: int
    leader: int
    cards: tuple[Card, ...]
    winner: int


def follow_mask(hand: int, led_mask: int) -> int:
    """Return the cards of ``hand`` that may be played to a trick led in ``led_mask``'s suit.

    A player must follow the led suit if able, otherwise may play any card (KORT_RULES §1).
    ``hand`` is a card mask, ``led_mask`` the mask of the led suit (``SUIT_MASKS[suit]``).
    """
    return hand & led_mask or hand


def lead_mask(hand: int, trump_mask: int, trop_bar: bool) -> int:
    """Return the cards of ``hand`` that may lead a trick.

    Under the trump-lead bar after a completed Trop (``trop_bar``, KORT_RULES §3) a trump may
    not be led, unless the hand holds only trumps. ``trump_mask`` is ``SUIT_MASKS[trump]``.
    """
    return (hand & ~trump_mask or hand) if trop_bar else hand


def trop_bar_after_lead(trop_bar: bool, lead_bit: int, trump_mask: int) -> bool:
    """Whether the trump-lead bar still holds after the Bavan team leads the card ``lead_bit``
    (a one-bit mask): a lead of another suit lifts it for both partners; the trump lead of a
    barred leader holding only trumps does not (KORT_RULES §3)."""
    return trop_bar and bool(lead_bit & trump_mask)


def winning_card(trick: int, led_mask: int, trump_mask: int) -> Card:
    """Return the card that holds ``trick`` (a mask of the cards played to it so far).

    The highest trump in it, else the highest card of the led suit (KORT_RULES §1).
    """
    return ((trick & trump_mask) or (trick & led_mask)).bit_length() - 1


def check_deal(hands: Sequence[int]) -> None:
    """Check that ``hands`` is a full deal: 4 disjoint masks of 13 cards (KORT_RULES §1).

    Raises:
        InvalidDealError: not 4 hands, a hand that is not a card mask, a hand of other than 13
            cards, or a card in two hands.
    """
    if len(hands) != len(SEATS):
        raise InvalidDealError(f"a deal has 4 hands, got {len(hands)} (KORT_RULES §1)")
    dealt = 0
    for seat, hand in enumerate(hands):
        if not isinstance(hand, int) or hand < 0 or hand >> DECK_SIZE:
            raise InvalidDealError(f"seat {seat}: {hand!r} is not a mask of cards")
        if hand.bit_count() != HAND_SIZE:
            raise InvalidDealError(
                f"seat {seat} holds {hand.bit_count()} cards; each seat holds 13 (KORT_RULES §1)"
            )
        if dealt & hand:
            card = next(cards_in(dealt & hand))
            holder = next(s for s in range(seat) if hands[s] >> card & 1)
            raise InvalidDealError(
                f"{CARD_NAMES[card]} is dealt twice, to seat {holder} and seat {seat}"
            )
        dealt |= hand


class RoundState:
    """One round in progress, from the deal to its end (KORT_RULES §1, §3).

    Args:
        hands: four 52-bit card masks, seat 0 first, 13 disjoint cards each.
        trump_suit: the trump :class:`Suit` (or its int 0..3).
        trump_seat: the trump caller (0..3), who leads trick 1.

    Raises:
        InvalidDealError: the deal is not a full deal, or the suit or seat is out of range.
    """

    __slots__ = (
        "_awaiting",
        "_bavan",
        "_bavan_team",
        "_declarations",
        "_hands",
        "_leader",
        "_led_mask",
        "_over",
        "_plays",
        "_taken",
        "_to_play",
        "_trick_mask",
        "_trop_bar_team",
        "_trump_mask",
        "_winners",
        "trump_seat",
        "trump_suit",
    )

    def __init__(self, hands: Sequence[int], trump_suit: Suit | int, trump_seat: int) -> None:
        check_deal(hands)
        if trump_suit not in range(4):
            raise InvalidDealError(f"trump suit {trump_suit!r} is not a suit (0..3)")
        if trump_seat not in SEATS:
            raise InvalidDealError(f"trump seat {trump_seat!r} is not a seat (0..3)")
        self.trump_suit = Suit(trump_suit)
        self.trump_seat = trump_seat
        self._trump_mask = SUIT_MASKS[trump_suit]
        self._hands = list(hands)
        self._leader = self._to_play = trump_seat
        self._plays: list[Card] = []
        self._winners: list[int] = []
        self._trick_mask = self._led_mask = 0
        self._taken = [0, 0]
        self._declarations: list[Declaration] = []
        self._bavan: BavanDecision | None = None
        self._bavan_team = self._trop_bar_team = NO_TEAM
        self._awaiting = self._over = False

    def __repr__(self) -> str:
        a, b = self._taken
        return (
            f"<RoundState trick {self.trick_number}, seat {self._to_play} to play, "
            f"tricks {a}:{b} (A:B), trump {self.trump_suit.letter}>"
        )

    # -- reading the state ------------------------------------------------------------------

    @property
    def trick_number(self) -> int:
        """The number (1..13) of the trick in progress, or of the next one between tricks."""
        return len(self._winners) + 1

    @property
    def to_play(self) -> int:
        """The seat (0..3) whose card is next; after the end, the last trick's taker."""
        return self._to_play

    @property
    def current_trick(self) -> tuple[Card, ...]:
        """The cards of the trick in progress, in play order (empty between tricks)."""
        return tuple(self._plays[len(self._winners) * 4 :])

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order."""
        leaders = [self.trump_seat, *self._winners]
        return tuple(
            Trick(number + 1, leaders[number], tuple(self._plays[number * 4 : number * 4 + 4]), w)
            for number, w in enumerate(self._winners)
        )

    @property
    def trick_winners(self) -> tuple[int, ...]:
        """The seat that took each completed trick, in order."""
        return tuple(self._winners)

    @property
    def tricks_won(self) -> tuple[int, int]:
        """Tricks taken so far as ``(team A, team B)``."""
        return self._taken[0], self._taken[1]

    @property
    def declarations(self) -> tuple[Declaration, ...]:
        """The Sar and Trop declarations made so far, in order (KORT_RULES §3, §9)."""
        return tuple(self._declarations)

    @property
    def hands(self) -> tuple[int, ...]:
        """The unplayed cards of each seat, as four masks."""
        return tuple(self._hands)

    @property
    def awaiting_bavan_decision(self) -> bool:
        """True at 7:0 until :meth:`decide_bavan` is called (KORT_RULES §4)."""
        return self._awaiting

    @property
    def bavan(self) -> BavanDecision | None:
        """The Bavan decision taken at 7:0, or None (no 7:0, or not decided yet)."""
        return self._bavan

    @property
    def trop_bar(self) -> bool:
        """True while the Bavan team may not lead a trump after a completed Trop (§3)."""
        return self._trop_bar_team != NO_TEAM

    @property
    def is_over(self) -> bool:
        """True once the round has ended; False while on or waiting for the Bavan decision."""
        return self._over

    def outcome(self) -> RoundResult | None:
        """Return what the finished round counts for (KORT_RULES §2), or None while it is on.

        None also while the round waits for the Bavan decision at 7:0.
        """
        if not self._over:
            return None
        a, b = self._taken
        return round_outcome(self.trump_seat, {Team.A: a, Team.B: b}, self._bavan)

    def legal_mask(self) -> int:
        """Return the mask of the cards the seat to play may play (0 when no card may be played).

        KORT_RULES §1 (follow suit) and §3 (the trump-lead bar).
        """
        if self._over or self._awaiting:
            return 0
        hand = self._hands[self._to_play]
        if self._led_mask:
            return follow_mask(hand, self._led_mask)
        return lead_mask(hand, self._trump_mask, self._trop_bar_team == self._to_play & 1)

    def legal_cards(self) -> list[Card]:
        """Return the cards the seat to play may play, lowest first (see :meth:`legal_mask`)."""
        return list(cards_in(self.legal_mask()))

    # -- changing the state -----------------------------------------------------------------

    def play(self, card: Card) -> None:
        """Play ``card`` (0..51) from the hand of the seat to play (KORT_RULES §1, §3).

        Raises:
            IllegalPlayError: the round is over or waiting for the Bavan decision, ``card`` is not
                a card or not in the hand, the seat could follow the led suit and did not, or
                the lead is a trump barred after a completed Trop.
        """
        seat = self._to_play
        hand = self._hands[seat]
        if self._over or self._awaiting or not 0 <= card < DECK_SIZE or not hand >> card & 1:
            raise self._refusal(card)
        bit = 1 << card
        led = self._led_mask
        if led:
            if not bit & follow_mask(hand, led):
                raise self._revoke(card)
        else:
            if self._trop_bar_team == seat & 1:
                self._lead_under_bar(bit, hand, card)
            led = self._led_mask = SUIT_MASK_OF[card]
        self._hands[seat] = hand ^ bit
        self._plays.append(card)
        if len(self._plays) & 3:
            self._trick_mask |= bit
            self._to_play = (seat + 1) & 3
        else:
            self._finish_trick(self._trick_mask | bit, led)

    def declare(self, seat: int, kind: DeclarationKind | str) -> Declaration:
        """Record a Sar or Trop by ``seat`` before the next trick (KORT_RULES §3, §9).

        Returns the recorded :class:`Declaration`.

        Raises:
            IllegalPlayError: not a seat or kind, the round is over or waiting for the Bavan
                decision, a trick is in progress, the team already declared before this trick,
                or a Trop by a team with 5 or more tricks that is not on Bavan.
        """
        number = self.trick_number
        if kind not in DECLARATION_KINDS or seat not in SEATS:
            raise IllegalPlayError(
                f"before trick {number}: {kind!r} by seat {seat!r} is not a declaration; "
                "kinds are sar and trop, seats 0..3 (KORT_RULES §9)"
            )
        self._check_declaration_time(seat, number)
        team = seat & 1
        taken = self._taken[team]
        if kind == DeclarationKind.TROP and taken >= SAR_ONLY_FROM and self._bavan_team != team:
            raise IllegalPlayError(
                f"before trick {number}: seat {seat} may not declare trop with {taken} tricks; "
                "from 5 tricks only sar, except on Bavan (KORT_RULES §3)"
            )
        declaration = Declaration(seat, DeclarationKind(kind), number)
        self._declarations.append(declaration)
        return declaration

    def decide_bavan(self, decision: BavanDecision | str) -> None:
        """Apply the 7:0 team's decision: STOP ends the round, GO plays the Bavan (§3, §4).

        On GO after a completed Trop by the 7:0 team, the trump-lead bar starts (§3).

        Raises:
            IllegalPlayError: the round is not waiting for a Bavan decision, or ``decision`` is
                neither ``"go"`` nor ``"stop"``.
        """
        if not self._awaiting:
            a, b = self._taken
            raise IllegalPlayError(
                f"after trick {len(self._winners)}: no Bavan decision is due at {a}:{b} (A:B); "
                "only a 7:0 is decided (KORT_RULES §4)"
            )
        if decision not in BAVAN_DECISIONS:
            raise IllegalPlayError(f"{decision!r} is not a Bavan decision; use go or stop")
        self._awaiting = False
        self._bavan = BavanDecision(decision)
        if self._bavan == BavanDecision.STOP:
            self._over = True
            return
        team = self._winners[-1] & 1
        self._bavan_team = team
        if completes_trop(self._declarations, team):
            self._trop_bar_team = team

    # -- internals ----------------------------------------------------------------------------

    def _finish_trick(self, trick: int, led: int) -> None:
        """Give the 4-card ``trick`` (mask) to its taker and stop play where §1 and §3 say."""
        first = len(self._plays) - 4
        taking = winning_card(trick, led, self._trump_mask)
        winner = (self._leader + self._plays.index(taking, first) - first) & 3
        self._winners.append(winner)
        self._leader = self._to_play = winner
        self._trick_mask = self._led_mask = 0
        team = winner & 1
        taken = self._taken
        taken[team] += 1
        if self._bavan_team != NO_TEAM:
            self._over = team != self._bavan_team or taken[team] == TRICKS_IN_ROUND
        elif taken[team] == TRICKS_TO_WIN:
            self._over = taken[team ^ 1] > 0
            self._awaiting = not self._over

    def _lead_under_bar(self, bit: int, hand: int, card: Card) -> None:
        """Refuse a barred trump lead, or lift the bar on a lead of another suit (§3)."""
        if not bit & lead_mask(hand, self._trump_mask, trop_bar=True):
            raise IllegalPlayError(
                f"trick {self.trick_number}: seat {self._to_play} led {CARD_NAMES[card]}: "
                "trump lead barred after a completed Trop (KORT_RULES §3)"
            )
        if not trop_bar_after_lead(True, bit, self._trump_mask):
            self._trop_bar_team = NO_TEAM

    def _check_declaration_time(self, seat: int, number: int) -> None:
        """Refuse a declaration outside the time between two tricks of a live round."""
        where = f"before trick {number}: seat {seat} may not declare"
        if self._over:
            refusal = f"{where}: the round is over (KORT_RULES §1)"
        elif self._awaiting:
            refusal = f"{where} while the Bavan decision is pending (KORT_RULES §4)"
        elif len(self._plays) & 3:
            refusal = f"{where} during a trick; declarations come between tricks"
        elif any(d.before_trick == number and d.seat & 1 == seat & 1 for d in self._declarations):
            refusal = f"{where} twice: its team already declared before this trick"
        else:
            return
        raise IllegalPlayError(refusal)

    def _refusal(self, card: Card) -> IllegalPlayError:
        """The error for a card played when no card may be, or a card not in the hand."""
        where = f"trick {self.trick_number}: seat {self._to_play} played"
        a, b = self._taken
        if not isinstance(card, int) or not 0 <= card < DECK_SIZE:
            return IllegalPlayError(f"{where} {card!r}, which is not a card (0..51)")
        name = CARD_NAMES[card]
        if self._over:
            return IllegalPlayError(
                f"{where} {name} after the round ended at {a}:{b} (A:B) (KORT_RULES §1)"
            )
        if self._awaiting:
            return IllegalPlayError(
                f"{where} {name} before the Bavan decision at {a}:{b} (A:B) (KORT_RULES §4)"
            )
        return IllegalPlayError(f"{where} {name} but does not hold it")

    def _revoke(self, card: Card) -> IllegalPlayError:
        """The error for a card that does not follow the led suit although the hand could."""
        led_suit = SUIT_NOUNS[SUIT_OF[self._plays[len(self._winners) * 4]]]
        return IllegalPlayError(
            f"trick {self.trick_number}: seat {self._to_play} played {CARD_NAMES[card]} "
            f"holding a {led_suit} after a {led_suit} lead"
        )
