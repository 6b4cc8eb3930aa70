"""One package per protocol family. Each exposes, through its package face, the functions
that build its shuffled views and privacy values, and a frozen `Mechanism` implementing the
protocol contract of `accountant.protocols.contract`. A protocol uses another protocol
only through that package face."""
