"""Usernames in any script (API.md "Players"): 3 to 30 letters of any script, digits, ``_``,
``.`` or ``-``, stored in NFKC form, unique ignoring case (Unicode case folding); the display
name follows, and the searches of the API and the pages (the start of a username or display
name) ignore case in every script."""

import unicodedata

import pytest

from players.models import Player
from players.usernames import USERNAME_RULE
from tests.api_steps import PLAYERS


def create(service, username, **more):
    return service.post(PLAYERS, {"username": username, **more})


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        pytest.param("иван", "иван", id="cyrillic"),
        pytest.param("Ёлка", "Ёлка", id="cyrillic-yo"),
        pytest.param("李雷", "李雷", id="han-two-wide-characters"),
        pytest.param("José", "José", id="latin-composed"),
        pytest.param("Jose\u0301", "José", id="latin-decomposed"),
        pytest.param("مریم", "مریم", id="arabic-script"),
        pytest.param("नमस्ते", "नमस्ते", id="devanagari-with-marks"),
        pytest.param("\uff49\uff56\uff41\uff4e_2", "ivan_2", id="fullwidth"),
        pytest.param("amir.sh-1", "amir.sh-1", id="ascii-punctuation"),
    ],
)
def test_letters_of_any_script_are_accepted_in_nfkc_form(service, given, stored):
    created = create(service, given)

    assert created.status_code == 201, created.data
    assert (created.data["username"], created.data["display_name"]) == (stored, stored)
    assert unicodedata.is_normalized("NFKC", Player.objects.get().username)


@pytest.mark.parametrize(
    ("username", "status"),
    [
        ("李", 400),
        ("李雷", 201),
        ("李" * 30, 201),
        ("李" * 31, 400),
        ("a" * 30, 201),
        ("नि" * 30, 201),  # 30 letters, each with its vowel sign
        ("नि" * 31, 400),
    ],
)
def test_at_least_3_columns_a_wide_character_counting_2_and_at_most_30_letters(
    service, username, status
):
    assert create(service, username).status_code == status


@pytest.mark.parametrize(
    "username",
    [
        pytest.param("amir🙂", id="emoji"),
        pytest.param("amir sh", id="space"),
        pytest.param("amir\u00a0sh", id="no-break-space"),
        pytest.param("am\u200dir", id="zero-width-joiner"),
        pytest.param("\u0301amir", id="leading-mark"),
        pytest.param("am!r", id="symbol"),
        pytest.param("ab", id="too-short"),
        pytest.param("a" * 31, id="too-long"),
    ],
)
def test_other_characters_are_a_400_naming_username_and_the_rule(service, username):
    refused = create(service, username)

    assert refused.status_code == 400
    assert list(refused.data) == ["username"]
    assert USERNAME_RULE in str(refused.data["username"])
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param("иван", "ИВАН", id="cyrillic"),
        pytest.param("straße", "STRASSE", id="sharp-s-folds-to-ss"),
        pytest.param("José", "JOSE\u0301", id="composed-and-decomposed"),
        pytest.param("ivan", "\uff29\uff36\uff21\uff2e", id="fullwidth"),
    ],
)
def test_a_name_is_taken_ignoring_case_in_every_script(service, first, second):
    assert create(service, first).status_code == 201

    taken = create(service, second)

    assert taken.status_code == 400
    assert "already exists (names ignore case)" in str(taken.data["username"])
    assert Player.objects.count() == 1


def test_a_display_name_in_any_script_is_kept_in_nfkc_form(service):
    created = create(service, "ivan", display_name="Иван \uff29")

    assert created.data["display_name"] == "Иван I"


def test_the_api_search_ignores_case_in_every_script(service, api):
    for name in ("иван", "straße", "amir"):
        assert create(service, name).status_code == 201

    def found(text):
        return [row["username"] for row in api.get(PLAYERS, {"search": text}).data["results"]]

    assert found("ИВА") == ["иван"]
    assert found("STRASSE") == ["straße"]
    assert found("AMI") == ["amir"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("bit", ["bita"]),
        (" ЁЛ ", ["elka"]),  # the display name, the text trimmed
        ("GRÜSSE", ["straße"]),  # the case-folded display name
        ("mir", []),  # the start of a name, not a part
        ("%", []),  # a pattern's signs are text
        ("", ["bita", "elka", "straße", "amir"]),  # no search: every player, by id
    ],
)
def test_the_api_search_finds_the_start_of_a_username_or_display_name(service, api, text, found):
    for name, display in (
        ("bita", "Bita"),
        ("elka", "Ёлка"),
        ("straße", "Grüße"),
        ("amir", "Amir"),
    ):
        assert create(service, name, display_name=display).status_code == 201

    answer = api.get(PLAYERS, {"search": text}).data["results"]

    assert [row["username"] for row in answer] == found


def test_an_api_search_with_a_nul_character_is_a_400(api):
    answer = api.get(PLAYERS, {"search": "a\x00b"})

    assert answer.status_code == 400
    assert list(answer.data) == ["search"]


@pytest.mark.parametrize(
    "display_name",
    [
        pytest.param("evil\u202ename", id="right-to-left-override"),
        pytest.param("\u2067Amir", id="right-to-left-isolate"),
        pytest.param("Amir\x07", id="bell"),
        pytest.param("Amir\x1b[31mred", id="escape"),
        pytest.param("Amir\nSh", id="line-break"),
        pytest.param("Amir\tSh", id="tab"),
        pytest.param("Amir\u2028Sh", id="line-separator"),
        pytest.param("x" + "\u0336" * 5, id="five-marks-on-a-letter"),
    ],
)
def test_a_display_name_with_controls_or_piled_marks_is_a_400_naming_it(service, display_name):
    refused = create(service, "amir", display_name=display_name)

    assert refused.status_code == 400
    assert list(refused.data) == ["display_name"]
    assert "without control characters" in str(refused.data["display_name"])
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    "display_name",
    [
        pytest.param("می\u200cخواهم", id="persian-zero-width-non-joiner"),  # noqa: RUF001
        pytest.param("Nguyễn Thị", id="vietnamese-two-marks"),
        pytest.param("क्षत्रिय", id="devanagari-conjuncts"),
        pytest.param("Ёлка 🎄", id="emoji-and-space"),
    ],
)
def test_a_display_name_of_any_script_with_its_joiners_and_marks_is_kept(service, display_name):
    created = create(service, "amir", display_name=display_name)

    assert created.status_code == 201, created.data
    assert created.data["display_name"] == unicodedata.normalize("NFKC", display_name)


def test_a_letter_of_a_username_carries_at_most_3_marks(service):
    assert create(service, "abc" + "\u0301\u0302\u0303").status_code == 201

    refused = create(service, "abd" + "\u0301\u0302\u0303\u0304")

    assert refused.status_code == 400
    assert list(refused.data) == ["username"]
    assert "at most 3 combining marks" in str(refused.data["username"])


def test_a_username_longer_than_a_display_name_needs_one_given(service):
    """30 letters with 3 marks each are a username of 120 code points; a display name, which
    defaults to the username, holds 80."""
    longest = "b\u0301\u0302\u0303" * 30

    refused = create(service, longest)

    assert refused.status_code == 400
    assert list(refused.data) == ["display_name"]
    assert "at most 80" in str(refused.data["display_name"])
    assert not Player.objects.exists()
    created = create(service, longest, display_name="Bee")
    assert created.status_code == 201, created.data
    assert (created.data["username"], created.data["display_name"]) == (longest, "Bee")


@pytest.mark.parametrize(
    "display_name",
    [
        pytest.param("\ufdfa" * 80, id="ligature-of-18-characters"),
        pytest.param("\u3300" * 80, id="square-katakana-word"),
    ],
)
def test_a_display_name_longer_than_80_characters_in_nfkc_form_is_a_400(service, display_name):
    """The length is counted in the stored NFKC form, which may be longer than the text sent."""
    refused = create(service, "amir", display_name=display_name)

    assert refused.status_code == 400
    assert list(refused.data) == ["display_name"]
    assert "at most 80 characters in NFKC form" in str(refused.data["display_name"])
    assert not Player.objects.exists()


def test_a_username_whose_case_folded_form_outgrows_its_column_is_a_400(service):
    """30 letters ``ß`` with 3 marks each are 120 code points; folded, ``ss`` makes 150."""
    refused = create(service, "ß\u0316\u0317\u0318" * 30, display_name="Strasse")

    assert refused.status_code == 400
    assert list(refused.data) == ["username"]
    assert not Player.objects.exists()
    assert create(service, "s\u0316\u0317\u0318" * 30, display_name="S").status_code == 201
