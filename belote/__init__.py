"""Bazar Belote: the pure scorer (:mod:`belote.scoring`) and the score sheets built on it
(BELOTE_SCORING.md; API.md "Bazar Belote")."""
