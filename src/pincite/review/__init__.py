"""The review stage: the queue, decisions, calibration and the review page."""
