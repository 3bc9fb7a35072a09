"""Sharded checks (a CI matrix): each shard job checks its slice of the requests and writes a partial report;
the merge job reads every report and makes the check an unsharded run gives, without sending a request.

Modules: `slice` (`Shard` I/N, `shard_of`, `slice_plan`: a shard's own operations and the producers of their
chained ids, `unshardable`), `runs` (`RunOrder` of a run of the whole request set, `own_part`, `merge_runs`),
`job` (`check_shard`: prepare, run the slice, keep its own part: `ShardSpec`), `binding` (what a report is bound
to, computed again by the merge), `codec` (frozen values as compact JSON and back), `report` (the partial report
format, written and read with its caps and digests), `files` (report files found and read), `merge`
(`merge_shards`), `errors`.
"""
