"""Instance libraries with certificates (docs/architecture.md, "Libraries").

A library is a folder of instance files plus ``manifest.json``; every instance carries, in
JobShopLib's style, its ``optimum`` (or ``lower_bound`` and ``upper_bound``) and the certificate
that proved it (exact model, solver, versions, proof time, generator and seed) under
``"metadata"``. The shipped libraries live in ``resilsched/library/data/<name>/``.

- `resilsched.library.certificate`: `Certificate` (from a `Solution`, to and from the metadata)
  and `compare` (does a stored certificate hold against a re-solve?);
- `resilsched.library.catalog`: `Library`, the shipped libraries and their specs, look-up by
  name or folder;
- `resilsched.library.build`: certify instances (on the campaign engine) and write a library;
- `resilsched.library.verify`: re-solve a sample and check the stored certificates;
- `resilsched.library.gap`: the gap report of every heuristic against stored certificates.
"""
