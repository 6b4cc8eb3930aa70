"""One script per paper figure or table, each writing a PNG and a CSV."""
