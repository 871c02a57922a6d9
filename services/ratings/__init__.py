"""Ratings per game kind (docs/ratings.md): each rated game's rating changes decided once
(rules, openskill's Plackett-Luce) and recorded in the kind's ratings stream (rater), from
which the read models (ratings, leaderboards per season, history) are folded (boards)."""
