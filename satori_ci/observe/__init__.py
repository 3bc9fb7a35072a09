"""The observe stage: oracles observed in responses (summaries, the observation store, invariant proposals,
their place in the oracle file, and the suspects a trusted store names). Pure: callers read and write files."""
