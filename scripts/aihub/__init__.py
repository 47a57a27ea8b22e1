"""Builders of the Qualcomm AI Hub Models architectures (../shared/aihub/architectures.tsv)
as ONNX, from their published definitions, with seeded weights: scripts/make-aihub-models."""
