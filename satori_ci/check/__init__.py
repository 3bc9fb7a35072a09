"""The pull-request check, shared by `satori-ci check`/`demo`, the GitHub Action and the shard jobs.

Per spec: load head (and base) -> field diff -> incremental inference against the committed oracle
file -> the requests -> run against staging (skipped with a reason without a URL) -> the run's observed
responses into the observation store and its suggestions into the oracle file -> oracle diff -> a
`SpecCheck`. One spec that cannot be read does not stop the others. Reads specs, the oracle file and the
observation stores; writes nothing (callers write the updated oracle files and stores, and print the report).

The check is three steps: `frame.prepare` (everything before the run: reads), the run (`spec_check`), and
`conclude.conclude` (pure: the run's observations, the oracle diff, the report's values). A sharded check
(`satori_ci.shard`) prepares the same way in every shard, runs the shard's slice of the requests, and concludes
once in the merge with the run the shards add up to.

Modules: `target` (`SpecTarget`, `CheckOptions`, `SpecOutcome`), `stores` (the oracle file and observation
stores read), `frame` (`prepare`, `CheckFrame`), `conclude`, `spec_check` (`check_spec`), `workspace` (the
repository's files both entry points read and write).
"""
