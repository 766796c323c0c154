"""Pure record -> episode transforms: text, intent, references, fingerprint. No Dagster, no I/O."""
