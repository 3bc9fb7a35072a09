"""The Docker action: read the event and inputs once, run the check, report, exit (`entrypoint.py` runs `main`).

Parses `GITHUB_*`/`INPUT_*` into an `ActionContext`, runs the shared check (`satori_ci.check`) on every spec the
change touches, writes the updated oracle files into the workspace, then reports: the sticky PR comment per
spec (falling back to the job summary with a notice when it cannot be posted), the job summary,
annotations and outputs. Exit codes (`satori_ci.errors`): 0 clean, 1 violations at or above fail-on, 2 input
error, 3 infrastructure, 70 a bug, 130 cancelled. A comment that cannot be posted never turns a clean run red.

Sharded (a CI matrix): with the `shard: I/N` input a job checks its shard of the operations
(`shard.job.check_shard`) and only writes its partial report into the workspace (output `shard-report`): no
comment, no summary, no oracle file, exit 0 once it ran (a shard that could not run writes a report saying so and
exits with the code of why). With `merge: <folders or globs>` the job after them reads every shard's report,
merges them (`shard.merge.merge_shards`: a missing, failed, duplicated or mismatched shard stops it with one line,
exit 3 or 2) and reports exactly as an unsharded run: oracle files, comment, summary, annotations, outputs, exit code.
The reports come through artifacts, so they are read strictly, rendered escaped like any response, and decide
nothing about where requests or secrets go: the merge sends no request, and writes each oracle file only where
this job's `oracles-dir` says it goes.

Every text it sends out passes one redactor (`satori_ci.redaction`), fed with every secret value it knows
(the token and key inputs, the `staging-headers` values, the trusted config's header values, every
`SATORI_AUTH_*` value, URL passwords and key parameters) and registered with `::add-mask::`: standard output
and error (wrapped for the whole run), the comments, the job summary, the annotations, the outputs and the
JSON report. A run that stops early, whatever the reason (a bug included), still writes the job summary, a
comment saying the check could not run (on a pull request with a token) and an `::error` line, and exits with the
code `satori_ci.errors.classify` gives (2 input, 3 infrastructure, 70 a bug): never a bare traceback.

Modules: `main` (the entry and its error boundaries), `run` (the run of every spec), `shards` (a shard job, the
merge job), `targets` (trusted config, what is checked and how), `publish` (oracle files, comment, summary,
annotations, JSON report, outputs), `stopped` (a run that stopped early or was cancelled), `secrets` and `log`.
The action imports no `satori_ci.cli` module.
"""
