"""The worked examples of BELOTE_SCORING §6 as ``/score/`` request bodies, with the expected
responses worked out by hand from §2-§5 beside them."""

# §6 #1: 22 all trumps; the whisting pair took 37 whists, the playing pair 258 - 37 = 221.
# C = 25, PC = 22; Vp = 221 >= 220, played. Pv = round10(37) div 10 = 4;
# Pp = (221 + 37 - 40) div 10 = 21. Playing 22 + 21 = 43, whisting 4.
EXAMPLE_1 = {
    "contract": "all_trumps",
    "number": 22,
    "tricks_whists": {"playing": 221, "whisting": 37},
    "playing_took_tricks": True,
    "whisting_took_tricks": True,
}
EXAMPLE_1_SCORE = {
    "played": True,
    "points": {"playing": 43, "whisting": 4},
    "bait": None,
    "breakdown": {"C": 25, "PC": 22, "Pp": 21, "Pv": 4, "Vp": 221, "Vv": 37},
}

# §6 #2: 12 clubs; whisting 18 whists + Bella 20, playing 162 - 18 = 144 + terz 20.
# C = 16, PC = 12; Vp = 164 >= 120, played; Vv = 38. Pv = round10(38) div 10 = 4;
# Pp = (164 + 38 - 40) div 10 = 16. Playing 12 + 16 = 28, whisting 4.
EXAMPLE_2 = {
    "contract": "suit",
    "suit": "C",
    "number": 12,
    "kontra": 0,
    "tricks_whists": {"playing": 144, "whisting": 18},
    "constructions": {"playing": 20, "whisting": 20},
    "playing_took_tricks": True,
    "whisting_took_tricks": True,
}
EXAMPLE_2_SCORE = {
    "played": True,
    "points": {"playing": 28, "whisting": 4},
    "bait": None,
    "breakdown": {"C": 16, "PC": 12, "Pp": 16, "Pv": 4, "Vp": 164, "Vv": 38},
}

# §6 #3: 15 spades with Kontra; whisting 33 whists, playing 162 - 33 = 129 + terz 20.
# C = 16, PC = 15 x 2 = 30; Vp = 149 < 150, not played: bait for the playing pair.
# Pv = round10(33) div 10 = 3; Pp = (149 + 33 - 30) div 10 = 15. Whisting 30 + 15 + 3 = 48.
EXAMPLE_3 = {
    "contract": "suit",
    "suit": "S",
    "number": 15,
    "kontra": 1,
    "tricks_whists": {"playing": 129, "whisting": 33},
    "constructions": {"playing": 20, "whisting": 0},
    "playing_took_tricks": True,
    "whisting_took_tricks": True,
}
EXAMPLE_3_SCORE = {
    "played": False,
    "points": {"playing": 0, "whisting": 48},
    "bait": "playing",
    "breakdown": {"C": 16, "PC": 30, "Pp": 15, "Pv": 3, "Vp": 149, "Vv": 33},
}

# Example 2 as cards, clubs trumps: the whisting pair takes only the first trick,
# AH 11 + KH 4 + QH 3 + 7D 0 = 18 whists; the playing pair takes the other seven.
EXAMPLE_2_TRICKS = [
    {"cards": ["AH", "KH", "QH", "7D"], "taken_by": "whisting"},
    {"cards": ["JC", "9C", "AC", "10C"], "taken_by": "playing"},
    {"cards": ["KC", "QC", "8C", "7C"], "taken_by": "playing"},
    {"cards": ["AS", "10S", "KS", "QS"], "taken_by": "playing"},
    {"cards": ["JS", "9S", "8S", "7S"], "taken_by": "playing"},
    {"cards": ["AD", "10D", "KD", "QD"], "taken_by": "playing"},
    {"cards": ["JD", "9D", "8D", "7H"], "taken_by": "playing"},
    {"cards": ["8H", "9H", "10H", "JH"], "taken_by": "playing"},
]

# Example 2 without its trick whists and took-tricks flags: what the cards above tell.
EXAMPLE_2_WITHOUT_WHISTS = {
    k: v
    for k, v in EXAMPLE_2.items()
    if k not in ("tricks_whists", "playing_took_tricks", "whisting_took_tricks")
}
