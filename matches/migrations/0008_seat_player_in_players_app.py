# Seats point at the Player model in its new app (players); the table and its rows stay, so
# only the state changes.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0007_belote_to_own_app'),
        ('players', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='seat',
                    name='player',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='seats', to='players.player'),
                ),
            ],
            database_operations=[],
        ),
    ]
