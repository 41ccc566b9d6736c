# The ledger's player key is checked by the database again (ranking.models.CupChange says what
# it costs). On PostgreSQL the constraint is added NOT VALID, which checks only new rows and
# holds its locks for a moment, then VALIDATE CONSTRAINT checks the rows already there in a
# transaction of its own, under a lock that lets the ledger and the players be written
# meanwhile; so the migration is not atomic. SQLite copies the table with the key checked.

import copy

from django.db import migrations, models, transaction

CONSTRAINT = "ranking_cupchange_player_id_fk_players_player_id"


def _tables(schema_editor, model):
    quote = schema_editor.quote_name
    field = model._meta.get_field("player")
    players = field.related_model._meta
    return (
        quote(model._meta.db_table),
        quote(field.column),
        quote(players.db_table),
        quote(players.pk.column),
    )


def _on_sqlite(apps, schema_editor, checked):
    # The model given is the one before this migration, its key unchecked, either way.
    model = apps.get_model("ranking", "CupChange")
    unchecked = model._meta.get_field("player")
    key = copy.copy(unchecked)
    key.db_constraint = True
    with transaction.atomic(using=schema_editor.connection.alias):
        if checked:
            schema_editor.alter_field(model, unchecked, key)
        else:
            schema_editor.alter_field(model, key, unchecked)


def key_checked(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        _on_sqlite(apps, schema_editor, checked=True)
        return
    ledger, column, players, key = _tables(schema_editor, apps.get_model("ranking", "CupChange"))
    schema_editor.execute(
        f"ALTER TABLE {ledger} ADD CONSTRAINT {CONSTRAINT} FOREIGN KEY ({column}) "
        f"REFERENCES {players} ({key}) DEFERRABLE INITIALLY DEFERRED NOT VALID"
    )
    schema_editor.execute(f"ALTER TABLE {ledger} VALIDATE CONSTRAINT {CONSTRAINT}")


def key_unchecked(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        _on_sqlite(apps, schema_editor, checked=False)
        return
    ledger, *_ = _tables(schema_editor, apps.get_model("ranking", "CupChange"))
    schema_editor.execute(f"ALTER TABLE {ledger} DROP CONSTRAINT {CONSTRAINT}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("ranking", "0013_finalized_count"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="cupchange",
                    name="player",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.PROTECT,
                        related_name="cup_changes",
                        to="players.player",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(key_checked, key_unchecked)],
        ),
    ]
