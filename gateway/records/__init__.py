"""Game records (export, verify) and ratings."""
