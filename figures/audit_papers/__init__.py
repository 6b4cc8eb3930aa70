"""One module per seed paper: `audit(quick, record)` yields the paper's audit records
(`figures.audit_report` collects them)."""
