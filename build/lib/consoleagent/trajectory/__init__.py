"""Trajectories: one JSONL record per step, with an episode header and footer."""
