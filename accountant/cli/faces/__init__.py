"""One small face per protocol family (flags, handlers, JSON), plus the bounds' faces.
Faces parse and print; the mathematics is in `accountant.protocols` and `accountant.bounds`."""
