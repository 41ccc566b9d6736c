"""Reads compiled once (``bulk.compiled``), on the database the suite runs on (SQLite here,
PostgreSQL in CI): the rows, their converted fields and annotations are the queryset's own, the
SQL is built once per database, and a queryset that cannot be compiled this way is refused when
first called. A locking read locks its rows and keeps the ORM's transaction rule: shown on
PostgreSQL, where rows lock (marked ``postgres``: run in CI, skipped elsewhere)."""

import pytest
from django.db import OperationalError, connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from bulk.compiled import CompiledRead
from players.models import Player
from players.services import player_create
from tests.concurrency import at_once


def _compiled(build, *kinds, for_write=False):
    """A read of players that counts how often its queryset is built."""
    built = []

    def counted(*arguments):
        built.append(arguments)
        return build(*arguments)

    return CompiledRead(Player, counted, *kinds, for_write=for_write), built


def test_rows_are_the_querysets_with_fields_converted_and_annotations_set(db):
    amir = player_create(username="amir", display_name="Amir")
    player_create(username="nima")
    Player.objects.filter(pk=amir.pk).update(cups=12, best_cups=12, is_banned=True)
    read, _ = _compiled(
        lambda name: Player.objects.filter(username=name).annotate(
            shown=Concat(F("display_name"), Value("!"))
        ),
        str,
    )

    [found] = read("amir")

    expected = Player.objects.get(pk=amir.pk)
    assert isinstance(found, Player)
    assert (found.pk, found.cups, found.is_banned, found.created_at) == (
        expected.pk,
        12,
        True,
        expected.created_at,
    )
    assert vars(found)["shown"] == "Amir!"
    assert found._state.db == "default"
    assert read("nobody") == []


def test_the_sql_is_built_once_and_each_call_runs_one_statement_with_its_values(db):
    players = [player_create(username=name) for name in ("amir", "nima", "sara")]
    read, built = _compiled(
        lambda low, high: Player.objects.filter(pk__gte=low, pk__lte=high).order_by("pk"), int, int
    )

    with CaptureQueriesContext(connection) as statements:
        first = read(players[0].pk, players[1].pk)
        second = read(players[1].pk, players[2].pk)

    assert [p.username for p in first] == ["amir", "nima"]
    assert [p.username for p in second] == ["nima", "sara"]
    assert len(built) == 1
    assert len(statements) == 2


def test_constants_of_the_queryset_stay_in_the_sql(db):
    player_create(username="amir")
    banned = player_create(username="nima")
    Player.objects.filter(pk=banned.pk).update(is_banned=True)
    read, _ = _compiled(lambda low: Player.objects.filter(pk__gte=low, is_banned=True), int)

    assert [p.username for p in read(0)] == ["nima"]


def _locking_read():
    return _compiled(
        lambda pk: Player.objects.select_for_update().filter(pk=pk), int, for_write=True
    )[0]


def _locked_elsewhere(pk: int) -> bool:
    """Whether a second connection (another thread's) finds the player's row locked: its
    ``FOR UPDATE NOWAIT`` fails at once instead of waiting for the lock."""

    def try_lock() -> bool:
        try:
            with transaction.atomic():
                list(Player.objects.select_for_update(nowait=True).filter(pk=pk))
        except OperationalError:
            return True
        return False

    [locked] = at_once([try_lock])
    return locked


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_locking_read_locks_its_rows_until_the_transaction_ends():
    """Row locks exist on PostgreSQL only (SQLite has none, and the ORM leaves the clause out
    there): the compiled read's ``FOR UPDATE`` holds the row against another connection until
    the transaction ends, and only that row."""
    amir, nima = player_create(username="amir"), player_create(username="nima")
    read = _locking_read()

    with transaction.atomic(), CaptureQueriesContext(connection) as statements:
        assert [p.pk for p in read(amir.pk)] == [amir.pk]
        assert _locked_elsewhere(amir.pk)
        assert not _locked_elsewhere(nima.pk)

    assert "FOR UPDATE" in statements[0]["sql"]
    assert not _locked_elsewhere(amir.pk)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_locking_read_is_refused_outside_a_transaction_first_called_or_compiled():
    """The ORM's rule, which it checks only while compiling, holds for every call: refused
    outside a transaction before the first compilation and after it, locking nothing."""
    amir = player_create(username="amir")
    read = _locking_read()

    with pytest.raises(TransactionManagementError):
        read(amir.pk)
    with transaction.atomic():
        read(amir.pk)
    with pytest.raises(TransactionManagementError):
        read(amir.pk)
    assert not _locked_elsewhere(amir.pk)


def test_an_argument_the_sql_does_not_take_once_is_refused(db):
    unused, _ = _compiled(lambda pk: Player.objects.all(), int)
    twice, _ = _compiled(
        lambda pk: Player.objects.filter(pk=pk) | Player.objects.filter(cups=pk), int
    )

    with pytest.raises(ValueError, match="each argument once"):
        unused(1)
    with pytest.raises(ValueError, match="each argument once"):
        twice(1)


def test_a_read_of_related_rows_along_is_refused(db):
    along, _ = _compiled(lambda pk: Player.objects.select_related("user").filter(pk=pk), int)

    with pytest.raises(ValueError, match="related rows"):
        along(1)


def test_only_int_and_str_arguments_are_taken(db):
    read, _ = _compiled(lambda flag: Player.objects.filter(is_bot=flag), bool)

    with pytest.raises(TypeError, match="int and str"):
        read(True)
