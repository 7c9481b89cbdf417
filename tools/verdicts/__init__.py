"""The claims: the registry's rules evaluated into verdicts, and the ledger that shows them."""
