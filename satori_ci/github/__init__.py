"""The github stage: the run's context, the sticky comment and GitHub Actions' text interfaces.

- `context.ActionContext.from_env(env)`: the event, repository, SHAs, fork flag, paths and the typed
  `inputs.ActionInputs`, read once; `errors.ActionConfigError` (one line) when they cannot be used.
- `comments.StickyCommenter`: the PyGithub adapter (the only module importing `github`); its
  outcomes (`outcome.CommentOutcome`) are values, a failed post never raises.
- `outputs`: `GITHUB_OUTPUT` text, the job summary, workflow commands and `::add-mask::` (redaction itself is
  `satori_ci.redaction`, the one redaction point).
- `marker`, `retry`: the hidden comment marker and the bounded retry policy (no third-party code).

Nothing here prints or exits; importing this package does not import PyGithub.
"""
