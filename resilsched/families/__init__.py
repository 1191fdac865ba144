"""Family registrations: one module per family builds its `resilsched.plugin.Family` as ``FAMILY``.

Every module of this package whose name does not start with ``_`` is a family, discovered by
`resilsched.registry.family_modules` (docs/architecture.md, "Adding a family").
"""
