"""Pebbles: the test-only fourth game that shows adding a game is one package plus one
line (here RAFFE_EXTRA_GAMES=tests.games.pebbles; in the product, a line in
services/games.py). Two to four players take one to three pebbles in turn from a pile;
whoever takes the last one wins. Each player also holds a secret lucky number, so
redaction is exercised too."""
