"""One module per protocol; each builds the `ViewPair` of its shuffled output and may
expose `CLI_SPEC` (see `accountant.protocols.registry`)."""
