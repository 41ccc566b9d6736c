"""Is a Bavan guaranteed? The search of KORT_RULES §6, for the two-bot vote of §4.

At 7:0 (or later in a Bavan) the team sees its two hands and the cards played; the opponents'
unplayed cards are known as a set (``unknown``), not who holds which. The Bavan is guaranteed when
the team can take every remaining trick, choosing each card from what it sees, against every split
of ``unknown`` between the opponents and every legal opponent play, under §3 (including the
trump-lead bar after a completed Trop).

The search is an AND-OR search over what the team sees. The opponents' cards are assigned lazily
(§6): an opponent may play any unknown card that keeps some split consistent with the hand sizes and
the suits each opponent has shown out of; not following the led suit shows out of it. What the
team knows is then exactly: its hands, the unknown set, each opponent's shown-out suits, the bar
and the leader. Tricks are always led by the team (it must take them all), so only the team leads.

Pruning, each exact:

- Positions are memoized at the start of each trick, seen from the leader, keyed without what
  cannot change the outcome: the ranks of played cards (only who holds each live card, in order),
  voids in suits with no unknown card left, a bar that binds nothing, the order of side suits.
- A team card stands for its run: cards of one hand and suit with no live card (held by anyone,
  or on the table) between them are interchangeable.
- An opponent card stands for its band: of the unknown cards of a suit between two team cards
  that could meet it in this trick, playing the lowest is the opponents' strongest choice, since
  the trick goes the same way and keeping a higher card never helps the team.
- Not guaranteed, without search, when an opponent may hold more trumps than the team can beat
  one by one; guaranteed when the team can simply cash masters after drawing trumps.
- The last trick is decided from its four cards; a branch is cut as soon as an opponent card
  takes a trick.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

from domain.errors import RuleError
from matches.kort.cards import (
    CARD_BY_NAME,
    CARDS_PER_SUIT,
    DECK_SIZE,
    SUIT_MASK_OF,
    SUIT_MASKS,
    SUIT_OF,
    Card,
    Suit,
    parse_suit,
)
from matches.kort.engine import (
    completes_trop,
    follow_mask,
    lead_mask,
    trop_bar_after_lead,
    winning_card,
)
from matches.kort.replay import InvalidRecordError, replay_record
from matches.kort.rules import TRICKS_IN_ROUND, TRICKS_TO_WIN

MAX_HAND = TRICKS_IN_ROUND - TRICKS_TO_WIN
"""Bavan play starts after the 7th trick (KORT_RULES §3): a hand then holds at most 6 cards."""

SUITS = range(4)
ALL_SUITS = 15
"""The 4-bit set of the four suits (bit ``1 << suit``)."""

SUIT_SETS: tuple[int, ...] = tuple(
    sum(SUIT_MASKS[suit] for suit in SUITS if suits >> suit & 1) for suits in range(16)
)
"""``SUIT_SETS[suits]``: the mask of all cards of the suits in the 4-bit set ``suits``."""


SUIT_KEY_BITS = 2 * CARDS_PER_SUIT + 3
"""Room for one suit in a memo key: a 1 bit, 2 bits per live card, 2 void bits."""


class InvalidPositionError(RuleError):
    """A position the search refuses; ``field`` names the bad argument (as in the API body)."""


@dataclass(frozen=True, slots=True)
class BavanSearchResult:
    """The answer of :func:`bavan_guaranteed` (KORT_RULES §6).

    ``first_card`` is a lead that keeps the Bavan guaranteed, or None when it is not guaranteed.
    """

    guaranteed: bool
    first_card: Card | None


def bavan_guaranteed(
    team_hands: Mapping[int, int],
    unknown: int,
    trump: int,
    leader: int,
    trop_bar: bool,
    voids: Mapping[int, int] | None = None,
) -> BavanSearchResult:
    """Return whether the Bavan team takes every remaining trick for sure (KORT_RULES §6).

    Args:
        team_hands: the two seats of the Bavan team (partners ``s`` and ``s ^ 2``) -> the mask of
            that seat's unplayed cards; both hands the same size, 1 to 6 cards.
        unknown: the mask of the opponents' unplayed cards, twice a hand's size, not known who
            holds which.
        trump: the trump suit (0..3, a :class:`~matches.kort.cards.Suit`).
        leader: the seat of the team to lead (the last trick's taker, §3).
        trop_bar: True while the trump-lead bar after a completed Trop holds (§3).
        voids: opponent seat -> 4-bit set of the suits (bit ``1 << suit``) it has shown out of.

    Returns a :class:`BavanSearchResult` whose ``first_card`` is a guaranteed lead of ``leader``.

    Raises:
        InvalidPositionError: ``field`` is ``"hands"`` (not two partners, not card masks,
            unequal sizes, not 1 to 6 cards, a card in both), ``"unknown"`` (not a card mask,
            not twice a hand, a card also held by the team), ``"trump_suit"``, ``"leader"`` (not
            one of the two seats), ``"trop_bar"`` or ``"voids"`` (not an opponent seat, not a
            suit set, or no split of ``unknown`` avoids the shown-out suits).
    """
    second, fourth = _check_position(team_hands, unknown, trump, leader, trop_bar, voids)
    search = _Search(trump)
    first = search.first_lead(
        team_hands[leader], team_hands[leader ^ 2], unknown, second, fourth, trop_bar
    )
    return BavanSearchResult(first is not None, first)


def split_exists(unknown: int, count: int, other_count: int, voids: int, other_voids: int) -> bool:
    """Return whether ``unknown`` can be split ``count`` / ``other_count`` between the opponents.

    Each opponent's share must avoid the suits it has shown out of (4-bit sets ``voids`` and
    ``other_voids``); ``count + other_count`` is the size of ``unknown`` (KORT_RULES §6).
    """
    if not voids | other_voids:
        return True
    if unknown & SUIT_SETS[voids & other_voids]:
        return False
    only_other = (unknown & SUIT_SETS[voids & ~other_voids & ALL_SUITS]).bit_count()
    only_this = (unknown & SUIT_SETS[other_voids & ~voids & ALL_SUITS]).bit_count()
    return only_other <= other_count and only_this <= count


class _Search:
    """One search (KORT_RULES §6): the trump, and the memo of trick-start positions.

    A trick-start position is seen from its leader: ``lead`` and ``partner`` are the team's hands,
    ``voids`` the shown-out suits of the opponent who plays second, ``later_voids`` of the one who
    plays fourth. Within a trick ``rest`` is the leader's hand after the lead.
    """

    __slots__ = ("memo", "patterns", "suit_orders", "trump", "trump_mask")

    def __init__(self, trump: int) -> None:
        self.trump = trump
        self.trump_mask = SUIT_MASKS[trump]
        self.memo: dict[int, bool] = {}
        self.patterns: dict[tuple[int, int, int], int] = {}
        self.suit_orders = tuple(
            tuple(dict.fromkeys((trump, led, *SUITS))) for led in SUITS
        )  # the second seat's strongest suits first: trumps, the led suit, the rest

    def first_lead(
        self, lead: int, partner: int, unknown: int, voids: int, later_voids: int, trop_bar: bool
    ) -> Card | None:
        """Return a lead of the hand ``lead`` that keeps every trick sure, or None."""
        for card in self._leads(lead, partner, unknown, trop_bar):
            if self._lead_holds(card, lead, partner, unknown, voids, later_voids, trop_bar):
                return card
        return None

    def wins(
        self, lead: int, partner: int, unknown: int, voids: int, later_voids: int, trop_bar: bool
    ) -> bool:
        """Whether the team takes every trick from the start of a trick."""
        if not lead & (lead - 1):
            return not lead or self._last_trick_won(lead, partner, unknown)
        key = self._key(lead, partner, unknown, voids, later_voids, trop_bar)
        won = self.memo.get(key)
        if won is None:
            won = self._decided(lead, partner, unknown, voids, later_voids, trop_bar)
            if won is None:
                won = (
                    self.first_lead(lead, partner, unknown, voids, later_voids, trop_bar)
                    is not None
                )
            self.memo[key] = won
        return won

    def _key(
        self, lead: int, partner: int, unknown: int, voids: int, later_voids: int, trop_bar: bool
    ) -> int:
        """The memo key: the position up to what cannot change its outcome.

        Per suit, who holds each live card, highest first (positions that differ only in ranks
        no live card tells apart are alike), and the opponents' voids in it while an unknown
        card of it is out; the bar while the team holds both trumps and other cards.
        """
        patterns = self.patterns
        suit_keys = []
        for suit, suit_mask in enumerate(SUIT_MASKS):
            held = lead & suit_mask, partner & suit_mask, unknown & suit_mask
            suit_key = patterns.get(held)
            if suit_key is None:
                suit_key = patterns[held] = _suit_pattern(*held)
            if held[2]:
                suit_key = suit_key << 2 | (voids >> suit & 1) << 1 | later_voids >> suit & 1
            suit_keys.append(suit_key)
        trump_key = suit_keys.pop(self.trump)
        suit_keys.sort()
        key = trump_key
        for suit_key in suit_keys:
            key = key << SUIT_KEY_BITS | suit_key
        team = lead | partner
        return key << 1 | (
            trop_bar and bool(team & self.trump_mask) and bool(team & ~self.trump_mask)
        )

    def _last_trick_won(self, lead: int, partner: int, unknown: int) -> bool:
        """With one card each every card is forced: whoever holds which, the 4 cards are known."""
        led_mask = SUIT_MASK_OF[lead.bit_length() - 1]
        team = lead | partner
        return bool(team >> winning_card(team | unknown, led_mask, self.trump_mask) & 1)

    def _decided(
        self, lead: int, partner: int, unknown: int, voids: int, later_voids: int, trop_bar: bool
    ) -> bool | None:
        """True or False when the position is decided without search, else None.

        False when an opponent may hold more trumps than the team can beat (see
        :meth:`_trumps_escape`). True when the team can cash: see :meth:`_cashes`.
        """
        if self._trumps_escape(lead | partner, unknown, voids | later_voids << 4, lead.bit_count()):
            return False
        return True if self._cashes(lead, partner, unknown, trop_bar) else None

    def _cashes(self, lead: int, partner: int, unknown: int, trop_bar: bool) -> bool:
        """Whether the team takes every trick by cashing masters, with no search.

        The leader first draws the outstanding trumps with its own, highest first (at most one
        round per outstanding trump), then leads its other cards. Every lead takes its trick
        when each card the leader leads beats every outstanding card of its suit, and either
        every partner card does too (whoever of the two takes a trick goes on cashing) or the
        partner can always play under the leader: following with its lowest card of the suit,
        discarding the highest card of a side suit, and ruffing only with no side card left,
        after the trumps are drawn. Under the bar (§3) side cards come first, so no trump may
        be out then.
        """
        trump_mask = self.trump_mask
        drawing = (unknown & trump_mask).bit_count()
        if drawing and (
            (lead & trump_mask).bit_count() < drawing or (trop_bar and lead & ~trump_mask)
        ):
            return False
        if not _masters(lead, unknown):
            return False
        return _masters(partner, unknown) or _plays_under(lead, partner)

    def _trumps_escape(self, team: int, unknown: int, both_voids: int, size: int) -> bool:
        """Whether an opponent may hold trumps the team cannot all beat.

        Every card is played before the end, and an opponent's trump loses its trick only to a
        higher team trump in it; an opponent's trumps fall in different tricks, so each needs a
        different higher team trump. Holding the ``m`` highest outstanding trumps, an opponent
        escapes when for some ``i <= m`` fewer than ``i`` team trumps beat the ``i``-th.
        ``both_voids`` is the two opponents' 4-bit void sets, the second seat's in the low bits.
        """
        trump_mask = self.trump_mask
        team_trumps = team & trump_mask
        outstanding = unknown & trump_mask
        highest = 0
        while outstanding:
            bit = 1 << outstanding.bit_length() - 1
            outstanding ^= bit
            if (team_trumps & -(bit << 1)).bit_count() <= highest.bit_count():
                break
            highest |= bit
        else:
            return False
        highest |= bit  # the trumps one opponent would hold: the highest, one more than beaten
        held = highest.bit_count()
        if held > size:
            return False
        voids, later_voids = both_voids & ALL_SUITS, both_voids >> 4
        return any(
            not mine >> self.trump & 1
            and split_exists(unknown ^ highest, size - held, size, mine, other)
            for mine, other in ((voids, later_voids), (later_voids, voids))
        )

    def _leads(self, lead: int, partner: int, unknown: int, trop_bar: bool) -> list[Card]:
        """One lead per run, safe masters first, then trumps, then high cards."""
        trump = self.trump
        unknown_trumps = unknown & self.trump_mask
        ordered = []
        for card in _run_tops(lead_mask(lead, self.trump_mask, trop_bar), lead | partner | unknown):
            suit = SUIT_OF[card]
            master = not unknown & SUIT_MASK_OF[card] & -(2 << card)
            safe = master and (suit == trump or not unknown_trumps)
            ordered.append((not safe, suit != trump, -card))
        ordered.sort()
        return [-entry[2] for entry in ordered]

    def _lead_holds(
        self,
        card: Card,
        lead: int,
        partner: int,
        unknown: int,
        voids: int,
        later_voids: int,
        trop_bar: bool,
    ) -> bool:
        """Whether leading ``card`` keeps the trick and the rest against every second card."""
        bit = 1 << card
        led = SUIT_OF[card]
        trick = _Trick(
            bit, led, lead ^ bit, partner, trop_bar_after_lead(trop_bar, bit, self.trump_mask)
        )
        replies = self._second_cards(
            unknown, lead.bit_count(), voids, later_voids, led, bit | partner
        )
        for reply, shown in replies:
            if not self._answered(
                trick, bit | 1 << reply, unknown ^ 1 << reply, shown, later_voids
            ):
                return False
        return True

    def _second_cards(
        self, unknown: int, count: int, voids: int, later_voids: int, led: int, meets: int
    ) -> list[tuple[Card, int]]:
        """The second seat's cards to try, strongest first, each with its voids after it.

        Both opponents hold ``count`` cards. One card per band between the team cards it may
        meet in this trick (the lead ``meets`` and the partner's hand): the lowest (§6).
        """
        replies: list[tuple[Card, int]] = []
        for suit in self.suit_orders[led]:
            held = unknown & SUIT_MASKS[suit]
            if not held or voids >> suit & 1:
                continue
            shown = voids if suit == led else voids | 1 << led
            if not shown | later_voids or split_exists(
                unknown ^ (held & -held), count - 1, count, shown, later_voids
            ):
                replies.extend((card, shown) for card in reversed(_band_lows(held, meets)))
        return replies

    def _answered(
        self, trick: _Trick, table: int, unknown: int, voids: int, later_voids: int
    ) -> bool:
        """Whether some partner card (one per run) keeps the trick against every fourth card."""
        led_mask = SUIT_MASKS[trick.led]
        trump_mask = self.trump_mask
        partner = trick.partner
        live = trick.rest | partner | unknown | table
        for card in _run_tops(follow_mask(partner, led_mask), live):
            bit = 1 << card
            taking = winning_card(table | bit, led_mask, trump_mask)
            if (taking == card or trick.lead_bit >> taking & 1) and self._fourth_holds(
                trick, partner ^ bit, table | bit, unknown, voids, later_voids, taking != card
            ):
                return True
        return False

    def _fourth_holds(
        self,
        trick: _Trick,
        partner: int,
        table: int,
        unknown: int,
        voids: int,
        later_voids: int,
        leader_takes: bool,
    ) -> bool:
        """Whether every fourth card loses the trick and leaves a won position.

        Of a suit the fourth seat may play, its highest card tells whether it can take the
        trick, and its lowest is its strongest losing card (it keeps the higher ones).
        """
        rest, led, trop_bar = trick.rest, trick.led, trick.trop_bar
        led_mask = SUIT_MASKS[led]
        count = rest.bit_count()
        lows = []
        for suit in SUITS:
            held = unknown & SUIT_MASKS[suit]
            if not held or later_voids >> suit & 1:
                continue
            shown = later_voids if suit == led else later_voids | 1 << led
            low = held & -held
            if (shown | voids) and not split_exists(unknown ^ low, count, count, shown, voids):
                continue
            top = held.bit_length() - 1
            if winning_card(table | 1 << top, led_mask, self.trump_mask) == top:
                return False
            lows.append((unknown ^ low, shown))
        wins = self.wins
        for left, shown in lows:
            if leader_takes:
                won = wins(rest, partner, left, voids, shown, trop_bar)
            else:
                won = wins(partner, rest, left, shown, voids, trop_bar)
            if not won:
                return False
        return True


class _Trick(NamedTuple):
    """A trick after its lead: the lead, its suit, the two team hands, the bar after it."""

    lead_bit: int
    led: int
    rest: int
    partner: int
    trop_bar: bool


def _suit_pattern(lead: int, partner: int, unknown: int) -> int:
    """Who holds each live card of one suit, highest first: 2 bits a card, behind a 1 bit."""
    pattern = 1
    live = lead | partner | unknown
    while live:
        bit = 1 << live.bit_length() - 1
        live ^= bit
        pattern = pattern << 2 | (1 if lead & bit else 2 if partner & bit else 3)
    return pattern


def _masters(hand: int, unknown: int) -> bool:
    """Whether every card of ``hand`` beats every ``unknown`` card of its suit."""
    for suit_mask in SUIT_MASKS:
        held = hand & suit_mask
        if held and (held & -held) < unknown & suit_mask:
            return False
    return True


def _plays_under(lead: int, partner: int) -> bool:
    """Whether, in every suit, the partner's cards from the lowest stay under the leader's
    cards from the highest (so the leader keeps the lead while it cashes)."""
    for suit_mask in SUIT_MASKS:
        mine, theirs = lead & suit_mask, partner & suit_mask
        while mine and theirs:
            top = 1 << mine.bit_length() - 1
            low = theirs & -theirs
            if low > top:
                return False
            mine ^= top
            theirs ^= low
    return True


def _run_tops(cards: int, live: int) -> list[Card]:
    """The highest card of each run of ``cards``: cards with no other live card between them."""
    tops = []
    while cards:
        bit = cards & -cards
        cards ^= bit
        card = bit.bit_length() - 1
        above = live & SUIT_MASK_OF[card] & -(bit << 1)
        if not above & -above & cards:
            tops.append(card)
    return tops


def _band_lows(cards: int, meets: int) -> list[Card]:
    """The lowest card of each band of ``cards`` (one suit) between the cards of ``meets``."""
    lows = []
    while cards:
        low = cards & -cards
        lows.append(low.bit_length() - 1)
        above = meets & -(low << 1)
        if not above:
            break
        cards &= -(above & -above)
    return lows


def _check_position(
    team_hands: Mapping[int, int],
    unknown: int,
    trump: int,
    leader: int,
    trop_bar: bool,
    voids: Mapping[int, int] | None,
) -> tuple[int, int]:
    """Check the arguments of :func:`bavan_guaranteed`; return the voids of seats leader+1, +3."""
    seats = sorted(team_hands)
    if len(seats) != 2 or seats[0] not in (0, 1) or seats[1] != seats[0] + 2:
        raise InvalidPositionError(
            "hands", f"hands must be given for two partners (0 and 2, or 1 and 3), got {seats}"
        )
    size = _check_hands(team_hands, seats)
    if not _is_mask(unknown) or unknown.bit_count() != 2 * size:
        raise InvalidPositionError(
            "unknown",
            f"the opponents hold as many cards as the team: {2 * size} unknown cards expected "
            "(KORT_RULES §6)",
        )
    if unknown & (team_hands[seats[0]] | team_hands[seats[1]]):
        raise InvalidPositionError("unknown", "an unknown card is also in a team hand")
    if type(trump) is bool or trump not in SUITS:
        raise InvalidPositionError("trump_suit", f"{trump!r} is not a suit (0..3)")
    if type(leader) is bool or leader not in team_hands:
        raise InvalidPositionError(
            "leader", f"the leader must be one of the team's seats {seats} (KORT_RULES §3)"
        )
    if not isinstance(trop_bar, bool):
        raise InvalidPositionError("trop_bar", "trop_bar must be true or false")
    return _check_voids(voids or {}, unknown, size, leader)


def _check_hands(team_hands: Mapping[int, int], seats: list[int]) -> int:
    """Check the two team hands; return their size."""
    first, second = (team_hands[seat] for seat in seats)
    if not _is_mask(first) or not _is_mask(second):
        raise InvalidPositionError("hands", "each hand must be a mask of cards")
    size = first.bit_count()
    if second.bit_count() != size:
        raise InvalidPositionError(
            "hands",
            f"partners hold as many cards each; seat {seats[0]} holds {size}, "
            f"seat {seats[1]} {second.bit_count()} (KORT_RULES §1)",
        )
    if not 1 <= size <= MAX_HAND:
        raise InvalidPositionError(
            "hands",
            f"a Bavan is played after 7 tricks: each hand holds 1 to {MAX_HAND} cards, "
            f"not {size} (KORT_RULES §3)",
        )
    if first & second:
        raise InvalidPositionError("hands", "a card is in both team hands")
    return size


def _check_voids(voids: Mapping[int, int], unknown: int, size: int, leader: int) -> tuple[int, int]:
    """Check the shown-out suits; return those of the seats after the leader and its partner."""
    opponents = (leader + 1) & 3, (leader + 3) & 3
    for seat, suits in voids.items():
        if seat not in opponents or type(seat) is bool:
            raise InvalidPositionError(
                "voids", f"voids are for the opponents' seats {sorted(opponents)}, not {seat!r}"
            )
        if type(suits) is not int or not 0 <= suits <= ALL_SUITS:
            raise InvalidPositionError("voids", f"seat {seat}: {suits!r} is not a set of suits")
    second, fourth = (voids.get(seat, 0) for seat in opponents)
    if not split_exists(unknown, size, size, second, fourth):
        raise InvalidPositionError(
            "voids",
            "no split of the unknown cards gives each opponent "
            f"{size} cards outside the suits it has shown out of (KORT_RULES §6)",
        )
    return second, fourth


def _is_mask(mask: object) -> bool:
    return type(mask) is int and 0 <= mask < 1 << DECK_SIZE


class VotePosition(TypedDict):
    """The keyword arguments of :func:`bavan_guaranteed` for a round stopped at its 7:0 vote."""

    team_hands: dict[int, int]
    unknown: int
    trump: Suit
    leader: int
    trop_bar: bool
    voids: dict[int, int]


def position_at_vote(record: Mapping[str, Any], trump_seat: int) -> VotePosition:
    """The arguments of :func:`bavan_guaranteed` for the 7:0 team of a round whose ``record``
    (wire form) stops at the 7:0 vote, as the team sees it (KORT_RULES §4, §6): its two hands,
    the opponents' unplayed cards as one set, the trump, the 7th trick's taker as leader, the
    trump-lead bar of a completed Trop (§3), and the suits each opponent has shown out of.

    Raises:
        InvalidRecordError: the record does not replay, or does not stop at a 7:0.
    """
    replay = replay_record(record, trump_seat)
    if not replay.vote_pending:
        raise InvalidRecordError("play", "the record does not stop at a 7:0 vote (KORT_RULES §4)")
    leader = replay.trick_winners[-1]
    team, hands = leader & 1, replay.hands_left
    return {
        "team_hands": {seat: hands[seat] for seat in (team, team + 2)},
        "unknown": hands[team ^ 1] | hands[(team ^ 1) + 2],
        "trump": parse_suit(record["trump_suit"]),
        "leader": leader,
        "trop_bar": completes_trop(replay.declarations, team),
        "voids": _shown_voids(record["tricks"], (trump_seat, *replay.trick_winners), team ^ 1),
    }


def _shown_voids(
    tricks: Iterable[Sequence[str]], leaders: Iterable[int], opponents: int
) -> dict[int, int]:
    """Opponent seat -> 4-bit set of the suits it did not follow in ``tricks`` (wire names;
    ``leaders[i]`` led trick ``i``)."""
    voids = {opponents: 0, opponents + 2: 0}
    for leader, trick in zip(leaders, tricks, strict=False):
        led = SUIT_OF[CARD_BY_NAME[trick[0]]]
        for offset, name in enumerate(trick):
            seat = (leader + offset) & 3
            if seat in voids and SUIT_OF[CARD_BY_NAME[name]] != led:
                voids[seat] |= 1 << led
    return voids
