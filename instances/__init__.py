"""Instance types, generators, readers and presets, one module per family (resilsched.instances)."""
