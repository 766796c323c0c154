"""The ground layer: what every other package may import and what imports nothing of ours.

records (the record model and per-record ErrorClass), contract (the reader contract and checkpoints), identity
(e-mail normalisation, Salesforce ids), errors (the source error taxonomy).
"""
