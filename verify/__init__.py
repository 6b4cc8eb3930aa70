"""Independent checks of the accountant: literal protocol samplers, goodness-of-fit
cross-checks of exact PMFs, audits of paper claims and empirical attacks."""
