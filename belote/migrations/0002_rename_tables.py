"""The score sheets' tables take this app's names: ``belote_beloteprotocol`` and
``belote_belotedeal``, rows and all.

A rename keeps what hangs on the tables: the named constraints (``belote_pair_names_differ``,
``one_belote_deal_per_number``, ``belote_*``) keep their names, the foreign keys follow, and the
indexes and checks Django named after the old table keep those names (Django finds them by
column, never by name, when it alters them later).
"""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('belote', '0001_initial'),
    ]

    operations = [
        migrations.AlterModelTable(
            name='belotedeal',
            table=None,
        ),
        migrations.AlterModelTable(
            name='beloteprotocol',
            table=None,
        ),
    ]
