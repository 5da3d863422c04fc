"""The audit trail: the ground truth that rewards and drift verdicts are computed from."""
