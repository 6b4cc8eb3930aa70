"""One module per seed paper: its snippet functions (the computations behind its records) and
`audit(quick, record)`, which yields the paper's audit records (`figures.audit_report`
collects them).

Snippet rules.

A record runs its function here and shows the same function as its `python -c` command
(`audit_report.Snippet`): the body's statements joined by "; ", the arguments written in as
literals, and the returned tuple printed. So that the shown command is the computation that
produced the record's values, each function here:

- imports what it uses inside its body (the command starts in an empty interpreter) and uses no
  other outside name than its arguments;
- is a sequence of simple statements (no blocks: they cannot be joined by "; ") ending in
  `return (...)`, a tuple of numbers;
- breaks a long statement only where the command has a space (the line breaks and the
  indentation are read as one space), and uses no double quote, `$`, backquote or backslash.

tests/figures/test_audit_report.py runs every shown command and compares what it prints with the
record's values.
"""
