"""Player accounts (docs/accounts.md): pure rules over each account's own event stream
(rules, events), the sealing of personal data in those events (sealing) and password
hashing (passwords). The gateway's account service (gateway/accounts/service.py) appends them."""
