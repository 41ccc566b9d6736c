# Ledger rows point at the Player model in its new app (players); the table and its rows stay,
# so only the state changes.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0001_initial'),
        ('ranking', '0002_username_unique_ignoring_case'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='cupchange',
                    name='player',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='cup_changes', to='players.player'),
                ),
            ],
            database_operations=[],
        ),
    ]
