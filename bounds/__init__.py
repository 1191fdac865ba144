"""Lower/upper bounds and proven ratio constants, one module per family (resilsched.bounds)."""
