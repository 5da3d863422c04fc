"""Training consoleagent's own policy: teacher trajectories → filtered single-step chat samples →
SFT → step-level GRPO (docs/training.md).

Importing this package is cheap on purpose: torch, transformers and datasets are imported only by
the functions that need them, so the command line and the data tools stay fast.
"""
