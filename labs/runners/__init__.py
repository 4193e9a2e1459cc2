"""Runners: turn a lab's validated parameters into a result by calling a model."""
