# A match keeps the body that created it, so a resend with its external_id and another body is
# a 409 (API.md "Conventions"). The matches stored before (those with an external_id, the only
# ones resent) get the fields their rows still hold: mode, seats and first_trump_seat.

from django.db import migrations, models


def bodies_of_stored_matches(apps, schema_editor):
    alias = schema_editor.connection.alias
    match_model = apps.get_model('matches', 'Match')
    seat_model = apps.get_model('matches', 'Seat')
    matches = match_model.objects.using(alias).filter(external_id__isnull=False, create_body__isnull=True)
    for match in matches.iterator(chunk_size=1000):
        seats = seat_model.objects.using(alias).filter(match_id=match.pk).order_by('seat')
        match.create_body = {
            'mode': match.mode,
            'seats': list(seats.values_list('player_id', flat=True)),
            'first_trump_seat': match.first_trump_seat,
        }
        match.save(update_fields=['create_body'])


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0013_season_and_void_constraints'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='create_body',
            field=models.JSONField(blank=True, editable=False, help_text='The body that created the match: mode, seats, first_trump_seat and rounds (API.md: a resend with its external_id is compared with it).', null=True),
        ),
        migrations.RunPython(bodies_of_stored_matches, migrations.RunPython.noop),
    ]
