"""Postman, both ways: the planned requests exported as a collection v2.1 (`export`, with the test scripts of
`script` and the checker `js/satori_check.js`), and a team's own collection as an input (`read`, `match` into the
plan's `GivenRequests`, `assertify`). The run stage reaches it only through `run/newman.py`."""
