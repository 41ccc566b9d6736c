"""The players' pages (API.md "Players' pages"): the leaderboard, a player's "My games", a
match and a season's standings, rendered on the server from the selectors the API reads
through, so every figure has one way to be computed. Each page costs a fixed number of
queries whatever the page's length: the names of the players shown come in one query, never
one per row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.core.paginator import EmptyPage, Page, Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from domain.errors import NotFound as NoSuchObject
from domain.paging import InvalidCursor, InvalidPage, page_number
from matches import selectors as match_selectors
from matches.cups import cups_of
from matches.details import MatchDetail, match_detail
from matches.history import HistoryMatch, HistoryRound, history_page
from matches.kort.cards import SUIT_BY_LETTER
from matches.kort.rules import Mode, Outcome, Team, Vote, shutout_team, team_of
from matches.live_vote.models import VoteStatus
from matches.live_vote.selectors import VoteSeen
from matches.models import Match, MatchStatus, RoundStatus
from pages import labels
from pages.forms import HistoryFilterForm, SearchForm
from pages.templatetags.pages import grouped, url_of
from players.models import Player
from ranking import selectors as ranking_selectors
from ranking.models import CupKind
from seasons.models import Season, SeasonStatus
from seasons.selectors import current_season, season_get, seasons_newest_first
from stats.selectors import player_opponents, player_partners, player_stats

if TYPE_CHECKING:  # the stubs' type of a lazy translation (the labels)
    from django_stubs_ext import StrPromise

LEADERBOARD_PAGE_SIZE = 50
HISTORY_PAGE_SIZE = 20
CHART_POINTS = 100
"""The chart and its table show the player's latest 100 cup changes."""
VOTE_REFRESH_SECONDS = 2
"""How often the match page reloads its live parts while a vote is open."""
SUGGESTIONS = 10


def _page(board: _Board | _ReadPage, per_page: int, number: int) -> Page:
    """Page ``number`` of a board: its length from the board's counts and one slice, as the
    API's ``/leaderboard/``. A page past the last is a 404."""
    try:
        # The paginator reads only the board's count() and slices of it.
        return Paginator(board, per_page).page(number)  # type: ignore[arg-type]
    except EmptyPage:
        raise Http404("no such page") from None


def _page_asked(request: HttpRequest) -> int:
    """The page number the request's ``page`` asks for (``domain.paging.page_number``); the
    first page for one that is none (``abc``, ``0``), where the API answers a 400: a person who
    follows a mangled link still gets the list, as for a cursor that is none."""
    try:
        return page_number(request.GET.get("page"))
    except InvalidPage:
        return 1


def _pagination(page: Page) -> dict:
    """The context of ``pages/_pagination.html``: the page and the numbers to link to."""
    return {"page": page, "page_range": list(page.paginator.get_elided_page_range(page.number))}


def _players_by_id(ids) -> dict[int, Player]:
    """The players of ``ids``, in one query."""
    return Player.objects.only("id", "username", "display_name", "is_bot").in_bulk(set(ids))


# --- the leaderboard ------------------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    player: Player
    rank: int | None


@dataclass(frozen=True)
class Search:
    """What a search found: the player (or None) of that username, or the one player whose
    username or display name begins with the text; their rank (None when they are not on the
    leaderboard); and when no one player was found, up to 10 of the players whose username or
    display name begins with the text, each with their rank."""

    text: str
    player: Player | None
    rank: int | None
    suggestions: list[Suggestion]


def _search(text: str) -> Search:
    player = ranking_selectors.player_named(text)
    if player is None:
        found = ranking_selectors.players_found(text, SUGGESTIONS)
        if len(found) != 1:
            ranks = ranking_selectors.ranks_of(found)
            return Search(text, None, None, [Suggestion(p, ranks[p.pk]) for p in found])
        player = found[0]
    return Search(text, player, ranking_selectors.player_rank(player), [])


FOUND_ROW = mark_safe(' class="found" aria-current="true"')
BOARD_ROW = (
    '<tr{}><td class="number">{}</td><th scope="row"><a href="{}">{}</a> '
    '<span class="username">{}</span></th><td class="number">{}</td></tr>'
)


def _board_row(rank: int, player: ranking_selectors.BoardPlayer, found: int | None) -> SafeString:
    """A row of the leaderboard's table: the rank, the player linked to their page with their
    username, the cups; the row of the player searched for marked. Written here rather than in
    the template: a page of the board has 50 rows, and the template engine would spend on them
    more than half the time of the API's whole answer (``bench/pages.py``)."""
    return format_html(
        BOARD_ROW,
        FOUND_ROW if player.id == found else "",
        grouped(rank),
        url_of(player.id, "pages:player"),
        player.display_name,
        player.username,
        grouped(player.cups),
    )


class _Board:
    """The board of season number ``season`` as Django's paginator reads a list: its length
    from the board's counts and each page's ranked rows from ``board_page``, the reads of the
    API's ``/leaderboard/``, so a page deep in the board costs what the first one costs."""

    def __init__(self, season: int):
        self.season = season

    def count(self) -> int:
        return ranking_selectors.board_count(self.season)

    def __getitem__(self, rows: slice) -> list[ranking_selectors.RankedPlayer]:
        return ranking_selectors.board_page(rows.start, rows.stop - rows.start, self.season).rows


def leaderboard(request):
    """``/{lang}/``: the current season's leaderboard, 50 rows a page, in the API's order and
    ranks (API.md "Leaderboard"). ``?q=`` finds a player by username: the page that holds
    their row, the row marked. The season's name links to its standings."""
    season = current_season()
    form = SearchForm(request.GET)
    text = form.cleaned_data["q"] if form.is_valid() else ""
    search = _search(text) if text else None
    number = _page_asked(request)
    if search is not None and search.rank is not None:
        number = (search.rank - 1) // LEADERBOARD_PAGE_SIZE + 1
    page = _page(_Board(season.number), LEADERBOARD_PAGE_SIZE, number)
    found = search.player.pk if search is not None and search.player is not None else None
    context = {
        "season": season,
        "season_name": labels.season_shown(season),
        "form": form,
        "search": search,
        "search_off_board": search is not None
        and search.player is not None
        and search.rank is None
        and _off_board_reason(search.player, season),
        "rows": [_board_row(row.rank, row.player, found) for row in page.object_list],
        **_pagination(page),
    }
    return render(request, "pages/leaderboard.html", context)


# --- a player's "My games" ------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryRow:
    """One match of a player's history, from the player's side."""

    match: HistoryMatch
    mode: StrPromise
    partner: Player
    opponents: list[Player]
    wins: int
    opponent_wins: int
    result: StrPromise
    cups: int | None
    void: bool
    """A void match (KORT_RULES §11): neither won nor lost, its cups taken back."""


def _history_row(
    match: HistoryMatch, player_id: int, players: dict[int, Player], cups: dict[int, int]
) -> HistoryRow:
    seats, own = match.seats, match.history_seat
    team = team_of(own)
    partner = next(seat for seat in team.seats if seat != own)
    if match.status == MatchStatus.IN_PROGRESS:
        result = labels.MATCH_STATUSES[MatchStatus.IN_PROGRESS]
    elif match.status == MatchStatus.VOID:
        result = labels.VOID_RESULT
    else:
        result = labels.RESULTS[match.winner == team]
    return HistoryRow(
        match=match,
        mode=labels.MODES[Mode(match.mode)],
        partner=players[seats[partner]],
        opponents=[players[seats[seat]] for seat in team.other.seats],
        wins=match.wins[team],
        opponent_wins=match.wins[team.other],
        result=result,
        cups=cups.get(player_id),
        void=match.status == MatchStatus.VOID,
    )


def _with_cursor(request: HttpRequest, cursor: str | None) -> str | None:
    """The request's query string (its filters) with ``cursor`` instead of its own; None for
    no cursor (no such page)."""
    if cursor is None:
        return None
    query = request.GET.copy()
    query["cursor"] = cursor
    return query.urlencode()


def _history_page(
    request: HttpRequest, history: QuerySet[Match]
) -> tuple[list[HistoryMatch], dict]:
    """The matches of the page of ``history`` that the request's ``cursor`` points at (the
    newest without one), ``HISTORY_PAGE_SIZE`` long, and the page's context: ``newer`` /
    ``older``, the query strings of the pages of newer and of older matches, None at either
    end, and ``history_page_title``, whether the page is one a cursor led to. Read as the
    API's ``/players/{id}/matches/`` reads it (``matches.history``: plain values, here without
    the rounds the page does not show), so a page deep in a long history costs what the first
    one costs. A cursor that is none (the API's 400) shows the newest matches, as a ``page``
    that is none shows a list's first page."""
    cursor = request.GET.get("cursor") or None
    try:
        page = history_page(history, cursor, HISTORY_PAGE_SIZE)
    except InvalidCursor:
        cursor, page = None, history_page(history, None, HISTORY_PAGE_SIZE)
    links = {"newer": _with_cursor(request, page.newer), "older": _with_cursor(request, page.older)}
    return page.matches, {**links, "history_page_title": cursor is not None}


@dataclass(frozen=True)
class LedgerRow:
    """A cup change as the cups table lists it: the entry and what it was (its kind's
    label, with its match or its season)."""

    entry: ranking_selectors.LedgerEntry
    what: SafeString


def _ledger_what(entry: ranking_selectors.LedgerEntry, names: dict[int, str]) -> SafeString:
    """What a cup change was, by its kind (API.md "Players' pages"): a match, linked; a
    season's reset, naming the season it opened; a void, linking the match voided."""
    if entry.kind == CupKind.SEASON_RESET:
        name = names.get(entry.season or 0, "")
        return format_html("{}", labels.RESET % {"season": name})
    template = labels.LEDGER_KINDS[CupKind(entry.kind)]
    number = entry.match_id or 0
    return format_html(
        '<a href="{}">{}</a>',
        url_of(entry.match_id or 0, "pages:match"),
        template % {"number": number},
    )


def _ms(moment) -> int:
    return int(moment.timestamp() * 1000)


def _cups_chart(player: Player, seasons: list[Season]) -> dict:
    """The cups table (newest first) and the chart's data (oldest first) of the player's
    latest cup changes (KORT_RULES §7): each point's time in ms since the epoch and the total
    after it, the starts of the seasons within the chart's span (its marks), and the labels
    the script writes in the reader's language."""
    current = next(season for season in seasons if season.status == SeasonStatus.CURRENT)
    newest_first = ranking_selectors.cups_ledger(player, CHART_POINTS, current)
    entries = list(reversed(newest_first))
    names = {season.number: labels.season_shown(season) for season in seasons}
    marks = []
    if entries:
        first, last = entries[0].at, entries[-1].at
        marks = [
            {"at": _ms(season.starts_at), "label": names[season.number]}
            for season in reversed(seasons)
            if first <= season.starts_at <= last
        ]
    return {
        "entries": entries,
        "rows": [LedgerRow(entry, _ledger_what(entry, names)) for entry in newest_first],
        "highest": max((entry.cups_after for entry in entries), default=None),
        "data": {
            "points": [{"x": _ms(entry.at), "y": entry.cups_after} for entry in entries],
            "seasons": marks,
            "label": str(labels.CUPS),
        },
    }


def _off_board_reason(player: Player, season) -> StrPromise | str:
    """Why a player is not on the current season's leaderboard (KORT_RULES §10)."""
    if player.is_bot:
        return labels.OFF_BOARD_BOT
    if player.is_banned:
        return labels.OFF_BOARD_BANNED
    return labels.OFF_BOARD_NO_MATCH % {"season": labels.season_shown(season)}


@dataclass(frozen=True)
class SeasonHistoryRow:
    """A season of the player's (``ranking.selectors.PlayerSeason``) and that season's name."""

    name: str
    figures: ranking_selectors.PlayerSeason


def _season_history(player: Player, seasons: list[Season]) -> list[SeasonHistoryRow]:
    """The rows of the API's ``/players/{id}/seasons/``, newest first, each with its season's
    name (from ``seasons``, all of them)."""
    rows = ranking_selectors.player_seasons(player)
    by_number = {season.number: season for season in seasons}
    return [SeasonHistoryRow(labels.season_shown(by_number[row.season]), row) for row in rows]


PAIRS_SHOWN = 10
"""The partners and the opponents tables show the top 10 of the API's tables."""


@dataclass(frozen=True)
class ModeFigures:
    """The figures of one mode (API.md ``/players/{id}/stats/?mode=``)."""

    mode: StrPromise
    stats: dict


def _per_mode(player: Player, current: Season) -> list[ModeFigures]:
    return [
        ModeFigures(labels.MODES[mode], player_stats(player, mode=mode.value, current=current))
        for mode in Mode
    ]


def player(request, player_id: int):
    """``/{lang}/players/{id}/``: "My games" (KORT_RULES §8): the figures of the API's
    ``/players/{id}/stats/``, the rank, the cups chart, the seasons of
    ``/players/{id}/seasons/`` (KORT_RULES §10), and the history of
    ``/players/{id}/matches/`` with its ``mode`` and ``result`` filters, 20 a page, linked to
    the pages of newer and older matches through the API's cursors."""
    shown = get_object_or_404(Player, pk=player_id)
    seasons = list(seasons_newest_first())  # the seasons' names, for the chart and the history
    current = next(season for season in seasons if season.status == SeasonStatus.CURRENT)
    stats = player_stats(shown, current=current)
    form = HistoryFilterForm(request.GET)
    filters = form.filters()
    history = match_selectors.player_matches(shown.pk)
    if "mode" in filters:
        history = history.filter(mode=filters["mode"])
    if "result" in filters:
        history = history.filter(match_selectors.player_result_q(filters["result"]))
    matches, links = _history_page(request, history)
    players = _players_by_id(player_id for m in matches for player_id in m.seats)
    cups = cups_of(matches)
    rank = ranking_selectors.player_rank(shown)
    context = {
        "player": shown,
        "rank": rank,
        "off_board": None if rank is not None else _off_board_reason(shown, current),
        "stats": stats,
        "outcomes": [
            (labels.OUTCOMES[Outcome(name)], counts) for name, counts in stats["outcomes"].items()
        ],
        "per_mode": [] if shown.is_bot else _per_mode(shown, current),
        "partners": [] if shown.is_bot else player_partners(shown.pk, size=PAIRS_SHOWN).rows,
        "opponents": [] if shown.is_bot else player_opponents(shown.pk, size=PAIRS_SHOWN).rows,
        "chart": _cups_chart(shown, seasons),
        "seasons": _season_history(shown, seasons),
        "form": form,
        "history": [
            _history_row(match, shown.pk, players, cups.get(match.id, {})) for match in matches
        ],
        **links,
    }
    return render(request, "pages/player.html", context)


# --- a season's standings -----------------------------------------------------------------


class _ReadPage:
    """A page of a board already read, with the board's length, as Django's paginator reads a
    list: the length it was given, and the page's rows for the one slice it asks for."""

    def __init__(self, rows: list[ranking_selectors.SeasonRow], count: int):
        self.rows, self.length = rows, count

    def count(self) -> int:
        return self.length

    def __getitem__(self, rows: slice) -> list[ranking_selectors.SeasonRow]:
        return self.rows


def season(request, number: int):
    """``/{lang}/seasons/{number}/``: a season's standings (KORT_RULES §10), 50 rows a page,
    the rows and ranks of the API's ``/seasons/{number}/leaderboard/`` (the frozen final
    standings of a finalized season, the live board of the current one), paged by the length
    its read returns. An unknown season, or a page past the last, is a 404; a ``page`` that is
    no page number shows the first page."""
    try:
        shown = season_get(number)
    except NoSuchObject:
        raise Http404("no such season") from None
    number_asked = _page_asked(request)
    offset = (number_asked - 1) * LEADERBOARD_PAGE_SIZE
    rows, count = ranking_selectors.season_board(shown, offset, LEADERBOARD_PAGE_SIZE)
    page = _page(_ReadPage(rows, count), LEADERBOARD_PAGE_SIZE, number_asked)
    context = {
        "season": shown,
        "season_name": labels.season_shown(shown),
        "status": labels.SEASON_STATUSES[SeasonStatus(shown.status)],
        "rows": rows,
        **_pagination(page),
    }
    return render(request, "pages/season.html", context)


# --- a match --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatRow:
    seat: int
    team: StrPromise
    player: Player
    left: bool
    cups: int | None


@dataclass(frozen=True)
class RoundRow:
    round: HistoryRound
    caller: Player
    state: StrPromise
    winner: StrPromise | None
    trump: str | None
    """The trump suit's sign, when the round's play record says it."""


@dataclass(frozen=True)
class TeamCupsRow:
    """A team's line of the match's cups breakdown (API.md "Match cups explained")."""

    team: StrPromise
    names: str
    rounds: list[int]
    match_bonus: int
    sweep_bonus: int
    total: int


@dataclass(frozen=True)
class VoterRow:
    seat: int
    player: Player
    vote: StrPromise | None
    """The vote cast, or how the rules settled a seat that cast none once the vote was
    resolved (silence at the deadline; no vote needed after a stop); None while open."""
    by_bot: bool
    hand: list[str] | None


@dataclass(frozen=True)
class VoteView:
    """The live vote of the match's last round as everyone sees it (KORT_RULES §4)."""

    vote: VoteSeen
    round_number: int
    team: StrPromise
    state: StrPromise
    is_open: bool
    seconds_left: int
    voters: list[VoterRow]


def _vote_view(
    vote: VoteSeen, last: HistoryRound, players: dict[int, int], names: dict[int, Player]
) -> VoteView:
    team = Team(vote.team)
    if vote.status == VoteStatus.REFUSED:
        state = labels.REFUSED[shutout_team(last.tricks) == team_of(last.trump_seat)]
    else:
        state = labels.VOTE_STATUSES[VoteStatus(vote.status)]
    now = timezone.now()
    hands = vote.revealed_hands
    cast = {seat_vote.seat: seat_vote for seat_vote in vote.votes}
    voters = [
        VoterRow(
            seat=seat,
            player=names[players[seat]],
            vote=labels.VOTES[Vote(cast[seat].choice)] if seat in cast else _silent(vote),
            by_bot=seat in cast and cast[seat].by_bot,
            hand=None if hands is None else [labels.card_shown(c) for c in hands[str(seat)]],
        )
        for seat in team.seats
    ]
    return VoteView(
        vote=vote,
        round_number=last.number,
        team=labels.TEAMS[team],
        state=state,
        is_open=vote.status == VoteStatus.OPEN,
        seconds_left=max(0, int((vote.deadline - now).total_seconds())),
        voters=voters,
    )


def _silent(vote: VoteSeen) -> StrPromise | None:
    """How the rules settled the vote of a seat that cast none (KORT_RULES §4): while open,
    nothing yet; resolved at the deadline, silence (agreement beside a ``bavan``, a refusal
    when both were silent); resolved earlier, by a ``stop``, no vote was needed."""
    if vote.status == VoteStatus.OPEN or vote.resolved_at is None:
        return None
    if vote.resolved_at >= vote.deadline:
        return labels.SILENCE[vote.status == VoteStatus.GO]
    return labels.NOT_NEEDED


def _round_row(round_: HistoryRound, players: dict[int, int], names: dict[int, Player]) -> RoundRow:
    state: StrPromise
    winner: StrPromise | None
    if round_.status == RoundStatus.FINISHED:
        assert round_.outcome is not None and round_.winner is not None  # set when it finished
        state, winner = labels.OUTCOMES[Outcome(round_.outcome)], labels.TEAMS[Team(round_.winner)]
    else:
        state, winner = labels.OPEN_ROUNDS[RoundStatus(round_.status)], None
    suit = (round_.play or {}).get("trump_suit")
    trump = labels.SUIT_SIGNS[SUIT_BY_LETTER[suit]] if suit in SUIT_BY_LETTER else None
    return RoundRow(round_, names[players[round_.trump_seat]], state, winner, trump)


def _time_shown(moment) -> SafeString:
    """A moment as a ``<time>`` element: the instant for machines, and for the reader the
    language's one date format (``kort_site.formats``), in the site's time zone."""
    local = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}">{}</time>', local.isoformat(), date_format(local, "DATETIME_FORMAT")
    )


def team_names(seats: dict[int, int], names: dict[int, Player], team: Team) -> str:
    """The display names of a team's players, in seat order: "Bita & Dara"."""
    return " & ".join(names[seats[seat]].display_name for seat in team.seats)


def _cups_rows(match: MatchDetail, seats: dict[int, int], names: dict[int, Player]) -> list:
    """The match's cups breakdown per team, as the API's ``cups_breakdown``."""
    breakdown = match_selectors.match_cups_breakdown(match)
    if breakdown is None:
        return []
    return [
        TeamCupsRow(
            team=labels.TEAMS[team],
            names=team_names(seats, names, team),
            rounds=list(cups.rounds),
            match_bonus=cups.match_bonus,
            sweep_bonus=cups.sweep_bonus,
            total=cups.total,
        )
        for team, cups in breakdown.items()
    ]


def match(request, match_id: int):
    """``/{lang}/matches/{id}/``: the match of the API's ``/matches/{id}/`` (seats, rounds,
    cups) and the live vote of its last round (``/matches/{id}/rounds/{n}/vote/``); while the
    vote is open the page reloads its live parts every 2 s."""
    try:  # as the API's match read: the match and its last round's vote, with what is due
        shown = match_detail(match_id, timezone.now(), any_vote=True)
    except NoSuchObject:
        raise Http404("no such match") from None
    players = {seat.seat: seat.player_id for seat in shown.seated}
    names = _players_by_id(players.values())
    cups = cups_of([shown]).get(shown.id, {})  # the match's own cups, not a void's
    rounds = shown.rounds
    season = seasons_newest_first().filter(number=shown.season).first() if shown.season else None
    context = {
        "match": shown,
        "teams": {team.value: team_names(players, names, team) for team in Team},
        "season": season,
        "season_name": season and labels.season_shown(season),
        "voided": shown.voided_at and _time_shown(shown.voided_at),
        "breakdown": _cups_rows(shown, players, names),
        "mode": labels.MODES[Mode(shown.mode)],
        "status": labels.MATCH_STATUSES[MatchStatus(shown.status)],
        "winner": shown.winner and labels.TEAMS[Team(shown.winner)],
        "seats": [
            SeatRow(
                seat=seat.seat,
                team=labels.TEAMS[Team(seat.team)],
                player=names[seat.player_id],
                left=seat.left_at is not None,
                cups=cups.get(seat.player_id),
            )
            for seat in shown.seated
        ],
        "rounds": [_round_row(round_, players, names) for round_ in rounds],
        "vote": shown.vote and _vote_view(shown.vote, rounds[-1], players, names),
        "refresh_seconds": VOTE_REFRESH_SECONDS,
    }
    return render(request, "pages/match.html", context)
