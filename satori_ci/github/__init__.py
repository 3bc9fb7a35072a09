"""The github stage: the run's context, the sticky comment and GitHub Actions' text interfaces.

- `context.ActionContext.from_env(env)`: the event, repository, SHAs, fork flag, paths and the typed
  `inputs.ActionInputs`, read once; `errors.ActionConfigError` (one line) when they cannot be used.
- `comments.StickyCommenter`: the PyGithub adapter for the sticky comment; its outcomes
  (`outcome.CommentOutcome`) are values, a failed post never raises. Two runs at once leave one comment.
- `pulls.fetch_pull`: the PyGithub adapter for one pull request (`comments` and `pulls` alone import `github`);
  `workflow_run.verify` checks a `workflow_run`'s claims (event, inputs from a fork's artifact) against it.
- `outputs`: `GITHUB_OUTPUT` text, the job summary, workflow commands and `::add-mask::` (redaction itself is
  `satori_ci.redaction`, the one redaction point).
- `marker`, `retry`: the hidden comment marker and the bounded retry policy (no third-party code).

Nothing here prints or exits; importing this package does not import PyGithub.
"""
