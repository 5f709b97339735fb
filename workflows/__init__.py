"""The workflow engine: documents, node types, executor and stores (pure Python, no Qt)."""
