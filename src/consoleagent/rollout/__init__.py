"""The rollout lifecycle: lease → provision or restore → run → collect audit → judge → reset → release."""
