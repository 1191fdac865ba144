"""Family registrations: one module per family builds its `resilsched.registry.Family`."""
