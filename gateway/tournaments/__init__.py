"""Tournaments: their routes and the pages of standings read from the projection."""
