"""The benchmark harness: any policy over the task suite, through the rollout lifecycle."""
