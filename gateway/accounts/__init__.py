"""Accounts and players: the account service, sessions and tokens, their routes, and the
operator's command (python -m gateway.accounts.admin)."""
