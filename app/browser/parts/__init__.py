"""A tab made of small parts, each with its own protocol in workflows/ports.py: `control`, `navigation`,
`input`, `reading`, `capture`, `network`, `recording` (`tab.Tab` holds them; `core.TabCore` is what they
share)."""
